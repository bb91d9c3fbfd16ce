/**
 * Claim queue → limiter → single send point, with outcomes handled by venue code.
 *
 * Late binding: pending claims wait in a max-heap by expected fee; each claims-limiter permit picks
 * the best pending claim *when it is granted* and re-decides it on the latest marks, exposure and
 * open list, so nothing is sent on stale data and, when the 5/s claim limit binds (PROTOCOL.md §4),
 * the most valuable claims leave first. A permit is only spent on a claim that is actually sent.
 *
 * Never twice: every id has one state; once an id is in flight, accepted, unknown or finished it
 * is not claimed again, and the journal intent is written before the request leaves.
 */
import type { Exposure, HeldPositionInput } from "../engine/exposure.js";
import type { ClaimDecision, Decision } from "../engine/policy.js";
import type { PositionBook } from "../engine/positionBook.js";
import { RankingQueue } from "../engine/ranking.js";
import type { Fill, Liquidation, LiquidationPosition } from "../engine/types.js";
import { VenueError } from "../venue/errors.js";
import { assignmentFills, claimFills, claimRequestBody } from "../venue/mapping.js";
import type { LiquidatorLiquidation } from "../venue/wire.js";
import { classifyClaimFailure } from "./claimOutcome.js";
import type { ClaimSender } from "./claimSender.js";
import type { Journal, JournalRecord, OutcomeRecord } from "./journal.js";
import { type OpenBook, samePositions } from "./openBook.js";

export type PauseReason = "margin" | "journal" | "clock" | "positions";

/** Metrics and logs hang off this; the claimer does not know prom-client. */
export interface ClaimerObserver {
  skipped(reason: string): void;
  submitted(): void;
  result(result: string, code: string, claimLatencySeconds: number | undefined): void;
  decisionLatency(seconds: number): void;
  feeEarned(symbol: string, amount: number): void;
  paused(reason: PauseReason, on: boolean): void;
}

export interface ClaimerLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ClaimerOptions {
  decide: (liquidation: Liquidation, now: number) => Decision;
  book: OpenBook;
  exposure: Exposure;
  /** The venue's held positions (what a settled claim adds to, and what the venue's reports replace). */
  positions: PositionBook;
  /** The claims limiter's permit (limiters.acquire("claims", signal)). */
  acquire: (signal: AbortSignal) => Promise<void>;
  sender: ClaimSender;
  journal: Journal;
  observer: ClaimerObserver;
  logger: ClaimerLogger;
  /** Wall clock, ms (decisions, journal). */
  now?: () => number;
  /** Monotonic clock, ms (latencies). */
  monotonic?: () => number;
  /** How long -1101 (insufficient margin) stops claiming. */
  marginPauseMs?: number;
  /** Delay before the one retry after -1012 / -1011 / a request that never left. */
  retryDelayMs?: number;
  /** -1003: hold every claim this long (one venue window). */
  rateLimitHoldMs?: number;
  /** An unknown outcome not confirmed by the private push within this time is closed as not accepted. */
  unknownTimeoutMs?: number;
  /**
   * An unknown outcome may be settled by the open list (id still open, quantities untouched) only
   * once this long has passed since the failure: a venue still working on a timed-out request must
   * have finished with it, or the re-claim would be a second claim on the same id.
   */
  openListSettleMs?: number;
}

type Phase = "pending" | "waiting" | "inflight" | "unknown" | "done";

interface IdState {
  phase: Phase;
  /** Monotonic ms at which the frame that made us want this id arrived. */
  receivedAt: number;
  retries: number;
  repriced: number;
  doneAt: number;
  timer: NodeJS.Timeout | undefined;
  /**
   * A `liquidatorliquidations` push for this id that arrived while the request was still in flight.
   * The venue pushes as it applies the claim, so the push can beat the HTTP answer; if that answer
   * then never comes (connection dropped after processing), the push is what settles the claim.
   */
  assignment?: LiquidatorLiquidation | undefined;
  /** Finished by a dry run: nothing was sent, so turning dry run off makes the id claimable. */
  dryRun?: boolean;
  /** The liquidation's positions when the claim was sent, and when its outcome became unknown. */
  sentPositions?: readonly LiquidationPosition[];
  failedAt?: number;
}

export class Claimer {
  readonly #o: Required<Omit<ClaimerOptions, "now" | "monotonic">> & { now: () => number; monotonic: () => number };
  readonly #queue = new RankingQueue<number>();
  readonly #ids = new Map<number, IdState>();
  /** Last skip reason per open id: the skip metric counts a liquidation once per reason, not per re-check. */
  readonly #skips = new Map<number, string>();
  readonly #inflight = new Set<Promise<void>>();
  readonly #paused = new Map<PauseReason, NodeJS.Timeout | undefined>();
  #holdUntil = 0;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  readonly #stop = new AbortController();

  constructor(options: ClaimerOptions) {
    this.#o = {
      marginPauseMs: 60_000,
      retryDelayMs: 500,
      rateLimitHoldMs: 1_000,
      unknownTimeoutMs: 120_000,
      openListSettleMs: 30_000,
      now: Date.now,
      monotonic: () => performance.now(),
      ...options,
    };
  }

  get pendingCount(): number {
    return this.#queue.size;
  }

  get inflightCount(): number {
    return this.#inflight.size;
  }

  pausedReasons(): PauseReason[] {
    return [...this.#paused.keys()];
  }

  /** Ids the journal says were claimed before a restart: never again (see journal replay). */
  markDone(id: number): void {
    this.#ids.set(id, { phase: "done", receivedAt: 0, retries: 0, repriced: 0, doneAt: this.#o.now(), timer: undefined });
  }

  start(): void {
    this.#loop ??= this.#pump();
  }

  /** Dry run was switched off: ids that were only decided in dry run may now be claimed for real. */
  forgetDryRun(): void {
    for (const [id, st] of this.#ids) if (st.phase === "done" && st.dryRun === true) this.#ids.delete(id);
  }

  /** A liquidation is new or changed (stream delta or REST reconcile). */
  offer(liquidation: Liquidation, receivedAt = this.#o.monotonic()): void {
    const id = liquidation.liquidationId;
    const st = this.#ids.get(id);
    if (st !== undefined && st.phase !== "pending") return;
    const d = this.#o.decide(liquidation, this.#o.now());
    if (d.action === "skip") {
      this.#skipped(id, d.reason);
      if (st !== undefined) {
        this.#queue.remove(id);
        this.#ids.delete(id);
      }
      return;
    }
    this.#skips.delete(id);
    if (st === undefined) {
      this.#ids.set(id, { phase: "pending", receivedAt, retries: 0, repriced: 0, doneAt: 0, timer: undefined });
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
      if (!had) this.#o.observer.paused(reason, true);
    } else if (had) {
      this.#paused.delete(reason);
      this.#o.observer.paused(reason, false);
      this.#wake?.();
    }
  }

  /** Private `liquidatorliquidations` push: confirms an unknown outcome. */
  onAssignment(push: LiquidatorLiquidation): void {
    const st = this.#ids.get(push.liquidationId);
    if (st === undefined) return;
    // Fix: a push that beats the HTTP answer used to be dropped here, so a claim applied by the
    // venue whose answer was then lost stayed "unknown" and was closed as not_accepted (a journal
    // that lies). Keep it; #onFailure settles with it if the answer never comes.
    if (st.phase === "inflight") {
      st.assignment = push;
      return;
    }
    if (st.phase !== "unknown") return;
    this.#confirm(push.liquidationId, st, push);
  }

  #confirm(id: number, st: IdState, push: LiquidatorLiquidation): void {
    if (st.timer !== undefined) clearTimeout(st.timer);
    st.timer = undefined;
    st.assignment = undefined;
    this.#settle(id, st, assignmentFills(push), "confirmed", push.timestamp);
    this.#o.observer.result("confirmed", "none", undefined);
  }

  /** Private `position` push: a delta per symbol (PROTOCOL.md §5), as of the frame's venue time. */
  onPositions(positions: readonly HeldPositionInput[], venueTs: number | undefined): void {
    this.#o.positions.applyPush(positions, venueTs !== undefined && Number.isFinite(venueTs) ? venueTs : undefined);
  }

  /**
   * `GET /v1/positions`: the whole account as of venue time `venueTs`. The first one ends the start-up
   * wait: until the venue has said what the account holds, exposure is unknown and nothing is claimed.
   */
  onPositionsSnapshot(positions: readonly HeldPositionInput[], venueTs: number | undefined): void {
    this.#o.positions.applySnapshot(positions, venueTs);
    if (this.#paused.has("positions")) {
      this.#o.logger.info(
        { held: positions.filter((p) => p.positionQty !== 0).length },
        "positions read from the venue; claiming may start",
      );
      this.setPaused("positions", false);
    }
  }

  /**
   * Re-decide the open ids last skipped for one of `reasons` (all skips when omitted): what made them
   * fail (a stale mark, the exposure cap, a mark moving the fee) may have changed.
   */
  retrySkipped(reasons?: ReadonlySet<string>): void {
    if (this.#skips.size === 0) return;
    const receivedAt = this.#o.monotonic();
    for (const [id, reason] of [...this.#skips]) {
      if (reasons !== undefined && !reasons.has(reason)) continue;
      const liquidation = this.#o.book.get(id);
      if (liquidation !== undefined) this.offer(liquidation, receivedAt);
    }
  }

  /**
   * After an open-list snapshot requested at `requestedAt`: an unknown outcome whose id is still
   * open with exactly the quantities it had when the claim was sent was not applied (applying it
   * changes or removes them). It is closed as not_accepted and may be claimed again — confirmed by
   * the open list, not resent blindly. Only once `openListSettleMs` has passed since the failure.
   */
  settleFromOpenList(requestedAt: number): void {
    for (const [id, st] of this.#ids) {
      if (st.phase !== "unknown" || st.failedAt === undefined || st.sentPositions === undefined) continue;
      if (requestedAt - st.failedAt < this.#o.openListSettleMs) continue;
      const open = this.#o.book.get(id);
      if (open === undefined || !samePositions(open.positions, st.sentPositions)) continue;
      if (st.timer !== undefined) clearTimeout(st.timer);
      this.#o.exposure.release(id);
      this.#journal({ t: "outcome", id, at: this.#o.now(), result: "not_accepted" });
      this.#ids.delete(id);
      this.#o.logger.info({ id }, "unknown claim outcome settled by the open list: not applied, the id may be claimed again");
      this.offer(open);
    }
  }

  /** Forget finished ids that left the open list long ago (bounded memory over a week of running). */
  sweep(olderThanMs = 600_000): void {
    const cutoff = this.#o.now() - olderThanMs;
    for (const [id, st] of this.#ids) {
      if (st.phase === "done" && st.doneAt < cutoff && !this.#o.book.has(id)) this.#ids.delete(id);
    }
    for (const id of this.#skips.keys()) if (!this.#o.book.has(id)) this.#skips.delete(id);
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
      const hold = this.#holdUntil - this.#o.now();
      if (this.#queue.size === 0 || this.#paused.size > 0 || hold > 0) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
          if (hold > 0) setTimeout(resolve, hold).unref();
        });
        this.#wake = undefined;
        continue;
      }
      try {
        await this.#o.acquire(signal);
      } catch {
        continue; // aborted or limiter stopped: the loop condition ends it
      }
      // Fix: a -1003 that came back while this permit was awaited starts a hold; sending on the
      // permit anyway put a claim inside the window the venue had just refused (and burned one of
      // the refused claim's retries). The permit is let go; the loop waits out the hold.
      if (this.#holdUntil > this.#o.now()) continue;
      this.#sendBest();
    }
  }

  /** Late binding: the best pending claim that still passes the policy now is sent on this permit. */
  #sendBest(): void {
    while (this.#queue.size > 0 && this.#paused.size === 0) {
      const top = this.#queue.pop();
      if (top === undefined) return;
      const id = top.liquidationId;
      const st = this.#ids.get(id);
      const liquidation = this.#o.book.get(id);
      if (st === undefined) continue;
      if (liquidation === undefined) {
        this.#ids.delete(id);
        this.#skipped(id, "gone");
        continue;
      }
      const d = this.#o.decide(liquidation, this.#o.now());
      if (d.action === "skip") {
        this.#ids.delete(id);
        this.#skipped(id, d.reason);
        continue;
      }
      st.sentPositions = liquidation.positions;
      const p = this.#send(d, st).catch((err: unknown) => this.#internalError(d.liquidationId, err));
      this.#inflight.add(p);
      void p.finally(() => this.#inflight.delete(p));
      return;
    }
  }

  async #send(d: ClaimDecision, st: IdState): Promise<void> {
    const id = d.liquidationId;
    const o = this.#o;
    st.phase = "inflight";
    o.exposure.reserve(id, d.perSymbolQty);
    const body = claimRequestBody(d);
    const dryRun = o.sender.dryRun;
    try {
      o.journal.append({
        t: "intent",
        id,
        at: o.now(),
        ratio: d.ratio,
        ...(body.symbols ? { symbols: body.symbols } : {}),
        limitPrice: { ...d.limitPrice },
        expectedFee: d.expectedFee,
        perSymbolQty: { ...d.perSymbolQty },
        ...(dryRun ? { dryRun } : {}),
      });
    } catch {
      // No intent, no claim: back in the queue, and nothing leaves until the journal works again.
      o.exposure.release(id);
      this.#requeue(id, st, d.expectedFee);
      this.setPaused("journal", true);
      return;
    }
    o.observer.decisionLatency((o.monotonic() - st.receivedAt) / 1000);
    if (!dryRun) o.observer.submitted();
    let outcome: Awaited<ReturnType<ClaimSender["send"]>>;
    try {
      outcome = await o.sender.send(body);
    } catch (err) {
      this.#onFailure(d, st, err);
      return;
    }
    if (!outcome.sent) {
      o.exposure.release(id);
      st.dryRun = true;
      this.#finish(id, st, { t: "outcome", id, at: o.now(), result: "dry_run" });
      o.observer.result("dry_run", "none", undefined);
      o.logger.info(
        { id, ratio: d.ratio, expectedFee: round(d.expectedFee), limitPrice: d.limitPrice },
        "dry run: claim decided, not sent",
      );
      return;
    }
    o.observer.result("success", "none", (o.monotonic() - st.receivedAt) / 1000);
    st.assignment = undefined; // the answer's fills are the venue's word; an early push adds nothing
    this.#settle(id, st, claimFills(outcome.result), "accepted", outcome.result.timestamp);
  }

  /** `venueTs`: venue time the claim was applied (the answer's or the push's `timestamp`). */
  #settle(id: number, st: IdState, fills: Fill[], result: "accepted" | "confirmed", venueTs: number): void {
    const actual: Record<string, number> = {};
    let fee = 0;
    for (const f of fills) {
      actual[f.symbol] = (actual[f.symbol] ?? 0) + f.qty;
      fee += f.fee;
      this.#o.observer.feeEarned(f.symbol, f.fee);
    }
    // The venue pushes `position` as it applies a claim, often before the HTTP answer: the position
    // book adds only what no venue report includes yet.
    this.#o.positions.settleClaim(id, actual, venueTs);
    this.#finish(id, st, { t: "outcome", id, at: this.#o.now(), result, fills, venueTs });
    this.#o.logger.info({ id, fee: round(fee), fills }, result === "accepted" ? "claim accepted" : "claim confirmed by the private stream");
  }

  #onFailure(d: ClaimDecision, st: IdState, err: unknown): void {
    const o = this.#o;
    const id = d.liquidationId;
    const f = classifyClaimFailure(err);
    const latency = (o.monotonic() - st.receivedAt) / 1000;
    o.observer.result(f.result, f.code, latency);
    const code = err instanceof VenueError ? err.venueCode : undefined;
    const record: OutcomeRecord = {
      t: "outcome",
      id,
      at: o.now(),
      result: f.action === "unknown" ? "unknown" : "rejected",
      ...(code !== undefined ? { code } : {}),
    };
    o.logger.warn({ id, code: f.code, action: f.action, err: (err as Error).message }, "claim not accepted");
    if (f.action === "unknown") {
      // Keep the reservation: the position may be ours. The private push (or the timeout) settles it.
      st.phase = "unknown";
      st.failedAt = o.now();
      this.#journal(record);
      if (st.assignment !== undefined) return this.#confirm(id, st, st.assignment);
      st.timer = setTimeout(() => {
        o.exposure.release(id);
        this.#finish(id, st, { t: "outcome", id, at: o.now(), result: "not_accepted" });
      }, o.unknownTimeoutMs);
      st.timer.unref();
      return;
    }
    o.exposure.release(id);
    this.#journal(record);
    switch (f.action) {
      case "gone":
        o.book.remove(id);
        return this.#finish(id, st);
      case "retry_racing":
        // -1012: someone else's claim is being processed; once more, then it is theirs.
        return st.retries++ < 1 ? this.#retryLater(id, st, o.retryDelayMs) : this.#finish(id, st);
      case "retry_transient": {
        // Not processed (-1011, or the request never left): the id is still there to be had, so
        // retry with doubling delays while it stays open, a few times.
        const n = st.retries++;
        return n < 4 ? this.#retryLater(id, st, o.retryDelayMs * 2 ** n) : this.#finish(id, st);
      }
      case "backoff":
        // -1003 is a definitive "not processed", and the one-window hold on every claim already
        // bounds the rate, so the id waits its turn again while it stays open (a budget of a few
        // retries dropped the best pending claim for good during a storm of more than ~3 s, found by
        // test/integration/reliability.rest.test.ts); it is re-decided from the open list, and
        // dropped once gone.
        this.#holdUntil = o.now() + o.rateLimitHoldMs;
        return this.#retryLater(id, st, 0);
      case "reevaluate":
        return st.repriced++ < 1 ? this.#retryLater(id, st, 0) : this.#finish(id, st);
      case "pause_margin":
        // It may be claimable again once margin frees up: it waits in the queue, re-decided then.
        this.#requeue(id, st, d.expectedFee);
        return this.setPaused("margin", true, o.marginPauseMs);
      default:
        return this.#finish(id, st);
    }
  }

  /** Back to pending (a claim that did not leave): re-decided when its turn comes. */
  #requeue(id: number, st: IdState, expectedFee: number): void {
    const liquidation = this.#o.book.get(id);
    if (liquidation === undefined) return void this.#ids.delete(id);
    st.phase = "pending";
    this.#queue.push(id, expectedFee, liquidation.timestamp, id);
  }

  /** Re-decide the id from the open list after `ms` (a fresh decision, fresh marks). */
  #retryLater(id: number, st: IdState, ms: number): void {
    st.phase = "waiting";
    st.timer = setTimeout(() => {
      st.timer = undefined;
      const liquidation = this.#o.book.get(id);
      if (liquidation === undefined) return void this.#ids.delete(id);
      st.phase = "pending";
      const d = this.#o.decide(liquidation, this.#o.now());
      if (d.action === "skip") {
        this.#skipped(id, d.reason);
        return void this.#ids.delete(id);
      }
      this.#queue.push(id, d.expectedFee, liquidation.timestamp, id);
      this.#wake?.();
    }, ms);
    st.timer.unref();
  }

  /**
   * A bug, not a venue answer (e.g. claimRequestBody refusing a decision): the id is finished
   * unsent if the failure came before the journal intent, and the process keeps running.
   */
  #internalError(id: number, err: unknown): void {
    this.#o.exposure.release(id);
    const st = this.#ids.get(id);
    if (st !== undefined && st.phase === "inflight") this.#finish(id, st);
    this.#o.logger.error({ id, err: err instanceof Error ? err.message : String(err) }, "internal error while claiming; id dropped");
  }

  #skipped(id: number, reason: string): void {
    if (this.#skips.get(id) === reason) return;
    this.#skips.set(id, reason);
    this.#o.observer.skipped(reason);
  }

  #finish(id: number, st: IdState, record?: OutcomeRecord): void {
    if (record !== undefined) this.#journal(record);
    st.phase = "done";
    st.doneAt = this.#o.now();
    this.#ids.set(id, st);
  }

  #journal(record: JournalRecord): void {
    try {
      this.#o.journal.append(record);
    } catch {
      this.setPaused("journal", true);
    }
  }
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
