/**
 * What is ours: per position (a symbol in one margin mode, docs/protocol.md §9), the signed quantity
 * our claims assigned and our own orders have not closed yet. Changed only by journal records, in
 * journal order, so a restart that folds the journal gets the same numbers:
 *
 * - a claim's fills add to the position their margin mode names (`claim_mode`, the venue's next
 *   report says it); until then they are *unplaced* on their symbol;
 * - a fill of our own order takes from the position of the order's mode, never past zero and never
 *   more than is ours: the rest of the fill closed something that is not ours (scope `all`);
 * - an `ours` record sets a position's quantity outright: the venue reported less than ours while
 *   nothing of ours was moving (closed by hand, or by another process).
 *
 * Position reports never change what is ours by themselves: a report that overtakes a fill is not a
 * reason to forget a newer claim. Pure, no clock.
 */
import { roundQty } from "../engine/quantize.js";
import type { MarginMode } from "../engine/types.js";
import type { ClaimedBaseRecord, ClaimModeRecord, OrderFillRecord, OursRecord } from "./journalRecords.js";

/** Below this a quantity is float noise from summing fills. */
export const QTY_EPSILON = 1e-9;

export const sign = (x: number): number => (Math.abs(x) < QTY_EPSILON ? 0 : Math.sign(x));

/** A position's key: the symbol for cross, `SYMBOL ISOLATED` otherwise (also the P&L ledger's lot key). */
export const positionKey = (symbol: string, mode: MarginMode): string => (mode === "CROSS" ? symbol : `${symbol} ${mode}`);

interface PositionTotals {
  ours: number;
  /** Cumulative claimed and unwound quantities: what a journal of format 2's `claimed_base` is relative to. */
  claimed: number;
  unwound: number;
}

/** Orders whose mode is kept after they finish, for a trade report that arrives after the outcome. */
const RECENT_ORDERS = 1_000;

export class Holdings {
  readonly #positions = new Map<string, PositionTotals & { symbol: string; mode: MarginMode }>();
  /** Claim quantities whose mode no report has said yet, per symbol, oldest first. */
  readonly #unplaced = new Map<string, { id: number; qty: number }[]>();
  /** Modes said for claims before their fills were known (`${id} ${symbol}`). */
  readonly #modes = new Map<string, MarginMode>();
  /** Margin mode of each open order, and of the last finished ones. */
  readonly #orders = new Map<string, MarginMode>();
  readonly #finished: string[] = [];

  /** Signed quantity of the position that is ours. */
  ours(symbol: string, mode: MarginMode): number {
    return this.#positions.get(positionKey(symbol, mode))?.ours ?? 0;
  }

  /** Claimed quantity of `symbol` whose margin mode is not known yet. */
  unplaced(symbol: string): number {
    let q = 0;
    for (const u of this.#unplaced.get(symbol) ?? []) q += u.qty;
    return roundQty(q);
  }

  /** The unplaced claims of `symbol`, oldest first (copies). */
  unplacedClaims(symbol: string): { id: number; qty: number }[] {
    return (this.#unplaced.get(symbol) ?? []).map((u) => ({ ...u }));
  }

  /** Every position with something of ours, and every symbol with an unplaced claim (as its cross position). */
  positions(): { symbol: string; mode: MarginMode }[] {
    const out: { symbol: string; mode: MarginMode }[] = [];
    const seen = new Set<string>();
    for (const p of this.#positions.values()) {
      if (sign(p.ours) === 0) continue;
      out.push({ symbol: p.symbol, mode: p.mode });
      seen.add(positionKey(p.symbol, p.mode));
    }
    for (const symbol of this.#unplaced.keys()) if (!seen.has(symbol)) out.push({ symbol, mode: "CROSS" });
    return out;
  }

  /** The mode an order trades in (undefined: not an order of ours, or long forgotten). */
  orderMode(clientOrderId: string): MarginMode | undefined {
    return this.#orders.get(clientOrderId);
  }

  /** A claim's fills (`qty` signed per symbol) are ours: where their mode is known, else unplaced. */
  claimed(id: number, fills: readonly { symbol: string; qty: number }[]): void {
    for (const f of fills) {
      if (sign(f.qty) === 0) continue;
      const mode = this.#modes.get(`${id} ${f.symbol}`);
      if (mode !== undefined) {
        const p = this.#at(f.symbol, mode);
        p.ours = roundQty(p.ours + f.qty);
        p.claimed += f.qty;
        continue;
      }
      const list = this.#unplaced.get(f.symbol);
      if (list === undefined) this.#unplaced.set(f.symbol, [{ id, qty: f.qty }]);
      else {
        const u = list.find((x) => x.id === id);
        if (u !== undefined) u.qty = roundQty(u.qty + f.qty);
        else list.push({ id, qty: f.qty });
        if (u !== undefined && sign(u.qty) === 0) list.splice(list.indexOf(u), 1);
        if (list.length === 0) this.#unplaced.delete(f.symbol);
      }
    }
  }

  /** The mode a claim's quantity of one symbol landed in (journaled when a report said it). */
  placed(rec: ClaimModeRecord): void {
    const list = this.#unplaced.get(rec.symbol);
    const i = list?.findIndex((u) => u.id === rec.id) ?? -1;
    if (list === undefined || i < 0) {
      // Said before the claim's fills are known (a lean answer corrected later): kept for them.
      this.#modes.set(`${rec.id} ${rec.symbol}`, rec.marginMode);
      return;
    }
    const [u] = list.splice(i, 1);
    if (list.length === 0) this.#unplaced.delete(rec.symbol);
    const p = this.#at(rec.symbol, rec.marginMode);
    p.ours = roundQty(p.ours + (u?.qty ?? 0));
    p.claimed += u?.qty ?? 0;
    // A correction of the same claim later lands in the same mode.
    this.#modes.set(`${rec.id} ${rec.symbol}`, rec.marginMode);
  }

  /** The mode said for an open claim's symbol before its fills were final (undefined: not said). */
  claimMode(id: number, symbol: string): MarginMode | undefined {
    return this.#modes.get(`${id} ${symbol}`);
  }

  /** A claim is over (settled for good, or dropped): a mode remembered for it is not needed any more. */
  forgetClaim(id: number, symbols: Iterable<string>): void {
    for (const s of symbols) this.#modes.delete(`${id} ${s}`);
  }

  orderIntent(clientOrderId: string, mode: MarginMode | undefined): void {
    this.#orders.set(clientOrderId, mode ?? "CROSS");
  }

  orderFinished(clientOrderId: string): void {
    if (!this.#orders.has(clientOrderId)) return;
    this.#finished.push(clientOrderId);
    if (this.#finished.length > RECENT_ORDERS) this.#orders.delete(this.#finished.shift() as string);
  }

  /**
   * A trade of our own order: the part of it that closed what is ours (signed like the trade; 0 when
   * the order is unknown or the trade went the other way). The rest closed something not ours.
   */
  orderFill(rec: OrderFillRecord): { mode: MarginMode | undefined; portion: number } {
    const mode = this.#orders.get(rec.clientOrderId);
    if (mode === undefined) return { mode, portion: 0 };
    const p = this.#at(rec.symbol, mode);
    p.unwound += rec.qty;
    const ours = p.ours;
    let portion = 0;
    if (sign(ours) !== 0 && sign(rec.qty) === -sign(ours)) {
      portion = sign(rec.qty) * Math.min(Math.abs(rec.qty), Math.abs(ours));
      // Quantities are on the venue's step: the sum is rounded so float noise never leaves a sliver.
      p.ours = roundQty(ours + portion);
    }
    // More than is placed here: claims whose mode no report has said yet were closed too (a late
    // confirmation moved part of a booking to them while the order was out). Their P&L lots sit with
    // the cross position's, so a cross order takes from them, as the ledger does.
    if (mode === "CROSS") portion += this.#closeUnplaced(rec.symbol, roundQty(rec.qty - portion));
    return { mode, portion };
  }

  #closeUnplaced(symbol: string, qty: number): number {
    const list = this.#unplaced.get(symbol);
    let closed = 0;
    if (list === undefined) return 0;
    for (const u of list) {
      const left = roundQty(qty - closed);
      if (sign(left) === 0) break;
      if (sign(u.qty) !== -sign(left)) continue;
      const take = sign(left) * Math.min(Math.abs(left), Math.abs(u.qty));
      u.qty = roundQty(u.qty + take);
      closed += take;
    }
    const kept = list.filter((u) => sign(u.qty) !== 0);
    if (kept.length === 0) this.#unplaced.delete(symbol);
    else this.#unplaced.set(symbol, kept);
    return closed;
  }

  /** An `ours` record: the position's quantity set outright; the change (new − old). */
  set(rec: OursRecord): number {
    const p = this.#at(rec.symbol, rec.marginMode);
    const delta = rec.qty - p.ours;
    p.ours = rec.qty;
    return delta;
  }

  /** A format-2 journal's `claimed_base`: what is ours is what was claimed and unwound since those totals. */
  legacyBase(rec: ClaimedBaseRecord): void {
    const p = this.#at(rec.symbol, rec.marginMode);
    p.ours = roundQty(p.claimed - rec.claimed + (p.unwound - rec.unwound));
  }

  /** JSON for a snapshot. */
  snapshot(): HoldingsSnapshot {
    return {
      positions: [...this.#positions.values()]
        .filter((p) => sign(p.ours) !== 0 || p.claimed !== 0 || p.unwound !== 0)
        .map((p) => [p.symbol, p.mode, p.ours, p.claimed, p.unwound]),
      unplaced: [...this.#unplaced].map(([s, list]) => [s, list.map((u) => [u.id, u.qty])]),
      modes: [...this.#modes],
      orders: [...this.#orders],
    };
  }

  static fromSnapshot(s: HoldingsSnapshot): Holdings {
    const h = new Holdings();
    for (const [symbol, mode, ours, claimed, unwound] of s.positions) Object.assign(h.#at(symbol, mode), { ours, claimed, unwound });
    for (const [symbol, list] of s.unplaced)
      h.#unplaced.set(
        symbol,
        list.map(([id, qty]) => ({ id, qty })),
      );
    for (const [k, mode] of s.modes) h.#modes.set(k, mode);
    for (const [cid, mode] of s.orders) h.#orders.set(cid, mode);
    return h;
  }

  #at(symbol: string, mode: MarginMode): PositionTotals & { symbol: string; mode: MarginMode } {
    const k = positionKey(symbol, mode);
    let p = this.#positions.get(k);
    if (p === undefined) {
      p = { symbol, mode, ours: 0, claimed: 0, unwound: 0 };
      this.#positions.set(k, p);
    }
    return p;
  }
}

export interface HoldingsSnapshot {
  /** [symbol, mode, ours, claimed, unwound]. */
  positions: [string, MarginMode, number, number, number][];
  unplaced: [string, [number, number][]][];
  modes: [string, MarginMode][];
  orders: [string, MarginMode][];
}
