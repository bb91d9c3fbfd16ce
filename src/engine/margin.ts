/**
 * The venue's margin formulas (docs/protocol.md §7, §10), pure: notional, initial and maintenance margin
 * ratios per symbol (the 4/5 power of the notional included), the account's margin ratio and free
 * collateral. The leverage in the IMR is the account's setting for that symbol (§10: leverage is
 * set per symbol since 2025-09), and the `imr_factor` the account's own where client info gives one
 * (marginSettings.ts resolves both into a `SymbolMargin`). `MarginFit` (marginFit.ts) answers what a
 * claim may add under the policy's limits. The daemon, the policy lab and the bench use these
 * functions; the simulator has its own implementation (src/sim/margin.ts), parity-tested against them.
 */

/** A symbol's margin parameters, as `GET /v1/public/info` rows carry them (`base_imr`, `base_mmr`, `imr_factor`). */
export interface MarginParams {
  /** Base initial margin ratio (0.01 = 1 %, i.e. 100×). */
  readonly baseImr: number;
  /** Base maintenance margin ratio. */
  readonly baseMmr: number;
  /** Scales the `|notional|^(4/5)` term that makes big positions need more margin. */
  readonly imrFactor: number;
}

/**
 * A symbol's margin as it applies to this account (docs/protocol.md §10): the public parameters with the
 * account's own `imr_factor` where it has one, the account's leverage setting for the symbol, and
 * `max_notional`, the largest position (quote, at mark) the account may hold in it (Infinity: none given).
 */
export interface SymbolMargin extends MarginParams {
  readonly leverage: number;
  readonly maxNotional: number;
}

/**
 * What a position in a symbol whose info carries no (usable) margin parameters is charged: its whole
 * notional. The engine never guesses a venue's margin below what it could be, so such a symbol can
 * still be claimed when the collateral is plentiful, and never leads to a -1101.
 */
export const UNKNOWN_MARGIN: MarginParams = { baseImr: 1, baseMmr: 1, imrFactor: 0 };

/** A symbol's margin parameters from its info, or `UNKNOWN_MARGIN` when the info carries none (or no info). */
export function marginParamsOf(info: { readonly margin?: MarginParams | undefined } | undefined): MarginParams {
  return info?.margin ?? UNKNOWN_MARGIN;
}

/** The venue's exponent of the notional in the IMR and MMR terms. */
const NOTIONAL_POWER = 0.8;

/** Whether `p` holds margin parameters the formulas can use (finite, base ratios in (0, 1], factor ≥ 0). */
export function validMarginParams(p: { baseImr?: unknown; baseMmr?: unknown; imrFactor?: unknown }): p is MarginParams {
  const ratio = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v) && v > 0 && v <= 1;
  return ratio(p.baseImr) && ratio(p.baseMmr) && typeof p.imrFactor === "number" && Number.isFinite(p.imrFactor) && p.imrFactor >= 0;
}

/** |position_qty| × mark. */
export function notionalOf(qty: number, mark: number): number {
  return Math.abs(qty) * mark;
}

/**
 * `IMR_i = max(1 / leverage_i, base_imr_i, imr_factor_i × |notional_i|^(4/5))` (docs/protocol.md §7, §10:
 * `leverage_i` is the account's setting for symbol i). A `leverage` that is not a positive number
 * drops its term (the caller decides whether margin can be checked without it: accountBook.ts says not).
 */
export function imrRate(p: MarginParams, notional: number, leverage: number): number {
  const byLeverage = leverage > 0 ? 1 / leverage : 0;
  const bySize = p.imrFactor * Math.abs(notional) ** NOTIONAL_POWER;
  return Math.max(byLeverage, p.baseImr, bySize);
}

/** `MMR_i = max(base_mmr_i, base_mmr_i / base_imr_i × imr_factor_i × |notional_i|^(4/5))`. */
function mmrRate(p: MarginParams, notional: number): number {
  return Math.max(p.baseMmr, (p.baseMmr / p.baseImr) * p.imrFactor * Math.abs(notional) ** NOTIONAL_POWER);
}

/** The IMR's floor whatever the size: `max(1 / leverage, base_imr)` (imrRate's other terms). */
export function flatImrRate(p: MarginParams, leverage: number): number {
  return Math.max(leverage > 0 ? 1 / leverage : 0, p.baseImr);
}

/**
 * A notional below which `imrRate` is `flatImrRate` exactly, so the 4/5 power need not be taken:
 * `imr_factor × n^(4/5) ≤ flat` ⇔ `n ≤ (flat / imr_factor)^(5/4)`. The bound is kept a millionth under
 * that crossing, far more than the few ulps by which the float power can err, so a notional under it
 * is under the crossing whatever the rounding; in the millionth band the power decides, as before.
 * With no size term (factor 0) every finite notional is under; 0 (never under) when the parameters
 * give no usable bound.
 */
export function flatImrBelow(p: MarginParams, leverage: number): number {
  const flat = flatImrRate(p, leverage);
  if (p.imrFactor === 0) return Number.MAX_VALUE;
  const crossing = (flat / p.imrFactor) ** (1 / NOTIONAL_POWER);
  return p.imrFactor > 0 && Number.isFinite(crossing) ? crossing * (1 - 1e-6) : 0;
}

/** Initial margin of a position of this notional: |notional| × IMR at the symbol's leverage. */
export function initialMargin(p: MarginParams, notional: number, leverage: number): number {
  const n = Math.abs(notional);
  return n === 0 ? 0 : n * imrRate(p, n, leverage);
}

/** Initial margin of a position of this notional in a symbol as it applies to the account. */
export function symbolInitialMargin(m: SymbolMargin, notional: number): number {
  return initialMargin(m, notional, m.leverage);
}

/** Maintenance margin of a position of this notional: |notional| × MMR. */
function maintenanceMargin(p: MarginParams, notional: number): number {
  const n = Math.abs(notional);
  return n === 0 ? 0 : n * mmrRate(p, n);
}

/** The venue's margin ratio with no position: 1000 %. */
const NO_POSITION_MARGIN_RATIO = 10;

/** Account margin ratio = total collateral ÷ Σ |notional_i| (10, i.e. 1000 %, with no position). */
export function accountMarginRatio(totalCollateral: number, totalNotional: number): number {
  return totalNotional === 0 ? NO_POSITION_MARGIN_RATIO : totalCollateral / totalNotional;
}

/** Free collateral = total collateral − initial margin of positions − margin held by open orders. */
export function freeCollateral(totalCollateral: number, positionsInitialMargin: number, ordersMargin = 0): number {
  return totalCollateral - positionsInitialMargin - ordersMargin;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { maintenanceMargin as maintenanceMarginForTests, mmrRate as mmrRateForTests };
