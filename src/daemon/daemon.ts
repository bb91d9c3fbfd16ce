/**
 * The running daemon: the two venue streams and the REST feed (restFeed.ts) bring liquidations,
 * marks and positions, which ingest.ts applies to the open book, the mark book and the claimer.
 * Built by the composition root, which owns every dependency.
 *
 * Degraded mode: a public stream that is not ready, or ready but silent for `degradedAfterMs`
 * (marks come every second), is degraded; the REST feed then reads the open list and the marks about
 * once a second, so claiming goes on from REST data while the stream flaps. A degraded private stream
 * makes the feed read positions every few seconds; claim outcomes come from the HTTP answers anyway.
 */
import type { MarkBook } from "../engine/marks.js";
import type { Metrics } from "../observe/metrics.js";
import type { Watchdog } from "../observe/watchdog.js";
import { sleep } from "../sleep.js";
import type { RestClient } from "../venue/rest.js";
import type { Signer } from "../venue/signer.js";
import { StreamClient, type StreamKind, type StreamLogger } from "../venue/stream.js";
import type { StreamData } from "../venue/wire.js";
import type { Claimer } from "./claim/claimer.js";
import type { ClaimRehearsal } from "./claim/claimRehearsal.js";
import type { PolicyState } from "./claim/policyState.js";
import type { Housekeeping } from "./control/housekeeping.js";
import type { Ingest } from "./feeds/ingest.js";
import { RestFeed } from "./feeds/restFeed.js";
import type { RestHealth } from "./feeds/restHealth.js";

export type DaemonLogger = StreamLogger & {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  child(bindings: object): DaemonLogger;
};

const STREAM_KINDS = ["public", "private"] as const;

export interface DaemonOptions {
  rest: Pick<RestClient, "allOpenLiquidations" | "futures" | "futuresStamped" | "positions" | "info"> &
    Partial<Pick<RestClient, "clientInfo" | "leverages">>;
  signer: Signer;
  /** Full stream URLs (docs/protocol.md §1), account id already appended. */
  publicUrl: string;
  privateUrl: string;
  policy: PolicyState;
  ingest: Ingest;
  marks: MarkBook;
  claimer: Claimer;
  /** Keeps the claim path warm between liquidations (claimRehearsal.ts); none: no rehearsal. */
  rehearsal?: ClaimRehearsal;
  metrics: Metrics;
  watchdog: Watchdog;
  logger: DaemonLogger;
  /** Clock and journal checks on the one-second tick (they pause and resume claiming). */
  housekeeping: Housekeeping;
  /** Whether the venue's REST API answers (caps the streams' reconnect backoff). */
  restHealth: RestHealth;
  /** The public read limit per second (the degraded feed's budget). */
  publicPerSecond: number;
  /** How often the open list is re-read from REST besides after every (re)connect. */
  reconcileIntervalMs?: number;
  /** A ready public stream with no data frame for this long is degraded (default 3,000 ms). */
  degradedAfterMs?: number;
  /** How often the symbol table is refreshed from GET /v1/public/info. */
  symbolRefreshMs?: number;
  /** Stream timing overrides (tests). */
  stream?: {
    pingIntervalMs?: number;
    deadAfterMs?: number;
    backoff?: { initialMs: number; maxMs: number; healthyMaxMs?: number; authInitialMs?: number; authMaxMs?: number };
  };
}

export class Daemon {
  readonly #options: DaemonOptions;
  readonly #streams: Record<StreamKind, StreamClient>;
  readonly #feed: RestFeed;
  readonly #degradedAfterMs: number;
  /** Local time of the last data frame on the public stream (or of its becoming ready). */
  #lastPublicDataAt = 0;
  readonly #degraded: Record<StreamKind, boolean> = { public: false, private: false };
  #startedAt = 0;
  #stopping = false;

  constructor(options: DaemonOptions) {
    this.#options = options;
    this.#degradedAfterMs = options.degradedAfterMs ?? 3_000;
    this.#streams = {
      public: this.#stream("public", options.publicUrl, ["liquidation", "markprices"]),
      // `balance`: a deposit is seen at once (margin skips are decided again), not at the next positions
      // read; a withdrawal or a settlement moves the collateral claims are sized by (docs/protocol.md §10).
      private: this.#stream("private", options.privateUrl, ["liquidatorliquidations", "position", "executionreport", "balance"]),
    };
    const { ingest } = options;
    this.#feed = new RestFeed({
      source: options.rest,
      sink: {
        openList: (rows, at) => {
          ingest.openList(rows, at);
          options.rehearsal?.sampleOpenList(rows);
        },
        marks: (rows, ts) => ingest.restMarks(rows, ts, options.signer.clock.offsetMs),
        positions: (p) => ingest.restPositions(p),
        clientInfo: (c) => ingest.clientInfo(c),
        leverages: (rows) => ingest.leverages(rows),
      },
      degraded: () => this.#degraded,
      logger: options.logger.child({ component: "rest_feed" }),
      onRound: () => options.watchdog.kick("reconcile"),
      publicPerSecond: options.publicPerSecond,
      ...(options.reconcileIntervalMs !== undefined ? { reconcileIntervalMs: options.reconcileIntervalMs } : {}),
    });
    for (const stream of STREAM_KINDS) options.metrics.degraded.set({ stream }, 0);
  }

  /** Which streams are degraded (their data read from REST instead). */
  degradedStreams(): StreamKind[] {
    return STREAM_KINDS.filter((s) => this.#degraded[s]);
  }

  /** Why the daemon is not ready to claim; empty when it is (/readyz). */
  notReady(now = Date.now()): string[] {
    const reasons: string[] = [];
    for (const s of Object.values(this.#streams)) {
      if (!s.isReady()) reasons.push(`${s.stream}_stream_${s.state}${s.lastFailure ? `:${s.lastFailure}` : ""}`);
    }
    if (!this.#options.policy.symbolsLoaded) reasons.push("symbols_not_loaded");
    const marks = this.#options.marks;
    if (marks.size === 0) reasons.push("marks_missing");
    else if (marks.oldestAgeMs(now) > this.#options.policy.maxMarkAgeMs) reasons.push("marks_stale");
    for (const r of this.#options.claimer.pausedReasons()) reasons.push(`claiming_paused:${r}`);
    for (const s of this.degradedStreams()) reasons.push(`degraded:${s}`);
    reasons.push(...this.#options.housekeeping.problems());
    return reasons;
  }

  /** Read the account's positions now (a refused order says ours are wrong). */
  requestPositions(): void {
    this.#feed.requestPositions();
  }

  /** Read every symbol's leverage, then the positions, now (a -1101 says our margin model was wrong). */
  requestLeverages(): void {
    this.#feed.requestLeverages();
  }

  /**
   * Runs until `signal` aborts; then stops claiming, drains in-flight claims and closes the sockets.
   * `afterStart` runs once the streams and the claimer are started (the unwinder starts there).
   */
  async run(signal: AbortSignal, afterStart?: () => void): Promise<void> {
    const { watchdog, claimer, housekeeping } = this.#options;
    this.#startedAt = Date.now();
    // Streams closing for a shutdown are not an outage.
    signal.addEventListener("abort", () => (this.#stopping = true), { once: true });
    watchdog.register("event_loop", 10_000);
    watchdog.register("reconcile", Math.max(60_000, (this.#options.reconcileIntervalMs ?? 5_000) * 6));
    const tick = setInterval(
      () => {
        watchdog.kick("event_loop");
        housekeeping.tick(Date.now());
        this.#checkDegraded(Date.now());
      },
      Math.min(1_000, Math.max(100, this.#degradedAfterMs / 3)),
    );
    tick.unref();
    watchdog.kick("event_loop");
    housekeeping.tick(Date.now());
    // Streams connect at once (marks and the open list start filling); nothing is offered to the
    // claimer until the symbol table is loaded, since a claim's form depends on the tiers.
    const streams = Object.values(this.#streams).map((s) => s.start(signal));
    claimer.start();
    afterStart?.();
    this.#options.rehearsal?.start();
    const symbols = this.#symbolsLoop(signal);
    const feed = this.#feed.run(signal);
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    clearInterval(tick);
    this.#options.rehearsal?.stop();
    await claimer.stop();
    await Promise.allSettled([...streams, symbols, feed]);
  }

  #stream(stream: StreamKind, url: string, topics: string[]): StreamClient {
    const { metrics, logger, ingest } = this.#options;
    const messages = new Map<string, ReturnType<typeof metrics.wsMessages.labels>>();
    return new StreamClient({
      url,
      stream,
      topics,
      ...(stream === "private" ? { signer: this.#options.signer } : {}),
      ...this.#options.stream,
      restHealthy: () => this.#options.restHealth.healthy(),
      logger: logger.child({ component: `stream.${stream}` }),
      onData: (data: StreamData) => {
        // Claim first: the frame goes to ingest (and a claim it brings onto the socket) before the counting.
        ingest.stream(data);
        if (data[0] === "liquidation") this.#options.rehearsal?.sample(data[1], data[2]);
        let counter = messages.get(data[0]);
        if (counter === undefined) {
          counter = metrics.wsMessages.labels(stream, data[0]);
          messages.set(data[0], counter);
        }
        counter.inc();
        if (stream === "public") this.#lastPublicDataAt = Date.now();
      },
      onStateChange: (state) => {
        metrics.wsConnected.set({ stream }, state === "ready" ? 1 : 0);
        if (state === "ready" && stream === "public") {
          this.#lastPublicDataAt = Date.now();
          this.#feed.requestOpenList();
        }
        this.#checkDegraded(Date.now());
      },
      onBadMessage: (reason) => metrics.wsBadMessages.inc({ stream, reason }),
      onReconnect: () => metrics.wsReconnects.inc({ stream }),
    });
  }

  /**
   * Tiers, fees and ticks (GET /v1/public/info) with a mark snapshot (GET /v1/public/futures): at
   * start, retried until it works, then refreshed every `symbolRefreshMs` so a newly listed symbol or
   * a changed fee is picked up without a restart (a failed refresh keeps the table it has).
   */
  async #symbolsLoop(signal: AbortSignal): Promise<void> {
    const log = this.#options.logger;
    const refreshMs = this.#options.symbolRefreshMs ?? 300_000;
    for (let failures = 0; !signal.aborted; ) {
      const loaded = this.#options.policy.symbolsLoaded;
      try {
        const requestedAt = Date.now();
        const [info, futures] = await Promise.all([this.#options.rest.info({ signal }), this.#options.rest.futures({ signal })]);
        const { symbols, rejected } = this.#options.ingest.symbols(info, futures, requestedAt);
        if (rejected.length > 0) log.warn({ rejected }, "symbol info rows left out");
        if (!loaded) log.info({ symbols }, "symbol info loaded");
        failures = 0;
        await sleep(refreshMs, signal);
      } catch (err) {
        if (signal.aborted) return;
        log.warn(
          { err: (err as Error).message, failures },
          loaded ? "symbol info refresh failed; keeping the current table" : "symbol info load failed; retrying",
        );
        await sleep(Math.min(30_000, 1_000 * 2 ** failures++), signal);
      }
    }
  }

  /** Enter or leave degraded mode per stream; entering wakes the REST feed at once. */
  #checkDegraded(now: number): void {
    // A start is not an outage: the streams get the same grace to come up as a silent stream.
    if (this.#stopping || now - this.#startedAt < this.#degradedAfterMs) return;
    const publicDegraded = !this.#streams.public.isReady() || now - this.#lastPublicDataAt > this.#degradedAfterMs;
    const privateDegraded = !this.#streams.private.isReady();
    let entered = false;
    for (const [stream, on] of [
      ["public", publicDegraded],
      ["private", privateDegraded],
    ] as const) {
      if (this.#degraded[stream] === on) continue;
      this.#degraded[stream] = on;
      entered ||= on;
      this.#options.metrics.degraded.set({ stream }, on ? 1 : 0);
      if (on) this.#options.logger.warn({ stream }, "stream degraded: reading its data from REST until it is back");
      else this.#options.logger.info({ stream }, "stream back: degraded mode left");
    }
    if (entered) this.#feed.degradedChanged();
  }
}
