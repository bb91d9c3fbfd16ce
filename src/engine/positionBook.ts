/**
 * The account's held positions as the venue reports them, kept in Exposure's `held` quantities.
 * A position is a symbol AND a margin mode (docs/protocol.md §9): a cross and an isolated position
 * of one symbol are two positions, reported, gated and unwound apart. Sources, each at its venue time
 * and possibly out of order:
 *
 * - `GET /v1/positions` (docs/protocol.md §6): every position, as of the answer's venue time;
 * - the private `position` push (docs/protocol.md §5): a delta per position, as of the frame's venue time;
 * - a claim's answer: the quantities the claim transferred, applied at the answer's venue time;
 * - a fill of the account's own (unwind) order: the quantity traded, at the fill's venue time.
 *
 * Per position the book remembers the venue time its quantity is as of, and a report older than
 * that is ignored: a REST snapshot taken before a push must not undo the push, and a claim applied
 * before the last report of its symbol is already in it (adding it again would count it twice and
 * block claims the policy allows). A fill after the last report is added to its order's mode and
 * moves the position's time on. Increments are not gated by each other: two of them at the same
 * venue millisecond (the trades of one IOC across book levels, a claim and a fill) are both new, so
 * they are compared with the last full report only.
 *
 * Which mode a claim lands in is the venue's to say (its answer does not): a claim after the last
 * report of its symbol is held as `pending` (counted in exposure, not unwound) until a report of the
 * symbol at or after the claim's time arrives; the venue reports the position the claim changed, so
 * that report's quantities include it. Listeners hear `pending` so the daemon can ask for a report.
 * Pure: no clock, no I/O.
 */
import type { Exposure, HeldPositionInput } from "./exposure.js";
import { roundQty } from "./quantize.js";
import { MARGIN_MODES, type MarginMode } from "./types.js";

type ExposureView = Pick<Exposure, "setHeld" | "heldQty" | "release" | "commit" | "symbols" | "clearPending" | "pendingQty">;

/** Told of every change of a position's held quantity (the unwinder acts on it). */
export type PositionListener = (symbol: string, qty: number, before: number, mode: MarginMode) => void;

/** A held position: a symbol in one margin mode. */
export interface PositionKey {
  readonly symbol: string;
  readonly mode: MarginMode;
}

/** A position whose held quantity a full snapshot of the venue put right. */
export interface PositionCorrection {
  symbol: string;
  marginMode: MarginMode;
  was: number;
  now: number;
}

/** Below this a difference is float noise from summing fills, not a correction. */
const QTY_EPSILON = 1e-9;

const key = (symbol: string, mode: MarginMode): string => (mode === "CROSS" ? symbol : `${symbol} ${mode}`);

export class PositionBook {
  readonly #exposure: ExposureView;
  /** Venue time of the newest news of each position (a report or an increment): older reports are stale. */
  readonly #asOf = new Map<string, number>();
  /** Venue time of the last report (push or snapshot) applied per position: increments up to it are in it. */
  readonly #reportedAt = new Map<string, number>();
  /** Per symbol, the venue time of the newest claim whose mode no report has told yet. */
  readonly #pendingSince = new Map<string, number>();
  /**
   * Per symbol, a claim applied (or a fill of ours made) in the same venue millisecond as the last
   * report: taken as in it, but the report may have been made just before it. Until a later report,
   * what is held proves nothing (`uncertain`).
   */
  readonly #ties = new Map<string, number>();
  readonly #listeners: PositionListener[] = [];
  readonly #pendingListeners: ((symbol: string) => void)[] = [];
  #known = false;

  constructor(exposure: ExposureView) {
    this.#exposure = exposure;
  }

  onChange(listener: PositionListener): void {
    this.#listeners.push(listener);
  }

  /** Told when a claim's quantities wait for a report to say their margin mode, or a report is owed to settle a tie. */
  onPending(listener: (symbol: string) => void): void {
    this.#pendingListeners.push(listener);
  }

  /** Every symbol with something held or reserved. */
  symbols(): string[] {
    return this.#exposure.symbols();
  }

  /** Every position (symbol, mode) with something held, plus the cross one of each symbol with anything reserved. */
  positions(): PositionKey[] {
    const out: PositionKey[] = [];
    for (const symbol of this.#exposure.symbols()) {
      out.push({ symbol, mode: "CROSS" });
      if (this.#exposure.heldQty(symbol, "ISOLATED") !== 0) out.push({ symbol, mode: "ISOLATED" });
    }
    return out;
  }

  /** The held quantity of `symbol` in `mode` (signed; cross by default). */
  held(symbol: string, mode: MarginMode = "CROSS"): number {
    return this.#exposure.heldQty(symbol, mode);
  }

  /** What claims transferred into `symbol` that no report has attributed to a mode yet. */
  pending(symbol: string): number {
    return this.#exposure.pendingQty(symbol);
  }

  /** A claim on `symbol` was applied in the millisecond of the last report: whether that report has it is not known yet. */
  uncertain(symbol: string): boolean {
    return this.#ties.has(symbol);
  }

  /** True once the venue has reported the whole account (a REST snapshot): held quantities are its word. */
  get known(): boolean {
    return this.#known;
  }

  /** Venue time the position's held quantity is as of (−Infinity when never reported). */
  asOf(symbol: string, mode: MarginMode = "CROSS"): number {
    return this.#asOf.get(key(symbol, mode)) ?? Number.NEGATIVE_INFINITY;
  }

  /** A `position` push: each listed position is replaced unless the book has newer news of it. */
  applyPush(positions: readonly HeldPositionInput[], venueTs: number | undefined): void {
    for (const p of positions) {
      if (!Number.isFinite(p.positionQty)) continue;
      const mode = p.marginMode ?? "CROSS";
      if (venueTs !== undefined && venueTs < this.asOf(p.symbol, mode)) continue;
      this.#set(p.symbol, mode, p.positionQty, p.markPrice);
      if (venueTs !== undefined) this.#reported(p.symbol, mode, venueTs);
      this.#attributed(p.symbol, venueTs);
    }
  }

  /**
   * A full snapshot of the account: positions not listed are flat, unless newer news says otherwise.
   * Returns the corrections: positions whose held quantity the book had wrong (none for the first
   * snapshot, which is the start and not a correction).
   */
  applySnapshot(positions: readonly HeldPositionInput[], venueTs: number | undefined): PositionCorrection[] {
    const wasKnown = this.#known;
    const before = new Map<string, { symbol: string; mode: MarginMode; qty: number }>();
    for (const { symbol, mode } of this.positions()) before.set(key(symbol, mode), { symbol, mode, qty: this.held(symbol, mode) });
    const listed = new Map<string, PositionKey>();
    for (const p of positions) listed.set(key(p.symbol, p.marginMode ?? "CROSS"), { symbol: p.symbol, mode: p.marginMode ?? "CROSS" });
    this.applyPush(positions, venueTs);
    for (const symbol of this.#exposure.symbols()) {
      for (const mode of MARGIN_MODES) {
        if (listed.has(key(symbol, mode)) || this.held(symbol, mode) === 0) continue;
        if (venueTs !== undefined && venueTs < this.asOf(symbol, mode)) continue;
        this.#set(symbol, mode, 0, undefined);
        if (venueTs !== undefined) this.#reported(symbol, mode, venueTs);
      }
      // The whole account as of venueTs: every claim up to then is in it, whatever its mode.
      this.#attributed(symbol, venueTs);
    }
    this.#known = true;
    if (!wasKnown) return [];
    const corrections: PositionCorrection[] = [];
    const seen = new Map<string, PositionKey>([...before, ...listed]);
    for (const [k, p] of seen) {
      const was = before.get(k)?.qty ?? 0;
      const now = this.held(p.symbol, p.mode);
      if (Math.abs(now - was) > QTY_EPSILON) corrections.push({ symbol: p.symbol, marginMode: p.mode, was, now });
    }
    return corrections;
  }

  /**
   * A claim the venue applied at `venueTs` transferred `qty` (signed, per symbol): its reservation
   * goes, and each symbol with no report since the claim gets the quantity as pending until one
   * says its mode. `mode`: the caller knows the mode (a replay of a venue with one mode), so the
   * quantity is held in it at once.
   */
  settleClaim(liquidationId: number, qty: Readonly<Record<string, number>>, venueTs: number, mode?: MarginMode): void {
    const uncovered: Record<string, number> = {};
    // Each symbol moved and its held quantity before, in order (every claim lands here: no Map per claim).
    const moved: string[] = [];
    const before: number[] = [];
    for (const symbol of Object.keys(qty)) {
      if (this.#claimCovered(symbol, venueTs)) {
        if (MARGIN_MODES.some((m) => this.#reportedAt.get(key(symbol, m)) === venueTs)) this.#ties.set(symbol, venueTs);
        continue;
      }
      uncovered[symbol] = qty[symbol] as number;
      if (mode !== undefined) {
        moved.push(symbol);
        before.push(this.held(symbol, mode));
        this.#advance(symbol, mode, venueTs);
      } else if (qty[symbol] !== 0) {
        this.#pendingSince.set(symbol, Math.max(venueTs, this.#pendingSince.get(symbol) ?? Number.NEGATIVE_INFINITY));
      }
    }
    this.#exposure.commit(liquidationId, uncovered, mode ?? "PENDING");
    if (mode !== undefined) for (let i = 0; i < moved.length; i++) this.#changed(moved[i] as string, mode, before[i] as number);
    else for (const symbol of Object.keys(uncovered)) if (uncovered[symbol] !== 0) for (const l of this.#pendingListeners) l(symbol);
  }

  /** A fill of the account's own order in `mode`, `qty` signed (+ buy), at venue time `venueTs`: added unless a report already has it. */
  applyOwnFill(symbol: string, qty: number, venueTs: number, mode: MarginMode = "CROSS"): void {
    if (!Number.isFinite(qty) || qty === 0) return;
    if (this.#covered(symbol, mode, venueTs)) {
      // Made in the millisecond of the last report: taken as in it, but it may not be (see `#ties`).
      if (this.#reportedAt.get(key(symbol, mode)) === venueTs) {
        this.#ties.set(symbol, venueTs);
        for (const l of this.#pendingListeners) l(symbol);
      }
      return;
    }
    const held = this.held(symbol, mode);
    this.#set(symbol, mode, roundQty(held + qty), undefined);
    this.#advance(symbol, mode, venueTs);
  }

  /** An increment at `venueTs` is already in the position's last report. */
  #covered(symbol: string, mode: MarginMode, venueTs: number): boolean {
    // No report yet (a replay never has one): no key to build and look up for every claim and fill.
    if (this.#reportedAt.size === 0) return venueTs <= Number.NEGATIVE_INFINITY;
    return venueTs <= (this.#reportedAt.get(key(symbol, mode)) ?? Number.NEGATIVE_INFINITY);
  }

  /** A claim's mode is unknown: any report of the symbol at or after it is in order after it and includes it. */
  #claimCovered(symbol: string, venueTs: number): boolean {
    for (const mode of MARGIN_MODES) if (this.#covered(symbol, mode, venueTs)) return true;
    return false;
  }

  /** A report of `symbol` as of `venueTs` (undefined: the newest) includes every claim up to then. */
  #attributed(symbol: string, venueTs: number | undefined): void {
    const since = this.#pendingSince.get(symbol);
    if (since === undefined || (venueTs !== undefined && venueTs < since)) return;
    // Made in the millisecond of the newest claim: it may predate it (see `#ties`).
    if (venueTs === since) this.#ties.set(symbol, venueTs);
    this.#pendingSince.delete(symbol);
    this.#exposure.clearPending(symbol);
  }

  #reported(symbol: string, mode: MarginMode, venueTs: number): void {
    this.#reportedAt.set(key(symbol, mode), venueTs);
    const tie = this.#ties.get(symbol);
    if (tie !== undefined && venueTs > tie) this.#ties.delete(symbol);
    this.#asOf.set(key(symbol, mode), venueTs);
  }

  #advance(symbol: string, mode: MarginMode, venueTs: number): void {
    if (venueTs > this.asOf(symbol, mode)) this.#asOf.set(key(symbol, mode), venueTs);
  }

  #set(symbol: string, mode: MarginMode, qty: number, markPrice: number | undefined): void {
    const before = this.held(symbol, mode);
    this.#exposure.setHeld(symbol, qty, markPrice, mode);
    this.#changed(symbol, mode, before);
  }

  #changed(symbol: string, mode: MarginMode, before: number): void {
    const now = this.held(symbol, mode);
    if (now === before) return;
    for (const l of this.#listeners) l(symbol, now, before, mode);
  }
}
