/**
 * A claim's life once its permit took it: reserve what it may take, journal the intent (durable
 * before anything leaves: never twice), send it, and turn the venue's answer into records — by
 * venue code, through the failure table. A claim that may have been applied and said nothing is
 * handed to unknownClaims.ts; one applied by a lean answer waits there for its fills.
 *
 * Longer than most files: a claim's life from its permit to its answer is one sequence of states;
 * what an answer did not say (unknownClaims.ts), the failure table and the records (sentClaim.ts)
 * are apart.
 */
import type { ClaimDecision } from "../engine/policy.js";
import type { Fill, Liquidation } from "../engine/types.js";
import { DuplicateClaimError, FencedError } from "../errors.js";
import { logFills, logMoney } from "../observe/logMoney.js";
import { VenueError } from "../venue/errors.js";
import { assignmentFills, claimFills } from "../venue/mapping.js";
import type { LiquidatorLiquidation } from "../venue/wire.js";
import { classifyClaimFailure, JOURNAL_RESULT_OF } from "./claimFailure.js";
import { ClaimRefusals } from "./claimRefusals.js";
import type { CoreContext } from "./coreContext.js";
import type { ClaimAnswer, ClaimDriver } from "./corePort.js";
import { claimBodyOf, type FundRoute, isFundBody, type SendBody, supplyOf } from "./fundSupply.js";
import type { IntentRecord, OutcomeRecord } from "./journalRecords.js";
import { intentRecord, type SentClaim } from "./sentClaim.js";

export type { SentClaim } from "./sentClaim.js";

export interface ClaimTimings {
  /** The longest an insufficient-margin refusal holds claims while the account re-read has not answered. */
  marginPauseMs: number;
  /** Base delay of the retries after "another claim in process", "retry later" or a request that never left. */
  retryDelayMs: number;
  /** Rate limited: hold every claim this long (one venue window). */
  rateLimitHoldMs: number;
  /** Refused by the limit price (or an unknown code) again: re-decided after this, doubling up to 8×. */
  repriceBackoffMs: number;
}

/**
 * What a claim's life hands to the unknown claims (unknownClaims.ts `UnknownClaims`): a claim whose
 * answer did not say (or said only lean) is tracked there, and a push confirms one. Named here, not
 * imported, because unknownClaims.ts imports `SentClaim` from this file (no import circle).
 */
interface UnknownTracker {
  track(st: SentClaim, kind: "unknown" | "lean"): void;
  confirm(id: number, fills: Fill[], venueTs: number, source: "push" | "record"): void;
}

export class ClaimLife {
  readonly #c: CoreContext;
  readonly #t: ClaimTimings;
  readonly #driver: ClaimDriver;
  readonly #unknown: UnknownTracker;
  readonly #inflight = new Map<number, SentClaim>();
  readonly #refusals: ClaimRefusals;
  readonly #idleWaiters: (() => void)[] = [];

  readonly #notOurs: (symbol: string) => number;
  readonly #kick: (symbol: string) => void;
  readonly #fundRoute: FundRoute;

  /**
   * `notOurs`: the operator's own of a symbol as last seen (accountWatch.ts `notOurs`), journaled with
   * each intent. `kick`: a claim was booked on `symbol`, the unwinder looks again (the report of the
   * position may have come first and changed nothing since).
   */
  constructor(
    c: CoreContext,
    timings: ClaimTimings,
    driver: ClaimDriver,
    unknown: UnknownTracker,
    notOurs: (symbol: string) => number,
    kick: (symbol: string) => void,
    fundRoute: FundRoute = "claim_insurance_fund",
  ) {
    this.#c = c;
    this.#t = timings;
    this.#driver = driver;
    this.#unknown = unknown;
    this.#notOurs = notOurs;
    this.#kick = kick;
    this.#fundRoute = fundRoute;
    this.#refusals = new ClaimRefusals({ retryMs: timings.retryDelayMs, repriceMs: timings.repriceBackoffMs });
  }

  /** Sent and not answered. */
  get inflight(): number {
    return this.#inflight.size;
  }

  has(id: number): boolean {
    return this.#inflight.has(id);
  }

  /** The failure budgets of ids that left the open list are forgotten (the sweep). */
  forget(isOpen: (id: number) => boolean): void {
    this.#refusals.forget((id) => isOpen(id) || this.#inflight.has(id));
  }

  /**
   * The claim a permit took, decided on this instant's data: reserved, its intent journaled, sent.
   * Synchronous as far as the port is: the file store writes the intent at once and the request is
   * on the socket before this returns; the database's intent (a promise) continues when it answers;
   * the lab's modelled venue answers in virtual time through the same callback.
   */
  send(d: ClaimDecision, liquidation: Liquidation, receivedAt: number, dryRun: boolean): void {
    const { exposure, port, fold } = this.#c;
    const id = d.liquidationId;
    const st: SentClaim = {
      id,
      attempt: (fold.claims.get(id)?.intent.attempt ?? 0) + 1,
      decision: d,
      receivedAt,
      sentAt: port.now(),
      sentPositions: liquidation.positions,
      assignment: undefined,
    };
    this.#inflight.set(id, st);
    exposure.reserve(id, d.perSymbolQty);
    const body = claimBodyOf(d, liquidation, this.#fundRoute);
    // A world without the fund's endpoint never sends a fund claim anywhere (dropped before its intent).
    if (isFundBody(body) && port.sendFundClaim === undefined) throw new Error("this port has no insurance fund route");
    const intent = intentRecord(d, body, st.sentAt, dryRun, liquidation.positions, st.attempt);
    // The insurance fund's rows (fundSupply.ts): an intent without `supply` is a liquidation's.
    if (supplyOf(liquidation) === "insurance_fund") intent.supply = "insurance_fund";
    // The operator's own: what a give-up may infer is only what grows past it.
    if (this.#c.positions.known) {
      const notOurs: Record<string, number> = {};
      for (const symbol of Object.keys(d.perSymbolQty)) notOurs[symbol] = this.#notOurs(symbol);
      intent.notOurs = notOurs;
    }
    let written: ReturnType<typeof port.intent>;
    try {
      written = port.intent(intent);
    } catch (err) {
      return this.#notWritten(st, err);
    }
    if (!(written instanceof Promise)) return this.#written(st, intent, body, written, dryRun);
    written.then(
      (n) => this.#guarded(id, () => this.#written(st, intent, body, n, dryRun)),
      (err: unknown) => this.#guarded(id, () => this.#notWritten(st, err)),
    );
  }

  /** Resolves once no claim is in flight (a stop waits for the answers, so their outcomes are journaled). */
  idle(): Promise<void> {
    if (this.#inflight.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #done(id: number): void {
    this.#inflight.delete(id);
    if (this.#inflight.size > 0 || this.#idleWaiters.length === 0) return;
    for (const w of this.#idleWaiters.splice(0)) w();
  }

  /** A step run from a promise's callback: a bug in it drops the id (logged), never the process. */
  #guarded(id: number, f: () => void): void {
    try {
      f();
    } catch (err) {
      this.internalError(id, err);
    }
  }

  /** No intent, no claim: back in the queue; nothing leaves until the store works (or this leads) again. */
  #notWritten(st: SentClaim, err: unknown): void {
    this.#done(st.id);
    this.#release(st.id);
    if (err instanceof DuplicateClaimError) {
      // Another replica claimed it (its intent is in the shared journal): never here.
      this.#c.fold.done.add(st.id);
      return;
    }
    this.#driver.requeue(st.id, st.decision.expectedFee, st.decision.marginNeed);
    this.#driver.pause(err instanceof FencedError ? "standby" : "journal", true);
  }

  #written(st: SentClaim, intent: IntentRecord, body: SendBody, attempt: number | undefined, dryRun: boolean): void {
    const { port, fold, observer } = this.#c;
    if (typeof attempt === "number") st.attempt = intent.attempt = attempt;
    fold.add(intent);
    if (!port.mayLead()) {
      // Deposed between the intent and the send: the id stays taken by this intent (the new leader
      // replays it), so no one claims it twice.
      this.#done(st.id);
      this.#release(st.id);
      this.#outcome({ t: "outcome", id: st.id, at: port.now(), result: "not_accepted", attempt: st.attempt });
      this.#driver.pause("standby", true);
      return;
    }
    // The request is written inside sendClaim() (on a warm connection); the metrics follow.
    const answered = (answer: ClaimAnswer): void => this.#guarded(st.id, () => this.#answered(st, answer));
    if (!isFundBody(body)) port.sendClaim(body, dryRun, answered);
    else port.sendFundClaim?.(body, dryRun, answered);
    observer.decisionLatency((port.monotonic() - st.receivedAt) / 1000);
    if (!dryRun) observer.submitted(intent.supply ?? "liquidation");
  }

  #answered(st: SentClaim, answer: ClaimAnswer): void {
    const { port, observer } = this.#c;
    this.#done(st.id);
    if ("error" in answer) return this.#failed(st, answer.error);
    if (!answer.sent) return this.#dryRun(st);
    observer.result("success", "none", (port.monotonic() - st.receivedAt) / 1000);
    const fills = claimFills(answer.result);
    if (fills !== undefined && answer.result.timestamp !== undefined) return this.settle(st, fills, answer.result.timestamp, "accepted");
    this.#lean(st);
  }

  /** A bug, not a venue answer (e.g. the body refused): the id is dropped unsent and the process goes on. */
  internalError(id: number, err: unknown): void {
    if (this.#inflight.has(id)) {
      this.#done(id);
      this.#release(id);
    }
    this.#c.logger.error({ id, err: err instanceof Error ? err.message : String(err) }, "internal error while claiming; id dropped");
  }

  /** Private `liquidatorliquidations` push: kept while the answer is awaited, else it settles an unknown. */
  assignment(push: LiquidatorLiquidation): void {
    const st = this.#inflight.get(push.liquidationId);
    if (st !== undefined) st.assignment = push;
    else this.#unknown.confirm(push.liquidationId, assignmentFills(push), push.timestamp, "push");
  }

  /** The venue applied the claim and said what it transferred (`venueTs`: when, venue time). */
  settle(st: { id: number; attempt: number }, fills: Fill[], venueTs: number, result: "accepted" | "confirmed"): void {
    const { positions, observer, logger, port } = this.#c;
    let fee = 0;
    const actual: Record<string, number> = {};
    for (const f of fills) {
      actual[f.symbol] = (actual[f.symbol] ?? 0) + f.qty;
      fee += f.fee;
      observer.feeEarned(f.symbol, f.fee);
    }
    // Its reservation becomes what is held (pending its mode until a report of the symbol says it).
    const mode = port.marginMode;
    const fund = this.#c.fold.claims.get(st.id)?.intent.supply === "insurance_fund";
    positions.settleClaim(st.id, actual, venueTs, mode);
    this.#outcome({ t: "outcome", id: st.id, at: port.now(), result, fills, venueTs, attempt: st.attempt });
    // A venue of one margin mode: the claim's place is known now.
    if (mode !== undefined)
      for (const symbol of Object.keys(actual)) this.#c.record({ t: "claim_mode", id: st.id, symbol, marginMode: mode, at: port.now() });
    observer.settled(st.id, fills, venueTs);
    const fields = { id: st.id, fee: logMoney(fee), fills: logFills(fills), ...(fund ? { supply: "insurance_fund" } : {}) };
    logger.info(fields, result === "accepted" ? "claim accepted" : "claim confirmed");
    for (const symbol of Object.keys(actual)) this.#kick(symbol);
  }

  /**
   * A lean answer (docs/protocol.md §9: every field optional): applied, but what it transferred is
   * not said. Booked at its request until the private push or the venue's record brings the fills.
   */
  #lean(st: SentClaim): void {
    const { exposure, positions, port, logger } = this.#c;
    const early = st.assignment;
    if (early !== undefined) return this.settle(st, assignmentFills(early), early.timestamp, "accepted");
    const requested = exposure.reservation(st.id) ?? { ...st.decision.perSymbolQty };
    positions.settleClaim(st.id, requested, port.now());
    this.#outcome({ t: "outcome", id: st.id, at: port.now(), result: "accepted", attempt: st.attempt });
    logger.info({ id: st.id }, "claim accepted; its answer carries no fills: waiting for the push or the venue's record");
    this.#unknown.track(st, "lean");
  }

  #dryRun(st: SentClaim): void {
    const { port, observer, logger } = this.#c;
    const d = st.decision;
    this.#release(st.id);
    this.#outcome({ t: "outcome", id: st.id, at: port.now(), result: "dry_run", attempt: st.attempt });
    observer.result("dry_run", "none", undefined);
    logger.info(
      { id: st.id, ratio: d.ratio, expectedFee: logMoney(d.expectedFee), limitPrice: d.limitPrice },
      "dry run: claim decided, not sent",
    );
  }

  #failed(st: SentClaim, err: unknown): void {
    const { port, observer } = this.#c;
    const id = st.id;
    const f = classifyClaimFailure(err);
    observer.result(f.result, f.code, (port.monotonic() - st.receivedAt) / 1000);
    const code = err instanceof VenueError ? err.venueCode : undefined;
    this.#refusals.log(this.#c.logger, id, f, err);
    const record: OutcomeRecord = {
      t: "outcome",
      id,
      at: port.now(),
      result: JOURNAL_RESULT_OF[f.result],
      attempt: st.attempt,
      ...(code !== undefined ? { code } : {}),
    };
    if (f.action === "unknown") {
      // The reservation stays: the position may be ours. The push, the record or the bound settles it.
      this.#outcome(record);
      if (st.assignment !== undefined) {
        // The push beat the lost answer: confirmed now, as if it came after.
        this.settle(st, assignmentFills(st.assignment), st.assignment.timestamp, "confirmed");
        return observer.result("confirmed", "none", undefined);
      }
      return this.#unknown.track(st, "unknown");
    }
    this.#release(id);
    const next = this.#refusals.next(id, f.action);
    // A refusal whose re-decisions are spent is final: the journal says so, so a restart keeps it.
    if (next.kind === "spent" && record.result === "rejected") record.final = true;
    this.#outcome(record);
    switch (next.kind) {
      case "gone":
        return this.#driver.gone(id);
      case "later":
        if (f.action === "backoff") this.#driver.holdUntil(port.now() + this.#t.rateLimitHoldMs);
        return this.#driver.retryLater(id, next.ms);
      case "requeue":
        // The venue counted more margin than the model did: re-read the account at once, claims
        // resume when it answers; the id waits in the queue, re-decided on the corrected model.
        this.#driver.pause("margin", true, this.#t.marginPauseMs);
        this.#reread();
        return this.#driver.requeue(id, st.decision.expectedFee, st.decision.marginNeed);
      case "spent":
        if (f.action === "reread_account") {
          this.#driver.pause("margin", true, this.#t.marginPauseMs);
          this.#reread();
        }
        return;
    }
  }

  #reread(): void {
    const { port } = this.#c;
    if (port.rereadAccount !== undefined) port.rereadAccount();
    else port.requestPositions();
  }

  /** Drops the reservation of a claim that was not applied; what it held is free for others. */
  #release(id: number): void {
    if (this.#c.exposure.release(id)) this.#driver.freed();
  }

  #outcome(rec: OutcomeRecord): void {
    this.#c.record(rec);
  }
}
