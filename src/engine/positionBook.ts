/**
 * The account's held positions as the venue reports them, kept in Exposure's `held` quantities.
 * Three sources report the same positions at different venue times, and may arrive out of order:
 *
 * - `GET /v1/positions` (docs/protocol.md §6): every symbol, as of the answer's venue time;
 * - the private `position` push (docs/protocol.md §5): a delta per symbol, as of the frame's venue time;
 * - a claim's answer: the quantities the claim transferred, applied at the answer's venue time;
 * - a fill of the account's own (unwind) order: the quantity traded, at the fill's venue time.
 *
 * Per symbol the book remembers the venue time its quantity is as of, and a report older than that
 * is ignored for the symbol: a REST snapshot taken before a push must not undo the push, and a claim
 * applied before the last report of its symbol is already in it (adding it again would count it
 * twice and block claims the policy allows). A claim or fill after the last report is added, and
 * moves the symbol's time on for reports. Increments are not gated by each other: two of them at the
 * same venue millisecond (the trades of one IOC across book levels, a claim and a fill) are both
 * new, so they are compared with the last full report only. Pure: no clock, no I/O.
 */
import type { Exposure, HeldPositionInput } from "./exposure.js";
import { roundQty } from "./quantize.js";

type ExposureView = Pick<Exposure, "setHeld" | "heldQty" | "release" | "commit" | "symbols">;

/** Told of every change of a symbol's held quantity (the unwinder acts on it). */
export type PositionListener = (symbol: string, qty: number, before: number) => void;

/** A symbol whose held quantity a full snapshot of the venue put right. */
export interface PositionCorrection {
  symbol: string;
  was: number;
  now: number;
}

/** Below this a difference is float noise from summing fills, not a correction. */
const QTY_EPSILON = 1e-9;

export class PositionBook {
  readonly #exposure: ExposureView;
  /** Venue time of the newest news of each symbol (a report or an increment): older reports are stale. */
  readonly #asOf = new Map<string, number>();
  /** Venue time of the last report (push or snapshot) applied per symbol: increments up to it are in it. */
  readonly #reportedAt = new Map<string, number>();
  readonly #listeners: PositionListener[] = [];
  #known = false;

  constructor(exposure: ExposureView) {
    this.#exposure = exposure;
  }

  onChange(listener: PositionListener): void {
    this.#listeners.push(listener);
  }

  /** Every symbol with something held or reserved. */
  symbols(): string[] {
    return this.#exposure.symbols();
  }

  /** The held quantity of `symbol` (signed). */
  held(symbol: string): number {
    return this.#exposure.heldQty(symbol);
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
      this.#set(p.symbol, p.positionQty, p.markPrice);
      if (venueTs !== undefined) this.#reported(p.symbol, venueTs);
    }
  }

  /**
   * A full snapshot of the account: symbols not listed are flat, unless newer news says otherwise.
   * Returns the corrections: symbols whose held quantity the book had wrong (none for the first
   * snapshot, which is the start and not a correction).
   */
  applySnapshot(positions: readonly HeldPositionInput[], venueTs: number | undefined): PositionCorrection[] {
    const wasKnown = this.#known;
    const before = new Map(this.#exposure.symbols().map((symbol) => [symbol, this.#exposure.heldQty(symbol)]));
    const listed = new Set<string>();
    for (const p of positions) listed.add(p.symbol);
    this.applyPush(positions, venueTs);
    for (const symbol of this.#exposure.symbols()) {
      if (listed.has(symbol) || this.#exposure.heldQty(symbol) === 0) continue;
      if (venueTs !== undefined && venueTs < this.asOf(symbol)) continue;
      this.#set(symbol, 0, undefined);
      if (venueTs !== undefined) this.#reported(symbol, venueTs);
    }
    this.#known = true;
    if (!wasKnown) return [];
    const corrections: PositionCorrection[] = [];
    for (const symbol of new Set([...before.keys(), ...listed])) {
      const was = before.get(symbol) ?? 0;
      const now = this.#exposure.heldQty(symbol);
      if (Math.abs(now - was) > QTY_EPSILON) corrections.push({ symbol, was, now });
    }
    return corrections;
  }

  /**
   * A claim the venue applied at `venueTs` transferred `qty` (signed, per symbol): its reservation
   * goes, and each symbol whose last report predates the claim gets the quantity added.
   */
  settleClaim(liquidationId: number, qty: Readonly<Record<string, number>>, venueTs: number): void {
    const uncovered: Record<string, number> = {};
    const before = new Map<string, number>();
    for (const symbol of Object.keys(qty)) {
      if (this.#covered(symbol, venueTs)) continue;
      uncovered[symbol] = qty[symbol] as number;
      before.set(symbol, this.#exposure.heldQty(symbol));
      this.#advance(symbol, venueTs);
    }
    this.#exposure.commit(liquidationId, uncovered);
    for (const [symbol, b] of before) this.#changed(symbol, b);
  }

  /** A fill of the account's own order, `qty` signed (+ buy), at venue time `venueTs`: added unless a report already has it. */
  applyOwnFill(symbol: string, qty: number, venueTs: number): void {
    if (!Number.isFinite(qty) || qty === 0 || this.#covered(symbol, venueTs)) return;
    const held = this.#exposure.heldQty(symbol);
    this.#set(symbol, roundQty(held + qty), undefined);
    this.#advance(symbol, venueTs);
  }

  /** An increment at `venueTs` is already in the symbol's last report. */
  #covered(symbol: string, venueTs: number): boolean {
    return venueTs <= (this.#reportedAt.get(symbol) ?? Number.NEGATIVE_INFINITY);
  }

  #reported(symbol: string, venueTs: number): void {
    this.#reportedAt.set(symbol, venueTs);
    this.#asOf.set(symbol, venueTs);
  }

  #advance(symbol: string, venueTs: number): void {
    if (venueTs > this.asOf(symbol)) this.#asOf.set(symbol, venueTs);
  }

  #set(symbol: string, qty: number, markPrice: number | undefined): void {
    const before = this.#exposure.heldQty(symbol);
    this.#exposure.setHeld(symbol, qty, markPrice);
    this.#changed(symbol, before);
  }

  #changed(symbol: string, before: number): void {
    const now = this.#exposure.heldQty(symbol);
    if (now === before) return;
    for (const l of this.#listeners) l(symbol, now, before);
  }
}
