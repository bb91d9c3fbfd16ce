/**
 * The account's held positions as the venue reports them, kept in Exposure's `held` quantities.
 * Three sources report the same positions at different venue times, and may arrive out of order:
 *
 * - `GET /v1/positions` (PROTOCOL.md §6): every symbol, as of the answer's venue time;
 * - the private `position` push (PROTOCOL.md §5): a delta per symbol, as of the frame's venue time;
 * - a claim's answer: the quantities the claim transferred, applied at the answer's venue time.
 *
 * Per symbol the book remembers the venue time its quantity is as of, and a report older than that
 * is ignored for the symbol: a REST snapshot taken before a push must not undo the push, and a claim
 * applied before the last report of its symbol is already in it (adding it again would count it
 * twice and block claims the policy allows). A claim applied after it is added, and its time becomes
 * the symbol's time. Pure: no clock, no I/O.
 */
import type { Exposure, HeldPositionInput } from "./exposure.js";

export class PositionBook {
  readonly #exposure: Pick<Exposure, "setHeld" | "heldQty" | "release" | "commit" | "symbols">;
  readonly #asOf = new Map<string, number>();
  #known = false;

  constructor(exposure: Pick<Exposure, "setHeld" | "heldQty" | "release" | "commit" | "symbols">) {
    this.#exposure = exposure;
  }

  /** True once the venue has reported the whole account (a REST snapshot): held quantities are its word. */
  get known(): boolean {
    return this.#known;
  }

  /** Venue time the symbol's held quantity is as of (−Infinity when never reported). */
  asOf(symbol: string): number {
    return this.#asOf.get(symbol) ?? Number.NEGATIVE_INFINITY;
  }

  /** A `position` push: each listed symbol is replaced unless the book has newer news of it. */
  applyPush(positions: readonly HeldPositionInput[], venueTs: number | undefined): void {
    for (const p of positions) {
      if (!Number.isFinite(p.positionQty)) continue;
      if (venueTs !== undefined && venueTs < this.asOf(p.symbol)) continue;
      this.#exposure.setHeld(p.symbol, p.positionQty, p.markPrice);
      if (venueTs !== undefined) this.#asOf.set(p.symbol, venueTs);
    }
  }

  /** A full snapshot of the account: symbols not listed are flat, unless newer news says otherwise. */
  applySnapshot(positions: readonly HeldPositionInput[], venueTs: number | undefined): void {
    const listed = new Set<string>();
    for (const p of positions) listed.add(p.symbol);
    this.applyPush(positions, venueTs);
    for (const symbol of this.#exposure.symbols()) {
      if (listed.has(symbol) || this.#exposure.heldQty(symbol) === 0) continue;
      if (venueTs !== undefined && venueTs < this.asOf(symbol)) continue;
      this.#exposure.setHeld(symbol, 0);
      if (venueTs !== undefined) this.#asOf.set(symbol, venueTs);
    }
    this.#known = true;
  }

  /**
   * A claim the venue applied at `venueTs` transferred `qty` (signed, per symbol): its reservation
   * goes, and each symbol whose last report predates the claim gets the quantity added.
   */
  settleClaim(liquidationId: number, qty: Readonly<Record<string, number>>, venueTs: number): void {
    const uncovered: Record<string, number> = {};
    for (const symbol of Object.keys(qty)) {
      if (venueTs <= this.asOf(symbol)) continue;
      uncovered[symbol] = qty[symbol] as number;
      this.#asOf.set(symbol, venueTs);
    }
    this.#exposure.commit(liquidationId, uncovered);
  }
}
