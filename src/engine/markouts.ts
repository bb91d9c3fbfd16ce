/**
 * Markouts: where the mark went after a claim assigned us a position, against the price the position
 * was transferred at, in basis points of that price. Positive = against us: for a long assigned
 * (qty > 0) the mark falling, for a short the mark rising. This is the curve an operator reads to
 * set `limit_price_slippage_bps`, `min_fee` and `unwind.hold` (docs/unwinding.md). Pure: the daemon
 * samples the marks on timers (daemon/records/markoutSampler.ts), `liquidator pnl` and `report` aggregate.
 */
import type { Fill } from "./types.js";

/** The horizons, named as in `liquidator_markout_bps{horizon}` and the journal's `markout` records. */
export const MARKOUT_HORIZONS = ["1s", "5s", "30s", "60s", "300s"] as const;
export type MarkoutHorizon = (typeof MARKOUT_HORIZONS)[number];
/** Delay of each horizon after the assignment, ms (index-aligned with MARKOUT_HORIZONS). */
export const MARKOUT_DELAYS_MS: readonly number[] = [1_000, 5_000, 30_000, 60_000, 300_000];

/** One symbol of one accepted claim: what was assigned, at what price, when (daemon clock). */
export interface Assignment {
  id: number;
  symbol: string;
  /** Signed base quantity assigned (+ long). */
  qty: number;
  /** Transfer price (quantity-weighted when the claim assigned the symbol in several pieces). */
  price: number;
  at: number;
}

/** A mark as held at some time: its price and when it was received. */
export interface MarkPoint {
  price: number;
  receivedAt: number;
}

/** Markout of `mark` against the assignment, bps of the transfer price; positive = against us. */
export function markoutBps(qty: number, transferPrice: number, mark: number): number {
  return (Math.sign(qty) * (transferPrice - mark) * 10_000) / transferPrice;
}

/** A claim's fills grouped per symbol: quantities summed, the price quantity-weighted. */
export function assignmentsOf(id: number, fills: readonly Fill[], at: number): Assignment[] {
  const bySymbol = new Map<string, { qty: number; notional: number; abs: number }>();
  for (const f of fills) {
    if (!(f.price > 0) || f.qty === 0) continue;
    const s = bySymbol.get(f.symbol) ?? { qty: 0, notional: 0, abs: 0 };
    s.qty += f.qty;
    s.notional += Math.abs(f.qty) * f.price;
    s.abs += Math.abs(f.qty);
    bySymbol.set(f.symbol, s);
  }
  const out: Assignment[] = [];
  for (const [symbol, s] of bySymbol) if (s.qty !== 0) out.push({ id, symbol, qty: s.qty, price: s.notional / s.abs, at });
  return out;
}

/** What was seen at one horizon: a mark and its markout, or why there is none. */
export type MarkoutSample =
  | { horizon: MarkoutHorizon; at: number; mark: number; markAt: number; bps: number }
  | { horizon: MarkoutHorizon; at: number; missing: MarkoutMissing };
/** `stale`: no mark fresher than the mark age limit at the horizon; `down`: nobody sampled at the horizon (not running or not leading). */
export type MarkoutMissing = "stale" | "down";

/**
 * The sample at `at` given the latest mark held then (or none): a fresh one (at most `maxAgeMs`
 * old) gives the markout, else the horizon is missing.
 */
export function sampleMarkout(
  a: Assignment,
  horizon: MarkoutHorizon,
  at: number,
  mark: MarkPoint | undefined,
  maxAgeMs: number,
): MarkoutSample {
  if (mark === undefined || at - mark.receivedAt > maxAgeMs) return { horizon, at, missing: "stale" };
  return { horizon, at, mark: mark.price, markAt: mark.receivedAt, bps: markoutBps(a.qty, a.price, mark.price) };
}

/**
 * At a restart or a takeover, what to do with each horizon of an assignment not sampled yet: sample
 * it later if still in the future (`due` = when), else record it missing (`down`): the marks in
 * between were not watched, and the mark now is not the mark then.
 */
export function pendingHorizons(
  a: Assignment,
  done: ReadonlySet<MarkoutHorizon>,
  now: number,
  delaysMs: readonly number[] = MARKOUT_DELAYS_MS,
): { horizon: MarkoutHorizon; due: number; missed: boolean }[] {
  const out: { horizon: MarkoutHorizon; due: number; missed: boolean }[] = [];
  for (let h = 0; h < MARKOUT_HORIZONS.length; h++) {
    const horizon = MARKOUT_HORIZONS[h] as MarkoutHorizon;
    if (done.has(horizon)) continue;
    const due = a.at + (delaysMs[h] as number);
    out.push({ horizon, due, missed: due < now });
  }
  return out;
}
