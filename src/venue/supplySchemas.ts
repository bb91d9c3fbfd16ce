/**
 * What the venue answers on docs/protocol.md §10's other supply: the insurance fund
 * (`GET /v1/public/insurancefund`, `POST /v1/claim_insurance_fund`) and the Public Info API's
 * `platformPositions` and `rateLimitStatus` (`POST /v1/public/query`). Money comes as decimal
 * strings or numbers (wireNumbers.ts). Rows are checked one at a time (`checkRows`): a bad row is
 * counted by its problem and dropped, never the whole page; the rest of a page is read as usual.
 */
import { z } from "zod";
import { SYMBOL_PATTERN } from "../engine/types.js";
import { MAX_ABS_NOTIONAL, MAX_ABS_QTY, MAX_PRICE, MAX_TIMESTAMP_MS } from "./wire.js";
import { numberFrom, wireNumber } from "./wireNumbers.js";

/**
 * A number or a decimal string (wireNumbers.ts `numberFrom`: anything else stays what it was and
 * fails `inner`), then `inner`'s bounds. The Public Info API writes money as strings: reading the
 * string first, rather than trying a number and then a string as `wireNumber` does, spares each of
 * a page's thousands of rows a failed branch (half the schema's time).
 */
function decimal<T extends z.ZodType<number, number>>(inner: T) {
  return z.preprocess((v) => (typeof v === "string" ? (numberFrom(v) ?? v) : v), inner);
}

const price = decimal(z.number().positive().max(MAX_PRICE));
const qty = decimal(z.number().min(-MAX_ABS_QTY).max(MAX_ABS_QTY));
/** A signed quote amount, read from a number or a decimal string. */
const signedQuote = decimal(z.number().min(-MAX_ABS_NOTIONAL).max(MAX_ABS_NOTIONAL));
const notional = decimal(z.number().min(0).max(MAX_ABS_NOTIONAL));

/** One row of `platformPositions`: what the heatmap reads (docs/protocol.md §10); other fields are dropped. */
export const platformPositionSchema = z.object({
  symbol: z.string().regex(SYMBOL_PATTERN),
  side: z.enum(["LONG", "SHORT"]),
  position_qty: qty,
  notional: notional.optional(),
  mark_price: price.optional(),
  // "null on position-calc failure" (the venue's docs): a position whose liquidation price is unknown.
  est_liq_price: decimal(z.number().min(0).max(MAX_PRICE)).nullable(),
  margin_mode: z.enum(["CROSS", "ISOLATED"]).nullish(),
  leverage: decimal(z.number().positive()).nullish(),
});
export type PlatformPosition = z.infer<typeof platformPositionSchema>;

/** The page around the rows: aggregates over the whole filtered snapshot, and the next page's cursor. */
export const platformPositionsPageSchema = z.object({
  total_long_notional: notional.optional(),
  total_short_notional: notional.optional(),
  total_positions: wireNumber(z.number().int().nonnegative()).optional(),
  rows: z.array(z.unknown()),
  next_cursor: z.string().min(1).max(256).nullish(),
});

/** `{"type":"platformPositions", …}` (docs/protocol.md §10): every filter optional, `limit` 1–5000. */
export interface PlatformPositionsQuery {
  symbol?: string;
  min_notional?: string;
  limit?: number;
  cursor?: string;
}

/**
 * `rateLimitStatus`: read tolerantly, its fields are not published. The simulator answers
 * `weight_limit`, `weight_used`, `weight_remaining`; anything else leaves them undefined.
 */
export const rateLimitStatusSchema = z.object({
  weight_limit: wireNumber(z.number().nonnegative()).optional().catch(undefined),
  weight_used: wireNumber(z.number().nonnegative()).optional().catch(undefined),
  weight_remaining: wireNumber(z.number().nonnegative()).optional().catch(undefined),
});
export type RateLimitStatus = z.infer<typeof rateLimitStatusSchema>;

/** One position of the insurance fund. */
export const fundPositionSchema = z.object({
  symbol: z.string().regex(SYMBOL_PATTERN),
  position_qty: qty,
  cost_position: signedQuote.optional(),
  average_open_price: wireNumber(z.number().min(0).max(MAX_PRICE)).optional(),
  mark_price: wireNumber(z.number().min(0).max(MAX_PRICE)).optional(),
  timestamp: wireNumber(z.number().int().min(0).max(MAX_TIMESTAMP_MS)).optional(),
});
export type FundPosition = z.infer<typeof fundPositionSchema>;

/** `GET /v1/public/insurancefund`: the fund's figures (each optional, a malformed one ignored) and its positions. */
export const insuranceFundSchema = z.object({
  balance: signedQuote.optional().catch(undefined),
  total_collateral_value: signedQuote.optional().catch(undefined),
  free_collateral: signedQuote.optional().catch(undefined),
  margin_ratio: wireNumber(z.number()).optional().catch(undefined),
  rows: z.array(z.unknown()),
});

/** Body of `POST /v1/claim_insurance_fund` (docs/protocol.md §10): one symbol of a fund row, a base quantity. */
export interface FundClaimRequest {
  claim_id: number;
  symbol: string;
  qty_request: number;
  limit_price: Record<string, number>;
}

/** Rows that passed their schema, and how many failed it, by the first problem each had. */
export interface CheckedRows<T> {
  rows: T[];
  bad: Map<string, number>;
}

/** Each row through `schema`: good ones kept, bad ones counted by their first problem (`field: code`). */
export function checkRows<S extends z.ZodType>(rows: readonly unknown[], schema: S): CheckedRows<z.output<S>> {
  const out: CheckedRows<z.output<S>> = { rows: [], bad: new Map() };
  checkInto(out, rows, 0, rows.length, schema);
  return out;
}

/**
 * `checkRows` a slice at a time, the event loop free between slices: a page of thousands of rows
 * is milliseconds of schema work, and a claim that lands meanwhile must not wait for all of it.
 */
export async function checkRowsInSlices<S extends z.ZodType>(
  rows: readonly unknown[],
  schema: S,
  slice: number,
): Promise<CheckedRows<z.output<S>>> {
  const out: CheckedRows<z.output<S>> = { rows: [], bad: new Map() };
  for (let from = 0; from < rows.length; from += slice) {
    if (from > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    checkInto(out, rows, from, Math.min(rows.length, from + slice), schema);
  }
  return out;
}

function checkInto<S extends z.ZodType>(
  out: CheckedRows<z.output<S>>,
  rows: readonly unknown[],
  from: number,
  to: number,
  schema: S,
): void {
  for (let i = from; i < to; i++) {
    const r = schema.safeParse(rows[i]);
    if (r.success) {
      out.rows.push(r.data);
      continue;
    }
    const issue = r.error.issues[0];
    const kind = issue === undefined ? "invalid" : `${issue.path.join(".") || "row"}: ${issue.code}`;
    out.bad.set(kind, (out.bad.get(kind) ?? 0) + 1);
  }
}
