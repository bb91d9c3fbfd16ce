/**
 * Quantisation of what is sent (docs/architecture.md "Money and numbers"): ratios down to 0.001 and prices to
 * the symbol's tick, without float noise in the result. A ratio is carried as an integer number of
 * thousandths and turned into `k / 1000` (the nearest double to the decimal, so JSON prints `0.123`,
 * never `0.12300000000000001`). A price is carried as an integer number of ticks `n` and turned into
 * the nearest double to the decimal `n × tick` written with the tick's decimals.
 */

/** docs/protocol.md §4: `ratio_qty_request` is quantised down to 0.001. */
export const RATIO_QUANTA = 1000;

/** Finest tick the engine accepts (decimals of the tick); finer ticks cannot be priced without noise. */
const MAX_TICK_DECIMALS = 12;

/** 10^0 … 10^22, every one an exact double: `10 ** d` with a variable `d` is a pow() call on every decision. */
const POW10: readonly number[] = Array.from({ length: 23 }, (_, d) => 10 ** d);

/** The same double as `10 ** d`, from the table for the usual decimals (any other `d` computes it). */
export function pow10(d: number): number {
  const p = POW10[d];
  return p !== undefined ? p : 10 ** d;
}

/**
 * Largest k in [0, 1000] with k / 1000 ≤ r (0 for NaN or r ≤ 0, 1000 for r ≥ 1). Rounding is always
 * down, never "snapped" up: the ratio is cut by our caps, so one quantum less is the safe error.
 */
export function ratioThousandthsDown(r: number): number {
  if (!(r > 0)) return 0; // NaN, negatives and 0
  if (r >= 1) return RATIO_QUANTA;
  let k = Math.floor(r * RATIO_QUANTA);
  // r × 1000 may round up to the next integer in floating point; k / 1000 must not exceed r.
  if (k / RATIO_QUANTA > r) k -= 1;
  return k < 0 ? 0 : k;
}

/** `k / 1000` as the nearest double to the decimal (no float noise when printed). */
export function thousandthsToRatio(k: number): number {
  return k / RATIO_QUANTA;
}

/**
 * Number of decimals of a tick (0.1 → 1, 0.0001 → 4, 1e-8 → 8, 5 → 0, 0.25 → 2), or undefined
 * when the tick is not a positive finite decimal with at most MAX_TICK_DECIMALS decimals.
 */
export function tickDecimals(tick: number): number | undefined {
  if (!(tick > 0) || !Number.isFinite(tick)) return undefined;
  for (let d = 0; d <= MAX_TICK_DECIMALS; d++) {
    const v = tick * 10 ** d;
    const r = Math.round(v);
    // Absolute tolerance: a real tick's digits are a small integer (0.00025 → 25); a relative one
    // would accept 1/3 at 12 decimals.
    if (r >= 1 && Math.abs(v - r) <= 1e-6) return d;
  }
  return undefined;
}

/** The tick as the nearest double to its decimal (e.g. 0.1 given as 0.10000000000000002 → 0.1). */
export function canonicalTick(tick: number, decimals: number): number {
  const scale = pow10(decimals);
  return Math.round(tick * scale) / scale;
}

/**
 * `n` ticks as a price: the nearest double to the decimal `n × tick` with `decimals` decimals.
 * With tick = units / 10^d, that decimal is the integer n × units over 10^d, and IEEE division of
 * two exact integers is correctly rounded: the same double as parsing the decimal string, without
 * the string (this is the hot path of every limit price). Beyond 2^53 the string route is taken.
 */
function ticksToPrice(n: number, tick: number, decimals: number): number {
  const scale = pow10(decimals);
  const num = n * Math.round(tick * scale);
  if (Number.isSafeInteger(num)) return num / scale;
  return Number((n * tick).toFixed(decimals));
}

/** How far (in ticks) a quotient may be off an integer and still count as on the grid (float noise). */
const SNAP_TICKS = 1e-7;

/**
 * Largest multiple of `tick` that is ≤ `price` (as doubles), NaN when that cannot be guaranteed
 * (non-finite or negative input, or a price so large that ticks are no longer representable).
 */
export function floorToTick(price: number, tick: number, decimals: number): number {
  if (!(price >= 0) || !Number.isFinite(price)) return Number.NaN;
  const x = price / tick;
  let n = Math.round(x);
  if (Math.abs(x - n) > SNAP_TICKS) n = Math.floor(x);
  let v = ticksToPrice(n, tick, decimals);
  if (v > price) {
    v = ticksToPrice(n - 1, tick, decimals);
    if (v > price) return Number.NaN;
  }
  return v;
}

/** Smallest multiple of `tick` that is ≥ `price` (as doubles), NaN when that cannot be guaranteed. */
export function ceilToTick(price: number, tick: number, decimals: number): number {
  if (!(price >= 0) || !Number.isFinite(price)) return Number.NaN;
  const x = price / tick;
  let n = Math.round(x);
  if (Math.abs(x - n) > SNAP_TICKS) n = Math.ceil(x);
  let v = ticksToPrice(n, tick, decimals);
  if (v < price) {
    v = ticksToPrice(n + 1, tick, decimals);
    if (v < price) return Number.NaN;
  }
  return v;
}

/** docs/protocol.md §11: transferred quantities are rounded to 1e-9 (float dust); never -0. */
export function roundQty(q: number): number {
  const r = Math.round(q * 1e9) / 1e9;
  return r === 0 ? 0 : r;
}

/** Basis points per unit (10⁴). */
export const BPS = 10_000;

/**
 * The `limit_price` guard for one symbol (docs/protocol.md §4 side rule: q > 0 is refused when
 * mark > limit, q < 0 when mark < limit). Raw limit = mark × numerator / 10⁴ with numerator =
 * 10⁴ ± bps from the policy (mark × (1 ± bps/10⁴), computed without the inexact 1.005 so that
 * 100000 at 50 bps is exactly 100500), then quantised to the tick in the safe direction: down for
 * q > 0, up for q < 0, so the slippage accepted never exceeds the operator's setting. A limit for
 * q < 0 is at least one tick (10,000 bps would give 0, which the venue refuses). Returns NaN when
 * no such limit exists on the right side of the mark (a mark below one tick, a zero-bps limit off
 * the grid, absurd prices): the caller skips rather than send a self-defeating or looser limit.
 */
export function safeLimitPrice(qty: number, mark: number, numerator: number, tick: number, decimals: number): number {
  const raw = (mark * numerator) / BPS;
  if (qty > 0) {
    const limit = floorToTick(raw, tick, decimals);
    return limit >= mark && limit <= raw && limit > 0 && limit !== Number.POSITIVE_INFINITY ? limit : Number.NaN;
  }
  let limit = ceilToTick(raw, tick, decimals);
  if (limit === 0) limit = ticksToPrice(1, tick, decimals);
  return limit <= mark && limit >= raw && limit > 0 ? limit : Number.NaN;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { ticksToPrice as ticksToPriceForTests };
