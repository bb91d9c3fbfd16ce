/**
 * What happens to a claim after it left: settled by its answer, refused by venue code (retried,
 * re-decided, held, dropped), or unknown — the request may have reached the venue and no answer came,
 * so it is never resent blindly: the private `liquidatorliquidations` push confirms it, the open list
 * shows it untouched (not applied), or it is closed as not accepted after `unknownTimeoutMs`.
 * Every outcome is journaled; the claimer (claimer.ts) owns the queue and the permits.
 */
import type { Exposure } from "../engine/exposure.js";
import type { ClaimDecision } from "../engine/policy.js";
import type { PositionBook } from "../engine/positionBook.js";
import type { Fill, Liquidation } from "../engine/types.js";
import { logFills, logMoney } from "../observe/logMoney.js";
import type { JournalRecord, OutcomeRecord } from "../store/journalRecords.js";
import { VenueError } from "../venue/errors.js";
import { type ClaimFailureAction, claimRetryDelay, claimRetryOf } from "../venue/failureTable.js";
import { assignmentFills, claimFills } from "../venue/mapping.js";
import type { ClaimResult } from "../venue/restSchemas.js";
import type { LiquidatorLiquidation } from "../venue/wire.js";
import { type ClaimFailure, classifyClaimFailure, JOURNAL_RESULT_OF } from "./claimFailure.js";
import type { IdState } from "./claimState.js";
import { type OpenBook, samePositions } from "./openBook.js";

export interface ClaimOutcomeTimings {
  /**
   * The longest an insufficient-margin refusal holds claims while the account re-read has not
   * answered (a backstop for a failing REST): the re-read's answer ends the hold at once.
   */
  marginPauseMs: number;
  /** Base delay of the retries after "another claim in process", "retry later" or a request that never left. */
  retryDelayMs: number;
  /** Rate limited: hold every claim this long (one venue window). */
  rateLimitHoldMs: number;
  /** An unknown outcome not confirmed by the private push within this time is closed as not accepted. */
  unknownTimeoutMs: number;
  /**
   * An unknown outcome may be settled by the open list (id still open, quantities untouched) only
   * once this long has passed since the failure: a venue still working on a timed-out request must
   * have finished with it, or the re-claim would be a second claim on the same id.
   */
  openListSettleMs: number;
  /**
   * Refused by the limit price (or with a code the failure table does not know) again after the
   * re-decision at once: re-decided after this, doubling up to 8× it (failureTable.ts's schedules).
   */
  repriceBackoffMs: number;
}

/** What the outcomes need from the claimer and the rest of the daemon. */
export interface ClaimOutcomeDeps {
  states: Map<number, IdState>;
  book: OpenBook;
  exposure: Exposure;
  positions: PositionBook;
  journal(record: JournalRecord): void;
  observer: {
    result(result: string, code: string, latency: number | undefined): void;
    feeEarned(symbol: string, amount: number): void;
    /** A claim applied at venue time `venueTs` transferred `fills` (the P&L ledger's input). */
    settled?(id: number, fills: readonly Fill[], venueTs: number): void;
    /** A claim applied by a lean answer, before its fills are known: the quantities it requested. */
    acceptedUnsized?(id: number, requested: Readonly<Record<string, number>>): void;
  };
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  now(): number;
  monotonic(): number;
  /** Re-decide the id from the open list after `ms`. */
  retryLater(id: number, st: IdState, ms: number): void;
  /** Back to pending at once (it did not leave). */
  requeue(id: number, st: IdState, expectedFee: number): void;
  /** The venue refused a claim for margin (-1101): hold claims for at most `ms` and re-read the account now. */
  marginRefused(ms: number): void;
  /** A claim's reservation was dropped without it being applied: the margin and exposure it held are free. */
  freed?(): void;
  /** Hold every claim until this wall-clock time (rate limited). */
  holdUntil(at: number): void;
  offer(liquidation: Liquidation): void;
}

/** Codes warned about once each; beyond this many distinct ones (a venue answering noise) only info lines. */
const MAX_UNKNOWN_CODES_LOGGED = 32;

export class ClaimOutcomes {
  readonly #d: ClaimOutcomeDeps;
  readonly #t: ClaimOutcomeTimings;
  readonly #unknownCodes = new Set<number>();

  constructor(deps: ClaimOutcomeDeps, timings: ClaimOutcomeTimings) {
    this.#d = deps;
    this.#t = timings;
  }

  accepted(id: number, st: IdState, result: ClaimResult): void {
    this.#d.observer.result("success", "none", (this.#d.monotonic() - st.receivedAt) / 1000);
    const fills = claimFills(result);
    if (fills !== undefined && result.timestamp !== undefined) {
      st.assignment = undefined; // the answer's fills are the venue's word; an early push adds nothing
      return this.#settle(id, st, fills, "accepted", result.timestamp);
    }
    this.#acceptedWithoutFills(id, st);
  }

  /**
   * A lean answer (PROTOCOL §9: the claim answer's fields are optional): the claim was applied, but
   * the answer does not say what it transferred. The private `liquidatorliquidations` push does: one
   * that beat the answer settles it now, a later one when it comes. The id is done at once (never
   * claimed again, journaled as accepted without fills); meanwhile the position book holds the
   * requested quantities as pending until the venue's next report of the position replaces them
   * with what it holds, and the push, when it comes, brings the fills (fee, price) for the P&L.
   */
  #acceptedWithoutFills(id: number, st: IdState): void {
    const { now, exposure } = this.#d;
    this.#d.journal({ t: "outcome", id, at: now(), result: "accepted" });
    const early = st.assignment;
    if (early !== undefined) return this.#confirm(id, st, early);
    const requested = exposure.reservation(id);
    if (requested !== undefined) {
      // Held at the requested quantities (an upper bound: the venue transfers the ratio of what is
      // still open) as pending, so the next report of the position, which the position book asks for
      // at once, says what is really held and in which mode. Local time stands for the venue's here.
      this.#d.positions.settleClaim(id, requested, now());
      this.#d.observer.acceptedUnsized?.(id, requested);
    }
    st.phase = "unknown";
    st.acceptedWithoutFills = true;
    st.failedAt = now();
    this.#d.logger.info({ id }, "claim accepted; its answer carries no fills, waiting for the private stream's assignment");
    st.timer = setTimeout(() => {
      st.timer = undefined;
      this.finish(id, st);
      this.#d.logger.warn({ id }, "accepted claim's fills never reported; the venue's position reports carry what it transferred");
    }, this.#t.unknownTimeoutMs);
    st.timer.unref();
  }

  /** Drops the reservation of a claim that was not applied (exposure and margin in flight alike). */
  #release(id: number): void {
    if (this.#d.exposure.release(id)) this.#d.freed?.();
  }

  dryRun(d: ClaimDecision, st: IdState): void {
    this.#release(d.liquidationId);
    st.dryRun = true;
    this.finish(d.liquidationId, st, { t: "outcome", id: d.liquidationId, at: this.#d.now(), result: "dry_run" });
    this.#d.observer.result("dry_run", "none", undefined);
    this.#d.logger.info(
      { id: d.liquidationId, ratio: d.ratio, expectedFee: logMoney(d.expectedFee), limitPrice: d.limitPrice },
      "dry run: claim decided, not sent",
    );
  }

  /** Private `liquidatorliquidations` push: confirms an unknown outcome, or waits for a missing answer. */
  assignment(push: LiquidatorLiquidation): void {
    const st = this.#d.states.get(push.liquidationId);
    if (st === undefined) return;
    if (st.phase === "inflight") {
      st.assignment = push;
      return;
    }
    if (st.phase === "unknown") this.#confirm(push.liquidationId, st, push);
  }

  failed(d: ClaimDecision, st: IdState, err: unknown): void {
    const { book, now } = this.#d;
    const id = d.liquidationId;
    const f = classifyClaimFailure(err);
    this.#d.observer.result(f.result, f.code, (this.#d.monotonic() - st.receivedAt) / 1000);
    const code = err instanceof VenueError ? err.venueCode : undefined;
    const record: OutcomeRecord = {
      t: "outcome",
      id,
      at: now(),
      result: JOURNAL_RESULT_OF[f.result],
      ...(code !== undefined ? { code } : {}),
    };
    this.#logRefusal(id, f, err);
    if (f.action === "unknown") {
      // Keep the reservation: the position may be ours. The private push (or the timeout) settles it.
      st.phase = "unknown";
      st.failedAt = now();
      this.#d.journal(record);
      if (st.assignment !== undefined) return this.#confirm(id, st, st.assignment);
      st.timer = setTimeout(() => {
        this.#release(id);
        this.finish(id, st, { t: "outcome", id, at: now(), result: "not_accepted" });
      }, this.#t.unknownTimeoutMs);
      st.timer.unref();
      return;
    }
    this.#release(id);
    this.#d.journal(record);
    switch (f.action) {
      case "gone":
        book.remove(id);
        return this.finish(id, st);
      case "backoff":
        // -1003 is a definitive "not processed": hold every claim for one window, then the id waits its turn.
        this.#d.holdUntil(now() + this.#t.rateLimitHoldMs);
        return this.#again(id, st, f.action, st.retries);
      case "retry_racing":
      case "retry_transient":
        return this.#again(id, st, f.action, st.retries++);
      case "reevaluate":
        return this.#again(id, st, f.action, st.repriced++);
      case "redecide":
        // A code the failure table does not know (the real venue's limit_price code is unpublished):
        // not final while the id is open, but bounded.
        return this.#again(id, st, f.action, st.redecided++);
      case "reread_account": {
        // The venue counted more margin than the model did: the account is re-read at once and claims
        // resume when it answers; the id waits in the queue, re-decided on the corrected model then.
        this.#d.marginRefused(this.#t.marginPauseMs);
        const schedule = claimRetryOf(f.action);
        const n = st.rereads ?? 0;
        st.rereads = n + 1;
        const bases = { retryMs: this.#t.retryDelayMs, repriceMs: this.#t.repriceBackoffMs };
        if (schedule === undefined || claimRetryDelay(schedule, n, bases) === undefined) return this.finish(id, st);
        return this.#d.requeue(id, st, d.expectedFee);
      }
      default:
        return this.finish(id, st);
    }
  }

  /**
   * Re-decide the id after the delay the failure table's schedule gives attempt `n`, or finish it
   * once the budget is spent. retryLater drops the id once it has left the open book.
   */
  #again(id: number, st: IdState, action: ClaimFailureAction, n: number): void {
    const schedule = claimRetryOf(action);
    const ms =
      schedule === undefined
        ? undefined
        : claimRetryDelay(schedule, n, { retryMs: this.#t.retryDelayMs, repriceMs: this.#t.repriceBackoffMs });
    if (ms === undefined) return this.finish(id, st);
    this.#d.retryLater(id, st, ms);
  }

  /** One warn line per code the failure table does not know (not one per claim); later ones at info. */
  #logRefusal(id: number, f: ClaimFailure, err: unknown): void {
    const fields = { id, code: f.code, action: f.action, err: (err as Error).message };
    if (f.action !== "redecide" || !(err instanceof VenueError)) return this.#d.logger.warn(fields, "claim not accepted");
    if (this.#unknownCodes.has(err.venueCode) || this.#unknownCodes.size >= MAX_UNKNOWN_CODES_LOGGED)
      return this.#d.logger.info(fields, "claim not accepted");
    this.#unknownCodes.add(err.venueCode);
    this.#d.logger.warn(
      { id, code: err.venueCode, status: err.status, message: err.venueMessage },
      "claim refused with a venue code the failure table does not know: re-deciding the id while it is open, a bounded number of times",
    );
  }

  /**
   * After an open-list snapshot requested at `requestedAt`: an unknown outcome whose id is still
   * open with exactly the quantities it had when the claim was sent was not applied (applying it
   * changes or removes them). It is closed as not_accepted and may be claimed again — confirmed by
   * the open list, not resent blindly. Only once `openListSettleMs` has passed since the failure.
   */
  settleFromOpenList(requestedAt: number): void {
    const { states, book } = this.#d;
    for (const [id, st] of states) {
      if (st.phase !== "unknown" || st.acceptedWithoutFills || st.failedAt === undefined || st.sentPositions === undefined) continue;
      if (requestedAt - st.failedAt < this.#t.openListSettleMs) continue;
      const open = book.get(id);
      if (open === undefined || !samePositions(open.positions, st.sentPositions)) continue;
      if (st.timer !== undefined) clearTimeout(st.timer);
      this.#release(id);
      this.#d.journal({ t: "outcome", id, at: this.#d.now(), result: "not_accepted" });
      states.delete(id);
      this.#d.logger.info({ id }, "unknown claim outcome settled by the open list: not applied, the id may be claimed again");
      this.#d.offer(open);
    }
  }

  /**
   * A bug, not a venue answer (e.g. claimRequestBody refusing a decision): the id is finished
   * unsent if the failure came before the journal intent, and the process keeps running.
   */
  internalError(id: number, err: unknown): void {
    this.#release(id);
    const st = this.#d.states.get(id);
    if (st !== undefined && st.phase === "inflight") this.finish(id, st);
    this.#d.logger.error({ id, err: err instanceof Error ? err.message : String(err) }, "internal error while claiming; id dropped");
  }

  finish(id: number, st: IdState, record?: OutcomeRecord): void {
    if (record !== undefined) this.#d.journal(record);
    st.phase = "done";
    st.doneAt = this.#d.now();
    this.#d.states.set(id, st);
  }

  #confirm(id: number, st: IdState, push: LiquidatorLiquidation): void {
    if (st.timer !== undefined) clearTimeout(st.timer);
    st.timer = undefined;
    st.assignment = undefined;
    // A claim already counted as a success (a lean answer) is not counted again.
    const counted = st.acceptedWithoutFills === true;
    this.#settle(id, st, assignmentFills(push), "confirmed", push.timestamp);
    if (!counted) this.#d.observer.result("confirmed", "none", undefined);
  }

  /** `venueTs`: venue time the claim was applied (the answer's or the push's `timestamp`). */
  #settle(id: number, st: IdState, fills: Fill[], result: "accepted" | "confirmed", venueTs: number): void {
    const actual: Record<string, number> = {};
    let fee = 0;
    for (const f of fills) {
      actual[f.symbol] = (actual[f.symbol] ?? 0) + f.qty;
      fee += f.fee;
      this.#d.observer.feeEarned(f.symbol, f.fee);
    }
    // The venue pushes `position` as it applies a claim, often before the HTTP answer: the position
    // book adds only what no venue report includes yet. A lean answer's claim is in it already.
    if (st.acceptedWithoutFills !== true) this.#d.positions.settleClaim(id, actual, venueTs);
    this.#d.observer.settled?.(id, fills, venueTs);
    this.finish(id, st, { t: "outcome", id, at: this.#d.now(), result, fills, venueTs });
    this.#d.logger.info(
      { id, fee: logMoney(fee), fills: logFills(fills) },
      result === "accepted" ? "claim accepted" : "claim confirmed by the private stream",
    );
  }
}
