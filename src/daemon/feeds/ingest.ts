/**
 * What each input does to the daemon's state, whichever way it came (stream frame or REST read):
 * liquidations go to the open book and the new or changed ones to the claimer, marks to the mark
 * book, positions and assignments to the claimer. No I/O and no timers: the daemon (streams) and the
 * REST feed call in; wire payloads are mapped to domain types here, at the edge (venue/mapping.ts).
 *
 * Longer than most files: every input kind's effect on the books side by side, so an input read from
 * REST and the same one pushed are checked to do the same; the account gate and the fund's rows are apart.
 */
import { MARGIN_SKIPS } from "../../core/claimDesk.js";
import type { TradingCore } from "../../core/tradingCore.js";
import type { AccountBook } from "../../engine/accountBook.js";
import type { MarkBook } from "../../engine/marks.js";
import type { PositionBook, PositionCorrection } from "../../engine/positionBook.js";
import { SymbolTable } from "../../engine/symbolInfo.js";
import type { Liquidation } from "../../engine/types.js";
import { fundDiscountsFromInfo } from "../../venue/fundRows.js";
import type { Leverages } from "../../venue/leverageSchemas.js";
import {
  accountFiguresFrom,
  accountRowsFrom,
  accountRowsFromPush,
  clientMarginFrom,
  FUND_ROW_TYPE,
  heldFromPush,
  heldFromRows,
  leverageSettingsFrom,
  liquidationFromPush,
  liquidationFromRow,
  marksFromFutures,
  rowHasPositions,
  symbolInfoFromRow,
  withoutFundRows,
} from "../../venue/mapping.js";
import type { ClientInfo } from "../../venue/orderSchemas.js";
import type { Stamped } from "../../venue/rest.js";
import type { Futures, Info, OpenLiquidation, Positions } from "../../venue/restSchemas.js";
import type { LiquidationEntry, StreamData } from "../../venue/wire.js";
import type { ExecutionReport } from "../../venue/wireOrders.js";
import type { Claimer } from "../claim/claimer.js";
import type { PolicyState } from "../claim/policyState.js";
import type { CaptureTap } from "../records/captureTap.js";
import type { OpportunityLedger } from "../records/opportunityLedger.js";
import { AccountGate } from "./accountGate.js";
import type { FundFeed } from "./fundFeed.js";
import type { OpenBook } from "./openBook.js";
import { SliceQueue, type Slicer } from "./sliceQueue.js";

/** Open-list rows reconciled per slice (sliceQueue.ts): ~0.2 ms on the bench machine. */
const RECONCILE_SLICE = 500;

/** Skip reasons a fresh mark can lift. */
const MARK_SKIPS: ReadonlySet<string> = new Set(["mark_stale", "mark_missing"]);

export interface IngestOptions {
  book: OpenBook;
  marks: MarkBook;
  claimer: Pick<Claimer, "offer" | "sendNow" | "cancel" | "retrySkipped" | "setPaused" | "pausedReasons" | "sweep">;
  /** The trading core: assignments, the open list's word on unknown claims, position reports. */
  core: Pick<TradingCore, "assignment" | "openList" | "positionsPush" | "positionsSnapshot">;
  /** The venue's held positions (pushes and REST snapshots go through the core into it). */
  positions: PositionBook;
  /** The account's collateral and margin inputs (docs/protocol.md §7), fed from the same reads and pushes. */
  account?: AccountBook;
  policy: Pick<PolicyState, "symbolsLoaded" | "applySymbols">;
  metrics: { liquidationsSeen: { inc(n?: number): void } };
  logger: { info(obj: object, msg: string): void };
  /** A REST snapshot put a held quantity right (the venue wins; something was missed). */
  corrected?: (c: PositionCorrection) => void;
  /** Where the account's order reports go (the unwinder). */
  orders?: { onExecutionReport(report: ExecutionReport): void; kickAll(): void };
  /** After each `GET /v1/positions` snapshot is applied; `first`: the account's positions just became known. */
  positionsRead?: (first: boolean) => void;
  /** Local wall clock, ms. */
  now?: () => number;
  /** Monotonic clock, ms (the claimer's latency base). */
  monotonic?: () => number;
  /** The opportunity ledger: the first push of every liquidation (opportunityLedger.ts). */
  opportunities?: Pick<OpportunityLedger, "seen">;
  /** `state.capture`: every input is also handed to the capture (which only enqueues). */
  capture?: CaptureTap;
  /**
   * Where offers of big inputs are sliced (the claimer's permit waits on the same queue); default: one
   * of 100. A replay passes `inlineSlices`: virtual time has no event loop to yield to.
   */
  slices?: Slicer;
  /** `insurance_fund.enabled`: the fund's `type: "claim"` rows are offered too (fundFeed.ts); none: they are left out. */
  fund?: FundFeed;
}

export class Ingest {
  readonly #options: IngestOptions;
  /** No claim until the account can be margin-checked (accountGate.ts). */
  readonly #gate: AccountGate | undefined;
  readonly #now: () => number;
  readonly #monotonic: () => number;
  readonly #slices: Slicer;

  constructor(options: IngestOptions) {
    this.#options = options;
    this.#gate = options.account === undefined ? undefined : new AccountGate({ account: options.account, ...options });
    this.#now = options.now ?? Date.now;
    this.#monotonic = options.monotonic ?? (() => performance.now());
    this.#slices = options.slices ?? new SliceQueue();
  }

  /**
   * Offers `liquidations` to the claimer, in slices when there are many (sliceQueue.ts). An offer made
   * in a later slice uses the book's entry only if it is still this one: a newer delta or snapshot
   * has offered its own, and an id that left the book has been cancelled.
   */
  #offer(liquidations: readonly Liquidation[], receivedAt: number, done?: () => void): void {
    const { book, claimer } = this.#options;
    this.#slices.run({
      items: liquidations,
      each: (liq) => {
        if (book.get(liq.liquidationId) === liq) claimer.offer(liq, receivedAt);
      },
      done: () => {
        // Every offer of the input is in: the best of them may leave now (Claimer.sendNow).
        claimer.sendNow();
        done?.();
      },
    });
  }

  /**
   * Ids that left the open list, cancelled in slices when many: a cascade's takes leave in frames of
   * a thousand, each cancel also a ledger record. They keep their place among the jobs (an earlier
   * frame's offers still being sliced come first), and the claims pump waits while any job is queued.
   */
  #cancel(ids: readonly number[], then?: () => void): void {
    const { claimer } = this.#options;
    if (ids.length === 0 && then === undefined) return;
    this.#slices.run({ items: ids, each: (id) => claimer.cancel(id), ...(then !== undefined ? { done: then } : {}) });
  }

  /**
   * The opportunity ledger's first pushes, in slices when many (a cascade frame's thousand records),
   * as a job of their own behind the frame's offers: before any later frame's removal of the same ids.
   */
  #seen(liquidations: readonly Liquidation[], at: number): void {
    const ledger = this.#options.opportunities;
    if (ledger === undefined || liquidations.length === 0) return;
    this.#slices.run({ items: liquidations, each: (liq) => ledger.seen(liq, at) });
  }

  /** A validated stream frame. */
  stream(args: StreamData): void {
    const { book, marks, claimer, metrics, policy } = this.#options;
    switch (args[0]) {
      case "liquidation": {
        const receivedAt = this.#monotonic();
        const at = this.#now();
        const capture = this.#options.capture;
        if (capture !== undefined && capture.frames !== false) capture.record({ k: "liquidation", at, data: args[1] });
        // The fund's rows are a supply of their own (issue 35): offered only with insurance_fund on.
        const fund = this.#options.fund;
        const changes = book.applyDelta(
          fund === undefined ? withoutFundRows(args[1]).map(liquidationFromPush) : args[1].map((e) => this.#fromPush(fund, e)),
          at,
        );
        this.#cancel(changes.removed);
        // Claim first: a single liquidation is offered (and its claim leaves) before the counting.
        // The ledger's first-push records wait for the claims the frame sends (their time is the frame's).
        if (policy.symbolsLoaded) this.#offer(changes.upserted, receivedAt);
        this.#seen(changes.upserted, at);
        if (changes.added > 0) metrics.liquidationsSeen.inc(changes.added);
        return;
      }
      case "markprices": {
        const capture = this.#options.capture;
        if (capture !== undefined && capture.frames !== false) capture.record({ k: "markprices", at: this.#now(), data: args[1] });
        marks.setMany(args[1], this.#now());
        if (policy.symbolsLoaded) claimer.retrySkipped(MARK_SKIPS);
        return;
      }
      case "markprice":
        marks.set(args[1].symbol, args[1].price, this.#now());
        return;
      case "liquidatorliquidations":
        this.#options.core.assignment(args[1]);
        return;
      case "executionreport":
        this.#options.orders?.onExecutionReport(args[1]);
        return;
      case "balance": {
        // A deposit (or a settlement) raises the holding: what margin skipped may fit now.
        const account = this.#options.account;
        const before = account?.holding;
        account?.applyBalance(args[1].holding, args[1].frozen);
        const after = account?.holding;
        if (after !== undefined && (before === undefined || after > before)) claimer.retrySkipped(MARGIN_SKIPS);
        this.#gate?.check();
        return;
      }
      case "position":
        this.#options.account?.applyPush(accountRowsFromPush(args[1].positions));
        this.#gate?.check();
        // A delta per symbol (docs/protocol.md §5), as of the frame's venue time.
        this.#options.core.positionsPush(
          heldFromPush(args[1].positions),
          args[2] !== undefined && Number.isFinite(args[2]) ? args[2] : undefined,
        );
        return;
    }
  }

  #fromPush(fund: FundFeed, e: LiquidationEntry): Liquidation {
    const liq = liquidationFromPush(e);
    return e.type === FUND_ROW_TYPE ? fund.view(liq) : liq;
  }

  /**
   * A full open list from REST, requested at `requestedAt`. Only new or changed liquidations are
   * offered (with 10,000 open ids a full re-decide would block the loop for tens of ms), plus those
   * skipped last time: a mark, the exposure or a competitor's partial take may have changed their verdict.
   * Rows and offers go through the slice queue: 10,000 open ids never hold the loop in one go.
   */
  openList(rows: readonly OpenLiquidation[], requestedAt: number): void {
    const { book, claimer, metrics, policy } = this.#options;
    const receivedAt = this.#monotonic();
    this.#options.capture?.record({ k: "open", at: this.#now(), requestedAt, rows });
    const r = book.beginReconcile(requestedAt);
    const fund = this.#options.fund;
    // Rows are cheap (a map lookup, a comparison): bigger slices than offers.
    this.#slices.run({
      items: fund === undefined ? withoutFundRows(rows) : rows,
      size: RECONCILE_SLICE,
      each: (row) => {
        if (fund !== undefined && row.type === FUND_ROW_TYPE) return book.reconcileRow(r, fund.view(liquidationFromRow(row)), this.#now());
        // Most rows are what the book holds: compared in place, so 10,000 of them allocate nothing.
        const current = book.get(row.liquidation_id);
        if (current !== undefined && row.type === current.type && rowHasPositions(row, current.positions))
          book.reconcileSame(r, row.liquidation_id, this.#now());
        else book.reconcileRow(r, liquidationFromRow(row), this.#now());
      },
      done: () => {
        const changes = book.endReconcile(r);
        if (changes.added > 0) metrics.liquidationsSeen.inc(changes.added);
        this.#seen(changes.upserted, this.#now());
        this.#cancel(changes.removed, () => {
          this.#options.core.openList((id) => book.get(id), requestedAt);
          const sweep = (): void => {
            claimer.sweep((id) => book.has(id));
            fund?.sweep((id) => book.has(id));
          };
          if (!policy.symbolsLoaded) return sweep();
          this.#offer(changes.upserted, receivedAt, () => {
            claimer.retrySkipped();
            sweep();
          });
        });
      },
    });
  }

  /** REST marks; their age is the venue's time of the answer, on the local clock (`clockOffsetMs` = venue − local). */
  restMarks(rows: Futures["rows"], venueTs: number | undefined, clockOffsetMs: number): void {
    const at = venueTs === undefined ? this.#now() : venueTs - clockOffsetMs;
    this.#options.capture?.record({ k: "futures", at: this.#now(), markAt: at, rows });
    this.#options.marks.setMany(marksFromFutures(rows), at);
    if (this.#options.policy.symbolsLoaded) this.#options.claimer.retrySkipped(MARK_SKIPS);
  }

  /**
   * `GET /v1/positions`: the whole account as of the answer's venue time. The first one ends the
   * start-up wait: until the venue has said what the account holds, exposure is unknown and nothing
   * is claimed.
   */
  restPositions(snapshot: Stamped<Positions>): void {
    const held = heldFromRows(snapshot.data.rows);
    const first = !this.#options.positions.known;
    this.#options.account?.applySnapshot(accountFiguresFrom(snapshot.data), accountRowsFrom(snapshot.data.rows));
    this.#gate?.check();
    for (const c of this.#options.core.positionsSnapshot(held, snapshot.venueTs)) this.#options.corrected?.(c);
    this.#options.positionsRead?.(first);
    if (this.#options.claimer.pausedReasons().includes("positions")) {
      this.#options.logger.info(
        { held: held.filter((p) => p.positionQty !== 0).length },
        "positions read from the venue; claiming may start",
      );
      this.#options.claimer.setPaused("positions", false);
    }
  }

  /** `GET /v1/client/info`: the account-wide leverage, its own imr_factor and max_notional (docs/protocol.md §10). */
  clientInfo(info: ClientInfo): void {
    this.#marginSettingsMay(() => this.#options.account?.setClientMargin(clientMarginFrom(info)));
  }

  /** `GET /v1/client/leverages`: every symbol's leverage setting (docs/protocol.md §10). */
  leverages(rows: Leverages["rows"]): void {
    this.#marginSettingsMay(() => this.#options.account?.setLeverages(leverageSettingsFrom(rows)));
  }

  /** Runs `change`; if the margin settings changed, claims skipped for margin are decided again. */
  #marginSettingsMay(change: () => void): void {
    const account = this.#options.account;
    const before = account?.settings;
    change();
    this.#gate?.check();
    if (account !== undefined && account.settings !== before && this.#options.policy.symbolsLoaded)
      this.#options.claimer.retrySkipped(MARGIN_SKIPS);
  }

  /** Symbol info rows (and a mark snapshot read with them at `requestedAt`); every open id is re-decided. */
  symbols(info: Info, futures: Futures, requestedAt: number): { symbols: number; rejected: { symbol: string; problem: string }[] } {
    this.#options.capture?.record({ k: "info", at: this.#now(), requestedAt, info, futures });
    const { table, rejected } = SymbolTable.fromUntrusted(info.rows.map(symbolInfoFromRow));
    this.#options.policy.applySymbols(table);
    this.#options.fund?.setDiscounts(fundDiscountsFromInfo(info.rows));
    this.#options.marks.setMany(marksFromFutures(futures.rows), requestedAt);
    this.offerAll();
    // Positions held before the table was known (a restart mid-unwind) can be closed now.
    this.#options.orders?.kickAll();
    return { symbols: table.size, rejected };
  }

  /** Re-decide every open id the claimer is not already handling (policy or symbols changed). */
  offerAll(): void {
    if (!this.#options.policy.symbolsLoaded) return;
    this.#offer(this.#options.book.values(), this.#monotonic());
  }
}
