/**
 * The simulated venue's order engine (docs/protocol.md §6): orders checked by orderRules.ts, matched
 * at once against the synthetic books (orderBook.ts), the account's books kept by accounting.ts, and
 * the private pushes: `executionreport` per state change and per fill, a `position` delta per symbol
 * that changed, `balance`. Claims move the same books (`onClaim`). **simulator** choices: an order
 * is matched as it is accepted, so its reports go out before the REST answer; a POST_ONLY that would
 * cross is cancelled unfilled; a resting LIMIT fills in full at its own price, as maker, once the mark
 * reaches it; margin (docs/protocol.md §7, margin.ts) is the per-symbol initial margin of the
 * positions held and of the open orders, against the holding plus all unsettled P&L. Positions are
 * per symbol and margin mode (docs/protocol.md §9): an order trades the position of its
 * `margin_mode`; a claim lands in cross unless the `assignIsolated` fault says isolated (claimRules'
 * margin check sees the cross positions only). Each account's books, the margin they hold and their
 * `position` and `balance` pushes are kept by tradingAccounts.ts.
 */

import { applyClaim, applyFill, type SymbolBooks } from "./accounting.js";
import type { Accounts, SimAccount } from "./accounts.js";
import type { Transfer } from "./claimRules.js";
import type { MarketState } from "./marketState.js";
import { type BookSide, defaultBookSpec, SyntheticBook } from "./orderBook.js";
import { OrderFaults } from "./orderFaults.js";
import { checkOrder, type MarginMode, orderFilters, parseOrder } from "./orderRules.js";
import type { SimPush } from "./simPush.js";
import { type ListedSymbols, roundToStep } from "./symbols.js";
import { type AccountTrading, modeBooks, type PositionView, TradingAccounts } from "./tradingAccounts.js";
import { executionReportData, isOpen, newSimOrder, type ReportFill, type SimOrder } from "./tradingShapes.js";
import { type Checked, ok, VenueRefusal } from "./venueRefusal.js";

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
  readonly #accounts: TradingAccounts;
  readonly #books = new Map<string, SyntheticBook>();
  #nextOrderId = 1;
  #nextTradeId = 1;

  constructor(options: TradingOptions) {
    this.#options = options;
    this.takerFeeBps = options.takerFeeBps ?? 5;
    this.makerFeeBps = options.makerFeeBps ?? 2;
    this.faults = new OrderFaults(options.now, (symbol) => this.#books.get(symbol));
    this.#accounts = new TradingAccounts(options);
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
    const t = this.#accounts.of(accountId);
    const parsed = parseOrder(body, { spec: (s) => this.#options.symbols.get(s) });
    if (!parsed.ok) return parsed;
    const checked = checkOrder(parsed.value, {
      spec: (s) => this.#options.symbols.get(s),
      mark: (s) => this.#options.market.mark(s),
      position: (s, mode) => modeBooks(t, mode).get(s)?.qty ?? 0,
      clientIdOpen: (id) => t.openByClientId.has(id),
      marginFor: (symbol, mode, qty) => this.#accounts.marginFor(account, t, symbol, mode, qty),
    });
    if (!checked.ok) return checked;
    const o = checked.value;
    const now = this.#options.now();
    const order = newSimOrder(this.#nextOrderId++, o, now);
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
    const t = this.#accounts.of(accountId);
    const order = t.orders.get(orderId);
    if (order === undefined || order.symbol !== symbol || !isOpen(order))
      return { ok: false, refusal: new VenueRefusal(-1006, `no open order ${orderId}`) };
    this.#close(accountId, t, order, "CANCELLED");
    this.balanceChanged(accountId);
    return ok({ status: "CANCEL_SENT" });
  }

  order(accountId: string, orderId: number): SimOrder | undefined {
    const o = this.#accounts.of(accountId).orders.get(orderId);
    return o === undefined ? undefined : { ...o };
  }

  orderByClientId(accountId: string, clientOrderId: string): SimOrder | undefined {
    const t = this.#accounts.of(accountId);
    const id = t.byClientId.get(clientOrderId);
    return id === undefined ? undefined : this.order(accountId, id);
  }

  /** Every order of the account, newest first. */
  ordersOf(accountId: string): SimOrder[] {
    return [...this.#accounts.of(accountId).orders.values()].reverse().map((o) => ({ ...o }));
  }

  /** The account's books of one margin mode (cross by default), by symbol. */
  booksOf(accountId: string, mode: MarginMode = "CROSS"): Map<string, SymbolBooks> {
    return this.#accounts.booksOf(accountId, mode);
  }

  /** The account's positions: the cross ones, then the isolated ones held or once held. */
  positionsOf(accountId: string): PositionView[] {
    return this.#accounts.positionsOf(accountId);
  }

  /** Margin held by the account's open orders (`frozen`): each order's notional at its symbol's IMR. */
  frozen(accountId: string): number {
    return this.#accounts.frozen(accountId);
  }

  /** Holding + the unsettled P&L of every position (cross and isolated) at the marks: total collateral. */
  totalCollateral(accountId: string): number {
    return this.#accounts.totalCollateral(accountId);
  }

  /** Initial margin of the account's positions of one margin mode, or of both. */
  initialMargin(accountId: string, mode?: MarginMode): number {
    return this.#accounts.initialMargin(accountId, mode);
  }

  /** `balance` on change only (tradingAccounts.ts): a deposit (VenueCore.setCollateral) calls it too. */
  balanceChanged(accountId: string): void {
    this.#accounts.balanceChanged(accountId);
  }

  /** A claim applied: the books move and the positions and balance are pushed. */
  onClaim(account: SimAccount, transfers: readonly Transfer[]): void {
    const t = this.#accounts.of(account.accountId);
    const mode: MarginMode = this.faults.takeIsolatedClaim() ? "ISOLATED" : "CROSS";
    for (const tr of transfers) {
      const books = this.#accounts.symbolBooks(t, tr.symbol, mode);
      applyClaim(books, tr.positionQty, tr.transferPrice, tr.costPositionTransfer, tr.absLiquidatorFee);
      account.collateral += tr.absLiquidatorFee;
    }
    // claimRules moved the cross view of these symbols; an isolated claim leaves it as the books say.
    for (const tr of transfers) this.#accounts.mirror(account, t, tr.symbol);
    this.#accounts.syncPositions(
      account,
      t,
      transfers.map((tr) => ({ symbol: tr.symbol, mode })),
    );
  }

  /** Every position of the account closed at the mark, paying the taker fee; returns how many. */
  closeAtMark(account: SimAccount): number {
    const t = this.#accounts.of(account.accountId);
    const closed: { symbol: string; mode: MarginMode }[] = [];
    for (const mode of ["CROSS", "ISOLATED"] as const) {
      for (const [symbol, b] of modeBooks(t, mode)) {
        const mark = this.#options.market.mark(symbol);
        if (b.qty === 0 || mark === undefined) continue;
        applyFill(b, -b.qty, mark, (Math.abs(b.qty) * mark * this.takerFeeBps) / 1e4);
        closed.push({ symbol, mode });
      }
    }
    if (closed.length > 0) this.#accounts.syncPositions(account, t, closed);
    return closed.length;
  }

  /** A new mark: resting LIMIT orders it reached fill at their own price, as maker. */
  onMark(symbol: string): void {
    const mark = this.#options.market.mark(symbol);
    if (mark === undefined) return;
    for (const [accountId, t] of this.#accounts.entries()) {
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
    const books = this.#accounts.symbolBooks(t, order.symbol, order.margin_mode);
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
    this.#accounts.syncPositions(account, t, [{ symbol: order.symbol, mode: order.margin_mode }]);
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
}
