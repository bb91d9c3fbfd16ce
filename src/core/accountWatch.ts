/**
 * The venue's word on the account beside what is ours: position reports (snapshots and pushes) go to
 * the held positions; what they say about ours is journaled, never inferred twice:
 *
 * - a claim's margin mode: the report that moved the claim's symbol its way names the position it
 *   landed in (`claim_mode`, oldest claim first); with no report to wait for, where a position of
 *   its sign is held, cross first (the venue's default);
 * - closed elsewhere: a position reported smaller than what is ours (or flat, or on the other side)
 *   while nothing of ours is moving on it — no order of ours working, no claim in flight, unknown or
 *   unplaced on its symbol — was closed by hand or by another process: what is ours is set to what
 *   is held (`ours`), its lots realized at the mark. A report that merely overtakes our own fill is
 *   never taken for that: the order is still working then; nor one made in the millisecond a claim
 *   of ours was applied (it may predate the claim): a later report decides.
 *
 * What the unwinder may close of a position (`target`) is never more than held, never past zero,
 * never of the other sign, never a lean answer's booking before the venue confirms it; with
 * `unwind.scope: all`, the whole position.
 */
import type { HeldPositionInput } from "../engine/exposure.js";
import type { PositionCorrection } from "../engine/positionBook.js";
import { MARGIN_MODES, type MarginMode } from "../engine/types.js";
import type { CoreContext } from "./coreContext.js";
import { QTY_EPSILON, sign } from "./holdings.js";

export interface AccountWatchOptions {
  /** `unwind.scope`, read at each use (SIGHUP may change it). */
  scope(): "claimed" | "all";
  /** The mark of a symbol, for the P&L of what was closed elsewhere (undefined: realized at the lots' entry). */
  mark(symbol: string): number | undefined;
  /** Something of ours is moving on `symbol` (a claim in flight, unknown or booked at its request). */
  claimsMoving(symbol: string): boolean;
  /** An order of ours is working on the position. */
  orderWorking(symbol: string, mode: MarginMode): boolean;
  /** What may be closed of a position changed (the unwinder looks again). */
  changed(symbol: string, mode: MarginMode): void;
  /** A position shrank: exposure and margin were freed (skips they caused are decided again). */
  freed(): void;
}

/**
 * What the account holds of `symbol` beyond what is ours (all margin modes, the reports' pending
 * claims included; signed): the operator's own, and claims of ours not settled yet.
 */
export function heldBeyondOurs(c: Pick<CoreContext, "positions" | "fold">, symbol: string): number {
  const { positions, fold } = c;
  let held = positions.pending(symbol);
  let ours = fold.holdings.unplaced(symbol);
  for (const mode of MARGIN_MODES) {
    held += positions.held(symbol, mode);
    ours += fold.holdings.ours(symbol, mode);
  }
  return Math.round((held - ours) * 1e9) / 1e9;
}

export interface UnexplainedPosition {
  symbol: string;
  marginMode: MarginMode;
  qty: number;
}

export class AccountWatch {
  readonly #c: CoreContext;
  readonly #o: AccountWatchOptions;
  /** Per symbol, what the account held beyond what was ours the last time nothing of ours moved on it. */
  readonly #own = new Map<string, number>();

  constructor(c: CoreContext, o: AccountWatchOptions) {
    this.#c = c;
    this.#o = o;
    c.positions.onChange((symbol, qty, before, mode) => {
      this.#reported(symbol, mode, qty - before);
      if (Math.abs(qty) < Math.abs(before)) o.freed();
    });
  }

  /** A `position` push (a delta per position, as of the frame's venue time). */
  push(rows: readonly HeldPositionInput[], venueTs: number | undefined): void {
    this.#c.positions.applyPush(rows, venueTs);
    for (const r of rows) this.#check(r.symbol, r.marginMode ?? "CROSS");
  }

  /** `GET /v1/positions`: the whole account; the positions the book had wrong. */
  snapshot(rows: readonly HeldPositionInput[], venueTs: number | undefined): PositionCorrection[] {
    const corrections = this.#c.positions.applySnapshot(rows, venueTs);
    this.reconcile();
    // The whole account is known now: the operator's own measured wherever nothing of ours moves.
    for (const symbol of this.#c.positions.symbols()) if (this.#quiet(symbol)) this.#measure(symbol);
    return corrections;
  }

  /** Every position of ours checked against what is held (after a snapshot, a restart, an election). */
  reconcile(): void {
    const { fold } = this.#c;
    for (const { symbol, mode } of fold.holdings.positions()) this.#check(symbol, mode);
    for (const { symbol } of this.#c.positions.positions()) this.#placeByHeld(symbol);
  }

  /**
   * What the unwinder closes of `held` (the position of `symbol` in `mode`). A lean answer's booking
   * (the request, until the venue says what it transferred) is not closed yet: the venue may have
   * applied less than was asked, and closing the difference would trade a position not ours.
   */
  target(symbol: string, mode: MarginMode, held: number): number {
    if (this.#o.scope() === "all") return held;
    this.#placeByHeld(symbol);
    const ours = this.#c.fold.holdings.ours(symbol, mode);
    if (sign(ours) === 0 || sign(held) !== sign(ours)) return 0;
    const closable = Math.max(0, Math.abs(ours) - this.#unconfirmed(symbol, sign(ours)));
    return sign(held) * Math.min(Math.abs(held), closable);
  }

  /** Booked at the request and not confirmed, on `symbol`, in direction `dir` (absolute). */
  #unconfirmed(symbol: string, dir: number): number {
    let q = 0;
    for (const c of this.#c.fold.claims.values()) {
      if (c.provisional === undefined || c.givenUp === true) continue;
      for (const f of c.provisional) if (f.symbol === symbol && sign(f.qty) === dir) q += Math.abs(f.qty);
    }
    return q;
  }

  /** Positions with a part no claim explains (the operator's own); unplaced claims count against their symbol. */
  unexplained(): UnexplainedPosition[] {
    const { positions, fold } = this.#c;
    const out: UnexplainedPosition[] = [];
    for (const { symbol, mode } of positions.positions()) {
      const held = positions.held(symbol, mode);
      const ours = fold.holdings.ours(symbol, mode);
      let qty = held - (sign(ours) === sign(held) ? sign(held) * Math.min(Math.abs(held), Math.abs(ours)) : 0);
      const unplaced = fold.holdings.unplaced(symbol);
      if (sign(unplaced) === sign(qty)) qty = sign(qty) * Math.max(0, Math.abs(qty) - Math.abs(unplaced));
      if (sign(qty) !== 0) out.push({ symbol, marginMode: mode, qty: Math.round(qty * 1e9) / 1e9 });
    }
    return out;
  }

  /**
   * The operator's own of `symbol` (signed, all modes): what the account holds beyond what is ours,
   * measured while nothing of ours moves on it — now if so, else when last so, else (a start with
   * claims unsettled) as the oldest of them recorded it, else as the newest intent did. A claim given up is inferred from what grew
   * past it (unknownClaims.ts), so that a claim not settled when another was sent is never counted
   * twice, and the operator's position never as ours.
   */
  notOurs(symbol: string): number {
    if (this.#quiet(symbol)) return this.#measure(symbol);
    const seen = this.#own.get(symbol);
    if (seen !== undefined) return seen;
    for (const c of this.#c.fold.claims.values()) {
      const v = c.intent.notOurs?.[symbol];
      if (v !== undefined) return v;
    }
    return this.#c.fold.notOurs.get(symbol) ?? heldBeyondOurs(this.#c, symbol);
  }

  #measure(symbol: string): number {
    const v = heldBeyondOurs(this.#c, symbol);
    this.#own.set(symbol, v);
    return v;
  }

  /** Nothing of ours moves on `symbol`: what the reports say beyond ours is the operator's. */
  #quiet(symbol: string): boolean {
    const { fold, positions } = this.#c;
    return (
      positions.known &&
      !this.#o.claimsMoving(symbol) &&
      fold.holdings.unplacedClaims(symbol).length === 0 &&
      positions.pending(symbol) === 0 &&
      !positions.uncertain(symbol) &&
      !MARGIN_MODES.some((m) => this.#o.orderWorking(symbol, m))
    );
  }

  /** A report moved a position by `delta`: unplaced claims of its sign landed there. */
  #reported(symbol: string, mode: MarginMode, delta: number): void {
    const { fold, port } = this.#c;
    if (sign(delta) !== 0 && port.mayLead()) {
      let left = delta;
      for (const u of fold.holdings.unplacedClaims(symbol)) {
        if (sign(left) !== sign(u.qty)) break;
        this.#place(u.id, symbol, mode);
        left -= u.qty;
      }
    }
    if (this.#quiet(symbol)) this.#measure(symbol);
    this.#o.changed(symbol, mode);
  }

  /** No report to place them by: where a position of their sign is held, cross first. */
  #placeByHeld(symbol: string): void {
    const { fold, positions, port } = this.#c;
    if (fold.holdings.unplaced(symbol) === 0 && fold.holdings.unplacedClaims(symbol).length === 0) return;
    if (positions.pending(symbol) !== 0 || !positions.known || !port.mayLead()) return;
    for (const u of fold.holdings.unplacedClaims(symbol)) {
      const mode = MARGIN_MODES.find((m) => sign(positions.held(symbol, m)) === sign(u.qty)) ?? "CROSS";
      this.#place(u.id, symbol, mode);
    }
    for (const mode of MARGIN_MODES) this.#check(symbol, mode);
  }

  #place(id: number, symbol: string, mode: MarginMode): void {
    this.#c.record({ t: "claim_mode", id, symbol, marginMode: mode, at: this.#c.port.now() });
    this.#o.changed(symbol, mode);
  }

  /** Closed elsewhere: held is less than ours while nothing of ours moves on the position. */
  #check(symbol: string, mode: MarginMode): void {
    const { fold, positions, port } = this.#c;
    const ours = fold.holdings.ours(symbol, mode);
    if (sign(ours) === 0 || !positions.known || !port.mayLead()) return;
    const held = positions.held(symbol, mode);
    if (sign(held) === sign(ours) && Math.abs(held) >= Math.abs(ours) - QTY_EPSILON) return;
    const quiet =
      !this.#o.orderWorking(symbol, mode) &&
      !this.#o.claimsMoving(symbol) &&
      fold.holdings.unplacedClaims(symbol).length === 0 &&
      positions.pending(symbol) === 0 &&
      !positions.uncertain(symbol);
    if (!quiet) return;
    const qty = sign(held) === sign(ours) ? held : 0;
    const price = this.#o.mark(symbol) ?? 0;
    this.#c.record({ t: "ours", symbol, marginMode: mode, qty, was: ours, price, reason: "closed_elsewhere", at: port.now() });
    this.#c.logger.warn(
      { symbol, marginMode: mode, ours, held },
      "less is held than our claims left open: closed elsewhere (by hand, or another process); what is ours follows the venue",
    );
    this.#c.observer.changed();
    this.#o.changed(symbol, mode);
  }
}
