/**
 * The running daemon: venue streams and REST reads (restFeed.ts) feed the open list, marks and
 * positions; every new or changed liquidation is offered to the claimer. Built by main.ts, which
 * owns every dependency; this file only wires inputs to the engine and the claimer.
 *
 * Degraded mode: a public stream that is not ready, or ready but silent for `degradedAfterMs`
 * (marks come every second), is degraded; the REST feed then reads the open list and the marks about
 * once a second, so claiming goes on from REST data while the stream flaps. A degraded private stream
 * makes the feed read positions every few seconds; claim outcomes come from the HTTP answers anyway.
 */
import type { Exposure } from "../engine/exposure.js";
import type { MarkBook } from "../engine/marks.js";
import { decide, type PolicyContext } from "../engine/policy.js";
import { compileRiskPolicy, type RiskPolicyInput } from "../engine/riskPolicy.js";
import { SymbolTable } from "../engine/symbolInfo.js";
import type { Liquidation } from "../engine/types.js";
import type { Metrics } from "../observe/metrics.js";
import type { Watchdog } from "../observe/watchdog.js";
import type { RestClient, Stamped } from "../venue/rest.js";
import type { Futures, OpenLiquidation, Positions } from "../venue/restSchemas.js";
import type { Signer } from "../venue/signer.js";
import { StreamClient, type StreamKind, type StreamLogger } from "../venue/stream.js";
import { sleep } from "../venue/streamOptions.js";
import type { StreamData } from "../venue/wire.js";
import type { Claimer, ClaimerLogger } from "./claimer.js";
import type { Housekeeping } from "./housekeeping.js";
import type { OpenBook } from "./openBook.js";
import { RestFeed } from "./restFeed.js";
import type { RestHealth } from "./restHealth.js";

/** Skip reasons a fresh mark can lift. */
const MARK_SKIPS: ReadonlySet<string> = new Set(["mark_stale", "mark_missing"]);

export type DaemonLogger = StreamLogger & ClaimerLogger & { child(bindings: object): DaemonLogger };

export interface DaemonOptions {
  rest: Pick<RestClient, "allOpenLiquidations" | "futures" | "futuresStamped" | "positions" | "info">;
  signer: Signer;
  /** Full stream URLs (PROTOCOL.md §1), account id already appended. */
  publicUrl: string;
  privateUrl: string;
  policy: RiskPolicyInput;
  /** Shared with the claimer's decider (createPolicyContext). */
  ctx: PolicyContextHolder;
  book: OpenBook;
  marks: MarkBook;
  exposure: Exposure;
  claimer: Claimer;
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
  stream?: { pingIntervalMs?: number; deadAfterMs?: number; backoff?: { initialMs: number; maxMs: number; healthyMaxMs?: number } };
}

/** The engine's inputs, in a holder whose policy and symbol table are swapped whole (SIGHUP, info refresh). */
export interface PolicyContextHolder {
  current: PolicyContext;
}

export function createPolicyContext(policy: RiskPolicyInput, marks: MarkBook, exposure: Exposure): PolicyContextHolder {
  return { current: { policy: compileRiskPolicy(policy), symbols: new SymbolTable(), marks, exposure } };
}

/** The decision function the claimer calls: always the holder's current context. */
export function makeDecider(ctx: PolicyContextHolder): (liquidation: Liquidation, now: number) => ReturnType<typeof decide> {
  return (liquidation, now) => decide(liquidation, ctx.current, now);
}

export class Daemon {
  readonly #o: DaemonOptions;
  readonly ctx: PolicyContextHolder;
  readonly #streams: Record<StreamKind, StreamClient>;
  readonly #feed: RestFeed;
  readonly #degradedAfterMs: number;
  /** Local time of the last data frame on the public stream (or of its becoming ready). */
  #lastPublicDataAt = 0;
  readonly #degraded: Record<StreamKind, boolean> = { public: false, private: false };
  #symbolsLoaded = false;
  #maxMarkAgeMs: number;

  constructor(options: DaemonOptions) {
    this.#o = options;
    this.#maxMarkAgeMs = options.policy.max_mark_age_ms;
    this.#degradedAfterMs = options.degradedAfterMs ?? 3_000;
    this.ctx = options.ctx;
    const { metrics, logger } = options;
    const make = (stream: StreamKind, url: string, topics: string[]): StreamClient => {
      const messages = new Map<string, ReturnType<typeof metrics.wsMessages.labels>>();
      return new StreamClient({
        url,
        stream,
        topics,
        ...(stream === "private" ? { signer: options.signer } : {}),
        ...options.stream,
        restHealthy: () => options.restHealth.healthy(),
        logger: logger.child({ component: `stream.${stream}` }),
        onData: (...args: StreamData) => {
          let counter = messages.get(args[0]);
          if (counter === undefined) {
            counter = metrics.wsMessages.labels(stream, args[0]);
            messages.set(args[0], counter);
          }
          counter.inc();
          if (stream === "public") this.#lastPublicDataAt = Date.now();
          this.#onData(args);
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
    };
    this.#streams = {
      public: make("public", options.publicUrl, ["liquidation", "markprices"]),
      private: make("private", options.privateUrl, ["liquidatorliquidations", "position"]),
    };
    this.#feed = new RestFeed({
      source: options.rest,
      sink: {
        openList: (rows, at) => this.#onOpenList(rows, at),
        marks: (rows, ts) => this.#onRestMarks(rows, ts),
        positions: (p) => this.#onRestPositions(p),
      },
      degraded: () => this.#degraded,
      logger: logger.child({ component: "rest_feed" }),
      onRound: () => options.watchdog.kick("reconcile"),
      publicPerSecond: options.publicPerSecond,
      ...(options.reconcileIntervalMs !== undefined ? { reconcileIntervalMs: options.reconcileIntervalMs } : {}),
    });
    for (const stream of ["public", "private"] as const) metrics.degraded.set({ stream }, 0);
  }

  /** Which streams are degraded (their data read from REST instead). */
  degradedStreams(): StreamKind[] {
    return (["public", "private"] as const).filter((s) => this.#degraded[s]);
  }

  /** SIGHUP: a new, already validated policy; connections stay up, every open id is re-decided. */
  applyPolicy(policy: RiskPolicyInput): void {
    this.ctx.current = { ...this.ctx.current, policy: compileRiskPolicy(policy) };
    this.#maxMarkAgeMs = policy.max_mark_age_ms;
    this.#offerAll();
  }

  /** Why the daemon is not ready to claim; empty when it is (/readyz). */
  notReady(now = Date.now()): string[] {
    const reasons: string[] = [];
    for (const s of Object.values(this.#streams)) {
      if (!s.isReady()) reasons.push(`${s.status().stream}_stream_${s.state}${s.lastFailure ? `:${s.lastFailure}` : ""}`);
    }
    if (!this.#symbolsLoaded) reasons.push("symbols_not_loaded");
    const marks = this.#o.marks;
    if (marks.size === 0) reasons.push("marks_missing");
    else if (marks.oldestAgeMs(now) > this.#maxMarkAgeMs) reasons.push("marks_stale");
    for (const r of this.#o.claimer.pausedReasons()) reasons.push(`claiming_paused:${r}`);
    for (const s of this.degradedStreams()) reasons.push(`degraded:${s}`);
    reasons.push(...this.#o.housekeeping.problems());
    return reasons;
  }

  /** Runs until `signal` aborts; then stops claiming, drains in-flight claims and closes the sockets. */
  async run(signal: AbortSignal): Promise<void> {
    const { watchdog, claimer, housekeeping } = this.#o;
    watchdog.register("event_loop", 10_000);
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
    const symbols = this.#symbolsLoop(signal);
    watchdog.register("reconcile", Math.max(60_000, (this.#o.reconcileIntervalMs ?? 5_000) * 6));
    const reconcile = this.#feed.run(signal);
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    clearInterval(tick);
    await claimer.stop();
    await Promise.allSettled([...streams, symbols, reconcile]);
  }

  #onData(args: StreamData): void {
    const now = Date.now();
    switch (args[0]) {
      case "liquidation": {
        const changes = this.#o.book.applyDelta(args[1], now);
        if (changes.added > 0) this.#o.metrics.liquidationsSeen.inc(changes.added);
        if (this.#symbolsLoaded) {
          const receivedAt = performance.now();
          for (const liq of changes.upserted) this.#o.claimer.offer(liq, receivedAt);
        }
        for (const id of changes.removed) this.#o.claimer.cancel(id);
        return;
      }
      case "markprices":
        this.#o.marks.setMany(args[1], now);
        return;
      case "markprice":
        this.#o.marks.set(args[1].symbol, args[1].price, now);
        return;
      case "liquidatorliquidations":
        this.#o.claimer.onAssignment(args[1]);
        return;
      case "position":
        // Through the claimer: it knows which settled claims the push already includes, and journals it.
        this.#o.claimer.onPositions(args[1], args[2]);
        return;
    }
  }

  /**
   * Tiers, fees and ticks (GET /v1/public/info) with a mark snapshot (GET /v1/public/futures): at
   * start, retried until it works, then refreshed every `symbolRefreshMs` so a newly listed symbol or
   * a changed fee is picked up without a restart (a failed refresh keeps the table it has).
   */
  async #symbolsLoop(signal: AbortSignal): Promise<void> {
    const log = this.#o.logger;
    const refreshMs = this.#o.symbolRefreshMs ?? 300_000;
    for (let failures = 0; !signal.aborted; ) {
      try {
        const requestedAt = Date.now();
        const [info, futures] = await Promise.all([this.#o.rest.info({ signal }), this.#o.rest.futures({ signal })]);
        const { table, rejected } = SymbolTable.fromInfoRows(info.rows);
        if (rejected.length > 0) log.warn({ rejected }, "symbol info rows left out");
        this.ctx.current = { ...this.ctx.current, symbols: table };
        this.#o.marks.setMany(
          futures.rows
            .filter((r) => Number.isFinite(r.mark_price) && r.mark_price > 0)
            .map((r) => ({ symbol: r.symbol, price: r.mark_price })),
          requestedAt,
        );
        if (!this.#symbolsLoaded) log.info({ symbols: table.size }, "symbol info loaded");
        this.#symbolsLoaded = true;
        failures = 0;
        this.#offerAll();
        await sleep(refreshMs, signal).catch(() => undefined);
      } catch (err) {
        if (signal.aborted) return;
        log.warn(
          { err: (err as Error).message, failures },
          this.#symbolsLoaded ? "symbol info refresh failed; keeping the current table" : "symbol info load failed; retrying",
        );
        await sleep(Math.min(30_000, 1_000 * 2 ** failures++), signal).catch(() => undefined);
      }
    }
  }

  /**
   * A full open list from REST. Only new or changed liquidations are offered (with 10,000 open ids a
   * full re-decide would block the loop for tens of ms), plus those skipped last time: a mark, the
   * exposure or a competitor's partial take may have changed their verdict.
   */
  #onOpenList(rows: readonly OpenLiquidation[], requestedAt: number): void {
    const { book, claimer, metrics } = this.#o;
    const changes = book.reconcile(rows, requestedAt, Date.now());
    if (changes.added > 0) metrics.liquidationsSeen.inc(changes.added);
    for (const id of changes.removed) claimer.cancel(id);
    claimer.settleFromOpenList(requestedAt);
    if (this.#symbolsLoaded) {
      const receivedAt = performance.now();
      for (const liq of changes.upserted) claimer.offer(liq, receivedAt);
      claimer.retrySkipped();
    }
    claimer.sweep();
  }

  /** REST marks (degraded mode): their age is the venue's time of the answer, on the local clock. */
  #onRestMarks(rows: Futures["rows"], venueTs: number | undefined): void {
    const at = venueTs === undefined ? Date.now() : venueTs - this.#o.signer.clock.offsetMs;
    const valid = rows
      .filter((r) => Number.isFinite(r.mark_price) && r.mark_price > 0)
      .map((r) => ({ symbol: r.symbol, price: r.mark_price }));
    this.#o.marks.setMany(valid, at);
    if (this.#symbolsLoaded) this.#o.claimer.retrySkipped(MARK_SKIPS);
  }

  #onRestPositions(snapshot: Stamped<Positions>): void {
    const positions = snapshot.data.rows.map((r) => ({
      symbol: r.symbol,
      positionQty: r.position_qty,
      ...(r.mark_price !== undefined ? { markPrice: r.mark_price } : {}),
    }));
    this.#o.claimer.onPositionsSnapshot(positions, snapshot.venueTs);
  }

  /** Enter or leave degraded mode per stream; entering wakes the REST feed at once. */
  #checkDegraded(now: number): void {
    const pub = this.#streams.public;
    const publicDegraded = !pub.isReady() || now - this.#lastPublicDataAt > this.#degradedAfterMs;
    const privateDegraded = !this.#streams.private.isReady();
    let entered = false;
    for (const [stream, on] of [
      ["public", publicDegraded],
      ["private", privateDegraded],
    ] as const) {
      if (this.#degraded[stream] === on) continue;
      this.#degraded[stream] = on;
      entered ||= on;
      this.#o.metrics.degraded.set({ stream }, on ? 1 : 0);
      if (on) this.#o.logger.warn({ stream }, "stream degraded: reading its data from REST until it is back");
      else this.#o.logger.info({ stream }, "stream back: degraded mode left");
    }
    if (entered) this.#feed.degradedChanged();
  }

  /** Re-decide every open id the claimer is not already handling (marks, exposure or policy changed). */
  #offerAll(): void {
    if (!this.#symbolsLoaded) return;
    const receivedAt = performance.now();
    for (const liq of this.#o.book.values()) this.#o.claimer.offer(liq, receivedAt);
  }
}
