/**
 * Wire shapes the venue sends: stream payloads in camelCase (docs/protocol.md §5), the claim response in
 * snake_case (docs/protocol.md §A.2.6). Pure functions of the core's state.
 */
import type { Transfer } from "./claimRules.js";
import type { BookedLiquidation } from "./liquidationBook.js";

/** data of a successful POST /v1/liquidation (docs/protocol.md §A.2.6). */
export interface ClaimResponseData {
  liquidation_id: number;
  timestamp: number;
  type: string;
  positions_by_perp: {
    symbol: string;
    position_qty: number;
    cost_position_transfer: number;
    transfer_price: number;
    liquidator_fee: number;
    abs_liquidator_fee: number;
  }[];
}

/** One row of the public `liquidation` topic; `gone` pushes the id with an empty positionsByPerp. */
export function liquidationPushRow(liq: BookedLiquidation, gone = false): unknown {
  return {
    liquidationId: liq.liquidationId,
    timestamp: liq.timestamp,
    type: liq.type,
    positionsByPerp: gone
      ? []
      : liq.positions
          .filter((p) => p.positionQty !== 0)
          .map((p) => ({ symbol: p.symbol, positionQty: p.positionQty, liquidatorFee: p.liquidatorFee })),
  };
}

/**
 * data of the private `liquidatorliquidations` topic: what this account was assigned. `assigned`
 * is 1 as on the real venue's stream.
 */
export function liquidatorLiquidationsData(liq: BookedLiquidation, transfers: readonly Transfer[], now: number): unknown {
  return {
    liquidationId: liq.liquidationId,
    timestamp: now,
    type: liq.type,
    assigned: 1,
    positionsByPerp: transfers.map((t) => ({
      symbol: t.symbol,
      positionQty: t.positionQty,
      costPositionTransfer: t.costPositionTransfer,
      transferPrice: t.transferPrice,
      liquidatorFee: t.liquidatorFee,
      absLiquidatorFee: t.absLiquidatorFee,
    })),
  };
}

export function claimResponse(liq: BookedLiquidation, transfers: readonly Transfer[], now: number): ClaimResponseData {
  return {
    liquidation_id: liq.liquidationId,
    timestamp: now,
    type: liq.type,
    positions_by_perp: transfers.map((t) => ({
      symbol: t.symbol,
      position_qty: t.positionQty,
      cost_position_transfer: t.costPositionTransfer,
      transfer_price: t.transferPrice,
      liquidator_fee: t.liquidatorFee,
      abs_liquidator_fee: t.absLiquidatorFee,
    })),
  };
}
