/**
 * The venue's record of this liquidator's claims, `GET /v1/client/liquidator_liquidations`
 * (docs/protocol.md §10): the definitive answer to "did my claim apply, and with what?" when the
 * claim's answer and its private push were both lost. Rows are read one by one (tolerantRows.ts): a
 * row that does not parse is left out, counted and its shape logged once by the REST core like every
 * other list's, never a reason to lose the page (the OpenAPI makes every field optional). `assigned` 1 rows are the venue's own assignments (to a market maker or vault), not
 * claims of ours.
 */
import { z } from "zod";
import type { Fill } from "../engine/types.js";
import { SYMBOL_PATTERN } from "../engine/types.js";
import { buildQuery, type CallOptions, type RestCore } from "./restCore.js";
import { skippedRowsOf, tolerantRows } from "./tolerantRows.js";
import { MAX_ABS_NOTIONAL, MAX_ABS_QTY, MAX_PRICE, MAX_TIMESTAMP_MS } from "./wire.js";
import { wireInt, wireNumber } from "./wireNumbers.js";

const LIQUIDATOR_RECORD_ENDPOINT = "/v1/client/liquidator_liquidations";

/** The venue's page size cap for this list. */
const PAGE_SIZE = 500;

const recordRowSchema = z.object({
  liquidation_id: wireInt,
  timestamp: wireNumber(z.number().int().min(0).max(MAX_TIMESTAMP_MS)),
  type: z.string().optional(),
  assigned: z.union([z.number(), z.string(), z.boolean()]).optional(),
  positions_by_perp: z.array(
    z.object({
      symbol: z.string().regex(SYMBOL_PATTERN),
      position_qty: wireNumber(z.number().min(-MAX_ABS_QTY).max(MAX_ABS_QTY)),
      transfer_price: wireNumber(z.number().positive().max(MAX_PRICE)),
      abs_liquidator_fee: wireNumber(z.number().min(0).max(MAX_ABS_NOTIONAL)),
    }),
  ),
});

const pageSchema = z.object({
  meta: z.object({ total: wireInt, records_per_page: wireInt, current_page: wireInt }).optional(),
  rows: tolerantRows(recordRowSchema),
});

/** One claim of ours the venue applied: when, and what it transferred (the liquidator fee per symbol in `fee`). */
export interface RecordedClaim {
  liquidationId: number;
  /** Venue time it was applied. */
  timestamp: number;
  fills: Fill[];
}

export interface RecordPage {
  claims: RecordedClaim[];
  /** Rows that did not parse: left out (counted and logged by the REST core); any may be a claim of ours. */
  skipped: number;
  /** More pages follow. */
  more: boolean;
}

/** Whether `assigned` says the venue assigned the row itself (1 / true / "1"), not a claim of ours. */
function assignedByVenue(v: unknown): boolean {
  return v === 1 || v === true || v === "1";
}

/** One page of the record in [startT, endT] (venue ms), newest first. */
export async function readLiquidatorRecord(
  rest: Pick<RestCore, "get">,
  q: { startT: number; endT: number; page: number },
  opts: CallOptions = {},
): Promise<RecordPage> {
  const query = buildQuery({ start_t: Math.floor(q.startT), end_t: Math.ceil(q.endT), page: q.page, size: PAGE_SIZE });
  const answer = await rest.get(LIQUIDATOR_RECORD_ENDPOINT, "account_reads", query, pageSchema, true, opts);
  const skipped = skippedRowsOf(answer.data).length;
  const out: RecordPage = { claims: [], skipped, more: false };
  for (const row of answer.data.rows) {
    if (assignedByVenue(row.assigned)) continue;
    out.claims.push({
      liquidationId: row.liquidation_id,
      timestamp: row.timestamp,
      fills: row.positions_by_perp.map((p) => ({
        symbol: p.symbol,
        qty: p.position_qty,
        price: p.transfer_price,
        fee: p.abs_liquidator_fee,
      })),
    });
  }
  const meta = answer.data.meta;
  out.more =
    meta !== undefined
      ? meta.current_page * Math.max(1, meta.records_per_page) < meta.total
      : answer.data.rows.length + skipped >= PAGE_SIZE;
  return out;
}
