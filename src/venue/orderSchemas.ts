/**
 * Payloads of the order and account operations (docs/protocol.md §6, §6.2). Numbers may arrive as
 * decimal strings on some deployments: they are read (wireNumbers.ts), then bounded; a value that
 * spells no finite number (empty, null, a boolean) is an error, never coerced to 0 or 1.
 */
import { z } from "zod";
import type { MarginMode } from "../engine/types.js";
import { symbolNumbers } from "./leverageSchemas.js";
import { tolerantRows } from "./tolerantRows.js";
import { MAX_ABS_QTY, MAX_PRICE, MAX_TIMESTAMP_MS, wireNumber } from "./wireNumbers.js";

const amount = wireNumber(z.number());
const qty = wireNumber(z.number().min(0).max(MAX_ABS_QTY));
const price = wireNumber(z.number().min(0).max(MAX_PRICE));
const time = wireNumber(z.number().int().min(0).max(MAX_TIMESTAMP_MS));
const count = wireNumber(z.number().int().min(0));
const id = wireNumber(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER));

/**
 * `client_order_id` as the domain reads it: a string, or undefined when absent, null or empty. The
 * venue may echo it as a number (docs/protocol.md §9); a safe integer is read as its decimal text (the daemon's
 * ids compare as strings), anything else is an error.
 */
const clientOrderId = z
  .union([z.string().max(64), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)])
  .nullable()
  .optional()
  .transform((v) => (v === null || v === undefined || v === "" ? undefined : String(v)));

/** `reduce_only` may be null (docs/protocol.md §9): null reads as absent. */
const reduceOnly = z
  .boolean()
  .nullable()
  .optional()
  .transform((v) => v ?? undefined);

export type OrderSide = "BUY" | "SELL";
export type OrderType = "LIMIT" | "IOC" | "FOK" | "POST_ONLY" | "MARKET";

/** The body of POST /v1/order; numbers are sent already quantised (prices to quote_tick, quantities to base_tick). */
export interface OrderRequest {
  symbol: string;
  client_order_id: string;
  order_type: OrderType;
  side: OrderSide;
  order_price?: number;
  order_quantity: number;
  reduce_only?: boolean;
  /**
   * The position the order trades (docs/protocol.md §9). Sent on every unwind order: the venue's
   * default is "the symbol's current default margin mode", which on an isolated-only market (or a
   * symbol switched to isolated) is not cross, so an order without it could address the other
   * position and a reduce-only close would be refused; the official SDK's close sends
   * `position.margin_mode || CROSS` the same way.
   */
  margin_mode?: MarginMode;
}

/** The answer of POST /v1/order: accepted, no fills yet (they follow as executionreport pushes). */
export const orderAckSchema = z.object({
  order_id: id,
  client_order_id: clientOrderId,
});
export type OrderAck = z.infer<typeof orderAckSchema>;

/** Statuses of one of the account's own orders (its record and its `executionreport` pushes). */
export const ORDER_STATUSES = ["NEW", "PARTIAL_FILLED", "FILLED", "CANCELLED", "REJECTED"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** One order as GET /v1/order/{id} and GET /v1/client/order/{client_order_id} return it. */
export const orderRecordSchema = z.object({
  order_id: id,
  client_order_id: clientOrderId,
  symbol: z.string(),
  side: z.enum(["BUY", "SELL"]),
  status: z.enum(ORDER_STATUSES),
  quantity: qty.optional(),
  price: price.nullable().optional(),
  total_executed_quantity: qty.default(0),
  average_executed_price: price.nullable().default(0),
  total_fee: amount.default(0),
  realized_pnl: amount.nullable().optional(),
  reduce_only: reduceOnly,
  created_time: time.optional(),
  updated_time: time.optional(),
});
export type OrderRecord = z.infer<typeof orderRecordSchema>;

/**
 * GET /v1/orders, read row by row (tolerantRows.ts): one order the daemon cannot read must not hide
 * the others (the unwinder settles its own order from this list). A reader that concludes from what
 * is *not* in the list asks `skippedRowsOf` first: a left-out row may be the one it looks for.
 */
export const ordersPageSchema = z.object({
  meta: z.object({ total: count, records_per_page: count, current_page: count }),
  rows: tolerantRows(orderRecordSchema),
});
export type OrdersPage = z.infer<typeof ordersPageSchema>;

/** DELETE /v1/order: `{status: "CANCEL_SENT"}`, read loosely (the status text is not relied on). */
export const cancelAckSchema = z.object({ status: z.unknown().optional() });

/** GET /v1/client/info: fee rates in basis points (8 = 0.08 %). */
export const clientInfoSchema = z.object({
  account_id: z.string().optional(),
  futures_taker_fee_rate: wireNumber(z.number().min(0).max(10_000)),
  futures_maker_fee_rate: wireNumber(z.number().min(-10_000).max(10_000)),
  /**
   * docs/protocol.md §7, §10: the account-wide leverage (a symbol with no setting of its own is at it);
   * a value that is no positive number reads as absent.
   */
  max_leverage: wireNumber(z.number().positive().max(10_000)).optional().catch(undefined),
  /** docs/protocol.md §10: the account's own imr_factor per symbol (preferred to the public row's). */
  imr_factor: symbolNumbers,
  /** docs/protocol.md §10: the largest position (quote) the account may hold per symbol. */
  max_notional: symbolNumbers,
});
export type ClientInfo = z.infer<typeof clientInfoSchema>;
