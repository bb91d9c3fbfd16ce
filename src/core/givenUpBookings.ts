/**
 * What a claim given up is booked at, and how the bookings of claims given up beside each other
 * follow when the venue's word on one of them comes after all (unknownClaims.ts settles; this is
 * the arithmetic): inferred from what the positions show beyond what is ours and beyond the
 * operator's own; one growth of a symbol shared among the claims given up on it.
 */
import type { Fill } from "../engine/types.js";
import { heldBeyondOurs } from "./accountWatch.js";
import type { CoreContext } from "./coreContext.js";

/**
 * Of each symbol requested, what the account now holds beyond what is ours and beyond the
 * operator's own when the claim was sent (its `notOurs`), up to the request, in its direction.
 * `booked`: the claim is booked at its request already (a lean answer), so what is ours holds it:
 * the booking corrected by what the account does not show of it.
 */
export function inferredFills(
  c: CoreContext,
  p: { requested: readonly Fill[]; notOurs: Readonly<Record<string, number>> | undefined },
  booked: boolean,
): Fill[] {
  const out: Fill[] = [];
  for (const r of p.requested) {
    // Unknown positions: nothing inferred (a lean booking stays as it was).
    if (!c.positions.known) {
      if (booked) out.push({ ...r });
      continue;
    }
    const grown = heldBeyondOurs(c, r.symbol) - (p.notOurs?.[r.symbol] ?? 0) + (booked ? r.qty : 0);
    const dir = Math.sign(r.qty);
    const qty = dir * Math.min(Math.abs(r.qty), Math.max(0, dir * grown));
    if (qty !== 0 || booked) out.push({ symbol: r.symbol, qty, price: r.price, fee: 0 });
  }
  return out;
}

/**
 * A claim booked on inference (given up) or at its request (lean) was confirmed with other than
 * that: what the positions showed was one growth shared with the claims given up on the symbol.
 * Confirmed with more, the others give it back; with less, the rest goes to others booked below
 * their request (oldest first, never past it): together they still book what the positions showed.
 */
export function rebookBeside(ctx: CoreContext, id: number, was: readonly Fill[], fills: readonly Fill[]): void {
  const { fold, port, logger } = ctx;
  for (const symbol of new Set([...was, ...fills].map((f) => f.symbol))) {
    let extra = 0;
    for (const f of fills) if (f.symbol === symbol) extra += f.qty;
    for (const b of was) if (b.symbol === symbol) extra -= b.qty;
    for (const [other, c] of fold.claims) {
      if (Math.abs(extra) < 1e-12) break;
      const booked = c.givenUp === true && other !== id && !c.outcomes.some((o) => o.result === "confirmed") ? c.provisional : undefined;
      const asked = c.intent.perSymbolQty[symbol];
      if (booked === undefined || asked === undefined) continue;
      const now = booked.find((b) => b.symbol === symbol)?.qty ?? 0;
      // More confirmed: take back from what the other holds; less: give up to what it asked.
      const room = Math.sign(extra) === Math.sign(asked) ? now : now - asked;
      if (Math.sign(room) !== Math.sign(extra)) continue;
      const move = Math.sign(extra) * Math.min(Math.abs(extra), Math.abs(room));
      extra -= move;
      const qty = Math.round((now - move) * 1e9) / 1e9;
      const price = c.intent.limitPrice[symbol] ?? 0;
      const rebooked = [...booked.filter((b) => b.symbol !== symbol).map((b) => ({ ...b })), { symbol, qty, price, fee: 0 }];
      ctx.record({ t: "outcome", id: other, at: port.now(), result: "given_up", fills: rebooked, attempt: c.intent.attempt ?? 1 });
      logger.warn(
        { id: other, symbol, was: now, qty, confirmed: id },
        "a claim given up is rebooked: another given up beside it was confirmed",
      );
    }
  }
}
