/**
 * The rank step of the claim pipeline (claimPipeline.ts), shared by the live claimer (claimer.ts) and
 * the lab's virtual claimer (lab/virtualClaimer.ts): every offered liquidation is decided; a claim
 * waits in a max-heap by expected fee with one state per id (claimState.ts); each permit takes the
 * best pending claim *when it is granted* and decides it again (late binding), so nothing leaves on
 * stale data and the most valuable claims leave first. What a taken claim does is the `dispatch`
 * effect; what a busy id (already on its way) does with news is `onBusy`.
 */
import type { ClaimDecision, Decision } from "../engine/policy.js";
import { RankingQueue } from "../engine/ranking.js";
import type { Liquidation } from "../engine/types.js";
import { type IdState, newState } from "./claimState.js";
import { SkipVerdicts } from "./skipVerdicts.js";

export interface ClaimQueueOptions {
  /** The decide step (ClaimPipeline.decide): gate, policy, and what comes after it. */
  decide: (liquidation: Liquidation, now: number) => Decision;
  /** Wall clock (the live claimer) or virtual time (the lab), ms. */
  now: () => number;
  book: { get(id: number): Liquidation | undefined };
  /** A skip verdict new for its id (the skip metric counts a liquidation once per reason). */
  skipped: (reason: string, id: number) => void;
  /** A claim was queued or its rank updated; `added`: it was not queued before. */
  queued: (liquidation: Liquidation, d: ClaimDecision, added: boolean) => void;
  /** The id is taken (in flight or finished) and the liquidation was offered or cancelled again. */
  onBusy?: (id: number, st: IdState) => void;
  /** The claim a permit took, decided on this instant's data: its effects start here. */
  dispatch: (d: ClaimDecision, st: IdState, liquidation: Liquidation) => void;
}

export class ClaimQueue {
  readonly #o: ClaimQueueOptions;
  readonly #queue = new RankingQueue<number>();
  readonly states = new Map<number, IdState>();
  /** Last skip reason per open id. */
  readonly skips = new SkipVerdicts();

  constructor(options: ClaimQueueOptions) {
    this.#o = options;
  }

  get size(): number {
    return this.#queue.size;
  }

  /** A liquidation is new or changed: decided, then queued, re-ranked, or dropped. */
  offer(liquidation: Liquidation, receivedAt: number): void {
    const o = this.#o;
    const id = liquidation.liquidationId;
    const st = this.states.get(id);
    if (st !== undefined && st.phase !== "pending") return o.onBusy?.(id, st);
    const d = o.decide(liquidation, o.now());
    if (d.action === "skip") {
      this.skipped(id, d.reason);
      if (st !== undefined) {
        this.#queue.remove(id);
        this.states.delete(id);
      }
      return;
    }
    this.skips.delete(id);
    if (st === undefined) {
      this.states.set(id, newState("pending", receivedAt));
      this.#queue.push(id, d.expectedFee, liquidation.timestamp, id);
    } else {
      this.#queue.update(id, d.expectedFee);
    }
    o.queued(liquidation, d, st === undefined);
  }

  /** The id left the open list: dropped unless it is already on its way. */
  cancel(id: number): void {
    this.skips.delete(id);
    const st = this.states.get(id);
    if (st === undefined) return;
    if (st.phase !== "pending" && st.phase !== "waiting") return this.#o.onBusy?.(id, st);
    this.#queue.remove(id);
    if (st.timer !== undefined) clearTimeout(st.timer);
    this.states.delete(id);
  }

  /** Offers again the open ids last skipped for one of `reasons` (all skips when omitted), received `at()`. */
  retrySkipped(reasons: ReadonlySet<string> | undefined, at: () => number): void {
    const ids = this.skips.ids(reasons);
    if (ids.length === 0) return;
    const receivedAt = at();
    for (const id of ids) {
      const liquidation = this.#o.book.get(id);
      if (liquidation !== undefined) this.offer(liquidation, receivedAt);
    }
  }

  /**
   * One permit: the best pending claim that still passes now is dispatched (`fresh`: the decision
   * offer() made for this very liquidation in the same synchronous run, reused). False: none did.
   */
  take(fresh: { liquidation: Liquidation; d: ClaimDecision } | undefined): boolean {
    const o = this.#o;
    while (this.#queue.size > 0) {
      const top = this.#queue.pop();
      if (top === undefined) return false;
      const id = top.liquidationId;
      const st = this.states.get(id);
      // A state other than pending: finished meanwhile (e.g. a new leader adopted the journal).
      if (st === undefined || st.phase !== "pending") continue;
      const liquidation = o.book.get(id);
      if (liquidation === undefined) {
        this.states.delete(id);
        this.skipped(id, "gone");
        continue;
      }
      const d = (fresh?.liquidation === liquidation ? fresh.d : undefined) ?? o.decide(liquidation, o.now());
      if (d.action === "skip") {
        this.states.delete(id);
        this.skipped(id, d.reason);
        continue;
      }
      o.dispatch(d, st, liquidation);
      return true;
    }
    return false;
  }

  /** Back to pending (a claim that did not leave): decided again when its turn comes. */
  requeue(id: number, st: IdState, expectedFee: number): void {
    const liquidation = this.#o.book.get(id);
    if (liquidation === undefined) return void this.states.delete(id);
    st.phase = "pending";
    this.#queue.push(id, expectedFee, liquidation.timestamp, id);
  }

  /** A waiting id's time has come: decided afresh and queued, or dropped. True: it is queued. */
  redecide(id: number, st: IdState): boolean {
    const o = this.#o;
    const liquidation = o.book.get(id);
    if (liquidation === undefined) {
      this.states.delete(id);
      return false;
    }
    st.phase = "pending";
    const d = o.decide(liquidation, o.now());
    if (d.action === "skip") {
      this.skipped(id, d.reason);
      this.states.delete(id);
      return false;
    }
    this.#queue.push(id, d.expectedFee, liquidation.timestamp, id);
    return true;
  }

  /** A skip verdict for an open id, counted once per reason. */
  skipped(id: number, reason: string): void {
    if (this.skips.set(id, reason)) this.#o.skipped(reason, id);
  }
}
