/**
 * Shadow variants on the live feed (`shadow.variants`, docs/policy-lab.md): the daemon's inputs, as
 * its capture tap sees them (daemon/captureTap.ts), go to a ReplayMarket of the variants, the
 * backtest's own code, so a shadow decides as a backtest of the same settings would, sends nothing,
 * and is scored as it goes. Off the claim hot path: `record` only enqueues; the replay runs in
 * setImmediate slices after the frame that carried the event was handled (its claim already left),
 * each slice short enough that the next frame's claim does not wait behind it.
 *
 * What the live claimer did is the shadows' outcome model, as the capture's claim answers are a
 * backtest's: an id is the account's own from its send until the venue refuses it, so its leaving the
 * open list is not a rival's take for a shadow that claimed it too.
 */
import type { CaptureEvent, CaptureTap } from "../daemon/captureTap.js";
import { DEFAULT_LAB_COLLATERAL } from "./labMargin.js";
import { ReplayMarket } from "./replayMarket.js";
import type { ReplayModel } from "./replayVariant.js";
import type { Variant } from "./variants.js";

export interface ShadowModel {
  /** Send → answer of a shadow's modelled claim, ms. */
  latencyMs: number;
  /** Unwind fills at the mark this far against us, and the taker fee (the backtest's defaults). */
  slippageBps: number;
  takerFeeBps: number;
}

export interface ShadowScore {
  variant: string;
  claims: number;
  net: number;
}

export interface ShadowFeedOptions {
  model: ShadowModel;
  /** The live account's total collateral when a set of shadows starts (their margin); none: the lab's default. */
  collateral?: () => number | undefined;
  /** A shadow's claim landed (the debug log). */
  claimed?: (variant: string, id: number) => void;
  /** Events dropped because the queue was full (the replay could not keep up). */
  dropped?: (n: number) => void;
  /** The replay threw: the shadows stop (until the next variant list); the daemon goes on. */
  failed?: (err: unknown) => void;
  /** Where a slice is scheduled; default setImmediate. */
  schedule?: (run: () => void) => void;
  /** Most events waiting; past it new ones are dropped (counted). */
  maxQueued?: number;
  /** Longest slice of replay work before the loop is given back, ms. */
  sliceMs?: number;
}

/** Events since the latest open list kept to start a new set of shadows from (a SIGHUP). */
const PRIMER_MAX = 20_000;

export class ShadowFeed implements CaptureTap {
  readonly #o: ShadowFeedOptions;
  readonly #schedule: (run: () => void) => void;
  readonly #maxQueued: number;
  readonly #sliceMs: number;
  /** Ids the live account sent a claim for, with the send time (the replay's `ownTakes`). */
  readonly #own = new Map<number, number>();
  #variants: readonly Variant[] = [];
  #key = "";
  #market: ReplayMarket | undefined;
  #queue: CaptureEvent[] = [];
  #head = 0;
  #scheduled = false;
  /** CPU time of the replay work, µs (user + system). */
  #cpuMicros = 0;
  #events = 0;
  /** The latest symbols and marks snapshot, and the latest open list with every input since. */
  #info: CaptureEvent | undefined;
  #futures: CaptureEvent | undefined;
  #sinceOpen: CaptureEvent[] = [];

  constructor(options: ShadowFeedOptions) {
    this.#o = options;
    this.#schedule = options.schedule ?? setImmediate;
    this.#maxQueued = options.maxQueued ?? 200_000;
    this.#sliceMs = options.sliceMs ?? 2;
  }

  /**
   * The variants to run. Unchanged ones (same names, same configs) keep their state; any change
   * starts every shadow anew from what the daemon holds now (symbols, marks, the open list).
   */
  setVariants(variants: readonly Variant[]): void {
    const key = JSON.stringify(variants.map((v) => [v.name, v.config]));
    if (key === this.#key) return;
    this.#drainAll();
    this.#key = key;
    this.#variants = variants;
    this.#market = undefined;
    if (variants.length > 0) this.#market = this.#newMarket(variants);
  }

  /**
   * Stream frames are wanted only while shadows run: with none, the daemon builds no event per frame,
   * and shadows started later (a SIGHUP) begin from the symbols, marks and open list the REST reads
   * keep here, missing at most the pushes of one reconcile interval until the next open list.
   */
  get frames(): boolean {
    return this.#market !== undefined;
  }

  /** The capture tap: enqueue only (never blocks, never throws). */
  record(event: CaptureEvent): void {
    this.#remember(event);
    if (this.#market === undefined) return;
    if (this.#queue.length - this.#head >= this.#maxQueued) {
      this.#o.dropped?.(1);
      return;
    }
    this.#queue.push(event);
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.#schedule(this.#slice);
    }
  }

  /** The live account sent a claim for `id` at `sentAt` (wall clock, ms). */
  ownSent(id: number, sentAt: number): void {
    if (!this.#own.has(id)) this.#own.set(id, sentAt);
  }

  /** The venue refused the live account's claim: the id's leaving is someone else's doing. */
  ownRefused(id: number): void {
    this.#own.delete(id);
  }

  /** Each variant's score so far, in the configured order. */
  scores(): ShadowScore[] {
    const s = this.#market?.scores() ?? [];
    return this.#variants.map((v, i) => ({ variant: v.name, claims: s[i]?.claims ?? 0, net: s[i]?.net ?? 0 }));
  }

  /** CPU seconds spent replaying, and events replayed (all variants together). */
  cost(): { cpuSeconds: number; events: number } {
    return { cpuSeconds: this.#cpuMicros / 1e6, events: this.#events };
  }

  /** Events waiting for the replay. */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  /** Runs every queued event now (a reload, a test). */
  flush(): void {
    this.#drainAll();
  }

  readonly #slice = (): void => {
    this.#scheduled = false;
    this.#run(this.#sliceMs);
    if (this.queued > 0) {
      this.#scheduled = true;
      this.#schedule(this.#slice);
    }
  };

  #drainAll(): void {
    this.#run(Number.POSITIVE_INFINITY);
  }

  #run(budgetMs: number): void {
    const market = this.#market;
    if (market === undefined || this.queued === 0) return;
    const cpu = process.cpuUsage();
    const until = performance.now() + budgetMs;
    const q = this.#queue;
    let i = this.#head;
    try {
      while (i < q.length) {
        market.step(q[i++] as CaptureEvent);
        // The clock is read every few events: one step is a few µs.
        if ((i & 15) === 0 && performance.now() >= until) break;
      }
    } catch (err) {
      // A shadow is never worth the daemon: its failure stops the shadows, not the claims. The event
      // it failed on is not kept to start the next ones from.
      this.#forget(q[i - 1] as CaptureEvent);
      this.#fail(err);
      i = q.length;
    }
    this.#events += i - this.#head;
    if (i === q.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (i > 4096 && i * 2 > q.length) {
      this.#queue = q.slice(i);
      this.#head = 0;
    } else {
      this.#head = i;
    }
    const used = process.cpuUsage(cpu);
    this.#cpuMicros += used.user + used.system;
  }

  #newMarket(variants: readonly Variant[]): ReplayMarket | undefined {
    const o = this.#o;
    const model: ReplayModel = {
      latencyMs: o.model.latencyMs,
      ownTakes: this.#own,
      slippageBps: o.model.slippageBps,
      altSlippageBps: [],
      takerFeeBps: o.model.takerFeeBps,
      keepIds: false,
      collateral: o.collateral?.() ?? DEFAULT_LAB_COLLATERAL,
      ...(o.claimed !== undefined ? { onWon: o.claimed } : {}),
    };
    const market = new ReplayMarket(variants, model);
    // What the daemon holds now, in the order it came: symbols, marks, the open list and what followed.
    const primer = [this.#info, this.#futures, ...this.#sinceOpen].filter((e): e is CaptureEvent => e !== undefined);
    primer.sort((a, b) => a.at - b.at);
    let ev: CaptureEvent | undefined;
    try {
      for (ev of primer) market.step(ev);
    } catch (err) {
      if (ev !== undefined) this.#forget(ev);
      this.#fail(err);
      return undefined;
    }
    return market;
  }

  /** The shadows stop; the next SIGHUP starts them anew, whatever its list. */
  #fail(err: unknown): void {
    this.#market = undefined;
    this.#key = "";
    this.#o.failed?.(err);
  }

  #forget(ev: CaptureEvent): void {
    if (this.#info === ev) this.#info = undefined;
    if (this.#futures === ev) this.#futures = undefined;
    this.#sinceOpen = this.#sinceOpen.filter((e) => e !== ev);
  }

  #remember(ev: CaptureEvent): void {
    switch (ev.k) {
      case "info":
        this.#info = ev;
        return;
      case "futures":
        this.#futures = ev;
        return;
      case "open":
        this.#sinceOpen = [ev];
        return;
      case "liquidation":
      case "markprices":
        if (this.#sinceOpen.length >= PRIMER_MAX) this.#sinceOpen.splice(1, 1);
        this.#sinceOpen.push(ev);
        return;
      case "claim":
        return;
    }
  }
}
