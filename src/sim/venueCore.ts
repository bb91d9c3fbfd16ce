/**
 * The simulated venue's state and rules, without any I/O: marks, open liquidations, accounts and
 * positions, epochs, order history, the claim log. Every change the venue would announce is emitted
 * synchronously as a SimPush (the streams deliver it); the REST layer reads and claims through here.
 * Tests and benches drive it directly (addLiquidation, cascade, setMark, competitorClaim, ...).
 *
 * Longer than most files: one object holds the venue's state so that every change and its push happen together; claims, liquidations and pushes are its parts (orders live in trading.ts).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Accounts, type SimAccount } from "./accounts.js";
import type { Campaign } from "./campaigns.js";
import { ClaimLog, type ClaimLogEntry } from "./claimLog.js";
import { evaluateClaim, type HeldPosition, parseClaimBody, type Transfer } from "./claimRules.js";
import { accountMargin, growsPastMaxNotional, symbolMaxLeverage } from "./leverage.js";
import { type BookedLiquidation, LiquidationBook } from "./liquidationBook.js";
import { type GenerateOptions, generatePositions } from "./liquidationGen.js";
import { MarketState } from "./marketState.js";
import type { StoredOrder } from "./orderQuery.js";
import type { OrderUser } from "./orderSeed.js";
import { seedPopulation } from "./population.js";
import { Prng } from "./prng.js";
import { Rewards, type RewardsOptions } from "./rewards.js";
import type { SimPush, SimPushListener } from "./simPush.js";
import { ListedSymbols, type SymbolSpec } from "./symbols.js";
import { Trading } from "./trading.js";
import { type Checked, ok, refused } from "./venueRefusal.js";
import { type ClaimResponseData, claimResponse, liquidationPushRow, liquidatorLiquidationsData } from "./wireShapes.js";

export type { ClaimResponseData } from "./wireShapes.js";

/** The `type` of the open list's rows that are the insurance fund's positions (docs/protocol.md §10). */
export const CLAIM_ROW_TYPE = "claim";

export interface VenueCoreOptions {
  seed: number;
  now?: () => number;
  symbols?: readonly SymbolSpec[];
  /** docs/protocol.md §11: an unclaimed liquidation goes to the insurance fund after this (default 60 s). */
  liquidationTtlMs?: number;
  /** Time a claim holds its id before being decided: lets tests provoke -1012 (default 0). */
  claimProcessingDelayMs?: number;
  /** Orders seeded for each order user; one entry per user (default [1234, 320, 75, 12]). */
  orderCounts?: readonly number[];
  rewards?: Partial<RewardsOptions>;
  claimLogSize?: number;
  /** Trading fee rates in bps (docs/protocol.md §6; default 5 taker, 2 maker). */
  takerFeeBps?: number;
  makerFeeBps?: number;
}

export interface AddLiquidationInput {
  /** `liquidator_fee` defaults to the symbol's (the insurance fund's rows carry its discount). */
  positions: readonly { symbol: string; position_qty: number; liquidator_fee?: number }[];
  type?: string;
  ttlMs?: number;
}

export interface CascadeOptions extends Omit<GenerateOptions, "count"> {
  /** Move the marks of the cascade's symbols by this fraction first (e.g. −0.03), as a crash would. */
  shock?: number;
  ttlMs?: number;
}

export interface PositionView extends HeldPosition {
  symbol: string;
  marginMode: "CROSS" | "ISOLATED";
  markPrice: number;
}

/** The seeded user base of the admin order listing: one user with more than a 500-row page. */
const DEFAULT_ORDER_COUNTS = [1234, 320, 75, 12];

export class VenueCore {
  readonly now: () => number;
  readonly symbols: ListedSymbols;
  readonly market: MarketState;
  readonly book: LiquidationBook;
  readonly accounts = new Accounts((symbol) => {
    const spec = this.symbols.get(symbol);
    return spec === undefined ? undefined : symbolMaxLeverage(spec);
  });
  readonly rewards: Rewards;
  readonly claimLog: ClaimLog;
  readonly orderUsers: readonly OrderUser[];
  readonly campaigns: readonly Campaign[];
  readonly competitorIds: readonly string[];
  readonly prng: Prng;
  /** The liquidators' own orders, books and positions (docs/protocol.md §6). */
  readonly trading: Trading;
  readonly #orders: Map<string, StoredOrder[]>;
  readonly #listeners = new Set<SimPushListener>();
  readonly #inProcess = new Set<number>();
  readonly #ttlMs: number;
  claimProcessingDelayMs: number;
  /**
   * Each liquidation the TTL took off the book, after its removal was pushed: the insurance fund
   * takes it over (insuranceFund.ts, docs/protocol.md §10). None: expired liquidations just go.
   */
  onExpire: ((liq: BookedLiquidation) => void) | undefined;

  constructor(options: VenueCoreOptions) {
    const clock = options.now ?? Date.now;
    // Every time on the wire is integer milliseconds (docs/protocol.md §A.1), whatever clock is injected.
    this.now = () => Math.floor(clock());
    this.prng = new Prng(options.seed);
    this.#ttlMs = options.liquidationTtlMs ?? 60_000;
    if (!(this.#ttlMs > 0)) throw new RangeError("liquidationTtlMs must be positive");
    this.claimProcessingDelayMs = options.claimProcessingDelayMs ?? 0;
    if (!(this.claimProcessingDelayMs >= 0)) throw new RangeError("claimProcessingDelayMs must be ≥ 0");
    const start = this.now();
    this.symbols = new ListedSymbols(options.symbols);
    this.market = new MarketState(this.symbols, start);
    this.book = new LiquidationBook(1001);
    this.claimLog = new ClaimLog(options.claimLogSize);
    // Independent streams of randomness, so that adding orders does not change the market's path.
    const seedPrng = this.prng.fork();
    this.rewards = new Rewards(this.prng.fork(), start, options.rewards);

    const population = seedPopulation(seedPrng, this.symbols, this.accounts, options.orderCounts ?? DEFAULT_ORDER_COUNTS, start);
    this.orderUsers = population.orderUsers;
    this.#orders = population.orders;
    this.competitorIds = population.competitorIds;
    this.campaigns = population.campaigns;
    this.trading = new Trading({
      symbols: this.symbols,
      market: this.market,
      accounts: this.accounts,
      now: this.now,
      emit: (push) => this.#emit(push),
      ...(options.takerFeeBps !== undefined ? { takerFeeBps: options.takerFeeBps } : {}),
      ...(options.makerFeeBps !== undefined ? { makerFeeBps: options.makerFeeBps } : {}),
    });
  }

  // ---- pushes -------------------------------------------------------------------------------

  /** Listen to every push; returns the unsubscribe function. */
  onPush(listener: SimPushListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(push: SimPush): void {
    for (const l of this.#listeners) {
      try {
        l(push);
      } catch {
        // A failing listener (a test's, a closed socket's) must not stop the venue or other listeners.
      }
    }
  }

  #pushLiquidations(rows: unknown[], newIds: number[] = []): void {
    if (rows.length === 0) return;
    // The tick-to-claim clock starts as the venue hands the push to the streams.
    if (newIds.length > 0) this.claimLog.markEmitted(newIds, this.now());
    this.#emit({ scope: "public", topic: "liquidation", data: rows });
  }

  /** `markprices` (every symbol) plus `${symbol}@markprice` for each, per docs/protocol.md §5. */
  publishMarks(only?: readonly string[]): void {
    const rows = this.market.rows().filter((r) => only === undefined || only.includes(r.symbol));
    if (only === undefined)
      this.#emit({ scope: "public", topic: "markprices", data: rows.map((r) => ({ symbol: r.symbol, price: r.markPrice })) });
    for (const r of rows) this.#emit({ scope: "public", topic: `${r.symbol}@markprice`, data: { symbol: r.symbol, price: r.markPrice } });
  }

  // ---- market controls ----------------------------------------------------------------------

  /** Set one mark (rounded to its tick) and push it at once. */
  setMark(symbol: string, price: number): void {
    this.market.set(symbol, price, this.now());
    this.#emit({ scope: "public", topic: "markprices", data: this.market.rows().map((r) => ({ symbol: r.symbol, price: r.markPrice })) });
    this.publishMarks([symbol]);
    this.trading.onMark(symbol);
  }

  mark(symbol: string): number | undefined {
    return this.market.mark(symbol);
  }

  /** Advance the random walk by `dtSec` (volatility × `scale`) and accrue epoch scores. */
  stepMarket(dtSec: number, scale: number): void {
    this.market.step(this.prng, dtSec, scale, this.now());
    this.rewards.accrue(dtSec);
    for (const symbol of this.symbols.names()) this.trading.onMark(symbol);
  }

  // ---- liquidations -------------------------------------------------------------------------

  #openLiquidation(input: AddLiquidationInput, reuseId?: number): BookedLiquidation {
    if (input.positions.length === 0) throw new RangeError("a liquidation needs at least one position");
    const seen = new Set<string>();
    const positions = input.positions.map((p) => {
      const spec = this.symbols.get(p.symbol);
      if (spec === undefined) throw new RangeError(`unknown symbol ${p.symbol}`);
      if (seen.has(p.symbol)) throw new RangeError(`symbol ${p.symbol} listed twice`);
      seen.add(p.symbol);
      if (!Number.isFinite(p.position_qty) || p.position_qty === 0) throw new RangeError("position_qty must be a non-zero number");
      return { symbol: p.symbol, positionQty: p.position_qty, liquidatorFee: p.liquidator_fee ?? spec.liquidatorFee };
    });
    const now = this.now();
    const ttl = input.ttlMs ?? this.#ttlMs;
    const liq: BookedLiquidation = {
      liquidationId: reuseId ?? this.book.nextId(),
      timestamp: now,
      type: input.type ?? "liquidated",
      positions,
      expiresAt: now + ttl,
    };
    if (reuseId === undefined) this.book.add(liq);
    else this.book.reopen(liq);
    return liq;
  }

  /** Open a liquidation (fees from the symbols) and push it; returns its id. */
  addLiquidation(input: AddLiquidationInput): number {
    return this.addLiquidations([input])[0] as number;
  }

  /** Open several liquidations at once, pushed in one `liquidation` frame as the venue batches them; their ids. */
  addLiquidations(inputs: readonly AddLiquidationInput[]): number[] {
    this.expireDue();
    const opened = inputs.map((input) => this.#openLiquidation(input));
    this.#pushLiquidations(
      opened.map((l) => liquidationPushRow(l)),
      opened.map((l) => l.liquidationId),
    );
    return opened.map((l) => l.liquidationId);
  }

  /** A closed liquidation id open again with new quantities (docs/protocol.md §5), pushed as an update. */
  reopenLiquidation(id: number, input: AddLiquidationInput): void {
    this.expireDue();
    const liq = this.#openLiquidation(input, id);
    this.#pushLiquidations([liquidationPushRow(liq)]);
  }

  /** A random liquidation from the seeded generator. */
  addRandomLiquidation(options: GenerateOptions & { ttlMs?: number } = {}): number {
    const positions = generatePositions(this.prng, this.symbols, (s) => this.market.mark(s), options);
    return this.addLiquidation({ positions, ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}) });
  }

  /**
   * A burst of `n` liquidations on the same side of the same few symbols (a price crash), pushed as
   * one `liquidation` frame as the venue batches them.
   */
  cascade(n: number, options: CascadeOptions = {}): number[] {
    if (!Number.isInteger(n) || n < 1) throw new RangeError("cascade size must be a positive integer");
    this.expireDue();
    const symbols = options.symbols ?? [this.prng.pick(this.symbols.names())];
    const side = options.side ?? (this.prng.chance(0.5) ? 1 : -1);
    if (options.shock !== undefined) {
      for (const s of symbols) {
        const m = this.market.mark(s);
        if (m !== undefined) this.market.set(s, m * (1 + options.shock), this.now());
      }
      this.publishMarks();
    }
    const opened: BookedLiquidation[] = [];
    for (let i = 0; i < n; i++) {
      const gen: GenerateOptions = { symbols, side, count: this.prng.int(1, Math.min(2, symbols.length)) };
      if (options.notional !== undefined) gen.notional = options.notional;
      const positions = generatePositions(this.prng, this.symbols, (s) => this.market.mark(s), gen);
      opened.push(this.#openLiquidation({ positions, ...(options.ttlMs !== undefined ? { ttlMs: options.ttlMs } : {}) }));
    }
    this.#pushLiquidations(
      opened.map((l) => liquidationPushRow(l)),
      opened.map((l) => l.liquidationId),
    );
    return opened.map((l) => l.liquidationId);
  }

  /** Remove an open liquidation by hand (pushed as gone); false if it was not open. */
  removeLiquidation(id: number): boolean {
    const liq = this.book.get(id);
    if (liq === undefined || !this.book.remove(id, "removed")) return false;
    this.#pushLiquidations([liquidationPushRow(liq, true)]);
    return true;
  }

  /** Hand expired liquidations to the insurance fund (docs/protocol.md §11) and push their removal. */
  expireDue(): number[] {
    const ids = this.book.expiredAt(this.now());
    const rows: unknown[] = [];
    const expired: BookedLiquidation[] = [];
    for (const id of ids) {
      const liq = this.book.get(id);
      if (liq !== undefined && this.book.remove(id, "expired")) {
        rows.push(liquidationPushRow(liq, true));
        expired.push(liq);
      }
    }
    this.#pushLiquidations(rows);
    if (this.onExpire !== undefined) for (const liq of expired) this.onExpire(liq);
    return ids;
  }

  openLiquidations(): BookedLiquidation[] {
    this.expireDue();
    return this.book.list().map((l) => ({ ...l, positions: l.positions.map((p) => ({ ...p })) }));
  }

  // ---- claims -------------------------------------------------------------------------------

  /**
   * One claim as the venue processes it: body shape, the in-process lock (-1012), then the rules
   * of docs/protocol.md §4 against the state at decision time. Every request is logged.
   */
  async submitClaim(
    accountId: string,
    body: unknown,
    receivedAt: number,
    source: ClaimLogEntry["source"] = "rest",
  ): Promise<Checked<ClaimResponseData>> {
    const parsed = parseClaimBody(body);
    if (!parsed.ok) return this.#logRefusal(accountId, undefined, receivedAt, source, parsed);
    const req = parsed.value;
    if (this.#inProcess.has(req.liquidationId)) {
      return this.#logRefusal(accountId, req.liquidationId, receivedAt, source, refused(-1012, `liquidation ${req.liquidationId}`));
    }
    this.#inProcess.add(req.liquidationId);
    try {
      if (this.claimProcessingDelayMs > 0) await sleep(this.claimProcessingDelayMs);
      this.expireDue();
      const account = this.accounts.get(accountId);
      if (account === undefined)
        return this.#logRefusal(accountId, req.liquidationId, receivedAt, source, refused(-1002, "unknown account"));
      const liq = this.book.get(req.liquidationId);
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
        symbol: (s) => this.symbols.get(s),
        mark: (s) => this.market.mark(s),
        positions: account.positions,
        collateral: this.trading.totalCollateral(accountId),
        margin: accountMargin(account),
        growsPastMaxNotional: (s, before, after, mark) => growsPastMaxNotional(account, s, before, after, mark),
        // The claim lands in cross: isolated positions and open orders keep their own margin.
        otherMargin: this.trading.initialMargin(accountId, "ISOLATED") + this.trading.frozen(accountId),
      });
      if (!outcome.ok) return this.#logRefusal(accountId, req.liquidationId, receivedAt, source, outcome);
      // evaluateClaim only succeeds on an open liquidation.
      return ok(
        this.applyClaim(
          account,
          liq as BookedLiquidation,
          outcome.value.transfers,
          outcome.value.remaining,
          outcome.value.positionsAfter,
          receivedAt,
          source,
        ),
      );
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
      this.claimLog.record({
        receivedAt,
        decidedAt: this.now(),
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
  logRejectedClaim(accountId: string | undefined, receivedAt: number, code: number, message: string, liquidationId?: number): void {
    this.claimLog.record({ receivedAt, decidedAt: this.now(), accountId, liquidationId, code, message, transfers: [], source: "rest" });
  }

  /**
   * A claim the rules accepted, applied: positions moved, the open liquidation updated, the claim
   * logged, the `liquidation` and `liquidatorliquidations` pushes, the fee credited. Also the
   * insurance fund's claims (insuranceFund.ts), decided by their own rules.
   */
  applyClaim(
    account: SimAccount,
    liq: BookedLiquidation,
    transfers: Transfer[],
    remaining: Map<string, number>,
    positionsAfter: Map<string, HeldPosition>,
    receivedAt: number,
    source: ClaimLogEntry["source"],
  ): ClaimResponseData {
    const now = this.now();
    for (const [symbol, held] of positionsAfter) account.positions.set(symbol, held);
    const state = this.book.updateRemaining(liq.liquidationId, remaining);
    this.claimLog.record({
      receivedAt,
      decidedAt: now,
      accountId: account.accountId,
      liquidationId: liq.liquidationId,
      code: 0,
      message: "",
      transfers,
      source,
    });
    this.#pushLiquidations([liquidationPushRow(liq, state === "closed")]);
    this.#emit({
      scope: "private",
      accountId: account.accountId,
      topic: "liquidatorliquidations",
      data: liquidatorLiquidationsData(liq, transfers, now),
    });
    // The account's books move (liquidator fee credited) and the changed positions are pushed.
    this.trading.onClaim(account, transfers);
    return claimResponse(liq, transfers, now);
  }

  /** A competing liquidator claims `ratio` of every remaining symbol, at whatever the mark is. */
  async competitorClaim(id: number, ratio = 1, competitor = this.competitorIds[0] as string): Promise<Checked<ClaimResponseData>> {
    const liq = this.book.get(id);
    const limit: Record<string, number> = {};
    for (const p of liq?.positions ?? []) limit[p.symbol] = this.market.mark(p.symbol) ?? 1;
    return this.submitClaim(competitor, { liquidation_id: id, ratio_qty_request: ratio, limit_price: limit }, this.now(), "competitor");
  }

  // ---- accounts -----------------------------------------------------------------------------

  setCollateral(accountId: string, amount: number): void {
    this.accounts.setCollateral(accountId, amount);
    this.trading.balanceChanged(accountId);
  }

  /**
   * The account closes every position at mark, paying the taker fee (a demo without unwinding, and
   * tests); the positions are pushed flat. Returns how many positions were closed.
   */
  closePositions(accountId: string): number {
    const account = this.accounts.get(accountId);
    return account === undefined ? 0 : this.trading.closeAtMark(account);
  }

  /** The account's positions: the cross ones, then the isolated ones held or once held. */
  positionsOf(accountId: string): PositionView[] {
    const account = this.accounts.get(accountId);
    if (account === undefined) return [];
    const cross = [...account.positions].map(([symbol, p]) => ({
      symbol,
      ...p,
      marginMode: "CROSS" as const,
      markPrice: this.market.mark(symbol) ?? p.averageOpenPrice,
    }));
    const isolated = [...this.trading.booksOf(accountId, "ISOLATED")].map(([symbol, b]) => ({
      symbol,
      qty: b.qty,
      averageOpenPrice: b.averageOpenPrice,
      marginMode: "ISOLATED" as const,
      markPrice: this.market.mark(symbol) ?? b.averageOpenPrice,
    }));
    return [...cross, ...isolated];
  }

  /** Successful claims (who took what), optionally for one liquidation id. */
  claims(liquidationId?: number): ClaimLogEntry[] {
    const all = this.claimLog.successes();
    return liquidationId === undefined ? all : all.filter((e) => e.liquidationId === liquidationId);
  }

  /** Every claim request received (successes and refusals) with its receive time. */
  claimRequests(): ClaimLogEntry[] {
    return this.claimLog.entries();
  }

  /** When the venue first pushed liquidation `id` (ms, venue clock). */
  liquidationEmittedAt(id: number): number | undefined {
    return this.claimLog.emittedAt(id);
  }

  ordersOf(accountId: string): readonly StoredOrder[] {
    return this.#orders.get(accountId) ?? [];
  }

  advanceEpoch(): void {
    this.rewards.advance(this.now());
  }
}
