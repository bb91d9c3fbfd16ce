/**
 * Dust: a held quantity no reduce-only order can close, because it is below the symbol's minimum
 * order (`base_min`) or no point of its quantity grid (`base_min + k × base_tick`, docs/protocol.md
 * §6) lies at or under it. The venue may assign such remainders (its docs do not say claims land on
 * the grid); the daemon owns them, reports them as dust and does not chase them. The same test as
 * planUnwind's (unwindPlan.ts), so what the unwinder leaves and what is reported as dust agree.
 */
import type { ResolvedSymbolInfo } from "./symbolInfo.js";
import { floorOnGrid } from "./unwindPlan.js";

/** Whether a position of `qty` is dust; undefined when the symbol has no usable order filters. */
export function isDust(qty: number, info: ResolvedSymbolInfo | undefined): boolean | undefined {
  const f = info?.orderFilters;
  if (info === undefined || f === undefined || info.qtyDecimals === undefined) return undefined;
  const held = Math.abs(qty);
  if (held === 0 || !Number.isFinite(held)) return false;
  if (held < f.qtyMin || (f.qtyMin <= 0 && held < f.qtyTick)) return true;
  const q = floorOnGrid(Math.min(held, f.qtyMax), f.qtyMin, f.qtyTick, info.qtyDecimals + 2);
  return q === undefined || q <= 0;
}
