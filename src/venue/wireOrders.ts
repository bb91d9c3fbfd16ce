/**
 * Validation of the private order-side pushes (docs/protocol.md §5, §6.1): one
 * `executionreport` per order state change or fill, and `balance`. Hand-written like wire.ts:
 * every field the daemon reads is checked; a bad frame is dropped whole, never half-used.
 */

import { ORDER_STATUSES, type OrderStatus } from "./orderSchemas.js";

const STATUSES: ReadonlySet<string> = new Set(ORDER_STATUSES);
export const TERMINAL_STATUSES: ReadonlySet<OrderStatus> = new Set(["FILLED", "CANCELLED", "REJECTED"]);

export interface ExecutionReport {
  symbol: string;
  clientOrderId: string | undefined;
  orderId: number;
  side: "BUY" | "SELL";
  status: OrderStatus;
  /** This fill (zero on a status-only frame). */
  executedQuantity: number;
  executedPrice: number;
  fee: number;
  /** Cumulative for the order. */
  totalExecutedQuantity: number;
  avgExecutedPrice: number;
  totalFee: number;
  /** Empty on a status-only frame (`tradeId` 0). */
  tradeId: string;
  reduceOnly: boolean;
  timestamp: number;
}

export interface BalancePush {
  /** USDC holding, when the push carries it. */
  holding: number | undefined;
  /** Margin held by open orders (`frozen`), when the push carries it as a number ≥ 0. */
  frozen?: number | undefined;
}

const MAX = 1e15;
const num = (v: unknown, min: number): v is number => typeof v === "number" && v >= min && v <= MAX;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The client order id of a push: a string, or a number the venue echoed for it (docs/protocol.md §9), read as
 * its decimal text since the daemon's ids compare as strings; undefined when absent, null or empty;
 * null when it is anything else (the frame is then bad).
 */
function clientOrderIdOf(v: unknown): string | undefined | null {
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v === "string") return v.length <= 64 ? v : null;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return String(v);
  return null;
}

/** An `executionreport` push, or undefined when anything the daemon relies on is bad. */
export function parseExecutionReport(v: unknown, isSymbol: (s: unknown) => s is string): ExecutionReport | undefined {
  if (!isRecord(v)) return undefined;
  const { symbol, clientOrderId, orderId, side, status } = v;
  if (!isSymbol(symbol) || !(typeof orderId === "number" && Number.isSafeInteger(orderId) && orderId >= 0)) return undefined;
  if (side !== "BUY" && side !== "SELL") return undefined;
  if (typeof status !== "string" || !STATUSES.has(status)) return undefined;
  const coid = clientOrderIdOf(clientOrderId);
  if (coid === null) return undefined;
  const avg = v.avgExecutedPrice ?? v.avgPrice; // the official SDK's spelling is a synonym
  const executedQuantity = v.executedQuantity ?? 0;
  const executedPrice = v.executedPrice ?? 0;
  const fee = v.fee ?? 0;
  const totalExecutedQuantity = v.totalExecutedQuantity ?? 0;
  const totalFee = v.totalFee ?? 0;
  if (!num(executedQuantity, 0) || !num(executedPrice, 0) || !num(fee, -MAX) || !num(totalExecutedQuantity, 0) || !num(totalFee, -MAX))
    return undefined;
  const avgExecutedPrice = avg ?? 0;
  if (!num(avgExecutedPrice, 0)) return undefined;
  const timestamp = v.timestamp;
  if (!num(timestamp, 0)) return undefined;
  const rawTrade = v.tradeId;
  const tradeId = rawTrade === undefined || rawTrade === null || rawTrade === 0 || rawTrade === "0" ? "" : String(rawTrade);
  if (tradeId.length > 40) return undefined;
  return {
    symbol,
    clientOrderId: coid,
    orderId,
    side,
    status: status as OrderStatus,
    executedQuantity,
    executedPrice,
    fee,
    totalExecutedQuantity,
    avgExecutedPrice,
    totalFee,
    tradeId,
    reduceOnly: v.reduceOnly === true,
    timestamp,
  };
}

/** A `balance` push; undefined when its shape is wrong. */
export function parseBalance(v: unknown): BalancePush | undefined {
  if (!isRecord(v) || !isRecord(v.balances)) return undefined;
  const usdc = v.balances.USDC;
  if (usdc === undefined) return { holding: undefined };
  if (!isRecord(usdc)) return undefined;
  if (!num(usdc.holding, -MAX)) return undefined;
  return num(usdc.frozen, 0) ? { holding: usdc.holding, frozen: usdc.frozen } : { holding: usdc.holding };
}
