/**
 * Runtime schemas of every REST payload the liquidator reads (docs/protocol.md §A.2, §3–§4), and the
 * TypeScript types inferred from them. Objects are parsed loosely on purpose: the venue adds fields
 * over time (docs/protocol.md §A.9), so unknown keys are dropped, never an error; a known key with the wrong type
 * is an error (BadResponseError at the call site).
 *
 * Request shapes are plain types: the client builds them, so they are not validated at runtime on the
 * hot path.
 *
 * Longer than most files: the schemas of the REST answers side by side, one short block per
 * endpoint, sharing the bounds of wireNumbers.ts.
 */

import { z } from "zod";
import { SYMBOL_PATTERN } from "../engine/types.js";
import { tolerantRows } from "./tolerantRows.js";
import { MAX_ABS_NOTIONAL, MAX_ABS_QTY, MAX_LEVERAGE, MAX_PRICE, MAX_TIMESTAMP_MS } from "./wire.js";
import { wireFinite, wireInt, wireNumber } from "./wireNumbers.js";

/**
 * An integer (ids, counts, ms timestamps) and a finite number, each as a JSON number or a decimal
 * string: the venue has written both (docs/protocol.md §9). Anything else is still an error.
 */
const int = wireInt;
const num = wireFinite;
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

const epochInfoRowSchema = z.object({
  epoch_id: int,
  start_time: int,
  end_time: int,
  power_fees_paid_major: num,
  power_fees_paid_alts: num,
  power_staked_major: num,
  power_staked_alts: num,
  epoch_token: z.string(),
  max_reward_amount: num,
  k_constant_major: num,
  k_constant_alts: num,
});
export type EpochInfoRow = z.infer<typeof epochInfoRowSchema>;

/** Epoch rows are read one by one (tolerantRows.ts): one odd epoch never hides the others' gauges. */
export const epochInfoSchema = z.object({
  current_epoch: int,
  rows: tolerantRows(epochInfoRowSchema),
});
export type EpochInfo = z.infer<typeof epochInfoSchema>;

const epochDataRowSchema = z.object({
  epoch_id: int,
  total_trader_score_major: num,
  total_trader_score_alts: num,
  epoch_token: z.string(),
  // docs/protocol.md §4: Ongoing, Pending, Confirmed, or `0` for a future epoch; a bare number 0 is
  // accepted too and normalised to the string so consumers see one type.
  reward_status: z.union([z.string(), num]).transform((v) => String(v)),
  r_major: num,
  r_alts: num,
});
export type EpochDataRow = z.infer<typeof epochDataRowSchema>;

/**
 * The real venue spells three trading-rewards fields `*_order` / `*_esorder` where the published interface (docs/protocol.md §A) has
 * `*_native` / `*_esnative` (docs/protocol.md §9). Both are read (under every preset: a spec venue never
 * sends the real names, so accepting them costs nothing); the spec name wins when both are present,
 * and everything past this schema (the poller, the metrics, `epochs`, `campaign`) reads spec names only.
 */
const REWARDS_FIELD_ALIASES: Readonly<Record<string, string>> = {
  total_released_trading_rewards_order: "total_released_trading_rewards_native",
  total_staked_order: "total_staked_native",
  total_staked_esorder: "total_staked_esnative",
};

/** The object with each real-venue name copied to its spec name when the spec name is absent. */
function withSpecRewardsNames(v: unknown): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
  const r = v as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const real of Object.keys(REWARDS_FIELD_ALIASES)) {
    const spec = REWARDS_FIELD_ALIASES[real] as string;
    if (r[spec] !== undefined || r[real] === undefined) continue;
    out ??= { ...r };
    out[spec] = r[real];
  }
  return out ?? v;
}

export const epochDataSchema = z.preprocess(
  withSpecRewardsNames,
  z.object({
    total_released_trading_rewards_native: num,
    total_released_trading_rewards_escrow: num,
    current_epoch: int,
    rows: tolerantRows(epochDataRowSchema),
  }),
);
export type EpochData = z.infer<typeof epochDataSchema>;

// ── docs/protocol.md §A.2.4: campaign user statistics ────────────────────────────────────────────────────────

export const campaignUserSchema = z.preprocess(
  withSpecRewardsNames,
  z.object({
    volume: num,
    filled_order_count: int,
    updated_time: int,
    pnl: num,
    total_deposit_amount: num,
    total_withdrawal_amount: num,
    start_account_value: num,
    end_account_value: num,
    new_invited_referee: int,
    new_traded_referee: int,
    total_staked_native: num,
    total_staked_esnative: num,
  }),
);
export type CampaignUser = z.infer<typeof campaignUserSchema>;

// ── docs/protocol.md §A.2.5: admin order list ────────────────────────────────────────────────────────────────

const pageMetaSchema = z.object({
  total: wireNumber(z.number().int().nonnegative()),
  records_per_page: wireNumber(z.number().int().nonnegative()),
  current_page: int,
});
export type PageMeta = z.infer<typeof pageMetaSchema>;

/** One row of GET /v1/admin/orders: anyone's order, read tolerantly (orderSchemas.ts's OrderRecord is one of our own). */
const adminOrderRowSchema = z.object({
  order_id: int,
  user_id: int,
  // A market order has no price of its own and an unfilled order no average: the real venue sends
  // null for those, so both are nullable.
  price: num.nullable(),
  type: z.string(),
  quantity: num,
  amount: num.nullable(),
  total_executed_quantity: num,
  visible_quantity: num,
  symbol: z.string(),
  side: z.string(),
  status: z.string(),
  total_fee: num,
  fee_asset: z.string(),
  // docs/protocol.md §A says integer; the real venue also uses string ids and null. Accept all three
  // (a string stays a string: "007" is not the id 7).
  client_order_id: z.union([z.string(), z.number().int()]).nullable(),
  average_executed_price: num.nullable(),
  created_time: int,
  updated_time: int,
  realized_pnl: num.nullable(),
  executed_quantity: num,
  visible: num,
  executed: num,
  reduce_only: z.union([z.boolean(), num, z.string()]).nullable(),
  order_tag: nullableString,
  margin_mode: z.string(),
});
export type AdminOrderRow = z.infer<typeof adminOrderRowSchema>;

/** Rows read one by one (tolerantRows.ts): one order the daemon cannot read never hides a page. */
export const adminOrdersSchema = z.object({
  meta: pageMetaSchema,
  rows: tolerantRows(adminOrderRowSchema),
});
export type AdminOrdersPage = z.infer<typeof adminOrdersSchema>;

export const ORDER_SIDES = ["BUY", "SELL"] as const;
/** docs/protocol.md §A.4.4: the order types the admin order list's `order_type` filter accepts (the venue has more). */
export const ADMIN_ORDER_TYPES = ["LIMIT", "MARKET"] as const;
/** docs/protocol.md §A.3: statuses of the admin order list, the values its status filter accepts (a superset of ORDER_STATUSES). */
export const ADMIN_ORDER_STATUSES = ["NEW", "CANCELLED", "PARTIAL_FILLED", "FILLED", "REJECTED", "INCOMPLETE", "COMPLETED"] as const;
/** docs/protocol.md §A.4.4 sort rules 3–6. */
export const ORDER_SORTS = ["CREATED_TIME_DESC", "CREATED_TIME_ASC", "UPDATED_TIME_DESC", "UPDATED_TIME_ASC"] as const;
/** docs/protocol.md §A.8: `size` at most 500. */
export const ADMIN_ORDERS_MAX_SIZE = 500;

/** Query of GET /v1/admin/orders (docs/protocol.md §A.4.4); exactly one of user_account / user_address. */
export interface AdminOrdersQuery {
  symbol?: string;
  side?: (typeof ORDER_SIDES)[number];
  order_type?: (typeof ADMIN_ORDER_TYPES)[number];
  status?: (typeof ADMIN_ORDER_STATUSES)[number];
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
 *
 * Every field is optional in the venue's OpenAPI (docs/protocol.md §9), so each may be absent; one that is
 * present must be within its bounds (a number or a decimal string). `claimFills` (mapping.ts) uses
 * the answer's fills only when they are complete.
 */
const positionTransferSchema = z.object({
  symbol: z.string().regex(SYMBOL_PATTERN).optional(),
  abs_liquidator_fee: wireNumber(z.number().min(0).max(MAX_ABS_NOTIONAL)).optional(),
  cost_position_transfer: wireNumber(z.number().min(-MAX_ABS_NOTIONAL).max(MAX_ABS_NOTIONAL)).optional(),
  liquidator_fee: wireNumber(z.number().min(0).lt(1)).optional(),
  position_qty: wireNumber(z.number().min(-MAX_ABS_QTY).max(MAX_ABS_QTY)).optional(),
  transfer_price: wireNumber(z.number().positive().max(MAX_PRICE)).optional(),
});

/**
 * The answer of an accepted claim. Lean answers are accepted (docs/protocol.md §9: every field optional in
 * the OpenAPI): the HTTP success is what says the claim was applied, and what it transferred comes
 * from these fields when complete, else from the private stream or the positions reconcile
 * (daemon/claimOutcomes.ts).
 */
export const claimResultSchema = z.object({
  // Same bounds as the stream's ids and times (wire.ts); the claimer orders this timestamp against
  // `position` pushes.
  liquidation_id: wireNumber(z.number().int().nonnegative()).optional(),
  timestamp: wireNumber(z.number().int().min(0).max(MAX_TIMESTAMP_MS)).optional(),
  type: z.string().optional(),
  positions_by_perp: z.array(positionTransferSchema).optional(),
});
export type ClaimResult = z.infer<typeof claimResultSchema>;

// ── docs/protocol.md §4: open liquidations, futures, info ──────────────────────────────────────────────

/**
 * One row of the open list. Every field is optional in the OpenAPI (docs/protocol.md §9): what a claim needs
 * (the id, and each position's symbol, quantity and fee, within the stream's bounds, wire.ts) is
 * required and a row without it is left out of the page (tolerantRows.ts); `timestamp` only orders
 * ties, so an absent one reads as 0; `type` is kept as sent (`liquidated`, `claim`, …), or absent.
 */
export const openLiquidationSchema = z.object({
  liquidation_id: int,
  timestamp: int.optional().transform((t) => t ?? 0),
  type: z.string().optional(),
  positions_by_perp: z.array(
    z.object({
      symbol: z.string(),
      position_qty: wireNumber(z.number().min(-MAX_ABS_QTY).max(MAX_ABS_QTY)),
      liquidator_fee: wireNumber(z.number().min(0).lt(1)),
    }),
  ),
});
export type OpenLiquidation = z.infer<typeof openLiquidationSchema>;

/** A page of the open list, read row by row: a row that does not parse is left out, the others used. */
export const openLiquidationsSchema = z.object({
  meta: pageMetaSchema,
  rows: tolerantRows(openLiquidationSchema),
});
export type OpenLiquidationsPage = z.infer<typeof openLiquidationsSchema>;

/** Query of GET /v1/public/liquidation (docs/protocol.md §4; size defaults to 60 at the venue). */
export interface OpenLiquidationsQuery {
  page?: number;
  size?: number;
  start_t?: number;
  end_t?: number;
}

/** A futures row: its mark is what is read; the index price (unused) reads as absent when malformed. */
const futuresRowSchema = z.object({
  symbol: z.string(),
  mark_price: num,
  index_price: num.optional().catch(undefined),
});
export type FuturesRow = z.infer<typeof futuresRowSchema>;
/** Read row by row: a symbol whose row does not parse has no REST mark (it is not claimed on it), the others do. */
export const futuresSchema = z.object({ rows: tolerantRows(futuresRowSchema) });
export type Futures = z.infer<typeof futuresSchema>;

// ── docs/protocol.md §6: positions ────────────────────────────────────────────────────────────────────

/**
 * One position row. Not read row by row: a row left out would read as flat and understate what is
 * held (exposure, margin), so a row without a readable symbol, quantity or margin mode fails the
 * snapshot (the last one stays in force). The other fields are optional in the OpenAPI and only
 * refine it: one that is malformed reads as absent and the row is kept.
 */
export const positionRowSchema = z.object({
  symbol: z.string(),
  position_qty: wireNumber(z.number().min(-MAX_ABS_QTY).max(MAX_ABS_QTY)),
  cost_position: num.optional().catch(undefined),
  average_open_price: wireNumber(z.number().min(0).max(MAX_PRICE)).optional().catch(undefined),
  mark_price: wireNumber(z.number().min(0).max(MAX_PRICE)).optional().catch(undefined),
  unsettled_pnl: num.optional().catch(undefined),
  timestamp: wireNumber(z.number().int().min(0).max(MAX_TIMESTAMP_MS)).optional().catch(undefined),
  /** docs/protocol.md §9: a symbol has a row per margin mode; absent or null = CROSS. */
  margin_mode: z.enum(["CROSS", "ISOLATED"]).nullish(),
  /** docs/protocol.md §10: the symbol's leverage setting in this margin mode. */
  leverage: wireNumber(z.number().positive().max(MAX_LEVERAGE)).optional().catch(undefined),
});
export type PositionRow = z.infer<typeof positionRowSchema>;
/** docs/protocol.md §6/§7: the account's figures ride along; read when present, never required. */
export const positionsSchema = z.object({
  total_collateral_value: num.optional().catch(undefined),
  free_collateral: num.optional().catch(undefined),
  margin_ratio: num.optional().catch(undefined),
  rows: z.array(positionRowSchema),
});
export type Positions = z.infer<typeof positionsSchema>;

/** Rows are checked one by one (engine/symbolInfo.ts): one bad row must not hide every symbol. */
export const infoSchema = z.object({ rows: z.array(z.unknown()) });
export type Info = z.infer<typeof infoSchema>;
