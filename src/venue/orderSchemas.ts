/**
 * Payloads of the order and account operations (docs/protocol.md §6, §6.2). Numbers
 * may arrive as decimal strings on some deployments: they are coerced, then bounded.
 */
import { z } from "zod";
import { MAX_ABS_QTY, MAX_PRICE, MAX_TIMESTAMP_MS } from "./wire.js";

const amount = z.coerce.number().finite();
const qty = z.coerce.number().min(0).max(MAX_ABS_QTY);
const price = z.coerce.number().min(0).max(MAX_PRICE);
const time = z.coerce.number().int().min(0).max(MAX_TIMESTAMP_MS);
const id = z.number().int().nonnegative();

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
}

/** The answer of POST /v1/order: accepted, no fills yet (they follow as executionreport pushes). */
export const orderAckSchema = z.object({
  order_id: id,
  client_order_id: z.string().nullable().optional(),
});
export type OrderAck = z.infer<typeof orderAckSchema>;

export const ORDER_STATUSES = ["NEW", "PARTIAL_FILLED", "FILLED", "CANCELLED", "REJECTED"] as const;

/** One order as GET /v1/order/{id} and GET /v1/client/order/{client_order_id} return it. */
export const orderRecordSchema = z.object({
  order_id: id,
  client_order_id: z.string().nullable().optional(),
  symbol: z.string(),
  side: z.enum(["BUY", "SELL"]),
  status: z.enum(ORDER_STATUSES),
  quantity: qty.optional(),
  price: price.nullable().optional(),
  total_executed_quantity: qty.default(0),
  average_executed_price: price.nullable().default(0),
  total_fee: amount.default(0),
  realized_pnl: amount.nullable().optional(),
  reduce_only: z.boolean().optional(),
  created_time: time.optional(),
  updated_time: time.optional(),
});
export type OrderRecord = z.infer<typeof orderRecordSchema>;

export const ordersPageSchema = z.object({
  meta: z.object({ total: z.number().int().min(0), records_per_page: z.number().int().min(0), current_page: z.number().int().min(0) }),
  rows: z.array(orderRecordSchema),
});
export type OrdersPage = z.infer<typeof ordersPageSchema>;

/** DELETE /v1/order: `{status: "CANCEL_SENT"}`, read loosely (the status text is not relied on). */
export const cancelAckSchema = z.object({ status: z.unknown().optional() });

/** GET /v1/client/info: fee rates in basis points (8 = 0.08 %). */
export const clientInfoSchema = z.object({
  account_id: z.string().optional(),
  futures_taker_fee_rate: amount.min(0).max(10_000),
  futures_maker_fee_rate: amount.min(-10_000).max(10_000),
});
export type ClientInfo = z.infer<typeof clientInfoSchema>;
