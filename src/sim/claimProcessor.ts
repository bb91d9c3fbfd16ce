/**
 * A claim as the simulated venue processes it (docs/protocol.md §4): the body's shape, the
 * in-process lock on its liquidation id (-1012), an optional processing delay, then the rules of
 * claimRules.ts against the state at decision time; an accepted claim moves the positions, the open
 * liquidation and the account's books, and is pushed. Every request, refused or not, is logged
 * (claimLog.ts). The insurance fund's claims (insuranceFund.ts) are decided by their own rules and
 * applied here.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Accounts, SimAccount } from "./accounts.js";
import type { ClaimLog, ClaimLogEntry } from "./claimLog.js";
import { evaluateClaim, type HeldPosition, parseClaimBody, type Transfer } from "./claimRules.js";
import { accountMargin, growsPastMaxNotional } from "./leverage.js";
import { type BookedLiquidation, CLAIM_ROW_TYPE, type LiquidationBook } from "./liquidationBook.js";
import type { Liquidations } from "./liquidations.js";
import type { MarketState } from "./marketState.js";
import type { SimPush } from "./simPush.js";
import type { ListedSymbols } from "./symbols.js";
import type { Trading } from "./trading.js";
import { type Checked, ok, refused } from "./venueRefusal.js";
import { type ClaimResponseData, claimResponse, liquidationPushRow, liquidatorLiquidationsData } from "./wireShapes.js";

export interface ClaimProcessorOptions {
  now: () => number;
  symbols: ListedSymbols;
  market: MarketState;
  accounts: Accounts;
  book: LiquidationBook;
  liquidations: Liquidations;
  claimLog: ClaimLog;
  trading: Trading;
  emit: (push: SimPush) => void;
  /** Time a claim holds its id before being decided, read at each claim (VenueCore.claimProcessingDelayMs). */
  processingDelayMs: () => number;
}

export class ClaimProcessor {
  readonly #options: ClaimProcessorOptions;
  readonly #inProcess = new Set<number>();

  constructor(options: ClaimProcessorOptions) {
    this.#options = options;
  }

  /**
   * One claim as the venue processes it: body shape, the in-process lock (-1012), then the rules
   * of docs/protocol.md §4 against the state at decision time. Every request is logged.
   */
  async submit(accountId: string, body: unknown, receivedAt: number, source: ClaimLogEntry["source"]): Promise<Checked<ClaimResponseData>> {
    const { symbols, market, trading } = this.#options;
    const parsed = parseClaimBody(body);
    if (!parsed.ok) return this.#logRefusal(accountId, undefined, receivedAt, source, parsed);
    const req = parsed.value;
    if (this.#inProcess.has(req.liquidationId)) {
      return this.#logRefusal(accountId, req.liquidationId, receivedAt, source, refused(-1012, `liquidation ${req.liquidationId}`));
    }
    this.#inProcess.add(req.liquidationId);
    try {
      const delayMs = this.#options.processingDelayMs();
      if (delayMs > 0) await sleep(delayMs);
      this.#options.liquidations.expireDue();
      const account = this.#options.accounts.get(accountId);
      if (account === undefined)
        return this.#logRefusal(accountId, req.liquidationId, receivedAt, source, refused(-1002, "unknown account"));
      const liq = this.#options.book.get(req.liquidationId);
      // docs/protocol.md §10 (the simulator's reading of an unsettled point): the fund's rows are claimed through its own endpoint.
      if (liq?.type === CLAIM_ROW_TYPE)
        return this.#logRefusal(
          accountId,
          req.liquidationId,
          receivedAt,
          source,
          refused(-1005, "a type claim row is claimed through POST /v1/claim_insurance_fund"),
        );
      const outcome = evaluateClaim(req, liq, {
        symbol: (s) => symbols.get(s),
        mark: (s) => market.mark(s),
        positions: account.positions,
        collateral: trading.totalCollateral(accountId),
        margin: accountMargin(account),
        growsPastMaxNotional: (s, before, after, mark) => growsPastMaxNotional(account, s, before, after, mark),
        // The claim lands in cross: isolated positions and open orders keep their own margin.
        otherMargin: trading.initialMargin(accountId, "ISOLATED") + trading.frozen(accountId),
      });
      if (!outcome.ok) return this.#logRefusal(accountId, req.liquidationId, receivedAt, source, outcome);
      const { transfers, remaining, positionsAfter } = outcome.value;
      // evaluateClaim only succeeds on an open liquidation.
      return ok(this.apply(account, liq as BookedLiquidation, transfers, remaining, positionsAfter, receivedAt, source));
    } finally {
      this.#inProcess.delete(req.liquidationId);
    }
  }

  #logRefusal(
    accountId: string | undefined,
    id: number | undefined,
    receivedAt: number,
    source: ClaimLogEntry["source"],
    r: Checked<never>,
  ): Checked<never> {
    if (!r.ok) {
      this.#options.claimLog.record({
        receivedAt,
        decidedAt: this.#options.now(),
        accountId,
        liquidationId: id,
        code: r.refusal.code,
        message: r.refusal.message,
        transfers: [],
        source,
      });
    }
    return r;
  }

  /** Record a claim refused before it reached the core (auth, rate limit, faults). */
  logRejected(accountId: string | undefined, receivedAt: number, code: number, message: string, liquidationId?: number): void {
    const decidedAt = this.#options.now();
    this.#options.claimLog.record({ receivedAt, decidedAt, accountId, liquidationId, code, message, transfers: [], source: "rest" });
  }

  /**
   * A claim the rules accepted, applied: positions moved, the open liquidation updated, the claim
   * logged, the `liquidation` and `liquidatorliquidations` pushes, the fee credited.
   */
  apply(
    account: SimAccount,
    liq: BookedLiquidation,
    transfers: Transfer[],
    remaining: Map<string, number>,
    positionsAfter: Map<string, HeldPosition>,
    receivedAt: number,
    source: ClaimLogEntry["source"],
  ): ClaimResponseData {
    const now = this.#options.now();
    for (const [symbol, held] of positionsAfter) account.positions.set(symbol, held);
    const state = this.#options.book.updateRemaining(liq.liquidationId, remaining);
    this.#options.claimLog.record({
      receivedAt,
      decidedAt: now,
      accountId: account.accountId,
      liquidationId: liq.liquidationId,
      code: 0,
      message: "",
      transfers,
      source,
    });
    this.#options.liquidations.push([liquidationPushRow(liq, state === "closed")]);
    this.#options.emit({
      scope: "private",
      accountId: account.accountId,
      topic: "liquidatorliquidations",
      data: liquidatorLiquidationsData(liq, transfers, now),
    });
    // The account's books move (liquidator fee credited) and the changed positions are pushed.
    this.#options.trading.onClaim(account, transfers);
    return claimResponse(liq, transfers, now);
  }

  /** A competing liquidator claims `ratio` of every remaining symbol, at whatever the mark is. */
  async competitorClaim(id: number, ratio: number, competitor: string): Promise<Checked<ClaimResponseData>> {
    const liq = this.#options.book.get(id);
    const limit: Record<string, number> = {};
    for (const p of liq?.positions ?? []) limit[p.symbol] = this.#options.market.mark(p.symbol) ?? 1;
    return this.submit(competitor, { liquidation_id: id, ratio_qty_request: ratio, limit_price: limit }, this.#options.now(), "competitor");
  }
}
