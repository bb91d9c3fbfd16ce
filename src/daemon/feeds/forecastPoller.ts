/**
 * The heatmap's poller (issue 35, `forecast.*`): every `forecast.interval_s` it reads every open
 * position on the venue with its estimated liquidation price (`platformPositions`, docs/protocol.md §10)
 * and hands the heatmap and its price levels on (metrics, capture). No key is needed.
 *
 * The Public Info API has a rate-limit pool of its own, in weights per minute: a page costs 20. The
 * poller spends at most half the pool `rateLimitStatus` reports (600 a minute when it reports none:
 * half the simulator's, since the venue publishes no size), waiting when a page would overspend, and
 * backs off (jittered, doubling up to a minute) when the venue answers -1003 anyway. A page's cursor
 * belongs to the venue's snapshot: one refused as stale (-1005) restarts the poll. A short allow
 * list is asked for symbol by symbol, anything else in one query filtered here. Rows are checked one
 * by one (a bad row is counted and logged once per kind); a failed poll is logged once per kind and
 * the next comes at the next interval. Nothing here is on the claim path: it never touches a claims
 * permit, a claim connection or the journal.
 */
import { type ForecastLevels, type ForecastPosition, type Heatmap, heatmapOf, levelsOf } from "../../engine/forecast.js";
import { sleep } from "../../sleep.js";
import { fullJitterDelay } from "../../venue/backoff.js";
import { VenueError } from "../../venue/errors.js";
import type { SupplyApi } from "../../venue/supplyApi.js";
import type { PlatformPosition } from "../../venue/supplySchemas.js";

/**
 * docs/protocol.md §10: `platformPositions` weighs 20 and a page holds up to 5,000 positions. Pages of
 * 2,000 keep each answer's one-piece JSON parse near a millisecond or two (the claim path shares the
 * event loop) for 2.5× the weight of the largest pages.
 */
const PAGE_WEIGHT = 20;
export const PAGE_LIMIT = 2000;
/** Half of what the simulator's pool allows, when the venue does not say its own. */
const DEFAULT_WEIGHT_BUDGET = 600;
const WINDOW_MS = 60_000;
/** Up to this many allowed symbols are asked for one by one; more, and one query serves them all. */
const PER_SYMBOL_QUERIES_UP_TO = 3;

export interface ForecastPoll {
  heatmap: Heatmap;
  levels: ForecastLevels[];
  /** The mark of each symbol the heatmap measured from. */
  marks: Map<string, number>;
  /** When the poll started and ended (local clock, ms). */
  requestedAt: number;
  at: number;
}

export interface ForecastPollerOptions {
  supply: Pick<SupplyApi, "platformPositions" | "rateLimitStatus">;
  intervalMs: number;
  /** The policy's allow list (empty: every symbol) and whether a symbol may be claimed. */
  allowList: () => readonly string[];
  allowed: (symbol: string) => boolean;
  /** The freshest mark the daemon has (the mark book); the venue's own in the rows when none. */
  mark: (symbol: string) => number | undefined;
  onPoll: (poll: ForecastPoll) => void;
  onResult?: (result: "ok" | "rate_limited" | "error") => void;
  onBadRows?: (count: number) => void;
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; debug(obj: object, msg: string): void };
  now?: () => number;
  random?: () => number;
}

export class ForecastPoller {
  readonly #o: ForecastPollerOptions;
  readonly #now: () => number;
  readonly #spent: { at: number; weight: number }[] = [];
  readonly #logged = new Set<string>();
  #budget = DEFAULT_WEIGHT_BUDGET;
  #limited = 0;

  constructor(options: ForecastPollerOptions) {
    if (!(Number.isInteger(options.intervalMs) && options.intervalMs >= 1000)) throw new RangeError("forecast interval must be ≥ 1 s");
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** The weights a minute it allows itself. */
  get budget(): number {
    return this.#budget;
  }

  /** Polls now and every interval until `signal` fires; never rejects. */
  async run(outer: AbortSignal): Promise<void> {
    // One listener on the daemon's run signal, whatever the poll waits for (the run's loops share it).
    const own = new AbortController();
    const stop = (): void => own.abort();
    outer.addEventListener("abort", stop, { once: true });
    if (outer.aborted) own.abort();
    const signal = own.signal;
    try {
      await this.#learnBudget(signal);
      while (!signal.aborted) {
        const started = this.#now();
        await this.pollOnce(signal);
        await sleep(Math.max(0, this.#o.intervalMs - (this.#now() - started)), signal);
      }
    } finally {
      outer.removeEventListener("abort", stop);
    }
  }

  /** One poll, every page of every query; never rejects (a failure is counted and logged). */
  async pollOnce(signal?: AbortSignal): Promise<ForecastPoll | undefined> {
    const requestedAt = this.#now();
    try {
      const rows: PlatformPosition[] = [];
      const list = this.#o.allowList();
      const symbols = list.length > 0 && list.length <= PER_SYMBOL_QUERIES_UP_TO ? list : [undefined];
      for (const symbol of symbols) rows.push(...(await this.#query(symbol, signal)));
      if (signal?.aborted) return undefined;
      const poll = forecastPoll(rows, this.#o.mark, this.#o.allowed, requestedAt, this.#now());
      this.#o.onResult?.("ok");
      this.#logged.delete("poll failed");
      this.#o.onPoll(poll);
      return poll;
    } catch (err) {
      if (signal?.aborted) return undefined;
      this.#o.onResult?.(err instanceof VenueError && err.kind === "rate_limited" ? "rate_limited" : "error");
      this.#once("poll failed", { err }, "forecast poll failed; the next comes at the next interval");
      return undefined;
    }
  }

  /** Every page of one query (one symbol, or all), within the weight budget, backing off on -1003. */
  async #query(symbol: string | undefined, signal: AbortSignal | undefined): Promise<PlatformPosition[]> {
    const rows: PlatformPosition[] = [];
    let cursor: string | undefined;
    let restarted = false;
    for (;;) {
      await this.#spend(signal);
      if (signal?.aborted) return rows;
      try {
        const page = await this.#o.supply.platformPositions(
          { limit: PAGE_LIMIT, ...(symbol !== undefined ? { symbol } : {}), ...(cursor !== undefined ? { cursor } : {}) },
          signal !== undefined ? { signal } : {},
        );
        this.#limited = 0;
        this.#badRows(page.bad);
        rows.push(...page.rows);
        cursor = page.nextCursor;
        if (cursor === undefined) return rows;
      } catch (err) {
        if (!(err instanceof VenueError)) throw err;
        if (err.kind === "rate_limited" && this.#limited < 4) {
          // Over the pool (a smaller one than the budget thought): wait, then ask for this page again.
          const wait = fullJitterDelay(this.#limited++, 5_000, WINDOW_MS, this.#o.random ?? Math.random);
          this.#o.logger.debug({ waitMs: wait }, "forecast: query pool exhausted, backing off");
          await sleep(wait, signal);
          continue;
        }
        if (err.kind === "bad_param" && cursor !== undefined && !restarted) {
          // The snapshot the cursor paged through is gone: start the query over, once.
          restarted = true;
          cursor = undefined;
          rows.length = 0;
          continue;
        }
        throw err;
      }
    }
  }

  /** Waits until one more page fits in the last minute's weights, then counts it. */
  async #spend(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const now = this.#now();
      while (this.#spent.length > 0 && (this.#spent[0] as { at: number }).at <= now - WINDOW_MS) this.#spent.shift();
      const used = this.#spent.reduce((sum, s) => sum + s.weight, 0);
      if (used + PAGE_WEIGHT <= this.#budget || this.#spent.length === 0) {
        this.#spent.push({ at: now, weight: PAGE_WEIGHT });
        return;
      }
      const oldest = (this.#spent[0] as { at: number }).at;
      await sleep(oldest + WINDOW_MS - now + 1, signal);
      if (signal?.aborted) return;
    }
  }

  /** Half the pool the venue reports, when it reports one; the default otherwise. */
  async #learnBudget(signal: AbortSignal): Promise<void> {
    try {
      const status = await this.#o.supply.rateLimitStatus({ signal });
      const limit = status.weight_limit;
      if (limit !== undefined && limit >= 2 * PAGE_WEIGHT) this.#budget = Math.floor(limit / 2);
      this.#o.logger.info({ budget: this.#budget, venueLimit: limit ?? null }, "forecast: query weight budget per minute");
    } catch (err) {
      if (!signal.aborted)
        this.#once(
          "rate limit status",
          { err, budget: this.#budget },
          "forecast: the query pool's size is unknown; using the default budget",
        );
    }
  }

  #badRows(bad: ReadonlyMap<string, number>): void {
    let n = 0;
    for (const [kind, count] of bad) {
      n += count;
      this.#once(`bad row ${kind}`, { kind, count }, "forecast: platform position rows dropped as invalid");
    }
    if (n > 0) this.#o.onBadRows?.(n);
  }

  /** Logs at warn the first time a kind happens (until a good poll clears a failed one), at debug after. */
  #once(kind: string, fields: object, msg: string): void {
    if (this.#logged.has(kind)) this.#o.logger.debug(fields, msg);
    else {
      this.#logged.add(kind);
      this.#o.logger.warn(fields, msg);
    }
  }
}

/**
 * A poll's rows as the heatmap and its price levels (the capture's), measured from `mark` (the
 * daemon's), else the venue's own mark in the rows; `allowed` picks the symbols kept.
 */
export function forecastPoll(
  rows: readonly PlatformPosition[],
  daemonMark: (symbol: string) => number | undefined,
  allowed: (symbol: string) => boolean,
  requestedAt: number,
  at: number,
): ForecastPoll {
  const venueMark = new Map<string, number>();
  for (const r of rows) if (r.mark_price !== undefined && !venueMark.has(r.symbol)) venueMark.set(r.symbol, r.mark_price);
  const marks = new Map<string, number>();
  const mark = (symbol: string): number | undefined => {
    let m = marks.get(symbol);
    if (m === undefined) {
      m = daemonMark(symbol) ?? venueMark.get(symbol);
      if (m !== undefined) marks.set(symbol, m);
    }
    return m;
  };
  const positions: ForecastPosition[] = rows.map((r) => ({
    symbol: r.symbol,
    side: r.side === "LONG" ? "long" : "short",
    qty: Math.abs(r.position_qty),
    estLiqPrice: r.est_liq_price,
  }));
  return { heatmap: heatmapOf(positions, mark, allowed), levels: levelsOf(positions, mark, allowed), marks, requestedAt, at };
}
