/**
 * How the simulated venue spells its answers, in one place. `spec` (the default) answers as
 * docs/protocol.md writes them. `real` answers the way the real venue may where no public source
 * settles it (docs/protocol.md §9), so the daemon can be run against every variant it must tolerate:
 *
 * - `/v1/public/info` rows carry `liquidation_tier` as a string (`"1"`), as the venue's docs did until 2024;
 * - the success envelope's `timestamp` is a decimal string, as a public client's recorded answers show;
 * - order records carry `reduce_only: null` (always: a recorded sample shows null, and nothing says
 *   for which orders, so the daemon's own reduce-only orders get it too) and a client order id made
 *   only of digits as a JSON number;
 * - an order looked up by an id the venue does not know is -1000 "data does not exist" with HTTP 500
 *   (the venue's documented answer) instead of -1006 / 400;
 * - a claim answer's per-symbol rows keep only `symbol` and `position_qty` (the OpenAPI makes the
 *   rest optional);
 * - the trading-rewards fields have the real `*_order` names instead of the spec's `*_native` ones;
 * - a claim refused by `limit_price` (-1203 here) is answered with REAL_LIMIT_PRICE_CODE, a code the
 *   daemon's table does not know, as the real venue's code for it is unpublished.
 *
 * The routes pass every answer through their WireFlavor; `spec` returns its input untouched, so the
 * default answers stay byte for byte what they were.
 */
import type { CampaignStats } from "./campaigns.js";
import { VenueRefusal } from "./venueRefusal.js";
import type { ClaimResponseData } from "./wireShapes.js";

export const SIM_FLAVORS = ["spec", "real"] as const;
export type SimFlavor = (typeof SIM_FLAVORS)[number];

/** The simulator's code for a claim refused by `limit_price`. */
const LIMIT_PRICE_CODE = -1203;
/** What the `real` flavor answers instead: absent from src/venue/errors.ts VENUE_CODES (a test checks it). */
const REAL_LIMIT_PRICE_CODE = -1205;

/** The fields of an order record a flavor may respell. */
export interface OrderIdFields {
  client_order_id: string | number | null;
}

export interface WireFlavor {
  readonly name: SimFlavor;
  /** The success envelope's `timestamp`. */
  envelopeTimestamp(now: number): number | string;
  /** One row of GET /v1/public/info[/{symbol}]. */
  infoRow(row: Record<string, unknown>): Record<string, unknown>;
  /** One order record of GET /v1/order/{id}, /v1/client/order/{id}, /v1/orders. */
  orderRecord<T extends OrderIdFields>(order: T): T | Record<string, unknown>;
  /** The answer of POST /v1/order. */
  orderAck<T extends OrderIdFields>(ack: T): T | Record<string, unknown>;
  /** An order looked up (by order id or client order id) that the account does not have. */
  unknownOrder(detail: string): VenueRefusal;
  /** data of a successful POST /v1/liquidation. */
  claimAnswer(data: ClaimResponseData): unknown;
  /** A claim refusal as answered on the wire (the claim log keeps the rule's own code). */
  claimRefusal(refusal: VenueRefusal): VenueRefusal;
  /** data of GET /v1/public/trading_rewards/epoch_data. */
  epochData<T extends object>(data: T): T | Record<string, unknown>;
  /** data of GET /v1/public/campaign/user. */
  campaignUser(stats: CampaignStats): CampaignStats | Record<string, unknown>;
}

const same = <T>(v: T): T => v;

const SPEC: WireFlavor = {
  name: "spec",
  envelopeTimestamp: same,
  infoRow: same,
  orderRecord: same,
  orderAck: same,
  unknownOrder: (detail) => new VenueRefusal(-1006, detail),
  claimAnswer: same,
  claimRefusal: same,
  epochData: same,
  campaignUser: same,
};

/** The real venue's rewards names for the spec's (docs/protocol.md §9, verified). */
const REAL_REWARDS_NAMES: Readonly<Record<string, string>> = {
  total_released_trading_rewards_native: "total_released_trading_rewards_order",
  total_staked_native: "total_staked_order",
  total_staked_esnative: "total_staked_esorder",
};

/** `o` with keys renamed in place (their order kept). */
function renamed(o: object, names: Readonly<Record<string, string>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [names[k] ?? k, v]));
}

/** A client order id of digits only (no leading zero, a safe integer) as a number; anything else as is. */
function numericId(id: string | number | null): string | number | null {
  return typeof id === "string" && /^(0|[1-9]\d{0,14})$/.test(id) ? Number(id) : id;
}

const REAL: WireFlavor = {
  name: "real",
  envelopeTimestamp: (now) => String(now),
  infoRow: (row) => ({ ...row, liquidation_tier: String(row.liquidation_tier) }),
  orderRecord: (order) => ({ ...order, client_order_id: numericId(order.client_order_id), reduce_only: null }),
  orderAck: (ack) => ({ ...ack, client_order_id: numericId(ack.client_order_id) }),
  unknownOrder: () => new VenueRefusal(-1000, undefined, { status: 500, message: "data does not exist" }),
  claimAnswer: (data) => ({
    liquidation_id: data.liquidation_id,
    timestamp: data.timestamp,
    type: data.type,
    positions_by_perp: data.positions_by_perp.map((p) => ({ symbol: p.symbol, position_qty: p.position_qty })),
  }),
  claimRefusal: (refusal) =>
    refusal.code === LIMIT_PRICE_CODE
      ? new VenueRefusal(REAL_LIMIT_PRICE_CODE, undefined, { status: refusal.status, message: refusal.message })
      : refusal,
  epochData: (data) => renamed(data, REAL_REWARDS_NAMES),
  campaignUser: (stats) => renamed(stats, REAL_REWARDS_NAMES),
};

export function wireFlavor(flavor: SimFlavor = "spec"): WireFlavor {
  return flavor === "real" ? REAL : SPEC;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { REAL_LIMIT_PRICE_CODE as REAL_LIMIT_PRICE_CODE_FOR_TESTS };
