/**
 * The account's leverage (docs/protocol.md §10), on the request machinery of restCore.ts: every symbol's
 * setting (`GET /v1/client/leverages`, 10/s), the venue's maximum (`GET /v1/public/leverage`), and a
 * change (`POST /v1/client/leverages`, 5 per 60 s: one attempt, never retried; without `symbol` it
 * sets every symbol at once, which is how `liquidator leverage --set-max` stays within the limit).
 */
import {
  type Leverages,
  leveragesSchema,
  type PublicLeverage,
  publicLeverageSchema,
  type SetLeverageRequest,
  setLeverageAnswerSchema,
} from "./leverageSchemas.js";
import { type CallOptions, dataOf, type RestCore, type Stamped } from "./restCore.js";

const LEVERAGE_ENDPOINTS = {
  leverages: "/v1/client/leverages",
  publicLeverage: "/v1/public/leverage",
} as const;

export class LeverageApi {
  readonly #rest: RestCore;

  constructor(rest: RestCore) {
    this.#rest = rest;
  }

  /** Every symbol's leverage setting (cross and isolated rows), read row by row. */
  leverages(opts: CallOptions = {}): Promise<Stamped<Leverages>> {
    return this.#rest.get(LEVERAGE_ENDPOINTS.leverages, "account_reads", "", leveragesSchema, true, opts);
  }

  /** The venue's maximum leverage setting (`max_futures_leverage`); absent when unreadable. */
  maxLeverage(opts: CallOptions = {}): Promise<PublicLeverage> {
    return this.#rest.get(LEVERAGE_ENDPOINTS.publicLeverage, "public", "", publicLeverageSchema, false, opts).then(dataOf);
  }

  /** One attempt; the caller reads the settings again to see what changed. */
  setLeverage(body: SetLeverageRequest, opts: CallOptions = {}): Promise<unknown> {
    const path = this.#rest.basePath + LEVERAGE_ENDPOINTS.leverages;
    return this.#rest
      .attempt(
        "POST",
        LEVERAGE_ENDPOINTS.leverages,
        "account_reads",
        path,
        JSON.stringify(body),
        setLeverageAnswerSchema,
        true,
        opts.signal,
      )
      .then(dataOf);
  }
}
