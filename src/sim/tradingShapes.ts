/**
 * The simulated venue's order record (REST, snake_case) and the private push payloads of trading
 * (`executionreport`, `position` rows), as docs/protocol.md §5 and §6 spell them.
 */
import { type SymbolBooks, unsettledPnl } from "./accounting.js";
import type { MarginMode, OrderInput } from "./orderRules.js";

export type SimOrderStatus = "NEW" | "PARTIAL_FILLED" | "FILLED" | "CANCELLED" | "REJECTED";

/** One order as the REST reads show it (snake_case, docs/protocol.md §6.1). */
export interface SimOrder {
  order_id: number;
  client_order_id: string | null;
  symbol: string;
  side: "BUY" | "SELL";
  type: OrderInput["type"];
  price: number | null;
  quantity: number;
  total_executed_quantity: number;
  average_executed_price: number;
  total_fee: number;
  fee_asset: "USDC";
  status: SimOrderStatus;
  reduce_only: boolean;
  margin_mode: MarginMode;
  created_time: number;
  updated_time: number;
  realized_pnl: number;
}

/** An accepted order as the venue records it: NEW, nothing executed yet. */
export function newSimOrder(orderId: number, o: OrderInput, now: number): SimOrder {
  return {
    order_id: orderId,
    client_order_id: o.clientOrderId ?? null,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    price: o.price ?? null,
    quantity: o.qty,
    total_executed_quantity: 0,
    average_executed_price: 0,
    total_fee: 0,
    fee_asset: "USDC",
    status: "NEW",
    reduce_only: o.reduceOnly,
    margin_mode: o.marginMode,
    created_time: now,
    updated_time: now,
    realized_pnl: 0,
  };
}

export function isOpen(o: SimOrder): boolean {
  return o.status === "NEW" || o.status === "PARTIAL_FILLED";
}

/** One trade of an order (absent on a status-only frame). */
export interface ReportFill {
  tradeId: number;
  price: number;
  qty: number;
  fee: number;
}

export function executionReportData(o: SimOrder, fill: ReportFill | undefined): Record<string, unknown> {
  return {
    symbol: o.symbol,
    clientOrderId: o.client_order_id ?? "",
    orderId: o.order_id,
    type: o.type,
    side: o.side,
    quantity: o.quantity,
    price: o.price ?? 0,
    tradeId: fill?.tradeId ?? 0,
    executedPrice: fill?.price ?? 0,
    executedQuantity: fill?.qty ?? 0,
    fee: fill?.fee ?? 0,
    feeAsset: "USDC",
    totalExecutedQuantity: o.total_executed_quantity,
    avgExecutedPrice: o.average_executed_price,
    totalFee: o.total_fee,
    status: o.status,
    reason: "",
    reduceOnly: o.reduce_only,
    timestamp: o.updated_time,
  };
}

/** One row of a `position` push (a delta per symbol), with the symbol's leverage setting (docs/protocol.md §10). */
export function positionRow(
  symbol: string,
  mode: MarginMode,
  b: SymbolBooks,
  mark: number,
  now: number,
  leverage: number,
): Record<string, unknown> {
  return {
    symbol,
    marginMode: mode,
    leverage,
    positionQty: b.qty,
    costPosition: b.costPosition,
    averageOpenPrice: b.averageOpenPrice,
    markPrice: mark,
    unsettledPnl: unsettledPnl(b, mark),
    timestamp: now,
  };
}
