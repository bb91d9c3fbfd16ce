/**
 * Runtime schemas of every REST payload the liquidator reads (docs/protocol.md §A.2, §3–§4), and the
 * TypeScript types inferred from them. Objects are parsed loosely on purpose: the venue adds fields
 * over time (docs/protocol.md §A.9), so unknown keys are dropped, never an error; a known key with the wrong type
 * is an error (BadResponseError at the call site).
 *
 * Request shapes are plain types: the client builds them, so they are not validated at runtime on the
 * hot path.
 */

import { z } from "zod";
import { SYMBOL_PATTERN } from "../engine/types.js";
import { MAX_ABS_NOTIONAL, MAX_ABS_QTY, MAX_PRICE, MAX_TIMESTAMP_MS } from "./wire.js";

/** A JSON number that is an integer (ids, counts, ms timestamps). */
const int = z.number().int();
/** Optional-by-nature text fields the real venue sends as null (docs/protocol.md §A.2.5 "nullable"). */
const nullableString = z.string().nullable();

// ── envelope (docs/protocol.md §3) ─────────────────────────────────────────────────────────────────────

/**
 * The common envelope. `code` may arrive as a number or a numeric string (docs/protocol.md §3), so it is
 * kept as unknown here and parsed leniently by `parseVenueCode`. `timestamp` is optional metadata:
 * a malformed one is ignored rather than failing an otherwise good answer.
 */
export const envelopeSchema = z.object({
  success: z.boolean(),
  data: z.unknown().optional(),
  code: z.unknown().optional(),
  message: z.unknown().optional(),
  timestamp: z.unknown().optional(),
});
export type Envelope = z.infer<typeof envelopeSchema>;

/** A venue error code from a number or a numeric string; undefined when it is neither. */
export function parseVenueCode(code: unknown): number | undefined {
  if (typeof code === "number" && Number.isInteger(code)) return code;
  if (typeof code === "string" && /^\s*-?\d{1,9}\s*$/.test(code)) return Number.parseInt(code, 10);
  return undefined;
}

// ── docs/protocol.md §A.2.2 / §A.2.3: trading-rewards epochs ───────────────────────────────────────────────────

export const epochInfoRowSchema = z.object({
  epoch_id: int,
  start_time: int,
  end_time: int,
  power_fees_paid_major: z.number(),
  power_fees_paid_alts: z.number(),
  power_staked_major: z.number(),
  power_staked_alts: z.number(),
  epoch_token: z.string(),
  max_reward_amount: z.number(),
  k_constant_major: z.number(),
  k_constant_alts: z.number(),
});
export type EpochInfoRow = z.infer<typeof epochInfoRowSchema>;

export const epochInfoSchema = z.object({
  current_epoch: int,
  rows: z.array(epochInfoRowSchema),
});
export type EpochInfo = z.infer<typeof epochInfoSchema>;

export const epochDataRowSchema = z.object({
  epoch_id: int,
  total_trader_score_major: z.number(),
  total_trader_score_alts: z.number(),
  epoch_token: z.string(),
  // docs/protocol.md §4: Ongoing, Pending, Confirmed, or `0` for a future epoch; a bare number 0 is
  // accepted too and normalised to the string so consumers see one type.
  reward_status: z.union([z.string(), z.number()]).transform((v) => String(v)),
  r_major: z.number(),
  r_alts: z.number(),
});
export type EpochDataRow = z.infer<typeof epochDataRowSchema>;

export const epochDataSchema = z.object({
  total_released_trading_rewards_native: z.number(),
  total_released_trading_rewards_escrow: z.number(),
  current_epoch: int,
  rows: z.array(epochDataRowSchema),
});
export type EpochData = z.infer<typeof epochDataSchema>;

// ── docs/protocol.md §A.2.4: campaign user statistics ────────────────────────────────────────────────────────

export const campaignUserSchema = z.object({
  volume: z.number(),
  filled_order_count: int,
  updated_time: int,
  pnl: z.number(),
  total_deposit_amount: z.number(),
  total_withdrawal_amount: z.number(),
  start_account_value: z.number(),
  end_account_value: z.number(),
  new_invited_referee: int,
  new_traded_referee: int,
  total_staked_native: z.number(),
  total_staked_esnative: z.number(),
});
export type CampaignUser = z.infer<typeof campaignUserSchema>;

// ── docs/protocol.md §A.2.5: admin order list ────────────────────────────────────────────────────────────────

export const pageMetaSchema = z.object({
  total: int.nonnegative(),
  records_per_page: int.nonnegative(),
  current_page: int,
});
export type PageMeta = z.infer<typeof pageMetaSchema>;

export const orderRecordSchema = z.object({
  order_id: int,
  user_id: int,
  // A market order has no price of its own and an unfilled order no average: the real venue sends
  // null for those, so both are nullable.
  price: z.number().nullable(),
  type: z.string(),
  quantity: z.number(),
  amount: z.number().nullable(),
  total_executed_quantity: z.number(),
  visible_quantity: z.number(),
  symbol: z.string(),
  side: z.string(),
  status: z.string(),
  total_fee: z.number(),
  fee_asset: z.string(),
  // docs/protocol.md §A says integer; the real venue also uses string ids and null. Accept all three.
  client_order_id: z.union([int, z.string()]).nullable(),
  average_executed_price: z.number().nullable(),
  created_time: int,
  updated_time: int,
  realized_pnl: z.number().nullable(),
  executed_quantity: z.number(),
  visible: z.number(),
  executed: z.number(),
  reduce_only: z.union([z.boolean(), z.number(), z.string()]).nullable(),
  order_tag: nullableString,
  margin_mode: z.string(),
});
export type OrderRecord = z.infer<typeof orderRecordSchema>;

export const adminOrdersSchema = z.object({
  meta: pageMetaSchema,
  rows: z.array(orderRecordSchema),
});
export type AdminOrdersPage = z.infer<typeof adminOrdersSchema>;

export const ORDER_SIDES = ["BUY", "SELL"] as const;
export const ORDER_TYPES = ["LIMIT", "MARKET"] as const;
/** docs/protocol.md §A.3: values accepted by the status filter. */
export const ORDER_STATUSES = ["NEW", "CANCELLED", "PARTIAL_FILLED", "FILLED", "REJECTED", "INCOMPLETE", "COMPLETED"] as const;
/** docs/protocol.md §A.4.4 sort rules 3–6. */
export const ORDER_SORTS = ["CREATED_TIME_DESC", "CREATED_TIME_ASC", "UPDATED_TIME_DESC", "UPDATED_TIME_ASC"] as const;
/** docs/protocol.md §A.8: `size` at most 500. */
export const ADMIN_ORDERS_MAX_SIZE = 500;

/** Query of GET /v1/admin/orders (docs/protocol.md §A.4.4); exactly one of user_account / user_address. */
export interface AdminOrdersQuery {
  symbol?: string;
  side?: (typeof ORDER_SIDES)[number];
  order_type?: (typeof ORDER_TYPES)[number];
  status?: (typeof ORDER_STATUSES)[number];
  order_tag?: string;
  start_t?: number;
  end_t?: number;
  /** Named only in docs/protocol.md §A.4.4's sort rule 1; sent as 13-digit ms like start_t. */
  update_start_t?: number;
  update_end_t?: number;
  page?: number;
  size?: number;
  sort_by?: (typeof ORDER_SORTS)[number];
  user_account?: string;
  user_address?: string;
}

/** Query of GET /v1/public/campaign/user (docs/protocol.md §4). */
export interface CampaignUserQuery {
  campaign_id: number;
  account_id?: string;
  address?: string;
  order_tag?: string;
  broker_id?: string;
  symbol?: string;
}

// ── docs/protocol.md §A.2.6 / §4.1: liquidation claim ──────────────────────────────────────────────

/** Body of POST /v1/liquidation (docs/protocol.md §4: ratio is a fraction in (0, 1], a deviation). */
export interface ClaimRequest {
  liquidation_id: number;
  ratio_qty_request: number;
  limit_price: Record<string, number>;
  extra_liquidation_ratio?: number;
  symbols?: { symbol: string; ratio_qty_request: number }[];
}

/**
 * One fill of an accepted claim. It becomes held exposure, a journal record and the `symbol` label of
 * `fee_earned_total`, so it gets the same bounds as the private stream's copy of it
 * (`liquidatorliquidations`, wire.ts): a venue symbol, a fee that is a fraction, a positive price,
 * and a fee amount that is not negative (a Prometheus counter cannot go down: a negative one threw
 * inside the claim's settlement, an unhandled rejection that ended the process).
 */
export const positionTransferSchema = z.object({
  symbol: z.string().regex(SYMBOL_PATTERN),
  abs_liquidator_fee: z.number().min(0).max(MAX_ABS_NOTIONAL),
  cost_position_transfer: z.number().min(-MAX_ABS_NOTIONAL).max(MAX_ABS_NOTIONAL),
  liquidator_fee: z.number().min(0).lt(1),
  position_qty: z.number().min(-MAX_ABS_QTY).max(MAX_ABS_QTY),
  transfer_price: z.number().positive().max(MAX_PRICE),
});
export type PositionTransfer = z.infer<typeof positionTransferSchema>;

export const claimResultSchema = z.object({
  // Same bounds as the stream's ids and times (wire.ts); the claimer orders this timestamp against
  // `position` pushes.
  liquidation_id: int.nonnegative(),
  timestamp: int.min(0).max(MAX_TIMESTAMP_MS),
  type: z.string(),
  positions_by_perp: z.array(positionTransferSchema),
});
export type ClaimResult = z.infer<typeof claimResultSchema>;

// ── docs/protocol.md §4: open liquidations, futures, info ──────────────────────────────────────────────

export const openLiquidationSchema = z.object({
  liquidation_id: int,
  timestamp: int,
  type: z.string(),
  positions_by_perp: z.array(
    z.object({
      symbol: z.string(),
      position_qty: z.number(),
      liquidator_fee: z.number(),
    }),
  ),
});
export type OpenLiquidation = z.infer<typeof openLiquidationSchema>;

export const openLiquidationsSchema = z.object({
  meta: pageMetaSchema,
  rows: z.array(openLiquidationSchema),
});
export type OpenLiquidationsPage = z.infer<typeof openLiquidationsSchema>;

/** Query of GET /v1/public/liquidation (docs/protocol.md §4; size defaults to 60 at the venue). */
export interface OpenLiquidationsQuery {
  page?: number;
  size?: number;
  start_t?: number;
  end_t?: number;
}

export const futuresRowSchema = z.object({
  symbol: z.string(),
  mark_price: z.number(),
  index_price: z.number(),
});
export type FuturesRow = z.infer<typeof futuresRowSchema>;
export const futuresSchema = z.object({ rows: z.array(futuresRowSchema) });
export type Futures = z.infer<typeof futuresSchema>;

// ── docs/protocol.md §6: positions ────────────────────────────────────────────────────────────────────

export const positionRowSchema = z.object({
  symbol: z.string(),
  position_qty: z.number(),
  cost_position: z.number().optional(),
  average_open_price: z.number().optional(),
  mark_price: z.number().optional(),
  unsettled_pnl: z.number().optional(),
  timestamp: z.number().optional(),
  /** docs/protocol.md §9: a symbol has a row per margin mode; absent or null = CROSS. */
  margin_mode: z.enum(["CROSS", "ISOLATED"]).nullish(),
});
export type PositionRow = z.infer<typeof positionRowSchema>;
export const positionsSchema = z.object({ rows: z.array(positionRowSchema) });
export type Positions = z.infer<typeof positionsSchema>;

/** Rows are checked one by one (engine/symbolInfo.ts): one bad row must not hide every symbol. */
export const infoSchema = z.object({ rows: z.array(z.unknown()) });
export type Info = z.infer<typeof infoSchema>;
