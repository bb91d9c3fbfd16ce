/**
 * Closes what the claims assign (docs/protocol.md §6): per position — a symbol in one margin mode
 * (docs/protocol.md §9), cross and isolated closed apart, each order carrying its position's
 * `margin_mode` — the net position is closed with reduce-only IOC orders, one in flight at a time, each slice planned on the fresh mark
 * (engine/unwindPlan.ts) and sent through the orders limiter (10/s, its own: a claim never waits
 * for an order). Nothing is sent in dry run, with `unwind.mode: off`, for held symbols, or before
 * the venue has reported the account's positions.
 *
 * What is closed of a position is the core's `target` of it (core/accountWatch.ts): with
 * `unwind.scope: claimed` what is ours, so an operator's own position on the account is left alone;
 * with `all`, the whole position.
 *
 * The trading core (core/ownOrders.ts) journals each order's intent before it is sent, with a client
 * order id deterministic per journal and slice, and books every trade once; this file decides what
 * to send and when. An order whose answer was lost is looked up by that id, never re-sent blindly;
 * after a restart, orders the journal left unsettled are looked up before anything else is sent for
 * their symbol. Refusals by venue code (venue/errors.ts): re-read positions, re-price, retry with
 * backoff, or — for an error that must not happen to a reduce-only order — halt the symbol.
 *
 * Longer than most files: one state machine per position (plan, send, refusals, restart); its
 * transitions are easier to check in one place; how an order whose answer was lost is settled is
 * orderLookupSettlement.ts.
 */

import type { Cancel } from "../../core/corePort.js";
import type { OrderFillRecord, OrderIntentRecord, OrderOutcomeRecord } from "../../core/journalRecords.js";
import type { OwnOrders, Placed } from "../../core/ownOrders.js";
import type { MarkBook } from "../../engine/marks.js";
import type { PositionBook } from "../../engine/positionBook.js";
import type { SymbolTable } from "../../engine/symbolInfo.js";
import { MARGIN_MODES, type MarginMode } from "../../engine/types.js";
import { planUnwind } from "../../engine/unwindPlan.js";
import type { ORDER_RESULTS } from "../../observe/unwindMetrics.js";
import type { OrderApi } from "../../venue/orderApi.js";
import type { OrderRecord } from "../../venue/orderSchemas.js";
import { type ExecutionReport, TERMINAL_STATUSES } from "../../venue/wireOrders.js";
import { type HeldOrder, OrderLookupSettlement } from "./orderLookupSettlement.js";
import { PositionCloses } from "./positionCloses.js";
import type { UnwindSettings } from "./unwindSettings.js";

/** `orders_total{result}` (observe/unwindMetrics.ts): the metric's list is the one source. */
type OrderResultLabel = (typeof ORDER_RESULTS)[number];

interface UnwinderObserver {
  order(result: OrderResultLabel): void;
  timeToFlat(seconds: number): void;
  halted(symbol: string, on: boolean): void;
  /** An order neither its lookup nor the order list could settle: given up, positions re-read (an alert). */
  unsettled(symbol: string): void;
}

export interface UnwinderOptions {
  /** Lookups of an order whose answer or final report did not come. */
  orders: Pick<OrderApi, "orderByClientId" | "ordersOf">;
  /** The core's orders: intent, placement, trades, end (core/ownOrders.ts). */
  own: Pick<OwnOrders, "place" | "outcome" | "trade" | "complete" | "remember" | "nextSeq">;
  positions: PositionBook;
  marks: MarkBook;
  symbols: () => SymbolTable;
  settings: UnwindSettings;
  dryRun: () => boolean;
  /** Whether this replica may send now. */
  mayLead: () => boolean;
  observer: UnwinderObserver;
  logger: {
    debug(o: object, m: string): void;
    info(o: object, m: string): void;
    warn(o: object, m: string): void;
    error(o: object, m: string): void;
  };
  /** The part of a position's held quantity to close (signed like it, no larger): the core's `target`. */
  target: (symbol: string, mode: MarginMode, held: number) => number;
  /** Ask the REST feed for a positions read now (after a refusal that says ours are wrong). */
  requestPositions: () => void;
  /** Read `GET /v1/positions` now and apply it; resolves once applied (an unsettled order is decided on it). */
  readPositions: (signal: AbortSignal) => Promise<void>;
  /** Client order ids are `${prefix}-${seq}` (≤ 36 chars). */
  clientOrderIdPrefix: string;
  now?: () => number;
  /** Run `f` after `ms` (real timers by default; a model in virtual time passes its own). */
  schedule?: (ms: number, f: () => void) => Cancel;
  /** Pause after an order that traded; doubles from `noFillMs` to `maxBackoffMs` after one that did not. */
  afterFillMs?: number;
  noFillMs?: number;
  maxBackoffMs?: number;
  /** An accepted order with no final report this long after its answer is looked up. */
  settleAfterMs?: number;
  /** Between lookups of an order not yet settled, doubling up to 8× (the first of them). */
  lookupRetryMs?: number;
  /** Lookups (each with the order list once the lookup cannot say) before the order is given up. */
  maxSettleRounds?: number;
}

interface SymbolState {
  readonly symbol: string;
  readonly mode: MarginMode;
  order: HeldOrder | undefined;
  busy: boolean;
  timer: Cancel | undefined;
  backoffMs: number;
  halted: boolean;
  /** Local ms since which the position is not flat (time to flat). */
  openSince: number | undefined;
  lastNote: string | undefined;
}

export class Unwinder {
  readonly #options: Required<UnwinderOptions>;
  readonly #states = new Map<string, SymbolState>();
  #seq = 1;
  #stopped = false;
  readonly #inflight = new Set<Promise<void>>();
  readonly #stop = new AbortController();
  readonly #settlement: OrderLookupSettlement;
  /** The info line of each position closed, and of dust (positionCloses.ts). */
  readonly #closes: PositionCloses;

  constructor(options: UnwinderOptions) {
    this.#options = {
      now: Date.now,
      schedule: (ms, f) => {
        const timer = setTimeout(f, ms);
        return () => clearTimeout(timer);
      },
      afterFillMs: 100,
      noFillMs: 500,
      maxBackoffMs: 5_000,
      settleAfterMs: 1_500,
      lookupRetryMs: 1_000,
      maxSettleRounds: 8,
      ...options,
    };
    this.#settlement = new OrderLookupSettlement({
      orders: options.orders,
      readPositions: options.readPositions,
      signal: this.#stop.signal,
      unsettled: (symbol) => this.#options.observer.unsettled(symbol),
      logger: options.logger,
      lookupRetryMs: this.#options.lookupRetryMs,
      maxSettleRounds: this.#options.maxSettleRounds,
    });
    this.#closes = new PositionCloses({
      logger: options.logger,
      priceDecimals: (symbol) => this.#options.symbols().get(symbol)?.priceDecimals,
      qtyDecimals: (symbol) => this.#options.symbols().get(symbol)?.qtyDecimals,
      timeToFlat: (seconds) => this.#options.observer.timeToFlat(seconds),
      now: this.#options.now,
    });
    options.positions.onChange((symbol, qty, before, mode) => this.#onPosition(symbol, mode, qty, before));
  }

  /** An order of ours is working on the position (the core does not call it closed elsewhere meanwhile). */
  working(symbol: string, mode: MarginMode): boolean {
    return this.#states.get(stateKey(symbol, mode))?.order !== undefined;
  }

  /**
   * Take over the journal's orders (at start, or when this replica becomes the leader): continue its
   * order numbers, settle what it left open (`fillsSoFar`: the trades of each the journal already
   * holds, so none is counted twice), then close every position held now.
   */
  takeOver(
    unsettled: readonly OrderIntentRecord[],
    firstSeq: number,
    fillsSoFar: ReadonlyMap<string, readonly OrderFillRecord[]> = new Map(),
  ): void {
    this.#seq = Math.max(this.#seq, firstSeq);
    for (const intent of unsettled) {
      const mode = intent.marginMode ?? "CROSS";
      const st = this.#state(intent.symbol, mode);
      if (st.busy) continue;
      // What the journal already holds of the order's trades: its settlement adds only the rest.
      let filled = 0;
      let notional = 0;
      let fee = 0;
      for (const f of fillsSoFar.get(intent.clientOrderId) ?? []) {
        filled += Math.abs(f.qty);
        notional += Math.abs(f.qty) * f.price;
        fee += f.fee;
        this.#options.own.remember(f.tradeId);
      }
      st.order = {
        clientOrderId: intent.clientOrderId,
        symbol: intent.symbol,
        side: intent.side,
        marginMode: mode,
        mark: intent.mark ?? intent.price,
        filled,
        notional,
        fee,
        orderId: undefined,
        sentAt: intent.at,
        rounds: 0,
      };
      st.busy = true;
      this.#track(st, this.#settle(st));
    }
    this.kickAll();
  }

  /** Re-evaluate every position (positions just became known, dry run switched off, ...). */
  kickAll(): void {
    for (const { symbol, mode } of this.#options.positions.positions()) this.#kick(this.#state(symbol, mode));
  }

  /** Re-evaluate one position (what may be closed of it changed). */
  kick(symbol: string, mode: MarginMode): void {
    this.#kick(this.#state(symbol, mode));
  }

  /**
   * Positions this daemon would still close (not flat, not dust, not halted), or has an order out
   * for; empty when it has nothing left to do. In dry run, with `unwind.mode: off` and for held
   * symbols nothing is closed, so nothing is left to do.
   */
  remaining(): { symbol: string; marginMode: MarginMode; qty: number }[] {
    const { positions, settings, dryRun } = this.#options;
    const out: { symbol: string; marginMode: MarginMode; qty: number }[] = [];
    for (const { symbol, mode } of positions.positions()) {
      const st = this.#state(symbol, mode);
      const qty = this.#toClose(symbol, mode);
      if (st.busy || (qty !== 0 && !st.halted && st.lastNote !== "dust" && settings.unwinds(symbol) && !dryRun()))
        out.push({ symbol, marginMode: mode, qty });
    }
    return out;
  }

  /**
   * Positions with something to close that nothing will look at again: no order out, no wake-up set,
   * no reason noted (a change the unwinder was not told of). Empty unless a kick was missed.
   */
  forgotten(): { symbol: string; marginMode: MarginMode; qty: number }[] {
    const { positions, settings, dryRun, mayLead } = this.#options;
    if (this.#stopped || dryRun() || !positions.known || !mayLead()) return [];
    const out: { symbol: string; marginMode: MarginMode; qty: number }[] = [];
    for (const { symbol, mode } of positions.positions()) {
      const st = this.#state(symbol, mode);
      if (st.busy || st.timer !== undefined || st.halted || st.lastNote !== undefined || !settings.unwinds(symbol)) continue;
      const qty = this.#toClose(symbol, mode);
      if (qty !== 0) out.push({ symbol, marginMode: mode, qty });
    }
    return out;
  }

  /** How long each unwound symbol's position has been open, s (0 when flat or dust; held symbols excluded); the older mode per symbol. */
  openPositions(): { symbol: string; seconds: number }[] {
    const now = this.#options.now();
    const bySymbol = new Map<string, number>();
    for (const st of this.#states.values()) {
      if (!this.#options.settings.unwinds(st.symbol)) continue;
      // A position no claim explains is the operator's: not one being unwound.
      const open = st.openSince !== undefined && st.lastNote !== "dust" && this.#toClose(st.symbol, st.mode) !== 0;
      const seconds = open ? (now - (st.openSince as number)) / 1000 : 0;
      bySymbol.set(st.symbol, Math.max(seconds, bySymbol.get(st.symbol) ?? 0));
    }
    return [...bySymbol].map(([symbol, seconds]) => ({ symbol, seconds }));
  }

  /** The symbols with a position halted by an error that must not happen to a reduce-only order. */
  halted(): string[] {
    return [...new Set([...this.#states.values()].filter((s) => s.halted).map((s) => s.symbol))];
  }

  onExecutionReport(r: ExecutionReport): void {
    for (const mode of MARGIN_MODES) {
      const st = this.#states.get(stateKey(r.symbol, mode));
      const order = st?.order;
      if (st === undefined || order === undefined || (r.clientOrderId !== order.clientOrderId && r.orderId !== order.orderId)) continue;
      if (r.executedQuantity > 0) this.#options.own.trade(order, r.tradeId, r.executedQuantity, r.executedPrice, r.fee, r.timestamp);
      if (TERMINAL_STATUSES.has(r.status)) this.#finish(st, r.status, r.totalExecutedQuantity, r.avgExecutedPrice, r.totalFee, r.timestamp);
      return;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stop.abort();
    for (const st of this.#states.values()) st.timer?.();
    await Promise.allSettled([...this.#inflight]);
  }

  #toClose(symbol: string, mode: MarginMode): number {
    return this.#options.target(symbol, mode, this.#options.positions.held(symbol, mode));
  }

  #state(symbol: string, mode: MarginMode): SymbolState {
    const k = stateKey(symbol, mode);
    let st = this.#states.get(k);
    if (st === undefined) {
      st = {
        symbol,
        mode,
        order: undefined,
        busy: false,
        timer: undefined,
        backoffMs: 0,
        halted: false,
        openSince: undefined,
        lastNote: undefined,
      };
      this.#states.set(k, st);
      // A series per symbol from the first sight of it, so "not halted" is a 0 and not an absence.
      if (mode === "CROSS" || !this.#states.has(stateKey(symbol, "CROSS"))) this.#options.observer.halted(symbol, false);
    }
    return st;
  }

  #onPosition(symbol: string, mode: MarginMode, qty: number, before: number): void {
    const st = this.#state(symbol, mode);
    const now = this.#options.now();
    if (before === 0 && qty !== 0) st.openSince = now;
    if (Math.abs(qty) > Math.abs(before)) this.#closes.opened(symbol, mode);
    if (qty === 0 && st.openSince !== undefined) {
      this.#options.observer.timeToFlat((now - st.openSince) / 1000);
      st.openSince = undefined;
    }
    this.#kick(st);
  }

  #kick(st: SymbolState): void {
    if (this.#stopped || st.busy || st.timer !== undefined || st.halted) return;
    st.timer = this.#options.schedule(0, () => {
      st.timer = undefined;
      this.#track(st, this.#evaluate(st));
    });
  }

  #later(st: SymbolState, ms: number): void {
    st.timer?.();
    st.timer = this.#options.schedule(ms, () => {
      st.timer = undefined;
      this.#track(st, this.#evaluate(st));
    });
  }

  /**
   * A step that throws (a bug, never a venue answer) must not leave the position busy for good: the
   * order in hand is looked up again, or the position planned again, a second later.
   */
  #track(st: SymbolState, p: Promise<void>): void {
    const tracked = p.catch((err: unknown) => {
      this.#options.logger.error({ symbol: st.symbol, marginMode: st.mode, err: (err as Error).message }, "unwinder step failed");
      if (this.#stopped) return;
      if (st.order !== undefined) return this.#settleIn(st, 1_000);
      st.busy = false;
      this.#later(st, 1_000);
    });
    this.#inflight.add(tracked);
    void tracked.finally(() => this.#inflight.delete(tracked));
  }

  /** Tell once per reason why a position is not being closed (dust, no filters, no mark). */
  #note(st: SymbolState, note: string | undefined, extra: object = {}): void {
    if (note !== undefined && st.lastNote !== note) {
      const where = { symbol: st.symbol, marginMode: st.mode, reason: note, ...extra };
      // Dust has its own info line (positionCloses.ts) and gauge (liquidator_dust_notional_quote).
      if (note === "dust") this.#options.logger.debug(where, "position not unwound");
      else this.#options.logger.warn(where, "position not unwound");
    }
    st.lastNote = note;
  }

  async #evaluate(st: SymbolState): Promise<void> {
    const { settings, dryRun, positions, mayLead, symbols, marks, clientOrderIdPrefix, now, logger, observer, own, settleAfterMs } =
      this.#options;
    const { symbol, mode } = st;
    if (this.#stopped || st.busy || st.halted || !settings.unwinds(symbol) || dryRun() || !positions.known || !mayLead()) return;
    const info = symbols().get(symbol);
    // Before the first symbol table there is nothing to say: the load kicks every symbol again.
    if (info === undefined) return symbols().size === 0 ? undefined : this.#note(st, "unknown_symbol");
    const plan = planUnwind(this.#toClose(symbol, mode), marks.price(symbol), info, settings.limitsFor(symbol));
    if (plan.kind === "flat" || plan.kind === "dust")
      this.#closes.settled(symbol, mode, plan.kind === "dust" ? plan.qty : 0, marks.price(symbol));
    if (plan.kind === "flat") return this.#note(st, undefined);
    if (plan.kind === "dust") return this.#note(st, "dust", { qty: plan.qty });
    if (plan.kind === "blocked") return this.#note(st, plan.reason);
    this.#note(st, undefined);
    const seq = Math.max(this.#seq, own.nextSeq());
    this.#seq = seq + 1;
    const clientOrderId = `${clientOrderIdPrefix}-${seq}`;
    const mark = marks.price(symbol) as number;
    st.busy = true;
    // In hand before it can leave: a report of it may come before the answer does.
    const order: HeldOrder = {
      clientOrderId,
      symbol,
      side: plan.side,
      marginMode: mode,
      mark,
      filled: 0,
      notional: 0,
      fee: 0,
      orderId: undefined,
      sentAt: now(),
      rounds: 0,
    };
    st.order = order;
    const intent: OrderIntentRecord = {
      t: "order_intent",
      clientOrderId,
      at: now(),
      symbol,
      side: plan.side,
      orderType: "IOC",
      price: plan.price,
      quantity: plan.qty,
      reduceOnly: true,
      marginMode: mode,
      mark,
      seq,
    };
    const placed = await own.place(
      intent,
      {
        symbol,
        client_order_id: clientOrderId,
        order_type: "IOC",
        side: plan.side,
        order_price: plan.price,
        order_quantity: plan.qty,
        reduce_only: true,
        margin_mode: mode,
      },
      () => observer.order("sent"),
    );
    if (st.order !== order) return; // settled by a report that beat the answer
    if (placed.kind === "not_sent") {
      // No intent (the journal cannot write now, or this replica may not send): nothing left.
      st.order = undefined;
      st.busy = false;
      logger.warn({ symbol, clientOrderId, reason: placed.reason }, "unwind order not sent");
      return this.#later(st, 1_000);
    }
    if (placed.kind === "accepted") {
      order.orderId = placed.orderId;
      this.#outcome({ t: "order_outcome", clientOrderId, at: now(), result: "accepted", orderId: placed.orderId });
      // The final report normally follows at once; without it, the order is looked up.
      return this.#settleIn(st, settleAfterMs);
    }
    this.#refused(st, placed);
  }

  #refused(st: SymbolState, failure: Exclude<Placed, { kind: "accepted" | "not_sent" }>): void {
    const { logger, now, observer, requestPositions, maxBackoffMs, noFillMs } = this.#options;
    const { symbol, mode } = st;
    const order = st.order as HeldOrder;
    if (failure.kind === "unknown") {
      logger.warn({ symbol, marginMode: mode, clientOrderId: order.clientOrderId }, "unwind order outcome unknown; looking it up");
      this.#outcome({ t: "order_outcome", clientOrderId: order.clientOrderId, at: now(), result: "unknown" });
      observer.order("unknown");
      return this.#settleIn(st, 500);
    }
    const { code, action } = failure;
    logger.warn({ symbol, marginMode: mode, clientOrderId: order.clientOrderId, code, action }, "unwind order refused");
    this.#outcome({
      t: "order_outcome",
      clientOrderId: order.clientOrderId,
      at: now(),
      result: "rejected",
      ...(code !== undefined ? { code } : {}),
    });
    observer.order("rejected");
    st.order = undefined;
    st.busy = false;
    switch (action) {
      case "reread_positions":
        requestPositions();
        return this.#later(st, 1_000);
      case "reprice":
        return this.#later(st, 200);
      case "backoff":
        return this.#later(st, 1_000);
      case "halt_symbol":
        st.halted = true;
        observer.halted(symbol, true);
        logger.error(
          { symbol, marginMode: mode, code },
          "a reduce-only order was refused for margin: unwinding of this symbol halted (check the account)",
        );
        return;
      default:
        st.backoffMs = Math.min(maxBackoffMs, Math.max(noFillMs, st.backoffMs * 2));
        return this.#later(st, st.backoffMs);
    }
  }

  /** The order is over: record what the reports missed, then plan the next slice. */
  #finish(st: SymbolState, status: string, totalQty: number, avgPrice: number, totalFee: number, venueTs: number): void {
    const order = st.order;
    if (order === undefined) return;
    st.timer?.();
    st.timer = undefined;
    this.#options.own.complete(order, totalQty, avgPrice, totalFee, venueTs);
    const traded = order.filled;
    this.#closes.traded(st.symbol, st.mode, order.side, traded, order.notional, order.mark);
    const result = status === "REJECTED" ? "rejected" : status === "FILLED" ? "filled" : "cancelled";
    this.#outcome({
      t: "order_outcome",
      clientOrderId: order.clientOrderId,
      at: this.#options.now(),
      result,
      ...(order.orderId !== undefined ? { orderId: order.orderId } : {}),
      filledQty: order.side === "BUY" ? traded : -traded,
      ...(traded > 0 ? { avgPrice: order.notional / traded } : {}),
      fee: order.fee,
      venueTs,
    });
    this.#options.observer.order(status === "FILLED" ? "filled" : traded > 0 ? "partial" : status === "REJECTED" ? "rejected" : "unfilled");
    st.order = undefined;
    st.busy = false;
    // An IOC that found no liquidity: the book needs time to refill; back off, re-price on a fresh mark.
    if (traded > 0) st.backoffMs = 0;
    else st.backoffMs = Math.min(this.#options.maxBackoffMs, Math.max(this.#options.noFillMs, st.backoffMs * 2));
    this.#later(st, traded > 0 ? this.#options.afterFillMs : st.backoffMs);
  }

  /** Settle the order in hand by lookup (orderLookupSettlement.ts), then act on the verdict. */
  async #settle(st: SymbolState): Promise<void> {
    const order = st.order;
    if (order === undefined || this.#stopped) return;
    const verdict = await this.#settlement.settle(order, () => st.order === order);
    if (st.order !== order) return; // settled meanwhile by a report
    switch (verdict.kind) {
      case "final":
        return this.#finishFrom(st, verdict.record);
      case "not_placed":
        return this.#notAccepted(st, order);
      case "again":
        return this.#settleIn(st, verdict.ms);
      case "given_up":
        st.order = undefined;
        st.busy = false;
        return this.#later(st, this.#options.noFillMs);
      case "moot":
        return;
    }
  }

  #finishFrom(st: SymbolState, r: OrderRecord): void {
    (st.order as HeldOrder).orderId = r.order_id;
    this.#finish(
      st,
      r.status,
      r.total_executed_quantity,
      r.average_executed_price ?? 0,
      r.total_fee,
      r.updated_time ?? this.#options.now(),
    );
  }

  #notAccepted(st: SymbolState, order: HeldOrder): void {
    this.#outcome({ t: "order_outcome", clientOrderId: order.clientOrderId, at: this.#options.now(), result: "not_accepted" });
    this.#options.observer.order("not_accepted");
    st.order = undefined;
    st.busy = false;
    this.#later(st, 200);
  }

  #settleIn(st: SymbolState, ms: number): void {
    st.timer?.();
    st.timer = this.#options.schedule(ms, () => {
      st.timer = undefined;
      this.#track(st, this.#settle(st));
    });
  }

  #outcome(record: OrderOutcomeRecord): void {
    this.#options.own.outcome(record);
  }
}

function stateKey(symbol: string, mode: MarginMode): string {
  return mode === "CROSS" ? symbol : `${symbol} ${mode}`;
}
