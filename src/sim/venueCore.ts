/**
 * The simulated venue's state and rules, without any I/O: marks, open liquidations, accounts and
 * positions, epochs, order history, the claim log. Every change the venue would announce is emitted
 * synchronously as a SimPush (the streams deliver it); the REST layer reads and claims through here.
 * Tests and benches drive it directly (addLiquidation, cascade, setMark, competitorClaim, ...).
 * One object holds the venue's state so that every change and its push happen together; its parts
 * do the work: liquidations.ts opens and expires liquidations, claimProcessor.ts decides and applies
 * claims, trading.ts runs the orders.
 */
import { Accounts } from "./accounts.js";
import type { Campaign } from "./campaigns.js";
import { ClaimLog, type ClaimLogEntry } from "./claimLog.js";
import { ClaimProcessor } from "./claimProcessor.js";
import { symbolMaxLeverage } from "./leverage.js";
import { type BookedLiquidation, LiquidationBook } from "./liquidationBook.js";
import type { GenerateOptions } from "./liquidationGen.js";
import { type AddLiquidationInput, type CascadeOptions, Liquidations } from "./liquidations.js";
import { MarketState } from "./marketState.js";
import type { StoredOrder } from "./orderQuery.js";
import type { OrderUser } from "./orderSeed.js";
import { seedPopulation } from "./population.js";
import { Prng } from "./prng.js";
import { Rewards, type RewardsOptions } from "./rewards.js";
import type { SimPush, SimPushListener } from "./simPush.js";
import { ListedSymbols, type SymbolSpec } from "./symbols.js";
import { Trading } from "./trading.js";
import type { PositionView } from "./tradingAccounts.js";
import type { Checked } from "./venueRefusal.js";
import type { ClaimResponseData } from "./wireShapes.js";

export type { ClaimResponseData } from "./wireShapes.js";

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
  readonly #liquidations: Liquidations;
  /** The claim path (claimProcessor.ts); the insurance fund applies its own claims through it too. */
  readonly claimProcessor: ClaimProcessor;
  /** Time a claim holds its id before being decided (read at each claim; tests change it). */
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
    const ttlMs = options.liquidationTtlMs ?? 60_000;
    if (!(ttlMs > 0)) throw new RangeError("liquidationTtlMs must be positive");
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

    const { now, symbols, market, accounts, book, claimLog, prng } = this;
    const emit = (push: SimPush) => this.#emit(push);
    const trading = new Trading({
      symbols,
      market,
      accounts,
      now,
      emit,
      ...(options.takerFeeBps !== undefined ? { takerFeeBps: options.takerFeeBps } : {}),
      ...(options.makerFeeBps !== undefined ? { makerFeeBps: options.makerFeeBps } : {}),
    });
    this.trading = trading;
    const publishMarks = () => this.publishMarks();
    const expired = (liqs: readonly BookedLiquidation[]) => {
      if (this.onExpire !== undefined) for (const liq of liqs) this.onExpire(liq);
    };
    const liquidations = new Liquidations({ now, ttlMs, symbols, market, prng, book, claimLog, emit, publishMarks, expired });
    this.#liquidations = liquidations;
    const processingDelayMs = () => this.claimProcessingDelayMs;
    this.claimProcessor = new ClaimProcessor({
      now,
      symbols,
      market,
      accounts,
      book,
      liquidations,
      claimLog,
      trading,
      emit,
      processingDelayMs,
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

  // ---- liquidations (liquidations.ts) ------------------------------------------------------

  /** Open a liquidation (fees from the symbols) and push it; returns its id. */
  addLiquidation(input: AddLiquidationInput): number {
    return this.addLiquidations([input])[0] as number;
  }

  /** Open several liquidations at once, pushed in one `liquidation` frame as the venue batches them; their ids. */
  addLiquidations(inputs: readonly AddLiquidationInput[]): number[] {
    return this.#liquidations.add(inputs);
  }

  /** A closed liquidation id open again with new quantities (docs/protocol.md §5), pushed as an update. */
  reopenLiquidation(id: number, input: AddLiquidationInput): void {
    this.#liquidations.reopen(id, input);
  }

  /** A random liquidation from the seeded generator. */
  addRandomLiquidation(options: GenerateOptions & { ttlMs?: number } = {}): number {
    return this.#liquidations.addRandom(options);
  }

  /** A burst of `n` liquidations on one side of a few symbols (a price crash), pushed as one frame. */
  cascade(n: number, options: CascadeOptions = {}): number[] {
    return this.#liquidations.cascade(n, options);
  }

  /** Remove an open liquidation by hand (pushed as gone); false if it was not open. */
  removeLiquidation(id: number): boolean {
    return this.#liquidations.remove(id);
  }

  /** Hand expired liquidations to the insurance fund (docs/protocol.md §11) and push their removal. */
  expireDue(): number[] {
    return this.#liquidations.expireDue();
  }

  openLiquidations(): BookedLiquidation[] {
    return this.#liquidations.list();
  }

  // ---- claims (claimProcessor.ts) -----------------------------------------------------------

  /** One claim as the venue processes it (docs/protocol.md §4); every request is logged. */
  submitClaim(
    accountId: string,
    body: unknown,
    receivedAt: number,
    source: ClaimLogEntry["source"] = "rest",
  ): Promise<Checked<ClaimResponseData>> {
    return this.claimProcessor.submit(accountId, body, receivedAt, source);
  }

  /** Record a claim refused before it reached the core (auth, rate limit, faults). */
  logRejectedClaim(accountId: string | undefined, receivedAt: number, code: number, message: string, liquidationId?: number): void {
    this.claimProcessor.logRejected(accountId, receivedAt, code, message, liquidationId);
  }

  /** A competing liquidator claims `ratio` of every remaining symbol, at whatever the mark is. */
  competitorClaim(id: number, ratio = 1, competitor = this.competitorIds[0] as string): Promise<Checked<ClaimResponseData>> {
    return this.claimProcessor.competitorClaim(id, ratio, competitor);
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
    return this.trading.positionsOf(accountId);
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
