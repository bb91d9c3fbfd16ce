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
 * Longer than most files: one state machine per position (plan, send, restart); its transitions
 * are easier to check in one place. How an order ends (refusals, the final report, a lost answer
 * settled by lookup) is orderEnds.ts; the options and per-position state are unwinderOptions.ts.
 */

import { type OrderFillRecord, type OrderIntentRecord, unwindIntent } from "../../core/journalRecords.js";
import { MARGIN_MODES, type MarginMode } from "../../engine/types.js";
import { planUnwind } from "../../engine/unwindPlan.js";
import { type ExecutionReport, TERMINAL_STATUSES } from "../../venue/wireOrders.js";
import { OrderEnds } from "./orderEnds.js";
import { type HeldOrder, OrderLookupSettlement } from "./orderLookupSettlement.js";
import { PositionCloses } from "./positionCloses.js";
import type { SymbolState, UnwinderOptions } from "./unwinderOptions.js";

export type { UnwinderOptions } from "./unwinderOptions.js";

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
  readonly #ends: OrderEnds;

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
    this.#ends = new OrderEnds({
      options: this.#options,
      settlement: this.#settlement,
      closes: this.#closes,
      later: (st, ms) => this.#later(st, ms),
      track: (st, p) => this.#track(st, p),
      stopped: () => this.#stopped,
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
      this.#track(st, this.#ends.settle(st));
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
      if (TERMINAL_STATUSES.has(r.status))
        this.#ends.finish(st, r.status, r.totalExecutedQuantity, r.avgExecutedPrice, r.totalFee, r.timestamp);
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
      if (st.order !== undefined) return this.#ends.settleIn(st, 1_000);
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
    const intent = unwindIntent({ clientOrderId, at: now(), symbol, order: plan, marginMode: mode, mark, seq });
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
      this.#ends.outcome({ t: "order_outcome", clientOrderId, at: now(), result: "accepted", orderId: placed.orderId });
      // The final report normally follows at once; without it, the order is looked up.
      return this.#ends.settleIn(st, settleAfterMs);
    }
    this.#ends.refused(st, placed);
  }
}

function stateKey(symbol: string, mode: MarginMode): string {
  return mode === "CROSS" ? symbol : `${symbol} ${mode}`;
}
