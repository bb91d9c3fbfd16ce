/**
 * The venue's other supply (docs/protocol.md §10), on the request machinery of restCore.ts: the insurance
 * fund's positions and claims, and the Public Info API's platform positions. The query API has a
 * rate-limit pool of its own, counted in weights per minute, which the caller budgets
 * (daemon/feeds/forecastPoller.ts): its requests take no permit of the venue's per-second limiters and are
 * never retried here. Fund claims take the `fund_claims` limiter (5/s, apart from liquidation claims).
 */
import { type CallOptions, type ClaimCallOptions, dataOf, type RestCore } from "./restCore.js";
import { type ClaimResult, claimResultSchema } from "./restSchemas.js";
import {
  type CheckedRows,
  checkRows,
  checkRowsInSlices,
  type FundClaimRequest,
  type FundPosition,
  fundPositionSchema,
  insuranceFundSchema,
  type PlatformPosition,
  type PlatformPositionsQuery,
  platformPositionSchema,
  platformPositionsPageSchema,
  type RateLimitStatus,
  rateLimitStatusSchema,
} from "./supplySchemas.js";

/** Rows of a platform positions page checked per event-loop turn (~1 ms of schema work). */
const ROWS_PER_SLICE = 250;

const SUPPLY_ENDPOINTS = {
  insuranceFund: "/v1/public/insurancefund",
  claimInsuranceFund: "/v1/claim_insurance_fund",
  query: "/v1/public/query",
} as const;

export interface InsuranceFundState extends CheckedRows<FundPosition> {
  balance: number | undefined;
  totalCollateral: number | undefined;
  freeCollateral: number | undefined;
  marginRatio: number | undefined;
}

export interface PlatformPositionsPage extends CheckedRows<PlatformPosition> {
  totalLongNotional: number | undefined;
  totalShortNotional: number | undefined;
  totalPositions: number | undefined;
  /** The next page's cursor; undefined on the last page. */
  nextCursor: string | undefined;
}

export class SupplyApi {
  readonly #rest: RestCore;

  constructor(rest: RestCore) {
    this.#rest = rest;
  }

  /** `GET /v1/public/insurancefund`: the fund's figures and positions, rows checked one by one. */
  async insuranceFund(opts: CallOptions = {}): Promise<InsuranceFundState> {
    const d = await this.#rest.get(SUPPLY_ENDPOINTS.insuranceFund, "public", "", insuranceFundSchema, false, opts).then(dataOf);
    return {
      ...checkRows(d.rows, fundPositionSchema),
      balance: d.balance,
      totalCollateral: d.total_collateral_value,
      freeCollateral: d.free_collateral,
      marginRatio: d.margin_ratio,
    };
  }

  /**
   * `POST /v1/claim_insurance_fund`: one attempt, never retried (the caller owns the outcome); the
   * signed bytes are the sent bytes. The answer has the shape of a liquidation claim's.
   */
  claimInsuranceFund(body: FundClaimRequest, opts: ClaimCallOptions = {}): Promise<ClaimResult> {
    const path = this.#rest.basePath + SUPPLY_ENDPOINTS.claimInsuranceFund;
    const scope = opts.permitHeld === true ? undefined : "fund_claims";
    return this.#rest
      .attempt("POST", SUPPLY_ENDPOINTS.claimInsuranceFund, scope, path, JSON.stringify(body), claimResultSchema, true, opts.signal)
      .then(dataOf);
  }

  /** One page of `platformPositions` (weight 20 of the query pool), rows checked one by one. */
  async platformPositions(query: PlatformPositionsQuery, opts: CallOptions = {}): Promise<PlatformPositionsPage> {
    const body = JSON.stringify({ type: "platformPositions", ...query });
    const d = await this.#query(body, platformPositionsPageSchema, opts);
    return {
      ...(await checkRowsInSlices(d.rows, platformPositionSchema, ROWS_PER_SLICE)),
      totalLongNotional: d.total_long_notional,
      totalShortNotional: d.total_short_notional,
      totalPositions: d.total_positions,
      nextCursor: d.next_cursor ?? undefined,
    };
  }

  /** What is left of the query pool (its fields are not published: read tolerantly). */
  rateLimitStatus(opts: CallOptions = {}): Promise<RateLimitStatus> {
    return this.#query(JSON.stringify({ type: "rateLimitStatus" }), rateLimitStatusSchema, opts);
  }

  #query<S extends Parameters<RestCore["attempt"]>[5]>(body: string, schema: S, opts: CallOptions) {
    const path = this.#rest.basePath + SUPPLY_ENDPOINTS.query;
    return this.#rest.attempt("POST", SUPPLY_ENDPOINTS.query, undefined, path, body, schema, false, opts.signal).then(dataOf);
  }
}
