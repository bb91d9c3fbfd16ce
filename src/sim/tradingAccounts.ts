/**
 * Each account's side of the simulated venue's trading (docs/protocol.md §6, §7, §9): its books per
 * symbol and margin mode, its orders, the margin they hold against its total collateral, and the
 * `position` and `balance` pushes that show them. The order engine (trading.ts) moves the books;
 * this keeps them, mirrors the cross ones into the account's positions (what claims read) and says
 * what they hold.
 */
import { emptyBooks, type SymbolBooks, unsettledPnl } from "./accounting.js";
import type { Accounts, SimAccount } from "./accounts.js";
import type { HeldPosition } from "./claimRules.js";
import { accountMargin, growsPastMaxNotional, leverageOf } from "./leverage.js";
import { initialMarginOfHeld, marginOf, positionInitialMargin, uniformMargin } from "./margin.js";
import type { MarketState } from "./marketState.js";
import type { MarginMode } from "./orderRules.js";
import type { SimPush } from "./simPush.js";
import type { ListedSymbols } from "./symbols.js";
import { isOpen, positionRow, type SimOrder } from "./tradingShapes.js";

export interface AccountTrading {
  /** Cross positions by symbol. */
  books: Map<string, SymbolBooks>;
  /** Isolated positions by symbol. */
  isolated: Map<string, SymbolBooks>;
  orders: Map<number, SimOrder>;
  /** Open orders by client id (unique among open orders only). */
  openByClientId: Map<string, number>;
  /** The open orders (NEW or PARTIAL_FILLED): what a mark move and `frozen` look at. */
  open: Set<SimOrder>;
  byClientId: Map<string, number>;
  lastBalance?: { holding: number; frozen: number };
}

/** One position as VenueCore.positionsOf lists it. */
export interface PositionView extends HeldPosition {
  symbol: string;
  marginMode: "CROSS" | "ISOLATED";
  markPrice: number;
}

export interface TradingAccountsOptions {
  symbols: ListedSymbols;
  market: MarketState;
  accounts: Accounts;
  now: () => number;
  emit: (push: SimPush) => void;
}

export class TradingAccounts {
  readonly #options: TradingAccountsOptions;
  readonly #accounts = new Map<string, AccountTrading>();

  constructor(options: TradingAccountsOptions) {
    this.#options = options;
  }

  /** The account's trading state, created empty on first use. */
  of(accountId: string): AccountTrading {
    let t = this.#accounts.get(accountId);
    if (t === undefined) {
      t = { books: new Map(), isolated: new Map(), orders: new Map(), openByClientId: new Map(), byClientId: new Map(), open: new Set() };
      this.#accounts.set(accountId, t);
    }
    return t;
  }

  /** Every account that has traded (or been asked about), in first-use order. */
  entries(): IterableIterator<[string, AccountTrading]> {
    return this.#accounts.entries();
  }

  /** A copy of the account's books of one margin mode (cross by default), by symbol. */
  booksOf(accountId: string, mode: MarginMode = "CROSS"): Map<string, SymbolBooks> {
    return new Map([...modeBooks(this.of(accountId), mode)].map(([s, b]) => [s, { ...b }]));
  }

  /** The account's positions: the cross ones, then the isolated ones held or once held. */
  positionsOf(accountId: string): PositionView[] {
    const account = this.#options.accounts.get(accountId);
    if (account === undefined) return [];
    const { market } = this.#options;
    const cross = [...account.positions].map(([symbol, p]) => ({
      symbol,
      ...p,
      marginMode: "CROSS" as const,
      markPrice: market.mark(symbol) ?? p.averageOpenPrice,
    }));
    const isolated = [...this.booksOf(accountId, "ISOLATED")].map(([symbol, b]) => ({
      symbol,
      qty: b.qty,
      averageOpenPrice: b.averageOpenPrice,
      marginMode: "ISOLATED" as const,
      markPrice: market.mark(symbol) ?? b.averageOpenPrice,
    }));
    return [...cross, ...isolated];
  }

  /** The live books of one symbol and margin mode, created empty on first use. */
  symbolBooks(t: AccountTrading, symbol: string, mode: MarginMode): SymbolBooks {
    const books = modeBooks(t, mode);
    let b = books.get(symbol);
    if (b === undefined) {
      b = emptyBooks();
      books.set(symbol, b);
    }
    return b;
  }

  /** Margin held by the account's open orders (`frozen`): each order's notional at its symbol's IMR. */
  frozen(accountId: string): number {
    const account = this.#options.accounts.get(accountId);
    const margin = account === undefined ? uniformMargin(10) : accountMargin(account);
    let sum = 0;
    for (const o of this.of(accountId).open) {
      if (!isOpen(o)) continue;
      const spec = this.#options.symbols.get(o.symbol);
      const notional = (o.quantity - o.total_executed_quantity) * (o.price ?? 0);
      sum += spec === undefined ? notional : positionInitialMargin(marginOf(spec, margin), notional, margin.leverage(o.symbol));
    }
    return sum;
  }

  /** Holding + the unsettled P&L of every position (cross and isolated) at the marks: total collateral. */
  totalCollateral(accountId: string): number {
    const account = this.#options.accounts.get(accountId);
    if (account === undefined) return 0;
    const t = this.of(accountId);
    let total = account.collateral;
    for (const books of [t.books, t.isolated])
      for (const [symbol, b] of books) total += unsettledPnl(b, this.#options.market.mark(symbol) ?? b.averageOpenPrice);
    return total;
  }

  /** Initial margin of the account's positions of one margin mode, or of both. */
  initialMargin(accountId: string, mode?: MarginMode): number {
    const account = this.#options.accounts.get(accountId);
    if (account === undefined) return 0;
    const t = this.of(accountId);
    const held: { symbol: string; qty: number }[] = [];
    for (const m of mode === undefined ? (["CROSS", "ISOLATED"] as const) : [mode])
      for (const [symbol, b] of modeBooks(t, m)) held.push({ symbol, qty: b.qty });
    return initialMarginOfHeld(
      held,
      (s) => this.#options.symbols.get(s),
      (s) => this.#options.market.mark(s),
      accountMargin(account),
    );
  }

  /**
   * docs/protocol.md §7: whether the account carries `qty` (signed) more of `symbol` in `mode`: the
   * initial margin of everything held after it, open orders included, within the total collateral.
   */
  marginFor(account: SimAccount, t: AccountTrading, symbol: string, mode: MarginMode, qty: number): boolean {
    const held: { symbol: string; qty: number }[] = [];
    for (const m of ["CROSS", "ISOLATED"] as const)
      for (const [s, b] of modeBooks(t, m)) held.push({ symbol: s, qty: s === symbol && m === mode ? b.qty + qty : b.qty });
    if (!held.some((h) => h.symbol === symbol)) held.push({ symbol, qty });
    const required =
      initialMarginOfHeld(
        held,
        (s) => this.#options.symbols.get(s),
        (s) => this.#options.market.mark(s),
        accountMargin(account),
      ) + this.frozen(account.accountId);
    const before = modeBooks(t, mode).get(symbol)?.qty ?? 0;
    if (growsPastMaxNotional(account, symbol, before, before + qty, this.#options.market.mark(symbol))) return false;
    return required <= this.totalCollateral(account.accountId);
  }

  /** The account's cross position of `symbol` as its books say (what claims read). */
  mirror(account: SimAccount, t: AccountTrading, symbol: string): void {
    const b = t.books.get(symbol);
    if (b === undefined) account.positions.delete(symbol);
    else account.positions.set(symbol, { qty: b.qty, averageOpenPrice: b.averageOpenPrice });
  }

  /** Mirror the books into the account's positions (what claims and margin read) and push the deltas, one row per position. */
  syncPositions(account: SimAccount, t: AccountTrading, positions: readonly { symbol: string; mode: MarginMode }[]): void {
    const now = this.#options.now();
    const unique = new Map(positions.map((p) => [`${p.symbol} ${p.mode}`, p]));
    const rows = [...unique.values()].map(({ symbol, mode }) => {
      const b = this.symbolBooks(t, symbol, mode);
      if (mode === "CROSS") this.mirror(account, t, symbol);
      return positionRow(symbol, mode, b, this.#options.market.mark(symbol) ?? b.averageOpenPrice, now, leverageOf(account, symbol));
    });
    this.#options.emit({ scope: "private", accountId: account.accountId, topic: "position", data: { positions: rows } });
    this.balanceChanged(account.accountId);
  }

  /**
   * `balance` on change only: a claim's fee credit, the margin an open order holds, a deposit
   * (VenueCore.setCollateral). Every change of holding or frozen comes through here, so the last
   * push is what the account shows.
   */
  balanceChanged(accountId: string): void {
    const account = this.#options.accounts.get(accountId);
    if (account === undefined) return;
    const t = this.of(accountId);
    const frozen = this.frozen(account.accountId);
    if (t.lastBalance?.holding === account.collateral && t.lastBalance.frozen === frozen) return;
    t.lastBalance = { holding: account.collateral, frozen };
    this.#options.emit({
      scope: "private",
      accountId: account.accountId,
      topic: "balance",
      data: { balances: { USDC: { holding: account.collateral, frozen, pendingShortQty: 0, pendingLongQty: 0 } } },
    });
  }
}

/** The account's books of one margin mode. */
export function modeBooks(t: AccountTrading, mode: MarginMode): Map<string, SymbolBooks> {
  return mode === "ISOLATED" ? t.isolated : t.books;
}
