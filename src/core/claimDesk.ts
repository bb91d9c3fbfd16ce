/**
 * The claim desk: the queue side of the trading core. Offers are decided and ranked (claimQueue.ts);
 * a permit — the live claims limiter, or the lab's virtual spacing — takes the best pending claim,
 * decided again on the latest data, and hands it to the core; the core tells the desk what its
 * answer means for the queue (retry later, put back, pause, hold, gone, margin freed). Pauses and
 * timers run on the core's clock (the port's `schedule`), so the same desk runs live and in the lab.
 */
import type { PauseReason } from "../engine/pauseReasons.js";
import type { ClaimDecision, Decision } from "../engine/policy.js";
import type { Liquidation } from "../engine/types.js";
import { ClaimPauses } from "./claimPauses.js";
import { type ClaimGate, ClaimPipeline } from "./claimPipeline.js";
import { type ClaimLimiter, ClaimQueue } from "./claimQueue.js";
import type { Cancel, ClaimDriver } from "./corePort.js";
import type { TradingCore } from "./tradingCore.js";

/** Skips that more margin can undo: re-decided when margin frees up (a deposit, an account re-read). */
export const MARGIN_SKIPS: ReadonlySet<string> = new Set(["margin"]);

/** Skips that a claim released or a position that shrank can undo: margin and the exposure cap. */
const FREED_SKIPS: ReadonlySet<string> = new Set(["margin", "exposure_cap"]);

export interface ClaimDeskOptions {
  decide: (liquidation: Liquidation, now: number) => Decision;
  /** The protection gate, asked before deciding; none: always open. */
  gate?: ClaimGate;
  book: { get(id: number): Liquidation | undefined; remove(id: number): boolean };
  schedule(ms: number, f: () => void): Cancel;
  now(): number;
  monotonic(): number;
  /** Whether a claim taken now is a dry run (decided once per claim, with its intent). */
  dryRun(): boolean;
  /** A skip verdict new for its id; `id` also goes to the opportunity ledger. */
  skipped(reason: string, id: number): void;
  /** An open id left the open list (`pending`: it was waiting for a permit). */
  left?(id: number, pending: boolean): void;
  paused(reason: PauseReason, on: boolean): void;
  /** A claim was queued or re-ranked (`added`: new in the queue). */
  queued?(liquidation: Liquidation, d: ClaimDecision, added: boolean): void;
  /** There may be work for a permit now (a pause ended, a retry is pending again): the live pump wakes. */
  wake?(): void;
  /** The id is the core's and was offered or cancelled again (the lab's modelled rivals read it). */
  onBusy?(id: number): void;
  /** The core took a claim (the lab's modelled venue marks it in flight). */
  taken?(d: ClaimDecision, liquidation: Liquidation): void;
  /** The limiter a claim waits for (claimQueue.ts); none: every claim the `claims` limiter's. */
  limiter?(liquidation: Liquidation): ClaimLimiter;
}

export class ClaimDesk implements ClaimDriver {
  readonly pipeline: ClaimPipeline;
  readonly queue: ClaimQueue;
  readonly pauses: ClaimPauses;
  readonly #o: ClaimDeskOptions;
  #core: TradingCore | undefined;
  #holdUntil = 0;
  /** Decided in a dry run: nothing was sent, but the id is not decided again until dry run goes off. */
  readonly #dryRunDone = new Set<number>();
  /** A re-decision of freed skips is scheduled (one per turn, however many things freed room in it). */
  #freedPending = false;

  constructor(o: ClaimDeskOptions) {
    this.#o = o;
    this.pipeline = new ClaimPipeline(o.gate === undefined ? { decide: o.decide } : { decide: o.decide, gate: o.gate });
    this.pauses = new ClaimPauses(
      (reason, on) => o.paused(reason, on),
      () => o.wake?.(),
      o.schedule,
    );
    this.queue = new ClaimQueue({
      decide: this.pipeline.decide,
      now: o.now,
      book: o.book,
      busy: (id) => this.#dryRunDone.has(id) || this.core.busy(id),
      skipped: (reason, id) => o.skipped(reason, id),
      queued: (liquidation, d, added) => o.queued?.(liquidation, d, added),
      ...(o.onBusy !== undefined ? { onBusy: o.onBusy } : {}),
      ...(o.limiter !== undefined ? { limiter: o.limiter } : {}),
      dispatch: (d, st, liquidation) => {
        const dryRun = o.dryRun();
        if (dryRun) this.#dryRunDone.add(d.liquidationId);
        o.taken?.(d, liquidation);
        this.core.claim(d, liquidation, st.receivedAt, dryRun);
      },
    });
  }

  /** The core this desk feeds (bound once by the builder: they call each other). */
  bind(core: TradingCore): void {
    this.#core = core;
  }

  get core(): TradingCore {
    if (this.#core === undefined) throw new Error("the claim desk is not bound to a core");
    return this.#core;
  }

  /** Claims for `limiter` may leave now: no pause, no rate-limit hold, something pending for it. */
  ready(limiter: ClaimLimiter = "claims"): boolean {
    return this.queue.sizeOf(limiter) > 0 && this.pauses.size === 0 && this.#holdUntil <= this.#o.now();
  }

  /** Wall-clock ms until the rate-limit hold ends (≤ 0: none). */
  holdLeft(): number {
    return this.#holdUntil - this.#o.now();
  }

  /** A liquidation is new or changed (a push or a reconcile). */
  offer(liquidation: Liquidation, receivedAt = this.#o.monotonic()): void {
    this.queue.offer(liquidation, receivedAt);
  }

  /** The id left the open list: dropped unless the core holds it. */
  cancel(id: number): void {
    const phase = this.queue.states.get(id)?.phase;
    this.#o.left?.(id, phase === "pending" || phase === "waiting");
    this.#dryRunDone.delete(id);
    this.queue.cancel(id);
  }

  /** One permit of `limiter`: its best pending claim that still passes now goes to the core. False: none did. */
  take(fresh?: { liquidation: Liquidation; d: ClaimDecision }, limiter: ClaimLimiter = "claims"): boolean {
    return this.queue.take(fresh, limiter);
  }

  /** Re-decide the open ids last skipped for one of `reasons` (all skips when omitted). */
  retrySkipped(reasons?: ReadonlySet<string>): void {
    this.queue.retrySkipped(reasons, this.#o.monotonic);
  }

  /** Dry run was switched off: ids only decided in dry run may now be claimed for real. */
  forgetDryRun(): void {
    this.#dryRunDone.clear();
  }

  /** Forget what ids that left the open list leave behind (skip verdicts, failure budgets). */
  sweep(isOpen: (id: number) => boolean): void {
    this.queue.skips.retain(isOpen);
    for (const id of this.#dryRunDone) if (!isOpen(id)) this.#dryRunDone.delete(id);
    this.core.sweep(isOpen);
  }

  // ClaimDriver: what the core's answers mean for the queue.

  retryLater(id: number, ms: number): void {
    this.queue.wait(id, this.#o.monotonic(), (st) =>
      this.#o.schedule(ms, () => {
        if (this.queue.redecide(id, st)) this.#o.wake?.();
      }),
    );
  }

  requeue(id: number, expectedFee: number, marginNeed: number | undefined): void {
    this.queue.requeue(id, expectedFee, marginNeed, this.#o.monotonic());
    this.#o.wake?.();
  }

  pause(reason: PauseReason, on: boolean, forMs?: number): void {
    this.pauses.set(reason, on, forMs);
  }

  holdUntil(at: number): void {
    this.#holdUntil = at;
  }

  open(id: number): Liquidation | undefined {
    return this.#o.book.get(id);
  }

  freed(): void {
    // After the answer's (or the report's) turn: what margin or the exposure cap skipped may fit now.
    if (this.queue.skips.size === 0 || this.#freedPending) return;
    this.#freedPending = true;
    this.#o.schedule(0, () => {
      this.#freedPending = false;
      this.retrySkipped(FREED_SKIPS);
    });
  }

  gone(id: number): void {
    this.#o.book.remove(id);
  }
}
