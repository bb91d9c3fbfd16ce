/**
 * The insurance fund's offers in a row of `GET /v1/public/liquidation` (docs/protocol.md §10), for
 * tests: the open symbols of a `type: "claim"` row, none for any other row. The daemon builds one
 * offer at claim time from the liquidation it decided on (core/fundSupply.ts); the tests start
 * from the row.
 */
import { FUND_ROW_TYPE, type FundOffer } from "../../src/venue/mapping.js";
import type { OpenLiquidation } from "../../src/venue/restSchemas.js";

export function fundOffersFromRow(row: OpenLiquidation): FundOffer[] {
  if (row.type !== FUND_ROW_TYPE) return [];
  return row.positions_by_perp
    .filter((p) => p.position_qty !== 0)
    .map((p) => ({ claimId: row.liquidation_id, symbol: p.symbol, positionQty: p.position_qty, discount: p.liquidator_fee }));
}
