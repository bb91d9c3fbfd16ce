/**
 * A liquidation the decision cannot read (untrusted input from the venue): what is wrong with it,
 * as the `detail` of an `invalid_liquidation` skip, or undefined when it is well formed and has an
 * open symbol (position_qty ≠ 0).
 */
import type { Liquidation, LiquidationPosition } from "./types.js";

export function invalidLiquidation(liq: Liquidation): string | undefined {
  const id = liq.liquidationId;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id <= 0) return "liquidation_id";
  const positions = liq.positions;
  if (!Array.isArray(positions) || positions.length === 0) return "no_positions";
  let open = 0;
  // Pairwise duplicate check for the usual handful of symbols; a Set when a hostile payload is long.
  const seen = positions.length > 16 ? new Set<string>() : undefined;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i] as LiquidationPosition;
    if (typeof p !== "object" || p === null || typeof p.symbol !== "string") return "position";
    const q = p.positionQty;
    if (typeof q !== "number" || !Number.isFinite(q)) return p.symbol;
    // docs/protocol.md §11: the fee is a fraction of the notional; ≥ 1 is not a fee.
    const f = p.liquidatorFee;
    if (typeof f !== "number" || !Number.isFinite(f) || f < 0 || f >= 1) return p.symbol;
    if (seen !== undefined) {
      if (seen.has(p.symbol)) return "duplicate_symbol";
      seen.add(p.symbol);
    } else {
      for (let j = 0; j < i; j++) if ((positions[j] as LiquidationPosition).symbol === p.symbol) return "duplicate_symbol";
    }
    if (q !== 0) open++;
  }
  return open === 0 ? "no_quantity" : undefined;
}
