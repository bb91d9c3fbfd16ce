/**
 * Shadow variants on the live feed (`shadow.variants`, docs/policy-lab.md): the daemon's inputs, as
 * its capture tap sees them (daemon/records/captureTap.ts), go to a ReplayMarket of the variants, the
 * backtest's own code, so a shadow decides as a backtest of the same settings would, sends nothing,
 * and is scored as it goes. Off the claim thread: the replay runs in a worker thread
 * (shadowPort.ts, shadowReplay.ts); `record` only appends to a batch, posted once per turn of the
 * event loop, after the frame that carried the event was handled (its claim already left).
 *
 * What the live claimer did is the shadows' outcome model, as the capture's claim answers are a
 * backtest's: an id is the account's own from its send until the venue refuses it, so its leaving the
 * open list is not a rival's take for a shadow that claimed it too. Sends and refusals travel in the
 * batches at their place among the events, so the replay meets them in the order the daemon did.
 *
 * Longer than most files: the live side of the shadows — batching, back-pressure, the worker's
 * lifecycle and the claims told to it — shares one queue.
 */
import type { CaptureEvent, CaptureTap } from "../../daemon/records/captureTap.js";
import { DEFAULT_LAB_COLLATERAL } from "../replay/labMargin.js";
import type { Variant } from "../sweep/variants.js";
import { openShadowPort, type ShadowPort } from "./shadowPort.js";
import type { OwnOp, ShadowReport } from "./shadowReplay.js";

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
  /** A shadow's claim landed (the debug log); none: the replay does not report them. */
  claimed?: (variant: string, id: number) => void;
  /** Events dropped because too many were in flight (the replay could not keep up). */
  dropped?: (n: number) => void;
  /** The replay threw (or its thread died): the shadows stop (until the next variant list); the daemon goes on. */
  failed?: (err: unknown) => void;
  /** Where a batch's posting is scheduled; default setImmediate. */
  schedule?: (run: () => void) => void;
  /** Most events sent to the replay and not yet replayed; past it new ones are dropped (counted). */
  maxQueued?: number;
}

/** Events since the latest open list kept to start a new set of shadows from (a SIGHUP). */
const PRIMER_MAX = 20_000;

/** An event the primer holds, with its sequence number (a failed replay names the one it threw on). */
interface Held {
  seq: number;
  ev: CaptureEvent;
}

export class ShadowFeed implements CaptureTap {
  readonly #o: ShadowFeedOptions;
  readonly #schedule: (run: () => void) => void;
  readonly #maxQueued: number;
  /** Ids the live account sent a claim for, with the send time (the replay's `ownTakes`, sent at each start). */
  readonly #own = new Map<number, number>();
  #port: ShadowPort | undefined;
  #variants: readonly Variant[] = [];
  #key = "";
  #gen = 0;
  #running = false;
  #seq = 0;
  /** The batch the next post carries: events, their sequence numbers, own sends and refusals among them. */
  #events: CaptureEvent[] = [];
  #seqs: number[] = [];
  #ops: OwnOp[] = [];
  #scheduled = false;
  /** Events batched or sent, not yet reported replayed or discarded. */
  #inFlight = 0;
  #scores: { claims: number; net: number }[] = [];
  #cpuMicros = 0;
  #replayed = 0;
  #token = 0;
  readonly #syncs = new Map<number, () => void>();
  /** The latest symbols and marks snapshot, and the latest open list with every input since. */
  #info: Held | undefined;
  #futures: Held | undefined;
  #sinceOpen: Held[] = [];

  constructor(options: ShadowFeedOptions) {
    this.#o = options;
    this.#schedule = options.schedule ?? setImmediate;
    this.#maxQueued = options.maxQueued ?? 200_000;
  }

  /**
   * The variants to run. Unchanged ones (same names, same configs) keep their state; any change
   * starts every shadow anew from what the daemon holds now (symbols, marks, the open list).
   */
  setVariants(variants: readonly Variant[]): void {
    const key = JSON.stringify(variants.map((v) => [v.name, v.config]));
    if (key === this.#key) return;
    // The previous shadows replay what they were sent before they are replaced.
    this.#post();
    this.#key = key;
    this.#variants = variants;
    this.#scores = [];
    const gen = ++this.#gen;
    if (variants.length === 0) {
      if (this.#running) this.#port?.post({ t: "stop", gen });
      this.#running = false;
      return;
    }
    this.#port ??= openShadowPort({ report: (m) => this.#report(m), died: (err) => this.#died(err) });
    const o = this.#o;
    // What the daemon holds now, in the order it came: symbols, marks, the open list and what followed.
    const primer = [this.#info, this.#futures, ...this.#sinceOpen].filter((h): h is Held => h !== undefined);
    primer.sort((a, b) => a.ev.at - b.ev.at);
    this.#port.post({
      t: "start",
      gen,
      variants,
      model: { ...o.model, collateral: o.collateral?.() ?? DEFAULT_LAB_COLLATERAL },
      own: [...this.#own],
      primer: primer.map((h) => h.ev),
      primerSeqs: primer.map((h) => h.seq),
      notices: o.claimed !== undefined,
    });
    this.#running = true;
  }

  /**
   * Stream frames are wanted only while shadows run: with none, the daemon builds no event per frame,
   * and shadows started later (a SIGHUP) begin from the symbols, marks and open list the REST reads
   * keep here, missing at most the pushes of one reconcile interval until the next open list.
   */
  get frames(): boolean {
    return this.#running;
  }

  /** The capture tap: append to the batch only (never blocks, never throws). */
  record(event: CaptureEvent): void {
    const seq = this.#seq++;
    this.#remember({ seq, ev: event });
    if (!this.#running) return;
    if (this.#inFlight >= this.#maxQueued) {
      this.#o.dropped?.(1);
      return;
    }
    this.#inFlight++;
    this.#events.push(event);
    this.#seqs.push(seq);
    this.#later();
  }

  /** The live account sent a claim for `id` at `sentAt` (wall clock, ms). */
  ownSent(id: number, sentAt: number): void {
    if (this.#own.has(id)) return;
    this.#own.set(id, sentAt);
    if (this.#running) {
      this.#ops.push([this.#events.length, id, sentAt]);
      this.#later();
    }
  }

  /** The venue refused the live account's claim: the id's leaving is someone else's doing. */
  ownRefused(id: number): void {
    if (!this.#own.delete(id) || !this.#running) return;
    this.#ops.push([this.#events.length, id]);
    this.#later();
  }

  /** Each variant's score as last reported, in the configured order. */
  scores(): ShadowScore[] {
    const s = this.#scores;
    return this.#variants.map((v, i) => ({ variant: v.name, claims: s[i]?.claims ?? 0, net: s[i]?.net ?? 0 }));
  }

  /** CPU seconds the replay took, and events replayed (all variants together), as last reported. */
  cost(): { cpuSeconds: number; events: number } {
    return { cpuSeconds: this.#cpuMicros / 1e6, events: this.#replayed };
  }

  /** Where the replay runs (none before the first variants). */
  get thread(): ShadowPort["thread"] | undefined {
    return this.#port?.thread;
  }

  /** Events sent to the replay (or about to be) and not yet replayed. */
  get queued(): number {
    return this.#inFlight;
  }

  /** Resolves once the replay has run every event recorded so far and reported (a reload, a test). */
  async flush(): Promise<void> {
    this.#post();
    const port = this.#port;
    if (port === undefined) return;
    const token = ++this.#token;
    await new Promise<void>((resolve) => {
      this.#syncs.set(token, resolve);
      port.post({ t: "sync", token });
    });
  }

  /** Stops the replay and its thread (the daemon's shutdown). */
  async close(): Promise<void> {
    const port = this.#port;
    this.#port = undefined;
    this.#running = false;
    this.#key = "";
    this.#drop();
    this.#inFlight = 0;
    this.#settleSyncs();
    await port?.close();
  }

  #later(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#schedule(() => {
      this.#scheduled = false;
      this.#post();
    });
  }

  /** One message for everything recorded since the last: the claim thread pays one post per turn, not one per event. */
  #post(): void {
    if (this.#events.length === 0 && this.#ops.length === 0) return;
    if (this.#running && this.#port !== undefined) {
      this.#port.post({ t: "batch", gen: this.#gen, events: this.#events, seqs: this.#seqs, own: this.#ops });
      this.#events = [];
      this.#seqs = [];
      this.#ops = [];
    } else {
      this.#drop();
    }
  }

  /** The batch is never sent: its events are no longer in flight. */
  #drop(): void {
    this.#inFlight -= this.#events.length;
    this.#events = [];
    this.#seqs = [];
    this.#ops = [];
  }

  #report(m: ShadowReport): void {
    this.#cpuMicros += m.cpuMicros;
    this.#replayed += m.replayed;
    this.#inFlight -= m.replayed + m.discarded;
    if (m.gen === this.#gen) this.#scores = m.scores;
    const claimed = this.#o.claimed;
    if (claimed !== undefined) for (const [variant, id] of m.won) claimed(variant, id);
    if (m.failed !== undefined && m.gen === this.#gen && this.#running) {
      // The event it threw on is not kept to start the next shadows from.
      if (m.failed.seq !== undefined) this.#forget(m.failed.seq);
      this.#stop(m.failed.error);
    }
    if (m.token !== undefined) {
      this.#syncs.get(m.token)?.();
      this.#syncs.delete(m.token);
    }
  }

  #died(err: Error): void {
    this.#port = undefined;
    this.#stop(err);
    // What it was sent will never be reported.
    this.#inFlight = 0;
    this.#settleSyncs();
  }

  /** The shadows stop; the next SIGHUP starts them anew, whatever its list. */
  #stop(err: unknown): void {
    this.#running = false;
    this.#key = "";
    this.#scores = [];
    this.#drop();
    this.#o.failed?.(err);
  }

  #settleSyncs(): void {
    for (const resolve of this.#syncs.values()) resolve();
    this.#syncs.clear();
  }

  #forget(seq: number): void {
    if (this.#info?.seq === seq) this.#info = undefined;
    if (this.#futures?.seq === seq) this.#futures = undefined;
    this.#sinceOpen = this.#sinceOpen.filter((h) => h.seq !== seq);
  }

  #remember(h: Held): void {
    switch (h.ev.k) {
      case "info":
        this.#info = h;
        return;
      case "futures":
        this.#futures = h;
        return;
      case "open":
        this.#sinceOpen = [h];
        return;
      case "liquidation":
      case "markprices":
        if (this.#sinceOpen.length >= PRIMER_MAX) this.#sinceOpen.splice(1, 1);
        this.#sinceOpen.push(h);
        return;
      default:
        return;
    }
  }
}
