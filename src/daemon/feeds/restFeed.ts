/**
 * The REST side of the daemon's inputs: what the streams push, read from REST instead (docs/protocol.md
 * §5: `GET /v1/public/liquidation` is the source of truth for what is open).
 *
 * - The open list: after every (re)connect and every `reconcileIntervalMs` (5 s), so a missed push
 *   never means a missed claim; about once a second while the public stream is degraded.
 * - Mark prices (`GET /v1/public/futures`): only while the public stream is degraded, once per round.
 * - The account's positions (`GET /v1/positions`): at start, every `positionsIntervalMs` (30 s), and
 *   every `degradedPositionsMs` (3 s) while the private stream is degraded.
 * - The account's margin settings (docs/protocol.md §10): client info (`max_leverage`, its own `imr_factor`
 *   and `max_notional`) every `clientInfoIntervalMs` (10 min), and every symbol's leverage
 *   (`GET /v1/client/leverages`) every `leveragesIntervalMs` (5 min) and whenever asked (after a
 *   -1101: the venue counted margin otherwise than the model), each before the positions read.
 *
 * Degraded mode is an input source, not a special path: the rows go to the same callbacks as stream
 * frames. Its read budget is explicit: public reads share one 10/s-per-IP limit (docs/protocol.md §4) with
 * the symbol refresh and the rewards poller, so a degraded round of n reads is followed by a pause
 * that keeps the feed at `degradedBudgetShare` (70 %) of `publicPerSecond`; the limiter spaces every
 * read anyway, so the feed can queue other reads but never earn a 429.
 */

import { sleep } from "../../sleep.js";
import type { Leverages } from "../../venue/leverageSchemas.js";
import type { ClientInfo } from "../../venue/orderSchemas.js";
import type { Stamped } from "../../venue/rest.js";
import type { Futures, OpenLiquidation, Positions } from "../../venue/restSchemas.js";
import { Waker } from "./waker.js";

/** docs/protocol.md §4: the open list is paged 60 rows at a time. */
const OPEN_LIST_PAGE_SIZE = 60;

interface RestFeedSource {
  allOpenLiquidations(opts: { signal: AbortSignal }): Promise<OpenLiquidation[]>;
  futuresStamped(opts: { signal: AbortSignal }): Promise<Stamped<Futures>>;
  positions(opts: { signal: AbortSignal }): Promise<Stamped<Positions>>;
  /** GET /v1/client/info (the account's max leverage, docs/protocol.md §7); optional. */
  clientInfo?(opts: { signal: AbortSignal }): Promise<Stamped<ClientInfo>>;
  /** GET /v1/client/leverages (every symbol's leverage, docs/protocol.md §10); optional. */
  leverages?(opts: { signal: AbortSignal }): Promise<Stamped<Leverages>>;
}

interface RestFeedSink {
  /** A full open list whose first request left at `requestedAt` (local ms). */
  openList(rows: readonly OpenLiquidation[], requestedAt: number): void;
  /** Mark prices as of venue time `venueTs`. */
  marks(rows: Futures["rows"], venueTs: number | undefined): void;
  /** The account's positions as of venue time `venueTs`. */
  positions(snapshot: Stamped<Positions>): void;
  /** The account's client info (read at start and every `clientInfoIntervalMs`). */
  clientInfo?(info: ClientInfo): void;
  /** Every symbol's leverage setting (at start, every `leveragesIntervalMs`, and when asked). */
  leverages?(rows: Leverages["rows"]): void;
}

interface RestFeedLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface RestFeedOptions {
  source: RestFeedSource;
  sink: RestFeedSink;
  /** Which streams are degraded right now. */
  degraded: () => { public: boolean; private: boolean };
  logger: RestFeedLogger;
  /** Kicked every open-list round (the `reconcile` watchdog). */
  onRound?: () => void;
  /** The public read limit, per second (venue.limits.public_per_second). */
  publicPerSecond: number;
  reconcileIntervalMs?: number;
  degradedIntervalMs?: number;
  degradedBudgetShare?: number;
  positionsIntervalMs?: number;
  degradedPositionsMs?: number;
  /** How often the client info (max leverage) is re-read; default 10 min (its limit is 10 per 60 s). */
  clientInfoIntervalMs?: number;
  /** How often every symbol's leverage is re-read; default 5 min (an operator's setting, rarely changed). */
  leveragesIntervalMs?: number;
  now?: () => number;
}

export class RestFeed {
  readonly #options: RestFeedOptions;
  readonly #now: () => number;
  readonly #openListWaker = new Waker();
  readonly #positionsWaker = new Waker();
  /** The leverages are to be read before the next positions read (asked for, or not read yet). */
  #leveragesDue = true;

  constructor(options: RestFeedOptions) {
    if (!(options.publicPerSecond > 0)) throw new RangeError("publicPerSecond must be positive");
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Read the open list now (a stream (re)connected), or right after the round in progress. */
  requestOpenList(): void {
    this.#openListWaker.wake();
  }

  /** Read the positions now, or right after the read in progress. */
  requestPositions(): void {
    this.#positionsWaker.wake();
  }

  /** Read every symbol's leverage, then the positions, now or right after the read in progress. */
  requestLeverages(): void {
    this.#leveragesDue = true;
    this.#positionsWaker.wake();
  }

  /** A stream became degraded: start polling at once instead of at the end of the current wait. */
  degradedChanged(): void {
    this.#openListWaker.wake();
    this.#positionsWaker.wake();
  }

  /** Runs both loops until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.#openListLoop(signal), this.#positionsLoop(signal)]);
  }

  async #openListLoop(signal: AbortSignal): Promise<void> {
    const o = this.#options;
    const interval = o.reconcileIntervalMs ?? 5_000;
    const degradedInterval = o.degradedIntervalMs ?? 1_000;
    const budget = (o.degradedBudgetShare ?? 0.7) * o.publicPerSecond;
    let failing = false;
    while (!signal.aborted) {
      o.onRound?.();
      const started = this.#now();
      const degraded = o.degraded().public;
      let reads = 0;
      try {
        const rows = await o.source.allOpenLiquidations({ signal });
        reads += Math.max(1, Math.ceil(rows.length / OPEN_LIST_PAGE_SIZE));
        o.sink.openList(rows, started);
        if (degraded) {
          const futures = await o.source.futuresStamped({ signal });
          reads++;
          o.sink.marks(futures.data.rows, futures.venueTs);
        }
        if (failing) o.logger.info({}, "open list reconcile recovered");
        failing = false;
      } catch (err) {
        if (signal.aborted) break;
        if (!failing) o.logger.warn({ err: (err as Error).message, degraded }, "open list reconcile failed");
        failing = true;
      }
      const elapsed = this.#now() - started;
      const wait = o.degraded().public ? Math.max(degradedInterval, (reads * 1000) / budget) - elapsed : interval;
      await this.#openListWaker.sleep(wait, signal);
    }
  }

  /** One client info read; the time it succeeded, or undefined to try again next round. */
  async #readClientInfo(signal: AbortSignal): Promise<number | undefined> {
    const o = this.#options;
    if (o.source.clientInfo === undefined || o.sink.clientInfo === undefined) return this.#now();
    try {
      o.sink.clientInfo((await o.source.clientInfo({ signal })).data);
      return this.#now();
    } catch (err) {
      if (!signal.aborted) o.logger.warn({ err: (err as Error).message }, "client info read failed; margin waits for the max leverage");
      return undefined;
    }
  }

  /** One leverages read; whether it succeeded (else it stays due). */
  async #readLeverages(signal: AbortSignal): Promise<boolean> {
    const o = this.#options;
    if (o.source.leverages === undefined || o.sink.leverages === undefined) return true;
    try {
      o.sink.leverages((await o.source.leverages({ signal })).data.rows);
      return true;
    } catch (err) {
      if (!signal.aborted) o.logger.warn({ err: (err as Error).message }, "leverages read failed; margin keeps the settings it has");
      return false;
    }
  }

  async #positionsLoop(signal: AbortSignal): Promise<void> {
    const o = this.#options;
    let failures = 0;
    let clientInfoAt: number | undefined;
    let leveragesAt: number | undefined;
    while (!signal.aborted) {
      // The margin settings change rarely (an operator's): read with the positions, now and then.
      if (clientInfoAt === undefined || this.#now() - clientInfoAt >= (o.clientInfoIntervalMs ?? 600_000)) {
        clientInfoAt = await this.#readClientInfo(signal);
      }
      if (this.#leveragesDue || leveragesAt === undefined || this.#now() - leveragesAt >= (o.leveragesIntervalMs ?? 300_000)) {
        this.#leveragesDue = false;
        if (await this.#readLeverages(signal)) leveragesAt = this.#now();
      }
      try {
        o.sink.positions(await o.source.positions({ signal }));
        if (failures > 0) o.logger.info({}, "positions read recovered");
        failures = 0;
      } catch (err) {
        if (signal.aborted) break;
        if (failures === 0) o.logger.warn({ err: (err as Error).message }, "positions read failed; retrying");
        failures++;
        // Until the first answer nothing is claimed, so retry soon; later failures wait the usual interval.
        await sleep(Math.min(5_000, 500 * 2 ** Math.min(failures, 4)), signal);
        continue;
      }
      const wait = o.degraded().private ? (o.degradedPositionsMs ?? 3_000) : (o.positionsIntervalMs ?? 30_000);
      await this.#positionsWaker.sleep(wait, signal);
    }
  }
}
