/**
 * The simulated venue's order engine (docs/protocol.md §6): orders checked by orderRules.ts, matched at
 * once against the synthetic books (orderBook.ts), the account's books kept by accounting.ts, and
 * the private pushes: `executionreport` per state change and per fill, a `position` delta per symbol
 * that changed, `balance`. Claims move the same books (`onClaim`). **simulator** choices: an order is
 * matched as it is accepted, so its reports go out before the REST answer; a POST_ONLY that would
 * cross is cancelled unfilled; a resting LIMIT fills in full at its own price, as maker, once the
 * mark reaches it; margin (docs/protocol.md §7, margin.ts) is the per-symbol initial margin of the
 * positions held and of the open orders, against the holding plus all unsettled P&L. Positions are per symbol and margin mode (docs/protocol.md §9): an order trades
 * the position of its `margin_mode`; a claim lands in cross unless the `assignIsolated` fault says
 * isolated (claimRules' margin check sees the cross positions only).
 *
 * Longer than most files: the order engine's steps (check, match, fill, close, report) share the account's books.
 */

import { applyClaim, applyFill, emptyBooks, type SymbolBooks, unsettledPnl } from "./accounting.js";
import type { Accounts, SimAccount } from "./accounts.js";
import type { Transfer } from "./claimRules.js";
import { accountMargin, growsPastMaxNotional, leverageOf } from "./leverage.js";
import { initialMarginOfHeld, marginOf, positionInitialMargin, uniformMargin } from "./margin.js";
import type { MarketState } from "./marketState.js";
import { type BookSide, defaultBookSpec, SyntheticBook } from "./orderBook.js";
import { OrderFaults } from "./orderFaults.js";
import { checkOrder, type MarginMode, orderFilters, parseOrder } from "./orderRules.js";
import type { SimPush } from "./simPush.js";
import { type ListedSymbols, roundToStep } from "./symbols.js";
import { executionReportData, isOpen, positionRow, type ReportFill, type SimOrder } from "./tradingShapes.js";
import { type Checked, ok, VenueRefusal } from "./venueRefusal.js";

interface AccountTrading {
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

export interface TradingOptions {
  symbols: ListedSymbols;
  market: MarketState;
  accounts: Accounts;
  now: () => number;
  emit: (push: SimPush) => void;
  takerFeeBps?: number;
  makerFeeBps?: number;
}

export class Trading {
  readonly faults: OrderFaults;
  takerFeeBps: number;
  makerFeeBps: number;
  readonly #options: TradingOptions;
  readonly #accounts = new Map<string, AccountTrading>();
  readonly #books = new Map<string, SyntheticBook>();
  #nextOrderId = 1;
  #nextTradeId = 1;

  constructor(options: TradingOptions) {
    this.#options = options;
    this.takerFeeBps = options.takerFeeBps ?? 5;
    this.makerFeeBps = options.makerFeeBps ?? 2;
    this.faults = new OrderFaults(options.now, (symbol) => this.#books.get(symbol));
    for (const s of options.symbols.all())
      this.#books.set(s.symbol, new SyntheticBook(s.book ?? defaultBookSpec(s.symbol, s.tier), s.baseTick, options.now()));
  }

  book(symbol: string): SyntheticBook | undefined {
    return this.#books.get(symbol);
  }

  /** POST /v1/order. */
  place(
    accountId: string,
    body: unknown,
  ): Checked<{ order_id: number; client_order_id: string | null; order_type: string; order_price: number | null; order_quantity: number }> {
    const refused = this.faults.takeRefusal();
    if (refused !== undefined) return { ok: false, refusal: new VenueRefusal(refused, "fault injected") };
    const account = this.#options.accounts.get(accountId) as SimAccount;
    const t = this.#trading(accountId);
    const parsed = parseOrder(body, { spec: (s) => this.#options.symbols.get(s) });
    if (!parsed.ok) return parsed;
    const checked = checkOrder(parsed.value, {
      spec: (s) => this.#options.symbols.get(s),
      mark: (s) => this.#options.market.mark(s),
      position: (s, mode) => modeBooks(t, mode).get(s)?.qty ?? 0,
      clientIdOpen: (id) => t.openByClientId.has(id),
      marginFor: (symbol, mode, qty) => this.#marginFor(account, t, symbol, mode, qty),
    });
    if (!checked.ok) return checked;
    const o = checked.value;
    const now = this.#options.now();
    const order: SimOrder = {
      order_id: this.#nextOrderId++,
      client_order_id: o.clientOrderId ?? null,
      symbol: o.symbol,
      side: o.side,
      type: o.type,
      price: o.price ?? null,
      quantity: o.qty,
      total_executed_quantity: 0,
      average_executed_price: 0,
      total_fee: 0,
      fee_asset: "USDC",
      status: "NEW",
      reduce_only: o.reduceOnly,
      margin_mode: o.marginMode,
      created_time: now,
      updated_time: now,
      realized_pnl: 0,
    };
    t.orders.set(order.order_id, order);
    t.open.add(order);
    if (o.clientOrderId !== undefined) {
      t.openByClientId.set(o.clientOrderId, order.order_id);
      t.byClientId.set(o.clientOrderId, order.order_id);
    }
    this.#report(accountId, order, undefined);
    this.#match(account, t, order, o.slippage);
    this.balanceChanged(accountId);
    return ok({
      order_id: order.order_id,
      client_order_id: order.client_order_id,
      order_type: order.type,
      order_price: order.price,
      order_quantity: order.quantity,
    });
  }

  /** DELETE /v1/order: -1006 unless the order is open. */
  cancel(accountId: string, orderId: number, symbol: string): Checked<{ status: "CANCEL_SENT" }> {
    const t = this.#trading(accountId);
    const order = t.orders.get(orderId);
    if (order === undefined || order.symbol !== symbol || !isOpen(order))
      return { ok: false, refusal: new VenueRefusal(-1006, `no open order ${orderId}`) };
    this.#close(accountId, t, order, "CANCELLED");
    this.balanceChanged(accountId);
    return ok({ status: "CANCEL_SENT" });
  }

  order(accountId: string, orderId: number): SimOrder | undefined {
    const o = this.#trading(accountId).orders.get(orderId);
    return o === undefined ? undefined : { ...o };
  }

  orderByClientId(accountId: string, clientOrderId: string): SimOrder | undefined {
    const t = this.#trading(accountId);
    const id = t.byClientId.get(clientOrderId);
    return id === undefined ? undefined : this.order(accountId, id);
  }

  /** Every order of the account, newest first. */
  ordersOf(accountId: string): SimOrder[] {
    return [...this.#trading(accountId).orders.values()].reverse().map((o) => ({ ...o }));
  }

  /** The account's books of one margin mode (cross by default), by symbol. */
  booksOf(accountId: string, mode: MarginMode = "CROSS"): Map<string, SymbolBooks> {
    return new Map([...modeBooks(this.#trading(accountId), mode)].map(([s, b]) => [s, { ...b }]));
  }

  /** Margin held by the account's open orders (`frozen`): each order's notional at its symbol's IMR. */
  frozen(accountId: string): number {
    const account = this.#options.accounts.get(accountId);
    const margin = account === undefined ? uniformMargin(10) : accountMargin(account);
    let sum = 0;
    for (const o of this.#trading(accountId).open) {
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
    const t = this.#trading(accountId);
    let total = account.collateral;
    for (const books of [t.books, t.isolated])
      for (const [symbol, b] of books) total += unsettledPnl(b, this.#options.market.mark(symbol) ?? b.averageOpenPrice);
    return total;
  }

  /** Initial margin of the account's positions of one margin mode, or of both. */
  initialMargin(accountId: string, mode?: MarginMode): number {
    const account = this.#options.accounts.get(accountId);
    if (account === undefined) return 0;
    const t = this.#trading(accountId);
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

  /** A claim applied: the books move and the positions and balance are pushed. */
  onClaim(account: SimAccount, transfers: readonly Transfer[]): void {
    const t = this.#trading(account.accountId);
    const mode: MarginMode = this.faults.takeIsolatedClaim() ? "ISOLATED" : "CROSS";
    for (const tr of transfers) {
      applyClaim(this.#booksOf(t, tr.symbol, mode), tr.positionQty, tr.transferPrice, tr.costPositionTransfer, tr.absLiquidatorFee);
      account.collateral += tr.absLiquidatorFee;
    }
    // claimRules moved the cross view of these symbols; an isolated claim leaves it as the books say.
    for (const tr of transfers) this.#mirror(account, t, tr.symbol);
    this.#syncPositions(
      account,
      t,
      transfers.map((tr) => ({ symbol: tr.symbol, mode })),
    );
  }

  /** Every position of the account closed at the mark, paying the taker fee; returns how many. */
  closeAtMark(account: SimAccount): number {
    const t = this.#trading(account.accountId);
    const closed: { symbol: string; mode: MarginMode }[] = [];
    for (const mode of ["CROSS", "ISOLATED"] as const) {
      for (const [symbol, b] of modeBooks(t, mode)) {
        const mark = this.#options.market.mark(symbol);
        if (b.qty === 0 || mark === undefined) continue;
        applyFill(b, -b.qty, mark, (Math.abs(b.qty) * mark * this.takerFeeBps) / 1e4);
        closed.push({ symbol, mode });
      }
    }
    if (closed.length > 0) this.#syncPositions(account, t, closed);
    return closed.length;
  }

  /** A new mark: resting LIMIT orders it reached fill at their own price, as maker. */
  onMark(symbol: string): void {
    const mark = this.#options.market.mark(symbol);
    if (mark === undefined) return;
    for (const [accountId, t] of this.#accounts) {
      for (const order of [...t.open]) {
        if (order.symbol !== symbol || !isOpen(order) || order.price === null) continue;
        if (order.side === "BUY" ? mark > order.price : mark < order.price) continue;
        const account = this.#options.accounts.get(accountId) as SimAccount;
        const left = this.#fillable(t, order, order.quantity - order.total_executed_quantity);
        if (left > 0) this.#fill(account, t, order, [{ price: order.price, qty: left }], this.makerFeeBps);
        this.#close(accountId, t, order, order.total_executed_quantity >= order.quantity - 1e-12 ? "FILLED" : "CANCELLED");
        this.balanceChanged(accountId);
      }
    }
  }

  #match(account: SimAccount, t: AccountTrading, order: SimOrder, slippage: number | undefined): void {
    const mark = this.#options.market.mark(order.symbol) as number;
    const spec = this.#options.symbols.get(order.symbol);
    const book = this.#books.get(order.symbol);
    if (spec === undefined || book === undefined) return;
    const step = spec.qtyStep;
    const side: BookSide = order.side === "BUY" ? "asks" : "bids";
    const range = orderFilters(spec).priceRange;
    const limit =
      order.type === "MARKET"
        ? mark * (order.side === "BUY" ? 1 + Math.min(range, slippage ?? range) : 1 - Math.min(range, slippage ?? range))
        : (order.price as number);
    // A reduce-only order is cut to the position first; FOK's all-or-nothing applies to what is left.
    const wanted = this.#fillable(t, order, order.quantity);
    const qty = roundToStep(Math.floor((wanted * this.faults.fillFraction(order.symbol)) / step + 1e-9) * step, step);
    const now = this.#options.now();
    if (order.type === "POST_ONLY") {
      const best = book.levels(side, mark, now)[0]?.price;
      if (best !== undefined && (order.side === "BUY" ? limit >= best : limit <= best))
        return this.#close(account.accountId, t, order, "CANCELLED");
      return; // rests
    }
    if (order.type === "FOK") {
      const available = book
        .levels(side, mark, now)
        .filter((l) => (order.side === "BUY" ? l.price <= limit : l.price >= limit))
        .reduce((a, l) => a + l.quantity, 0);
      if (!(wanted > 0) || available + 1e-12 < wanted || qty + 1e-12 < wanted) return this.#close(account.accountId, t, order, "CANCELLED");
    }
    const fills = qty > 0 ? book.take(side, limit, qty, mark, now, step) : [];
    if (fills.length > 0) this.#fill(account, t, order, fills, this.takerFeeBps);
    const done = order.total_executed_quantity >= order.quantity - 1e-12;
    if (done) return this.#close(account.accountId, t, order, "FILLED");
    if (order.type === "LIMIT" && !(order.reduce_only && (modeBooks(t, order.margin_mode).get(order.symbol)?.qty ?? 0) === 0)) return; // the rest rests
    this.#close(account.accountId, t, order, "CANCELLED");
  }

  /** What `order` may still trade: a reduce-only order never beyond the position. */
  #fillable(t: AccountTrading, order: SimOrder, qty: number): number {
    if (!order.reduce_only) return qty;
    const held = modeBooks(t, order.margin_mode).get(order.symbol)?.qty ?? 0;
    if (held === 0 || (order.side === "BUY") === held > 0) return 0;
    return Math.min(qty, Math.abs(held));
  }

  #fill(account: SimAccount, t: AccountTrading, order: SimOrder, fills: readonly { price: number; qty: number }[], feeBps: number): void {
    const books = this.#booksOf(t, order.symbol, order.margin_mode);
    for (const f of fills) {
      const fee = (f.qty * f.price * feeBps) / 1e4;
      const signed = order.side === "BUY" ? f.qty : -f.qty;
      // The fee is in cost_position (§6), so it reaches the holding through the P&L when settled.
      order.realized_pnl += applyFill(books, signed, f.price, fee);
      const total = order.total_executed_quantity + f.qty;
      order.average_executed_price = (order.average_executed_price * order.total_executed_quantity + f.price * f.qty) / total;
      order.total_executed_quantity = roundToStep(total, this.#options.symbols.get(order.symbol)?.qtyStep ?? 1e-9);
      order.total_fee += fee;
      order.status = order.total_executed_quantity >= order.quantity - 1e-12 ? "FILLED" : "PARTIAL_FILLED";
      order.updated_time = this.#options.now();
      this.#report(account.accountId, order, { tradeId: this.#nextTradeId++, price: f.price, qty: f.qty, fee });
    }
    this.#syncPositions(account, t, [{ symbol: order.symbol, mode: order.margin_mode }]);
  }

  /** Ends an order; a status-only report only when the status changes (a last fill already said FILLED). */
  #close(accountId: string, t: AccountTrading, order: SimOrder, status: "FILLED" | "CANCELLED"): void {
    const changed = order.status !== status;
    order.status = status;
    if (order.client_order_id !== null) t.openByClientId.delete(order.client_order_id);
    t.open.delete(order);
    if (!changed) return;
    order.updated_time = this.#options.now();
    this.#report(accountId, order, undefined);
  }

  #report(accountId: string, o: SimOrder, fill: ReportFill | undefined): void {
    this.#options.emit({ scope: "private", accountId, topic: "executionreport", data: executionReportData(o, fill) });
  }

  /** Mirror the books into the account's positions (what claims and margin read) and push the deltas, one row per position. */
  #syncPositions(account: SimAccount, t: AccountTrading, positions: readonly { symbol: string; mode: MarginMode }[]): void {
    const now = this.#options.now();
    const unique = new Map(positions.map((p) => [`${p.symbol} ${p.mode}`, p]));
    const rows = [...unique.values()].map(({ symbol, mode }) => {
      const b = this.#booksOf(t, symbol, mode);
      if (mode === "CROSS") this.#mirror(account, t, symbol);
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
    const t = this.#trading(accountId);
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

  /**
   * docs/protocol.md §7: whether the account carries `qty` (signed) more of `symbol` in `mode`: the
   * initial margin of everything held after it, open orders included, within the total collateral.
   */
  #marginFor(account: SimAccount, t: AccountTrading, symbol: string, mode: MarginMode, qty: number): boolean {
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

  #booksOf(t: AccountTrading, symbol: string, mode: MarginMode): SymbolBooks {
    const books = modeBooks(t, mode);
    let b = books.get(symbol);
    if (b === undefined) {
      b = emptyBooks();
      books.set(symbol, b);
    }
    return b;
  }

  /** The account's cross position of `symbol` as its books say (what claims read). */
  #mirror(account: SimAccount, t: AccountTrading, symbol: string): void {
    const b = t.books.get(symbol);
    if (b === undefined) account.positions.delete(symbol);
    else account.positions.set(symbol, { qty: b.qty, averageOpenPrice: b.averageOpenPrice });
  }

  #trading(accountId: string): AccountTrading {
    let t = this.#accounts.get(accountId);
    if (t === undefined) {
      t = { books: new Map(), isolated: new Map(), orders: new Map(), openByClientId: new Map(), byClientId: new Map(), open: new Set() };
      this.#accounts.set(accountId, t);
    }
    return t;
  }
}

function modeBooks(t: AccountTrading, mode: MarginMode): Map<string, SymbolBooks> {
  return mode === "ISOLATED" ? t.isolated : t.books;
}
