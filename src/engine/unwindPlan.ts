/**
 * The next slice that closes a held position (docs/protocol.md §6): a reduce-only IOC on the
 * closing side, priced no worse than mark × (1 ∓ maxSlippageBps/10⁴) and never outside the symbol's
 * price range, for at most `maxOrderNotional` of notional. Pure: the unwinder sends what this says.
 *
 * Never an order that could grow a position: the side comes from the position's sign and the
 * quantity is at most |position| rounded DOWN to the quantity grid; what is left below the minimum
 * order size is dust, reported and not chased.
 */
import { BPS, ceilToTick, floorToTick, pow10 } from "./quantize.js";
import type { ResolvedSymbolInfo } from "./symbolInfo.js";

export interface UnwindLimits {
  /** Worst price accepted, in basis points from the mark. */
  readonly maxSlippageBps: number;
  /** Largest notional (quote, at mark) of one order. */
  readonly maxOrderNotional: number;
}

export type UnwindPlan =
  | { readonly kind: "order"; readonly side: "BUY" | "SELL"; readonly qty: number; readonly price: number }
  /** What is left is below the minimum order size. */
  | { readonly kind: "dust"; readonly qty: number }
  | { readonly kind: "flat" }
  /** The symbol has no usable order filters, or no usable mark: it cannot be unwound now. */
  | { readonly kind: "blocked"; readonly reason: "no_filters" | "no_mark" | "no_price" };

/** How far in grid steps a quotient may be off an integer and still count as on the grid (float noise). */
const SNAP = 1e-7;

/**
 * Largest valid quantity ≤ `x` on the venue's grid: `origin` (base_min) plus a whole number of
 * `step`s (base_tick); undefined when `x` is below `origin`.
 */
export function floorOnGrid(x: number, origin: number, step: number, decimals: number): number | undefined {
  if (!(x >= origin)) return undefined;
  const n = Math.floor((x - origin) / step + SNAP);
  let q = gridPoint(origin, step, n, decimals);
  if (q > x) q = gridPoint(origin, step, n - 1, decimals);
  return q >= origin ? q : undefined;
}

/** Whole units of 10^-decimals up to which the float sum `origin + n × step` is off by < 0.4 unit. */
const EXACT_UNITS = 2 ** 50;

/**
 * `origin + n × step` rounded to `decimals` decimals, as the nearest double to that decimal: what
 * printing with toFixed and parsing back gives, without the strings (every unwind slice computes
 * two). When origin and step are whole numbers of 10^-decimals (decimals is the grid's own plus 2;
 * together off by under 1e-3 unit over the n steps), the decimal is an integer number of units over
 * 10^decimals and IEEE division of two exact integers is correctly rounded; below EXACT_UNITS the
 * float sum is too close to that integer for toFixed to round elsewhere, so both routes give the
 * same double. The argument needs origin ≥ 0 and n ≥ 0: floorOnGrid's n = −1 gives a value below
 * origin, refused by either route. Grids the integers cannot hold take the string route.
 */
function gridPoint(origin: number, step: number, n: number, decimals: number): number {
  const scale = pow10(decimals);
  const o = origin * scale;
  const s = step * scale;
  const ou = Math.round(o);
  const su = Math.round(s);
  const units = ou + n * su;
  if (Math.abs(o - ou) + Math.abs(n * (s - su)) < 1e-3 && Math.abs(units) <= EXACT_UNITS) return units / scale;
  return Number((origin + n * step).toFixed(decimals));
}

export function planUnwind(positionQty: number, mark: number | undefined, info: ResolvedSymbolInfo, limits: UnwindLimits): UnwindPlan {
  if (positionQty === 0 || !Number.isFinite(positionQty)) return { kind: "flat" };
  const f = info.orderFilters;
  if (f === undefined || info.qtyDecimals === undefined) return { kind: "blocked", reason: "no_filters" };
  if (mark === undefined || !(mark > 0) || !Number.isFinite(mark)) return { kind: "blocked", reason: "no_mark" };
  const held = Math.abs(positionQty);
  if (held < f.qtyMin || (f.qtyMin <= 0 && held < f.qtyTick)) return { kind: "dust", qty: positionQty };
  const decimals = info.qtyDecimals + 2;
  const cap = Math.min(held, limits.maxOrderNotional / mark, f.qtyMax);
  // A notional cap below one minimum order still allows the minimum order.
  const qty = floorOnGrid(Math.max(cap, f.qtyMin), f.qtyMin, f.qtyTick, decimals);
  if (qty === undefined || qty <= 0 || qty > held) return { kind: "dust", qty: positionQty };
  const side = positionQty > 0 ? "SELL" : "BUY";
  // The bound: the slippage setting, never beyond the venue's price range (-1105 otherwise).
  const bps = Math.min(limits.maxSlippageBps, f.priceRange * BPS);
  const raw = side === "SELL" ? (mark * (BPS - bps)) / BPS : (mark * (BPS + bps)) / BPS;
  // On the tick in the safe direction: a SELL may not go lower than the bound, a BUY not higher.
  const price =
    side === "SELL" ? ceilToTick(raw, info.priceTick, info.priceDecimals) : floorToTick(raw, info.priceTick, info.priceDecimals);
  if (!(price > 0) || !Number.isFinite(price)) return { kind: "blocked", reason: "no_price" };
  return { kind: "order", side, qty, price };
}
