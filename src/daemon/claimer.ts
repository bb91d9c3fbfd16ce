/**
 * Claim queue → limiter → single send point. What happens after a claim left is claimOutcomes.ts.
 *
 * Late binding: pending claims wait in a max-heap by expected fee; each claims-limiter permit picks
 * the best pending claim *when it is granted* and re-decides it on the latest marks, exposure and
 * open list, so nothing is sent on stale data and, when the 5/s claim limit binds (docs/protocol.md
 * "Limits"), the most valuable claims leave first. A permit is only spent on a claim actually sent.
 *
 * Never twice: every id has one state (claimState.ts); once an id is in flight, accepted, unknown or
 * finished it is not claimed again, and the journal intent is written before the request leaves.
 *
 * Longer than most files: the pump and the per-id state share one queue and one send point; what happens after a claim left is claimOutcomes.ts.
 */
import type { Exposure } from "../engine/exposure.js";
import type { ClaimDecision, Decision } from "../engine/policy.js";
import type { PositionBook } from "../engine/positionBook.js";
import { RankingQueue } from "../engine/ranking.js";
import type { Fill, Liquidation, LiquidationPosition } from "../engine/types.js";
import type { PauseReason } from "../observe/metrics.js";
import type { JournalRecord } from "../store/journalRecords.js";
import type { StateStore } from "../store/stateStore.js";
import { DuplicateClaimError, FencedError } from "../store/storeErrors.js";
import { claimRequestBody } from "../venue/mapping.js";
import type { LiquidatorLiquidation } from "../venue/wire.js";
import { intentRecord } from "./claimIntent.js";
import { ClaimOutcomes, type ClaimOutcomeTimings } from "./claimOutcomes.js";
import type { ClaimSender } from "./claimSender.js";
import { type IdState, newState, sweepStates, unknownState } from "./claimState.js";
import type { OpenBook } from "./openBook.js";
import { SkipVerdicts } from "./skipVerdicts.js";

export type { PauseReason } from "../observe/metrics.js";

/** Metrics and logs hang off this; the claimer does not know prom-client. */
export interface ClaimerObserver {
  skipped(reason: string): void;
  submitted(): void;
  result(result: string, code: string, claimLatencySeconds: number | undefined): void;
  decisionLatency(seconds: number): void;
  feeEarned(symbol: string, amount: number): void;
  paused(reason: PauseReason, on: boolean): void;
  /** A claim the venue applied transferred `fills` (the P&L ledger's input). */
  settled?(id: number, fills: readonly Fill[], venueTs: number): void;
  /** A claim applied by a lean answer, before its fills are known: the quantities it requested. */
  acceptedUnsized?(id: number, requested: Readonly<Record<string, number>>): void;
}

export interface ClaimerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ClaimerOptions extends Partial<ClaimOutcomeTimings> {
  decide: (liquidation: Liquidation, now: number) => Decision;
  book: OpenBook;
  exposure: Exposure;
  /** The venue's held positions (what a settled claim adds to, and what the venue's reports replace). */
  positions: PositionBook;
  /** The claims limiter's permit (limiters.acquire("claims", signal)). */
  acquire: (signal: AbortSignal) => Promise<void>;
  /** A permit only if one is free now (sendNow); none: claims leave from the pump only. */
  tryAcquire?: () => boolean;
  sender: ClaimSender;
  /** The journal: intents before sending, outcomes after (stateStore.ts). */
  store: Pick<StateStore, "intent" | "append" | "mayLead">;
  observer: ClaimerObserver;
  logger: ClaimerLogger;
  /** Wall clock, ms (decisions, journal). */
  now?: () => number;
  /** Monotonic clock, ms (latencies). */
  monotonic?: () => number;
}

const DEFAULT_TIMINGS: ClaimOutcomeTimings = {
  marginPauseMs: 60_000,
  retryDelayMs: 500,
  rateLimitHoldMs: 1_000,
  unknownTimeoutMs: 120_000,
  openListSettleMs: 30_000,
  repriceBackoffMs: 2_000,
};

export class Claimer {
  readonly #options: ClaimerOptions & { now: () => number; monotonic: () => number };
  readonly #outcomes: ClaimOutcomes;
  readonly #queue = new RankingQueue<number>();
  /** The rehearsal's own queue: it runs the ranking's code on data no claim is taken from. */
  readonly #rehearsalQueue = new RankingQueue<number>();
  readonly #ids = new Map<number, IdState>();
  /** Last skip reason per open id: the skip metric counts a liquidation once per reason, not per re-check. */
  readonly #skips = new SkipVerdicts();
  readonly #inflight = new Set<Promise<void>>();
  readonly #paused = new Map<PauseReason, NodeJS.Timeout | undefined>();
  #holdUntil = 0;
  #wake: (() => void) | undefined;
  /** The pump waits for work (not for a permit, not for a hold). */
  #idle = false;
  /** The last claim decision of offer(), until the synchronous run that made it ends (sendNow reuses it). */
  #fresh: { liquidation: Liquidation; d: ClaimDecision } | undefined;
  readonly #forgetFresh = (): void => {
    this.#fresh = undefined;
  };
  #loop: Promise<void> | undefined;
  readonly #stop = new AbortController();

  constructor(options: ClaimerOptions) {
    const o = { now: Date.now, monotonic: () => performance.now(), ...options };
    this.#options = o;
    this.#outcomes = new ClaimOutcomes(
      {
        states: this.#ids,
        book: o.book,
        exposure: o.exposure,
        positions: o.positions,
        journal: (record) => this.#journal(record),
        observer: o.observer,
        logger: o.logger,
        now: o.now,
        monotonic: o.monotonic,
        retryLater: (id, st, ms) => this.#retryLater(id, st, ms),
        requeue: (id, st, fee) => this.#requeue(id, st, fee),
        pauseForMargin: (ms) => this.setPaused("margin", true, ms),
        holdUntil: (at) => {
          this.#holdUntil = at;
        },
        offer: (liquidation) => this.offer(liquidation),
      },
      {
        marginPauseMs: o.marginPauseMs ?? DEFAULT_TIMINGS.marginPauseMs,
        retryDelayMs: o.retryDelayMs ?? DEFAULT_TIMINGS.retryDelayMs,
        rateLimitHoldMs: o.rateLimitHoldMs ?? DEFAULT_TIMINGS.rateLimitHoldMs,
        unknownTimeoutMs: o.unknownTimeoutMs ?? DEFAULT_TIMINGS.unknownTimeoutMs,
        openListSettleMs: o.openListSettleMs ?? DEFAULT_TIMINGS.openListSettleMs,
        repriceBackoffMs: o.repriceBackoffMs ?? DEFAULT_TIMINGS.repriceBackoffMs,
      },
    );
  }

  get pendingCount(): number {
    return this.#queue.size;
  }

  get inflightCount(): number {
    return this.#inflight.size;
  }

  /** Claims sent whose outcome is not settled: in flight, or unknown (they may still assign positions). */
  unsettledCount(): number {
    let n = 0;
    for (const st of this.#ids.values()) if (st.phase === "inflight" || st.phase === "unknown") n++;
    return n;
  }

  pausedReasons(): PauseReason[] {
    return [...this.#paused.keys()];
  }

  /** Ids the journal says were claimed before a restart: never again (see journal replay). */
  markDone(id: number): void {
    this.#ids.set(id, newState("done", 0, this.#options.now()));
  }

  /**
   * An intent the journal has no outcome for (the process died between the intent and the answer):
   * an unknown outcome, as if its answer had been lost now. The open list settles it — still open
   * with the positions it was sent against once the settle time has passed: never applied, so it
   * may be claimed again; changed or gone: it was (or someone else's was), never again.
   */
  markUnknown(id: number, sentPositions: readonly LiquidationPosition[]): void {
    this.#ids.set(id, unknownState(sentPositions, this.#options.now()));
  }

  start(): void {
    this.#loop ??= this.#pump();
  }

  /** Dry run was switched off: ids that were only decided in dry run may now be claimed for real. */
  forgetDryRun(): void {
    for (const [id, st] of this.#ids) if (st.phase === "done" && st.dryRun === true) this.#ids.delete(id);
  }

  /** A liquidation is new or changed (stream delta or REST reconcile). */
  offer(liquidation: Liquidation, receivedAt = this.#options.monotonic()): void {
    const id = liquidation.liquidationId;
    const st = this.#ids.get(id);
    if (st !== undefined && st.phase !== "pending") return;
    const d = this.#options.decide(liquidation, this.#options.now());
    if (d.action === "skip") {
      this.#skipped(id, d.reason);
      if (st !== undefined) {
        this.#queue.remove(id);
        this.#ids.delete(id);
      }
      return;
    }
    this.#skips.delete(id);
    // A promise reaction, not queueMicrotask: Node wraps each queueMicrotask callback in an
    // AsyncResource, ~12 µs of a frame's ~70 µs of offers in the bench's profile.
    if (this.#fresh === undefined) void Promise.resolve().then(this.#forgetFresh);
    this.#fresh = { liquidation, d };
    if (st === undefined) {
      this.#ids.set(id, newState("pending", receivedAt));
      this.#queue.push(id, d.expectedFee, liquidation.timestamp, id);
    } else {
      this.#queue.update(id, d.expectedFee);
    }
    this.#wake?.();
  }

  /** The id left the open list: drop it unless it is already on its way. */
  cancel(id: number): void {
    this.#skips.delete(id);
    const st = this.#ids.get(id);
    if (st === undefined || (st.phase !== "pending" && st.phase !== "waiting")) return;
    this.#queue.remove(id);
    if (st.timer !== undefined) clearTimeout(st.timer);
    this.#ids.delete(id);
  }

  /** Stop (or resume) all claiming for a reason; `forMs` resumes by itself. */
  setPaused(reason: PauseReason, on: boolean, forMs?: number): void {
    const had = this.#paused.has(reason);
    clearTimeout(this.#paused.get(reason));
    if (on) {
      const timer = forMs === undefined ? undefined : setTimeout(() => this.setPaused(reason, false), forMs);
      timer?.unref();
      this.#paused.set(reason, timer);
      if (!had) this.#options.observer.paused(reason, true);
    } else if (had) {
      this.#paused.delete(reason);
      this.#options.observer.paused(reason, false);
      this.#wake?.();
    }
  }

  /** Private `liquidatorliquidations` push: confirms an unknown outcome. */
  onAssignment(push: LiquidatorLiquidation): void {
    this.#outcomes.assignment(push);
  }

  /**
   * Re-decide the open ids last skipped for one of `reasons` (all skips when omitted): what made them
   * fail (a stale mark, the exposure cap, a mark moving the fee) may have changed.
   */
  retrySkipped(reasons?: ReadonlySet<string>): void {
    const ids = this.#skips.ids(reasons);
    if (ids.length === 0) return;
    const receivedAt = this.#options.monotonic();
    for (const id of ids) {
      const liquidation = this.#options.book.get(id);
      if (liquidation !== undefined) this.offer(liquidation, receivedAt);
    }
  }

  /** An open-list snapshot requested at `requestedAt` may settle unknown outcomes (claimOutcomes.ts). */
  settleFromOpenList(requestedAt: number): void {
    this.#outcomes.settleFromOpenList(requestedAt);
  }

  /** Forget finished ids that left the open list long ago (bounded memory over a week of running). */
  sweep(olderThanMs = 600_000): void {
    const book = this.#options.book;
    sweepStates(this.#ids, this.#skips, this.#options.now() - olderThanMs, (id) => book.has(id));
  }

  /** Stop sending, wait for claims in flight (their outcomes are journaled), clear timers. */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.#wake?.();
    await this.#loop;
    await Promise.allSettled([...this.#inflight]);
    for (const st of this.#ids.values()) if (st.timer !== undefined) clearTimeout(st.timer);
    for (const timer of this.#paused.values()) clearTimeout(timer);
  }

  async #pump(): Promise<void> {
    const signal = this.#stop.signal;
    while (!signal.aborted) {
      const hold = this.#holdUntil - this.#options.now();
      if (this.#queue.size === 0 || this.#paused.size > 0 || hold > 0) {
        this.#idle = hold <= 0;
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          if (hold > 0) setTimeout(resolve, hold).unref();
        });
        this.#idle = false;
        this.#wake = undefined;
        continue;
      }
      try {
        await this.#options.acquire(signal);
      } catch {
        continue; // aborted or limiter stopped: the loop condition ends it
      }
      // A -1003 that came back while this permit was awaited starts a hold: sending on the permit
      // would put a claim inside the window the venue has just refused. The loop waits it out.
      if (this.#holdUntil > this.#options.now()) continue;
      this.#sendBest();
    }
  }

  /**
   * The claim path of `liquidation` up to the socket with every effect left out (claimRehearsal.ts):
   * decide, rank (in a queue of its own), build the body, the journal line and the signed request
   * text. Nothing is reserved, queued, journaled, counted or sent; the claimer's state is untouched.
   * Returns the bytes built (0 when the policy skips it).
   */
  rehearse(liquidation: Liquidation): number {
    const o = this.#options;
    const now = o.now();
    const d = o.decide(liquidation, now);
    if (d.action === "skip") return 0;
    this.#rehearsalQueue.push(d.liquidationId, d.expectedFee, liquidation.timestamp, d.liquidationId);
    this.#rehearsalQueue.pop();
    const body = claimRequestBody(d);
    const line = JSON.stringify(intentRecord(d, body, now, o.sender.dryRun, liquidation.positions));
    return line.length + o.sender.rehearse(body);
  }

  /**
   * The end of a frame's offers: when the pump was idle and a permit is free now, the best pending
   * claim leaves at once, inside the frame's handler, instead of a microtask later behind whatever
   * else the handler does. The pump, woken by the offers, finds the queue as this leaves it.
   */
  sendNow(): void {
    const o = this.#options;
    if (!this.#idle || this.#queue.size === 0 || this.#paused.size > 0 || this.#stop.signal.aborted) return;
    if (this.#holdUntil > o.now() || o.tryAcquire === undefined || !o.tryAcquire()) return;
    this.#sendBest();
  }

  /** Late binding: the best pending claim that still passes the policy now is sent on this permit. */
  #sendBest(): void {
    while (this.#queue.size > 0 && this.#paused.size === 0) {
      const top = this.#queue.pop();
      if (top === undefined) return;
      const id = top.liquidationId;
      const st = this.#ids.get(id);
      const liquidation = this.#options.book.get(id);
      // A state other than pending: finished meanwhile (e.g. a new leader adopted the journal).
      if (st === undefined || st.phase !== "pending") continue;
      if (liquidation === undefined) {
        this.#ids.delete(id);
        this.#skipped(id, "gone");
        continue;
      }
      // Decided again on the latest marks and exposure, unless offer() decided it in this same run.
      const fresh = this.#fresh?.liquidation === liquidation ? this.#fresh.d : undefined;
      const d = fresh ?? this.#options.decide(liquidation, this.#options.now());
      if (d.action === "skip") {
        this.#ids.delete(id);
        this.#skipped(id, d.reason);
        continue;
      }
      st.sentPositions = liquidation.positions;
      const p = this.#send(d, st).catch((err: unknown) => this.#outcomes.internalError(d.liquidationId, err));
      this.#inflight.add(p);
      void p.finally(() => this.#inflight.delete(p));
      return;
    }
  }

  async #send(d: ClaimDecision, st: IdState): Promise<void> {
    const id = d.liquidationId;
    const o = this.#options;
    st.phase = "inflight";
    o.exposure.reserve(id, d.perSymbolQty);
    const body = claimRequestBody(d);
    const dryRun = o.sender.dryRun;
    try {
      const written = o.store.intent(intentRecord(d, body, o.now(), dryRun, st.sentPositions));
      // The file store writes synchronously (one write(2) on the hot path); the database answers later.
      if (written !== undefined) await written;
    } catch (err) {
      o.exposure.release(id);
      if (err instanceof DuplicateClaimError) {
        // Another replica claimed it (its intent is in the shared journal): never claim it here.
        this.#outcomes.finish(id, st);
        return;
      }
      // No intent, no claim: back in the queue, and nothing leaves until the store works again
      // (or, fenced, until this replica leads again).
      this.#requeue(id, st, d.expectedFee);
      this.setPaused(err instanceof FencedError ? "standby" : "journal", true);
      return;
    }
    if (!o.store.mayLead()) {
      // Deposed between the intent and the send: a replica that may not lead sends nothing. The id
      // stays taken by this intent (the new leader replays it), so no one claims it twice.
      o.exposure.release(id);
      this.#outcomes.finish(id, st, { t: "outcome", id, at: o.now(), result: "not_accepted" });
      this.setPaused("standby", true);
      return;
    }
    // The request is written inside send() (synchronously, on a warm connection); the metrics follow.
    const sending = o.sender.send(body);
    o.observer.decisionLatency((o.monotonic() - st.receivedAt) / 1000);
    if (!dryRun) o.observer.submitted();
    let outcome: Awaited<ReturnType<ClaimSender["send"]>>;
    try {
      outcome = await sending;
    } catch (err) {
      this.#outcomes.failed(d, st, err);
      return;
    }
    if (outcome.sent) this.#outcomes.accepted(id, st, outcome.result);
    else this.#outcomes.dryRun(d, st);
  }

  /** Back to pending (a claim that did not leave): re-decided when its turn comes. */
  #requeue(id: number, st: IdState, expectedFee: number): void {
    const liquidation = this.#options.book.get(id);
    if (liquidation === undefined) return void this.#ids.delete(id);
    st.phase = "pending";
    this.#queue.push(id, expectedFee, liquidation.timestamp, id);
  }

  /** Re-decide the id from the open list after `ms` (a fresh decision, fresh marks). */
  #retryLater(id: number, st: IdState, ms: number): void {
    st.phase = "waiting";
    st.timer = setTimeout(() => {
      st.timer = undefined;
      const liquidation = this.#options.book.get(id);
      if (liquidation === undefined) return void this.#ids.delete(id);
      st.phase = "pending";
      const d = this.#options.decide(liquidation, this.#options.now());
      if (d.action === "skip") {
        this.#skipped(id, d.reason);
        return void this.#ids.delete(id);
      }
      this.#queue.push(id, d.expectedFee, liquidation.timestamp, id);
      this.#wake?.();
    }, ms);
    st.timer.unref();
  }

  #skipped(id: number, reason: string): void {
    if (!this.#skips.set(id, reason)) return;
    this.#options.observer.skipped(reason);
  }

  #journal(record: JournalRecord): void {
    try {
      this.#options.store.append(record);
    } catch {
      this.setPaused("journal", true);
    }
  }
}
