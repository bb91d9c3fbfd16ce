/**
 * The rank step of the claim pipeline (claimPipeline.ts), shared by the live claimer and the lab
 * through the claim desk (claimDesk.ts): every offered liquidation is decided; a claim waits in a
 * max-heap by expected fee with one state per id (claimState.ts); each permit takes the best pending
 * claim *when it is granted* and decides it again (late binding), so nothing leaves on stale data and
 * the most valuable claims leave first. What a taken claim does is the `dispatch` effect (the trading
 * core owns it from then on); an id the core holds (`busy`) is not queued, and news of it goes to
 * `onBusy`.
 *
 * Claims wait in one heap per limiter they leave under (`claims` for `POST /v1/liquidation`;
 * `fund_claims` for the insurance fund's endpoint, 5/s apart, docs/protocol.md §10), and each permit
 * takes the best claim of its own limiter, so one supply never spends the other's permits.
 *
 * When margin binds — the claims waiting need more initial margin than the account has room for
 * after what is held and in flight — the queue ranks by fee per unit of margin instead (what a
 * cascade with limited capital should maximise: the greedy fill of a knapsack, the last claim cut to
 * fit by the decision). The whole queue is re-keyed when it switches, never mixed.
 */
import { feePerMargin } from "../engine/claimMargin.js";
import type { ClaimDecision, Decision } from "../engine/policy.js";
import { RankingQueue } from "../engine/ranking.js";
import type { Liquidation } from "../engine/types.js";
import { type IdState, newState } from "./claimState.js";
import { SkipVerdicts } from "./skipVerdicts.js";

/** The venue limiter a claim leaves under (venue/limiters.ts): the liquidation endpoint's, or the insurance fund's. */
export type ClaimLimiter = "claims" | "fund_claims";

export interface ClaimQueueOptions {
  /** The decide step (ClaimPipeline.decide): gate, policy, and what comes after it. */
  decide: (liquidation: Liquidation, now: number) => Decision;
  /** Wall clock (the live claimer) or virtual time (the lab), ms. */
  now: () => number;
  book: { get(id: number): Liquidation | undefined };
  /** The id is the core's (in flight, unknown, settled, never again): not queued. */
  busy: (id: number) => boolean;
  /** A skip verdict new for its id (the skip metric counts a liquidation once per reason). */
  skipped: (reason: string, id: number) => void;
  /** A claim was queued or its rank updated; `added`: it was not queued before. */
  queued: (liquidation: Liquidation, d: ClaimDecision, added: boolean) => void;
  /** The id is the core's and the liquidation was offered or cancelled again. */
  onBusy?: (id: number) => void;
  /** The claim a permit took, decided on this instant's data: the core takes it from here. */
  dispatch: (d: ClaimDecision, st: IdState, liquidation: Liquidation) => void;
  /** The limiter a liquidation's claim leaves under; none: every claim is the `claims` limiter's. */
  limiter?: (liquidation: Liquidation) => ClaimLimiter;
}

/** What a queued claim is ranked by. */
interface Rank {
  fee: number;
  /** Initial margin the claim adds (quote; 0 when margin is not checked). */
  need: number;
}

export class ClaimQueue {
  readonly #o: ClaimQueueOptions;
  readonly #queues: Record<ClaimLimiter, RankingQueue<Rank>> = { claims: new RankingQueue<Rank>(), fund_claims: new RankingQueue<Rank>() };
  /** Σ need of the queued claims. */
  #pendingNeed = 0;
  /** The margin room the latest decision saw (+Infinity: margin not checked). */
  #room = Number.POSITIVE_INFINITY;
  /** Ranked by fee per unit of margin (true) or by fee. */
  #byMargin = false;
  readonly #rankKey = (r: Rank): number => (this.#byMargin ? feePerMargin(r.fee, r.need) : r.fee);
  readonly states = new Map<number, IdState>();
  /** Last skip reason per open id. */
  readonly skips = new SkipVerdicts();

  constructor(options: ClaimQueueOptions) {
    this.#o = options;
  }

  /** Claims waiting, for every limiter. */
  get size(): number {
    return this.#queues.claims.size + this.#queues.fund_claims.size;
  }

  /** Claims waiting for a permit of `limiter`. */
  sizeOf(limiter: ClaimLimiter): number {
    return this.#queues[limiter].size;
  }

  #queueOf(liquidation: Liquidation): RankingQueue<Rank> {
    return this.#queues[this.#o.limiter?.(liquidation) ?? "claims"];
  }

  /** The heap that holds `id`, if any. */
  #holding(id: number): RankingQueue<Rank> | undefined {
    if (this.#queues.claims.get(id) !== undefined) return this.#queues.claims;
    return this.#queues.fund_claims.get(id) !== undefined ? this.#queues.fund_claims : undefined;
  }

  #remove(id: number): void {
    this.#dequeued(this.#holding(id)?.remove(id)?.value);
  }

  /** Whether the queue ranks by fee per unit of margin now (margin binds). */
  get rankedByMargin(): boolean {
    return this.#byMargin;
  }

  #enqueue(liquidation: Liquidation, d: ClaimDecision): void {
    const id = liquidation.liquidationId;
    const need = d.marginNeed ?? 0;
    const heap = this.#queueOf(liquidation);
    const r = heap.get(id)?.value;
    if (r !== undefined) {
      this.#pendingNeed += need - r.need;
      r.fee = d.expectedFee;
      r.need = need;
      heap.update(id, this.#rankKey(r));
    } else {
      this.#remove(id); // its row changed limiter (not seen on the venue; kept whole if it were)
      const rank: Rank = { fee: d.expectedFee, need };
      this.#pendingNeed += need;
      heap.push(id, this.#rankKey(rank), liquidation.timestamp, rank);
    }
    this.#saw(d);
  }

  #dequeued(r: Rank | undefined): void {
    if (r === undefined) return;
    this.#pendingNeed -= r.need;
    if (this.size === 0) this.#pendingNeed = 0; // no float dust left behind
  }

  /** A decision's margin room: the ranking follows whether margin binds. */
  #saw(d: ClaimDecision): void {
    this.#room = d.marginRoom ?? Number.POSITIVE_INFINITY;
    const binds = this.#pendingNeed > this.#room;
    if (binds === this.#byMargin) return;
    this.#byMargin = binds;
    // Margin is the account's, shared by both limiters' claims: both rank the same way.
    this.#queues.claims.rekeyAll(this.#rankKey);
    this.#queues.fund_claims.rekeyAll(this.#rankKey);
  }

  /** A liquidation is new or changed: decided, then queued, re-ranked, or dropped. */
  offer(liquidation: Liquidation, receivedAt: number): void {
    const o = this.#o;
    const id = liquidation.liquidationId;
    const st = this.states.get(id);
    if (st?.phase === "waiting") return;
    if (st === undefined && o.busy(id)) return o.onBusy?.(id);
    const d = o.decide(liquidation, o.now());
    if (d.action === "skip") {
      this.skipped(id, d.reason);
      if (st !== undefined) {
        this.#remove(id);
        this.states.delete(id);
      }
      return;
    }
    this.skips.delete(id);
    if (st === undefined) this.states.set(id, newState("pending", receivedAt));
    this.#enqueue(liquidation, d);
    o.queued(liquidation, d, st === undefined);
  }

  /** The id left the open list: dropped unless it is already on its way. */
  cancel(id: number): void {
    this.skips.delete(id);
    const st = this.states.get(id);
    if (st === undefined) return void (this.#o.busy(id) ? this.#o.onBusy?.(id) : undefined);
    this.#remove(id);
    st.timer?.();
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
   * One permit of `limiter`: the best pending claim it holds that still passes now is dispatched
   * (`fresh`: the decision offer() made for this very liquidation in the same synchronous run,
   * reused). False: none did.
   */
  take(fresh: { liquidation: Liquidation; d: ClaimDecision } | undefined, limiter: ClaimLimiter = "claims"): boolean {
    const o = this.#o;
    const heap = this.#queues[limiter];
    while (heap.size > 0) {
      const top = heap.pop();
      if (top === undefined) return false;
      this.#dequeued(top.value);
      const id = top.liquidationId;
      const st = this.states.get(id);
      // Not pending any more, or the core's meanwhile (a new leader adopted the journal).
      if (st === undefined || st.phase !== "pending") continue;
      if (o.busy(id)) {
        this.states.delete(id);
        continue;
      }
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
      st.marginNeed = d.marginNeed;
      this.states.delete(id);
      o.dispatch(d, st, liquidation);
      return true;
    }
    return false;
  }

  /** Back to pending (a claim that did not leave): decided again when its turn comes. */
  requeue(id: number, expectedFee: number, marginNeed: number | undefined, receivedAt: number): void {
    const liquidation = this.#o.book.get(id);
    if (liquidation === undefined || this.states.has(id)) return;
    const st = newState("pending", receivedAt);
    st.marginNeed = marginNeed;
    this.states.set(id, st);
    const rank: Rank = { fee: expectedFee, need: marginNeed ?? 0 };
    this.#pendingNeed += rank.need;
    this.#queueOf(liquidation).push(id, this.#rankKey(rank), liquidation.timestamp, rank);
  }

  /** The core gave the id back to wait `ms`, then be decided afresh (a retry after a refusal). */
  wait(id: number, receivedAt: number, after: (st: IdState) => IdState["timer"]): void {
    if (this.states.has(id)) return;
    const st = newState("waiting", receivedAt);
    this.states.set(id, st);
    st.timer = after(st);
  }

  /** A waiting id's time has come: decided afresh and queued, or dropped. True: it is queued. */
  redecide(id: number, st: IdState): boolean {
    const o = this.#o;
    st.timer = undefined;
    if (this.states.get(id) !== st) return false;
    const liquidation = o.book.get(id);
    if (liquidation === undefined || o.busy(id)) {
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
    this.#enqueue(liquidation, d);
    return true;
  }

  /** A skip verdict for an open id, counted once per reason. */
  skipped(id: number, reason: string): void {
    if (this.skips.set(id, reason)) this.#o.skipped(reason, id);
  }
}
