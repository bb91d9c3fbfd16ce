/**
 * Account-wide margin sums for tests: the initial and the maintenance margin of everything held, one
 * net position per symbol, from the engine's per-position formulas (src/engine/margin.ts). The
 * daemon sums over its own rows where it holds them (engine/accountBook.ts) and asks what a claim
 * may add (marginFit.ts); these sums over plain positions are what the tests check against
 * hand-worked values and against the simulator's. The maintenance side goes through margin.ts's
 * `maintenanceMarginForTests`: the engine keeps the venue's MMR formula but no src path uses it.
 */
import {
  type MarginParams,
  maintenanceMarginForTests,
  notionalOf,
  type SymbolMargin,
  symbolInitialMargin,
} from "../../src/engine/margin.js";

/** One position for the sums: its symbol's margin for the account, signed quantity and mark. */
export interface MarginPosition {
  readonly params: SymbolMargin;
  readonly qty: number;
  readonly mark: number;
}

/** Initial margin of everything held, each position at its symbol's leverage. */
export function initialMarginOf(positions: Iterable<MarginPosition>): number {
  let sum = 0;
  for (const p of positions) sum += symbolInitialMargin(p.params, notionalOf(p.qty, p.mark));
  return sum;
}

/** Maintenance margin of everything held. */
export function maintenanceMarginOf(
  positions: Iterable<{ readonly params: MarginParams; readonly qty: number; readonly mark: number }>,
): number {
  let sum = 0;
  for (const p of positions) sum += maintenanceMarginForTests(p.params, notionalOf(p.qty, p.mark));
  return sum;
}
