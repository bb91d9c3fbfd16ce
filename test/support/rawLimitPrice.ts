/**
 * The raw (unquantised) limit for a position of sign `qty`: mark × (1 ± bps/10⁴), the bound the
 * slippage setting allows. The oracle the tests hold `safeLimitPrice` (src/engine/quantize.ts) to:
 * its quantised limit is on the mark's side of this bound, never beyond it.
 */
import { BPS } from "../../src/engine/quantize.js";

export function rawLimitPrice(qty: number, mark: number, bps: number): number {
  return (mark * (qty > 0 ? BPS + bps : BPS - bps)) / BPS;
}
