/**
 * `GET /v1/client/liquidator_liquidations` (docs/protocol.md §10): the venue's record of the claims
 * this account made, newest first, paged. The liquidator reads it to settle a claim whose answer and
 * push were both lost (a dropped connection, a killed process): a row says the claim applied and
 * what it transferred; no row, once the venue has finished with the request, says it did not.
 * Rows come from the claim log (every successful claim the venue applied for the account).
 */
import type { ClaimLogEntry } from "./claimLog.js";
import { intParam, rangeParams, readParams } from "./queryParams.js";
import type { RequestContext, Route } from "./restRoute.js";
import type { Signatory } from "./signatureCheck.js";
import type { VenueCore } from "./venueCore.js";
import { type Checked, ok } from "./venueRefusal.js";

const LIQUIDATOR_RECORD_PATH = "/v1/client/liquidator_liquidations";

const DEFAULT_PAGE_SIZE = 60;
const MAX_PAGE_SIZE = 500;

interface LiquidatorRecordRow {
  liquidation_id: number;
  timestamp: number;
  type: string;
  /** 1: assigned by the venue (market maker, vault); 0: claimed by this liquidator. */
  assigned: 0 | 1;
  positions_by_perp: {
    symbol: string;
    position_qty: number;
    cost_position_transfer: number;
    transfer_price: number;
    liquidator_fee: number;
    abs_liquidator_fee: number;
  }[];
}

function rowOf(e: ClaimLogEntry): LiquidatorRecordRow {
  return {
    liquidation_id: e.liquidationId as number,
    timestamp: e.decidedAt,
    type: "liquidated",
    assigned: 0,
    positions_by_perp: e.transfers.map((t) => ({
      symbol: t.symbol,
      position_qty: t.positionQty,
      cost_position_transfer: t.costPositionTransfer,
      transfer_price: t.transferPrice,
      liquidator_fee: t.liquidatorFee,
      abs_liquidator_fee: t.absLiquidatorFee,
    })),
  };
}

export function liquidatorRecord(core: VenueCore, accountId: string, search: URLSearchParams): Checked<unknown> {
  const p = readParams(search, ["symbol", "start_t", "end_t", "page", "size"]);
  if (!p.ok) return p;
  const page = intParam(p.value, "page", 1, 1, 1_000_000_000);
  if (!page.ok) return page;
  const size = intParam(p.value, "size", DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
  if (!size.ok) return size;
  const range = rangeParams(p.value, "start_t", "end_t");
  if (!range.ok) return range;
  const { start, end } = range.value;
  const symbol = p.value.get("symbol");
  const rows = core
    .claims()
    .filter(
      (e) =>
        e.accountId === accountId &&
        e.liquidationId !== undefined &&
        (start === undefined || e.decidedAt >= start) &&
        (end === undefined || e.decidedAt <= end) &&
        (symbol === undefined || e.transfers.some((t) => t.symbol === symbol)),
    )
    .sort((a, b) => b.decidedAt - a.decidedAt || b.seq - a.seq)
    .map(rowOf);
  const from = (page.value - 1) * size.value;
  return ok({
    meta: { total: rows.length, records_per_page: size.value, current_page: page.value },
    rows: rows.slice(from, from + size.value),
  });
}

/** The route (signed, the account-reads limit of 10/s). */
export function liquidatorRecordRoute(core: VenueCore): [string, Route] {
  return [
    LIQUIDATOR_RECORD_PATH,
    {
      method: "GET",
      limit: "account",
      signed: true,
      handler: (ctx: RequestContext) => liquidatorRecord(core, (ctx.signatory as Signatory).accountId, ctx.search),
    },
  ];
}
