/**
 * The insurance fund as the venue reports it (`GET /v1/public/insurancefund`, docs/protocol.md §10),
 * set against what the daemon can claim of it: the open list's `type: "claim"` rows (fundFeed.ts).
 * Where `claim_id` comes from is unsettled on the venue; if the fund holds positions that no claim
 * row offers, this daemon cannot claim them, and its fund supply reads as zero for a reason nobody
 * would see. So each poll measures, per symbol, the fund's position and the part of it no claim row
 * lists (`liquidator_insurance_fund_position_quote`, `..._unlisted_quote`), and a part unlisted on
 * two polls in a row (a takeover between a poll and the next open list is not a gap) is logged at
 * warn once, until it is listed again.
 *
 * Polled only with `insurance_fund.enabled`, every 30 s on the public limiter (10/s per IP): one read.
 */

import { type FundSample, fundSample } from "../../engine/fundHoldings.js";
import { sleep } from "../../sleep.js";
import { VenueError } from "../../venue/errors.js";
import type { InsuranceFundState } from "../../venue/supplyApi.js";

/** How often the fund is read: its positions change at takeovers and claims, minutes apart. */
const FUND_POLL_MS = 30_000;

export type FundPollResult = "ok" | "rate_limited" | "error";

/** Kinds of unreadable fund rows logged before new ones are only counted. */
const MAX_BAD_KINDS = 16;

export interface FundWatchOptions {
  read(opts: { signal: AbortSignal }): Promise<InsuranceFundState>;
  /** The open list's fund rows now: base quantity per symbol (absolute, summed over rows). */
  listed(): ReadonlyMap<string, number>;
  mark(symbol: string): number | undefined;
  onSample(sample: FundSample): void;
  onResult(result: FundPollResult): void;
  /** Rows of the answer left out as unreadable (counted with the other lists' in `rest_rows_skipped_total`). */
  onBadRows(count: number): void;
  logger: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
  intervalMs?: number;
  now?: () => number;
}

export class FundWatch {
  readonly #o: FundWatchOptions;
  readonly #now: () => number;
  /** Symbols unlisted at the last poll, and those already warned of. */
  #unlisted = new Set<string>();
  readonly #warned = new Set<string>();
  /** Kinds of unreadable rows already logged (each once, as every venue list's). */
  readonly #badKinds = new Set<string>();
  #failing = false;

  constructor(o: FundWatchOptions) {
    if (o.intervalMs !== undefined && !(o.intervalMs > 0)) throw new RangeError(`intervalMs must be > 0, got ${o.intervalMs}`);
    this.#o = o;
    this.#now = o.now ?? Date.now;
  }

  /** Polls now and every interval until `signal` fires; never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const interval = this.#o.intervalMs ?? FUND_POLL_MS;
    while (!signal.aborted) {
      const started = this.#now();
      await this.pollOnce(signal);
      await sleep(Math.max(0, interval - (this.#now() - started)), signal);
    }
  }

  /** One read of the fund; never rejects (a failure is counted, and logged once until a read succeeds). */
  async pollOnce(signal: AbortSignal): Promise<FundSample | undefined> {
    let state: InsuranceFundState;
    try {
      state = await this.#o.read({ signal });
    } catch (err) {
      if (signal.aborted) return undefined;
      this.#o.onResult(err instanceof VenueError && err.kind === "rate_limited" ? "rate_limited" : "error");
      if (!this.#failing) this.#o.logger.warn({ err }, "insurance fund read failed; the next comes at the next interval");
      this.#failing = true;
      return undefined;
    }
    this.#failing = false;
    let bad = 0;
    for (const [kind, n] of state.bad) {
      bad += n;
      if (this.#badKinds.has(kind) || this.#badKinds.size >= MAX_BAD_KINDS) continue;
      this.#badKinds.add(kind);
      this.#o.logger.warn({ endpoint: "/v1/public/insurancefund", kind, count: n }, "venue list row unreadable; left out, the rest used");
    }
    if (bad > 0) this.#o.onBadRows(bad);
    const sample = fundSample(state, this.#o.listed(), this.#o.mark, this.#now());
    this.#judge(sample);
    this.#o.onResult("ok");
    this.#o.onSample(sample);
    return sample;
  }

  #judge(sample: FundSample): void {
    const now = new Set<string>();
    for (const [symbol, s] of sample.symbols) {
      if (!(s.unlistedQty > 0)) continue;
      now.add(symbol);
      if (!this.#unlisted.has(symbol) || this.#warned.has(symbol)) continue;
      this.#warned.add(symbol);
      this.#o.logger.warn(
        { symbol, fundQty: s.qty, unlistedQty: s.unlistedQty },
        "the insurance fund holds a position no claim row of the open list offers: this daemon cannot claim it (docs/protocol.md §10: where claim_id comes from is unsettled on the venue)",
      );
    }
    for (const symbol of this.#warned) {
      if (now.has(symbol)) continue;
      this.#warned.delete(symbol);
      this.#o.logger.info({ symbol }, "the insurance fund's position is offered by claim rows again");
    }
    this.#unlisted = now;
  }
}
