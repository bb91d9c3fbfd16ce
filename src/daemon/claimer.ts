/**
 * The live claimer: the claim pipeline (claimPipeline.ts) with the live effects, its permits and its
 * pauses. Offers are decided and ranked in the claim queue (claimQueue.ts); each claims-limiter
 * permit takes the best pending claim *when it is granted*, decided again on the latest marks,
 * exposure and open list (late binding), and sends it (claimSend.ts); what happens after a claim
 * left is claimOutcomes.ts. A permit is only spent on a claim actually sent.
 *
 * Never twice: every id has one state (claimState.ts); once an id is in flight, accepted, unknown or
 * finished it is not claimed again, and the journal intent is written before the request leaves.
 */

import type { PauseReason } from "../engine/pauseReasons.js";
import type { ClaimDecision } from "../engine/policy.js";
import { RankingQueue } from "../engine/ranking.js";
import type { Liquidation, LiquidationPosition } from "../engine/types.js";
import type { JournalRecord } from "../store/journalRecords.js";
import type { LiquidatorLiquidation } from "../venue/wire.js";
import { type ClaimerOptions, DEFAULT_TIMINGS } from "./claimerOptions.js";
import { ClaimOutcomes } from "./claimOutcomes.js";
import { ClaimPauses } from "./claimPauses.js";
import { ClaimPipeline, type ClaimWire } from "./claimPipeline.js";
import { ClaimQueue } from "./claimQueue.js";
import { type LiveClaimEffects, sendClaim } from "./claimSend.js";
import { type IdState, newState, sweepStates, unknownState } from "./claimState.js";

export type { ClaimerLogger, ClaimerObserver, ClaimerOptions } from "./claimerOptions.js";

/** Skips that more margin can undo: re-decided when margin frees up (a re-read, a released claim). */
const MARGIN_SKIPS: ReadonlySet<string> = new Set(["margin"]);

/** The rehearsal's effects have no text without a wire. */
const NO_WIRE: ClaimWire = { claimText: () => 0 };

export class Claimer {
  readonly #options: ClaimerOptions & { now: () => number; monotonic: () => number };
  readonly #pipeline: ClaimPipeline;
  readonly #queue: ClaimQueue;
  readonly #outcomes: ClaimOutcomes;
  readonly #live: LiveClaimEffects;
  /** The rehearsal's own queue: it runs the ranking's code on data no claim is taken from. */
  readonly #rehearsalQueue = new RankingQueue<number>();
  readonly #ids: Map<number, IdState>;
  readonly #inflight = new Set<Promise<void>>();
  readonly #paused: ClaimPauses;
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
    this.#paused = new ClaimPauses(
      (reason, on) => o.observer.paused(reason, on),
      () => this.#wake?.(),
    );
    this.#pipeline = new ClaimPipeline(o.gate === undefined ? { decide: o.decide } : { decide: o.decide, gate: o.gate });
    this.#queue = new ClaimQueue({
      decide: this.#pipeline.decide,
      now: o.now,
      book: o.book,
      skipped: (reason, id) => {
        o.observer.skipped(reason);
        o.opportunities?.skipped(id, reason);
      },
      queued: (liquidation, d) => {
        // A promise reaction, not queueMicrotask: Node wraps each queueMicrotask callback in an
        // AsyncResource, ~12 µs of a frame's ~70 µs of offers in the bench's profile.
        if (this.#fresh === undefined) void Promise.resolve().then(this.#forgetFresh);
        this.#fresh = { liquidation, d };
        this.#wake?.();
      },
      dispatch: (d, st, liquidation) => {
        st.sentPositions = liquidation.positions;
        const p = sendClaim(this.#live, d, st).catch((err: unknown) => this.#outcomes.internalError(d.liquidationId, err));
        this.#inflight.add(p);
        void p.finally(() => this.#inflight.delete(p));
      },
    });
    this.#ids = this.#queue.states;
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
        requeue: (id, st, fee) => this.#queue.requeue(id, st, fee),
        marginRefused: (ms) => {
          this.setPaused("margin", true, ms);
          o.rereadAccount?.();
        },
        freed: () => this.#marginFreed(),
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
    this.#live = {
      pipeline: this.#pipeline,
      hold: o.exposure,
      store: o.store,
      sender: o.sender,
      observer: o.observer,
      outcomes: this.#outcomes,
      now: o.now,
      monotonic: o.monotonic,
      requeue: (id, st, fee) => this.#queue.requeue(id, st, fee),
      pause: (reason) => this.setPaused(reason, true),
    };
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
    return this.#paused.reasons();
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
    this.#queue.offer(liquidation, receivedAt);
  }

  /** The id left the open list: drop it unless it is already on its way. */
  cancel(id: number): void {
    const phase = this.#ids.get(id)?.phase;
    this.#options.opportunities?.left(id, phase === "pending" || phase === "waiting");
    this.#queue.cancel(id);
  }

  /** Stop (or resume) all claiming for a reason; `forMs` resumes by itself. */
  setPaused(reason: PauseReason, on: boolean, forMs?: number): void {
    this.#paused.set(reason, on, forMs);
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
    this.#queue.retrySkipped(reasons, this.#options.monotonic);
  }

  /**
   * The account was read (a positions snapshot applied): a hold for a -1101 ends, since the model
   * now carries what the venue counts, and what margin skipped is decided again on it.
   */
  accountRead(): void {
    if (this.#paused.reasons().includes("margin")) this.setPaused("margin", false);
    this.retrySkipped(MARGIN_SKIPS);
  }

  /** An open-list snapshot requested at `requestedAt` may settle unknown outcomes (claimOutcomes.ts). */
  settleFromOpenList(requestedAt: number): void {
    this.#outcomes.settleFromOpenList(requestedAt);
  }

  /** Forget finished ids that left the open list long ago (bounded memory over a week of running). */
  sweep(olderThanMs = this.#options.sweepAfterMs ?? 600_000): void {
    const book = this.#options.book;
    sweepStates(this.#ids, this.#queue.skips, this.#options.now() - olderThanMs, (id) => book.has(id));
  }

  /** Stop sending, wait for claims in flight (their outcomes are journaled), clear timers. */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.#wake?.();
    await this.#loop;
    await Promise.allSettled([...this.#inflight]);
    for (const st of this.#ids.values()) if (st.timer !== undefined) clearTimeout(st.timer);
    this.#paused.clearTimers();
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
      if (this.#paused.size === 0) this.#queue.take(this.#fresh);
    }
  }

  /**
   * The claim path of `liquidation` up to the socket with the rehearsal's effects (claimPipeline.ts,
   * claimRehearsal.ts): nothing is reserved, queued, journaled, counted or sent; the claimer's state
   * is untouched. Returns the bytes built (0 when the policy skips it).
   */
  rehearse(liquidation: Liquidation): number {
    const o = this.#options;
    return this.#pipeline.rehearse(liquidation, o.now(), this.#rehearsalQueue, o.sender.dryRun, o.wire ?? NO_WIRE);
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
    this.#queue.take(this.#fresh);
  }

  /** A claim's reservation was dropped unapplied: what margin skipped may fit now (after this outcome's turn). */
  #marginFreed(): void {
    if (this.#queue.skips.size === 0) return;
    void Promise.resolve().then(() => this.retrySkipped(MARGIN_SKIPS));
  }

  /** Re-decide the id from the open list after `ms` (a fresh decision, fresh marks). */
  #retryLater(id: number, st: IdState, ms: number): void {
    st.phase = "waiting";
    st.timer = setTimeout(() => {
      st.timer = undefined;
      if (this.#queue.redecide(id, st)) this.#wake?.();
    }, ms);
    st.timer.unref();
  }

  #journal(record: JournalRecord): void {
    try {
      this.#options.store.append(record);
    } catch {
      this.setPaused("journal", true);
    }
  }
}
