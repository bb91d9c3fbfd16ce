/**
 * The running daemon: venue streams and REST reconciliation feed the open list, marks and
 * exposure; every new or changed liquidation is offered to the claimer. Built by main.ts, which
 * owns every dependency; this file only wires inputs to the engine and the claimer.
 */
import type { Exposure } from "../engine/exposure.js";
import type { MarkBook } from "../engine/marks.js";
import { decide, type PolicyContext } from "../engine/policy.js";
import { compileRiskPolicy, type RiskPolicyInput } from "../engine/riskPolicy.js";
import { SymbolTable } from "../engine/symbolInfo.js";
import type { Liquidation } from "../engine/types.js";
import type { Metrics } from "../observe/metrics.js";
import type { Watchdog } from "../observe/watchdog.js";
import type { RestClient } from "../venue/rest.js";
import type { Signer } from "../venue/signer.js";
import { StreamClient, type StreamKind, type StreamLogger } from "../venue/stream.js";
import { sleep } from "../venue/streamOptions.js";
import type { StreamData } from "../venue/wire.js";
import type { Claimer, ClaimerLogger } from "./claimer.js";
import type { Housekeeping } from "./housekeeping.js";
import type { OpenBook } from "./openBook.js";

export type DaemonLogger = StreamLogger & ClaimerLogger & { child(bindings: object): DaemonLogger };

export interface DaemonOptions {
  rest: Pick<RestClient, "allOpenLiquidations" | "futures" | "info">;
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
  /** How often the open list is re-read from REST besides after every (re)connect. */
  reconcileIntervalMs?: number;
  /** How often the symbol table is refreshed from GET /v1/public/info. */
  symbolRefreshMs?: number;
  /** Stream timing overrides (tests). */
  stream?: { pingIntervalMs?: number; deadAfterMs?: number; backoff?: { initialMs: number; maxMs: number } };
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
  #reconcileNow: (() => void) | undefined;
  #reconcileRequested = false;
  #symbolsLoaded = false;
  #maxMarkAgeMs: number;

  constructor(options: DaemonOptions) {
    this.#o = options;
    this.#maxMarkAgeMs = options.policy.max_mark_age_ms;
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
        logger: logger.child({ component: `stream.${stream}` }),
        onData: (...args: StreamData) => {
          let counter = messages.get(args[0]);
          if (counter === undefined) {
            counter = metrics.wsMessages.labels(stream, args[0]);
            messages.set(args[0], counter);
          }
          counter.inc();
          this.#onData(args);
        },
        onStateChange: (state) => {
          metrics.wsConnected.set({ stream }, state === "ready" ? 1 : 0);
          if (state === "ready" && stream === "public") this.#requestReconcile();
        },
        onBadMessage: (reason) => metrics.wsBadMessages.inc({ stream, reason }),
        onReconnect: () => metrics.wsReconnects.inc({ stream }),
      });
    };
    this.#streams = {
      public: make("public", options.publicUrl, ["liquidation", "markprices"]),
      private: make("private", options.privateUrl, ["liquidatorliquidations", "position"]),
    };
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
    reasons.push(...this.#o.housekeeping.problems());
    return reasons;
  }

  /** Runs until `signal` aborts; then stops claiming, drains in-flight claims and closes the sockets. */
  async run(signal: AbortSignal): Promise<void> {
    const { watchdog, claimer, housekeeping } = this.#o;
    watchdog.register("event_loop", 10_000);
    const tick = setInterval(() => {
      watchdog.kick("event_loop");
      housekeeping.tick(Date.now());
    }, 1_000);
    tick.unref();
    watchdog.kick("event_loop");
    housekeeping.tick(Date.now());
    // Streams connect at once (marks and the open list start filling); nothing is offered to the
    // claimer until the symbol table is loaded, since a claim's form depends on the tiers.
    const streams = Object.values(this.#streams).map((s) => s.start(signal));
    claimer.start();
    const symbols = this.#symbolsLoop(signal);
    const reconcile = this.#reconcileLoop(signal);
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

  /** The open list from REST after every (re)connect and every interval: a missed push never means a missed claim. */
  async #reconcileLoop(signal: AbortSignal): Promise<void> {
    const { watchdog, logger, rest, book, claimer } = this.#o;
    const interval = this.#o.reconcileIntervalMs ?? 5_000;
    watchdog.register("reconcile", Math.max(60_000, interval * 6));
    let failing = false;
    while (!signal.aborted) {
      watchdog.kick("reconcile");
      try {
        const requestedAt = Date.now();
        const rows = await rest.allOpenLiquidations({ signal });
        const changes = book.reconcile(rows, requestedAt, Date.now());
        if (changes.added > 0) this.#o.metrics.liquidationsSeen.inc(changes.added);
        for (const id of changes.removed) claimer.cancel(id);
        claimer.settleFromOpenList(requestedAt);
        this.#offerAll();
        claimer.sweep();
        if (failing) logger.info({}, "open list reconcile recovered");
        failing = false;
      } catch (err) {
        if (signal.aborted) break;
        if (!failing) logger.warn({ err: (err as Error).message }, "open list reconcile failed");
        failing = true;
      }
      if (this.#reconcileRequested) {
        this.#reconcileRequested = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          this.#reconcileNow = undefined;
          resolve();
        };
        const timer = setTimeout(done, interval);
        this.#reconcileNow = done;
        signal.addEventListener("abort", done, { once: true });
      });
    }
  }

  /** A (re)connect: read the open list now, or right after the round in progress. */
  #requestReconcile(): void {
    if (this.#reconcileNow !== undefined) this.#reconcileNow();
    else this.#reconcileRequested = true;
  }

  /** Re-decide every open id the claimer is not already handling (marks, exposure or policy changed). */
  #offerAll(): void {
    if (!this.#symbolsLoaded) return;
    const receivedAt = performance.now();
    for (const liq of this.#o.book.values()) this.#o.claimer.offer(liq, receivedAt);
  }
}
