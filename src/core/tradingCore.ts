/**
 * The trading core: one owner of the claims we made and of what they did to the account. Its state
 * changes only by events — a claim taken, an answer, a push, a row of the venue's record, an order's
 * intent, answer, trade and end, a positions report, a restart — and every durable change is a
 * journal record applied to `fold` as it is written (coreFold.ts), so a restart folds the journal
 * into the same state. Effects leave through one port (corePort.ts): the journal, the venue, timers.
 *
 * Parts: claimLife.ts (a claim from its permit to its answer), unknownClaims.ts (what the answer did
 * not say, settled in bounded time), ownOrders.ts (our orders and their trades), accountWatch.ts
 * (reports of the account against what is ours), journalOutbox.ts (writes that failed, retried in
 * order). The claimer's queue and pump (daemon/claim/claimer.ts) and the unwinder's schedule
 * (daemon/unwind/unwinder.ts) drive it; the lab drives the same core in virtual time.
 */
import type { Exposure, HeldPositionInput } from "../engine/exposure.js";
import type { ClaimPnl } from "../engine/pnlLedger.js";
import type { ClaimDecision } from "../engine/policy.js";
import type { PositionBook, PositionCorrection } from "../engine/positionBook.js";
import { type Liquidation, type LiquidationPosition, MARGIN_MODES, type MarginMode } from "../engine/types.js";
import type { LiquidatorLiquidation } from "../venue/wire.js";
import { AccountWatch } from "./accountWatch.js";
import { ClaimLife, type ClaimTimings } from "./claimLife.js";
import { type CoreContext, coreContext } from "./coreContext.js";
import type { CoreFold } from "./coreFold.js";
import type { ClaimDriver, CoreLogger, CoreObserver, CorePort } from "./corePort.js";
import type { FundRoute } from "./fundSupply.js";
import { JournalOutbox } from "./journalOutbox.js";
import { OwnOrders } from "./ownOrders.js";
import { UnknownClaims, type UnknownTimings } from "./unknownClaims.js";

export type CoreTimings = ClaimTimings & UnknownTimings & { journalRetryMs: number };

const CORE_TIMINGS: CoreTimings = {
  marginPauseMs: 60_000,
  retryDelayMs: 500,
  rateLimitHoldMs: 1_000,
  repriceBackoffMs: 2_000,
  settleMs: 30_000,
  boundMs: 600_000,
  firstCheckMs: 1_000,
  maxCheckMs: 30_000,
  journalRetryMs: 1_000,
};

export interface TradingCoreOptions {
  fold: CoreFold;
  exposure: Exposure;
  positions: PositionBook;
  port: CorePort;
  driver: ClaimDriver;
  observer: CoreObserver;
  logger: CoreLogger;
  /** `unwind.scope`: close what claims assigned only, or every position of the account. */
  scope(): "claimed" | "all";
  mark(symbol: string): number | undefined;
  /** An order of ours is working on the position (the unwinder's). */
  orderWorking(symbol: string, mode: MarginMode): boolean;
  /** What may be closed of a position changed (the unwinder's kick). */
  changed(symbol: string, mode: MarginMode): void;
  timings?: Partial<CoreTimings>;
  /** `insurance_fund.route`: how the fund's rows are claimed (core/fundSupply.ts); default its endpoint. */
  fundRoute?: FundRoute;
}

export class TradingCore {
  readonly orders: OwnOrders;
  readonly account: AccountWatch;
  readonly #c: CoreContext;
  readonly #claims: ClaimLife;
  readonly #unknown: UnknownClaims;

  constructor(o: TradingCoreOptions) {
    const t = { ...CORE_TIMINGS, ...o.timings };
    const outbox = new JournalOutbox({
      store: { append: (r) => o.port.append(r), recover: () => o.port.recover() },
      schedule: (ms, f) => void o.port.schedule(ms, f),
      retryMs: t.journalRetryMs,
      failed: (err, queued) => {
        o.logger.error(
          { err: err.message, queued },
          "journal write failed: records kept in order and written again; no claim or order leaves meanwhile",
        );
        o.driver.pause("journal", true);
      },
      recovered: (written) => {
        o.logger.info({ written }, "journal writes again: the records kept are written");
        o.driver.pause("journal", false);
      },
    });
    this.#c = coreContext({
      fold: o.fold,
      exposure: o.exposure,
      positions: o.positions,
      port: o.port,
      outbox,
      observer: o.observer,
      logger: o.logger,
    });
    const kick = (symbol: string): void => {
      for (const mode of MARGIN_MODES) o.changed(symbol, mode);
    };
    this.#unknown = new UnknownClaims(this.#c, t, o.driver, kick, (symbol) => MARGIN_MODES.some((m) => o.orderWorking(symbol, m)));
    this.#claims = new ClaimLife(this.#c, t, o.driver, this.#unknown, (symbol) => this.account.notOurs(symbol), kick, o.fundRoute);
    this.#unknown.bind(this.#claims);
    this.orders = new OwnOrders(this.#c);
    this.account = new AccountWatch(this.#c, {
      scope: o.scope,
      mark: o.mark,
      orderWorking: o.orderWorking,
      changed: o.changed,
      freed: () => o.driver.freed(),
      claimsMoving: (symbol) => this.#moving(symbol),
    });
  }

  get fold(): CoreFold {
    return this.#c.fold;
  }

  /**
   * The journal's state folded (a start, or this replica elected): it becomes the core's, its open
   * claims are settled from the venue's record in bounded time, and what is ours is checked against
   * what is held. `claimClosed`: told when a claim's last lot closes from now on (loss streaks).
   */
  adopt(fold: CoreFold, claimClosed?: (claim: ClaimPnl) => void): void {
    fold.onClaimClosed = claimClosed;
    this.#c.fold = fold;
    this.#unknown.restore();
    this.account.reconcile();
  }

  /** Taken by us: in flight, of unknown outcome, booked at its request, or never to be claimed again. */
  busy(id: number): boolean {
    return this.#claims.has(id) || this.#unknown.has(id) || this.#c.fold.done.has(id) || this.#c.fold.claims.has(id);
  }

  /** The claim a permit took (its decision made on this instant's data). */
  claim(d: ClaimDecision, liquidation: Liquidation, receivedAt: number, dryRun: boolean): void {
    try {
      this.#claims.send(d, liquidation, receivedAt, dryRun);
    } catch (err) {
      this.#claims.internalError(d.liquidationId, err);
    }
  }

  /** Resolves once no claim is in flight (a stop waits for their answers). */
  idle(): Promise<void> {
    return this.#claims.idle();
  }

  /** Private `liquidatorliquidations` push. */
  assignment(push: LiquidatorLiquidation): void {
    this.#claims.assignment(push);
  }

  /** After an open-list snapshot requested at `requestedAt`. */
  openList(open: (id: number) => { positions: readonly LiquidationPosition[] } | undefined, requestedAt: number): void {
    this.#unknown.openList(open, requestedAt);
  }

  /** A `position` push (a delta per position, as of the frame's venue time). */
  positionsPush(rows: readonly HeldPositionInput[], venueTs: number | undefined): void {
    this.account.push(rows, venueTs);
  }

  /** `GET /v1/positions`: the whole account as of `venueTs`; the positions the book had wrong. */
  positionsSnapshot(rows: readonly HeldPositionInput[], venueTs: number | undefined): PositionCorrection[] {
    return this.account.snapshot(rows, venueTs);
  }

  /** Claims sent whose outcome is not settled: in flight, unknown, or applied with fills unknown. */
  unsettledClaims(): number {
    return this.#claims.inflight + this.#unknown.count;
  }

  /** Bounded memory over months: failure budgets of ids that left the open list. */
  sweep(isOpen: (id: number) => boolean): void {
    this.#claims.forget(isOpen);
  }

  /** Why writing the journal fails now (a readiness reason), if it does. */
  journalFailure(): Error | undefined {
    return this.#c.outbox.failure;
  }

  /** Records kept while the journal cannot write (0 while it writes). */
  journalBacklog(): number {
    return this.#c.outbox.queued;
  }

  /** Write what was kept, then clear the store's failure so the next intent probes it; true when nothing is left. */
  retryJournal(): boolean {
    if (!this.#c.outbox.flush()) return false;
    this.#c.port.recover();
    return true;
  }

  /** A claim of ours on `symbol` whose quantity the account may not show yet: reserved (in flight, unknown) or booked at its request. */
  #moving(symbol: string): boolean {
    const e = this.#c.exposure.get(symbol);
    if (e !== undefined && (e.long !== 0 || e.short !== 0)) return true;
    for (const c of this.#c.fold.claims.values()) if (c.givenUp !== true && c.intent.perSymbolQty[symbol] !== undefined) return true;
    return false;
  }
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { CORE_TIMINGS as CORE_TIMINGS_FOR_TESTS };
