/**
 * The venue's REST operations of a liquidator (docs/protocol.md §4, §4.1): the
 * reads and the claim, on the request machinery of restCore.ts. Orders and the account: orderApi.ts.
 */

import { LeverageApi } from "./leverageApi.js";
import type { Leverages } from "./leverageSchemas.js";
import { type ClientInfo, clientInfoSchema } from "./orderSchemas.js";
import {
  buildQuery,
  type CallOptions,
  type ClaimCallOptions,
  collectPages,
  dataOf,
  type RestClientOptions,
  RestCore,
  type Stamped,
} from "./restCore.js";
import {
  type AdminOrdersPage,
  type AdminOrdersQuery,
  adminOrdersSchema,
  type CampaignUser,
  type CampaignUserQuery,
  type ClaimRequest,
  type ClaimResult,
  campaignUserSchema,
  claimResultSchema,
  type EpochData,
  type EpochInfo,
  epochDataSchema,
  epochInfoSchema,
  type Futures,
  futuresSchema,
  type Info,
  infoSchema,
  type OpenLiquidation,
  type OpenLiquidationsPage,
  type OpenLiquidationsQuery,
  openLiquidationsSchema,
  type Positions,
  positionsSchema,
} from "./restSchemas.js";

export {
  buildQuery,
  type CallOptions,
  type ClaimCallOptions,
  collectPages,
  pageCount,
  type RestClientOptions,
  type RetryOptions,
  type Stamped,
} from "./restCore.js";

const ENDPOINTS = {
  epochInfo: "/v1/public/trading_rewards/epoch_info",
  epochData: "/v1/public/trading_rewards/epoch_data",
  campaignUser: "/v1/public/campaign/user",
  adminOrders: "/v1/admin/orders",
  claim: "/v1/liquidation",
  openLiquidations: "/v1/public/liquidation",
  futures: "/v1/public/futures",
  info: "/v1/public/info",
  positions: "/v1/positions",
} as const;

export class RestClient extends RestCore {
  /** Built once: the claim is the hot path. */
  readonly #claimPath: string;
  /** The account's leverage (docs/protocol.md §10). */
  readonly leverage: LeverageApi;

  constructor(options: RestClientOptions) {
    super(options);
    this.#claimPath = this.basePath + ENDPOINTS.claim;
    this.leverage = new LeverageApi(this);
  }

  epochInfo(opts: CallOptions = {}): Promise<EpochInfo> {
    return this.get(ENDPOINTS.epochInfo, "public", "", epochInfoSchema, false, opts).then(dataOf);
  }

  epochData(opts: CallOptions = {}): Promise<EpochData> {
    return this.get(ENDPOINTS.epochData, "public", "", epochDataSchema, false, opts).then(dataOf);
  }

  campaignUser(params: CampaignUserQuery, opts: CallOptions = {}): Promise<CampaignUser> {
    const q = buildQuery({
      campaign_id: params.campaign_id,
      account_id: params.account_id,
      address: params.address,
      order_tag: params.order_tag,
      broker_id: params.broker_id,
      symbol: params.symbol,
    });
    return this.get(ENDPOINTS.campaignUser, "public", q, campaignUserSchema, false, opts).then(dataOf);
  }

  adminOrders(query: AdminOrdersQuery, opts: CallOptions = {}): Promise<AdminOrdersPage> {
    const q = buildQuery({
      symbol: query.symbol,
      side: query.side,
      order_type: query.order_type,
      status: query.status,
      order_tag: query.order_tag,
      start_t: query.start_t,
      end_t: query.end_t,
      update_start_t: query.update_start_t,
      update_end_t: query.update_end_t,
      page: query.page,
      size: query.size,
      sort_by: query.sort_by,
      user_account: query.user_account,
      user_address: query.user_address,
    });
    return this.get(ENDPOINTS.adminOrders, "admin_orders", q, adminOrdersSchema, true, opts).then(dataOf);
  }

  /**
   * The claim. Exactly one attempt (a POST is never retried: the caller owns the outcome), one
   * JSON.stringify, and the signed bytes are the sent bytes.
   */
  claimLiquidation(body: ClaimRequest, opts: ClaimCallOptions = {}): Promise<ClaimResult> {
    return this.attempt(
      "POST",
      ENDPOINTS.claim,
      opts.permitHeld === true ? undefined : "claims",
      this.#claimPath,
      JSON.stringify(body),
      claimResultSchema,
      true,
      opts.signal,
      "claim",
    ).then(dataOf);
  }

  /**
   * The sign and request-text steps of `claimLiquidation` and nothing else: the text's length (the
   * claim rehearsal's wire, core/claimPipeline.ts). Nothing is written.
   */
  claimText(body: ClaimRequest): number {
    return this.signedPostText(this.#claimPath, JSON.stringify(body));
  }

  openLiquidations(query: OpenLiquidationsQuery = {}, opts: CallOptions = {}): Promise<OpenLiquidationsPage> {
    const q = buildQuery({ page: query.page, size: query.size, start_t: query.start_t, end_t: query.end_t });
    return this.get(ENDPOINTS.openLiquidations, "public", q, openLiquidationsSchema, false, opts).then(dataOf);
  }

  /** Every open liquidation, all pages; an id seen twice (the list moved while paging) keeps its latest row. */
  async allOpenLiquidations(opts: CallOptions = {}): Promise<OpenLiquidation[]> {
    const rows = await collectPages((page) => this.openLiquidations({ page }, opts));
    return [...new Map(rows.map((r) => [r.liquidation_id, r])).values()];
  }

  futures(opts: CallOptions = {}): Promise<Futures> {
    return this.get(ENDPOINTS.futures, "public", "", futuresSchema, false, opts).then(dataOf);
  }

  /** Mark prices with the venue time of the answer: how old a REST mark is (degraded mode). */
  futuresStamped(opts: CallOptions = {}): Promise<Stamped<Futures>> {
    return this.get(ENDPOINTS.futures, "public", "", futuresSchema, false, opts);
  }

  /** GET /v1/client/info (docs/protocol.md §6): fee rates and the account's max leverage. */
  clientInfo(opts: CallOptions = {}): Promise<Stamped<ClientInfo>> {
    return this.get("/v1/client/info", "account_reads", "", clientInfoSchema, true, opts);
  }

  /** GET /v1/client/leverages (docs/protocol.md §10): every symbol's leverage setting, read row by row. */
  leverages(opts: CallOptions = {}): Promise<Stamped<Leverages>> {
    return this.leverage.leverages(opts);
  }

  /** The account's positions (docs/protocol.md §6), with the venue time they are as of. */
  positions(opts: CallOptions = {}): Promise<Stamped<Positions>> {
    return this.get(ENDPOINTS.positions, "account_reads", "", positionsSchema, true, opts);
  }

  info(opts: CallOptions = {}): Promise<Info> {
    return this.get(ENDPOINTS.info, "public", "", infoSchema, false, opts).then(dataOf);
  }
}
