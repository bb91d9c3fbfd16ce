/**
 * The shadow variants' replay, driven by messages from the daemon's shadow feed (shadowFeed.ts): a
 * ReplayMarket of the variants, the backtest's own code, stepped through the live events in the
 * order the daemon saw them, with the live account's claim sends and refusals applied between
 * them where they happened. It runs in a worker thread (shadowWorker.ts) in the compiled daemon, so
 * no replay step ever holds the claim thread; from the TypeScript sources (the test runner) it runs
 * in the caller's thread behind the same messages.
 *
 * Every event it is sent is accounted for in a report, replayed or discarded (after a failure), so
 * the feed's count of events in flight (its bound) comes back to zero.
 */
import type { CaptureEvent } from "../../daemon/records/captureTap.js";
import { ReplayMarket } from "../replay/replayMarket.js";
import type { ReplayModel } from "../replay/replayVariant.js";
import type { Variant } from "../sweep/variants.js";

/** The live account's claim for `id` was sent at `sentAt` (or, without it, refused), before `events[at]`. */
export type OwnOp = [at: number, id: number, sentAt?: number];

export interface ShadowStart {
  t: "start";
  /** Each variant list is a generation: what belongs to an older one is discarded or not reported as the current scores. */
  gen: number;
  variants: readonly Variant[];
  model: { latencyMs: number; slippageBps: number; takerFeeBps: number; collateral: number };
  /** Ids the live account claimed and the venue did not refuse, with the send time. */
  own: readonly [number, number][];
  /** What the daemon holds now, in the order it came (symbols, marks, the open list and what followed), and each one's sequence number. */
  primer: readonly CaptureEvent[];
  primerSeqs: readonly number[];
  /** Report each shadow claim as it lands (the debug log). */
  notices: boolean;
}

export type ShadowIn =
  | ShadowStart
  | { t: "stop"; gen: number }
  | { t: "batch"; gen: number; events: readonly CaptureEvent[]; seqs: readonly number[]; own: readonly OwnOp[] }
  /** Answered by a report carrying `token` once everything sent before it is replayed. */
  | { t: "sync"; token: number };

export interface ShadowReport {
  t: "report";
  gen: number;
  /** The current variants' claims won and net, in their order (none while stopped). */
  scores: { claims: number; net: number }[];
  /** Since the previous report: events replayed, events discarded, CPU time (µs). */
  replayed: number;
  discarded: number;
  cpuMicros: number;
  /** Shadow claims that landed since the previous report (when notices are on). */
  won: [variant: string, id: number][];
  /** The replay threw: the shadows of `gen` stopped; `seq` is the event it threw on (not to be primed from again). */
  failed?: { seq: number | undefined; error: Error };
  token?: number;
}

/**
 * Reports are at most this often (and at each sync): the metrics read them at scrape time, and a
 * report per message would cost the thread more than a sparse feed's replay does.
 */
const REPORT_EVERY_MS = 100;

const later = (run: () => void): void => {
  setTimeout(run, REPORT_EVERY_MS).unref();
};

export class ShadowReplay {
  readonly #post: (m: ShadowReport) => void;
  readonly #cpuMicros: () => number;
  readonly #defer: (run: () => void) => void;
  readonly #own = new Map<number, number>();
  #gen = 0;
  #market: ReplayMarket | undefined;
  #replayed = 0;
  #discarded = 0;
  #won: [string, number][] = [];
  #failed: ShadowReport["failed"];
  #cpuAt: number;
  #scheduled = false;

  /** `cpuMicros`: the replay's CPU time so far (a report carries what it grew by). */
  constructor(post: (m: ShadowReport) => void, cpuMicros: () => number, defer: (run: () => void) => void = later) {
    this.#post = post;
    this.#cpuMicros = cpuMicros;
    this.#defer = defer;
    this.#cpuAt = cpuMicros();
  }

  handle(m: ShadowIn): void {
    switch (m.t) {
      case "start":
        this.#start(m);
        break;
      case "stop":
        this.#gen = m.gen;
        this.#market = undefined;
        break;
      case "batch":
        this.#batch(m.gen, m.events, m.seqs, m.own);
        break;
      case "sync":
        this.#report(m.token);
        return;
    }
    // One report for however many messages come within its interval.
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.#defer(() => this.#report(undefined));
    }
  }

  #start(m: ShadowStart): void {
    this.#gen = m.gen;
    this.#own.clear();
    for (const [id, sentAt] of m.own) this.#own.set(id, sentAt);
    const model: ReplayModel = {
      latencyMs: m.model.latencyMs,
      ownTakes: this.#own,
      slippageBps: m.model.slippageBps,
      altSlippageBps: [],
      takerFeeBps: m.model.takerFeeBps,
      keepIds: false,
      collateral: m.model.collateral,
      ...(m.notices ? { onWon: (variant: string, id: number) => this.#won.push([variant, id]) } : {}),
    };
    const market = new ReplayMarket(m.variants, model);
    let i = 0;
    try {
      for (; i < m.primer.length; i++) market.step(m.primer[i] as CaptureEvent);
    } catch (err) {
      this.#fail(m.primerSeqs[i], err);
      return;
    }
    this.#market = market;
  }

  #batch(gen: number, events: readonly CaptureEvent[], seqs: readonly number[], own: readonly OwnOp[]): void {
    let market = gen === this.#gen ? this.#market : undefined;
    let o = 0;
    for (let i = 0; i < events.length; i++) {
      for (; o < own.length && (own[o] as OwnOp)[0] <= i; o++) this.#apply(own[o] as OwnOp);
      if (market === undefined) {
        this.#discarded++;
        continue;
      }
      try {
        market.step(events[i] as CaptureEvent);
        this.#replayed++;
      } catch (err) {
        // A shadow is never worth the daemon: its failure stops the shadows, not the claims.
        this.#fail(seqs[i], err);
        market = undefined;
        this.#discarded++;
      }
    }
    for (; o < own.length; o++) this.#apply(own[o] as OwnOp);
  }

  #apply([, id, sentAt]: OwnOp): void {
    if (sentAt === undefined) this.#own.delete(id);
    else if (!this.#own.has(id)) this.#own.set(id, sentAt);
  }

  #fail(seq: number | undefined, err: unknown): void {
    this.#market = undefined;
    this.#failed = { seq, error: err instanceof Error ? err : new Error(String(err)) };
  }

  #report(token: number | undefined): void {
    if (token === undefined) this.#scheduled = false;
    const cpu = this.#cpuMicros();
    const report: ShadowReport = {
      t: "report",
      gen: this.#gen,
      scores: this.#market?.scores() ?? [],
      replayed: this.#replayed,
      discarded: this.#discarded,
      cpuMicros: cpu - this.#cpuAt,
      won: this.#won,
      ...(this.#failed !== undefined ? { failed: this.#failed } : {}),
      ...(token !== undefined ? { token } : {}),
    };
    this.#cpuAt = cpu;
    this.#replayed = 0;
    this.#discarded = 0;
    this.#won = [];
    this.#failed = undefined;
    this.#post(report);
  }
}
