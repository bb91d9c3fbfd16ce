/** Comparing a liquidation's open positions (an id pushed again, an unknown claim's open list check). */
import type { LiquidationPosition } from "./types.js";

/** Same symbols, quantities and fees in the same order. */
export function samePositions(a: readonly LiquidationPosition[], b: readonly LiquidationPosition[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as LiquidationPosition;
    const y = b[i] as LiquidationPosition;
    if (x.symbol !== y.symbol || x.positionQty !== y.positionQty || x.liquidatorFee !== y.liquidatorFee) return false;
  }
  return true;
}
