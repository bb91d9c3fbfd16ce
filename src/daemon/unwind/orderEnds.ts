/**
 * How an unwind order ends (the unwinder decides what to send and when): a refusal by venue code is
 * acted on (re-read positions, re-price, back off, or halt the symbol), the final report is booked
 * and the next slice planned, an order whose answer or report was lost is settled by lookup
 * (orderLookupSettlement.ts). Its outcomes go to the core (core/ownOrders.ts).
 */
import type { OrderOutcomeRecord } from "../../core/journalRecords.js";
import type { Placed } from "../../core/ownOrders.js";
import type { OrderRecord } from "../../venue/orderSchemas.js";
import type { HeldOrder, OrderLookupSettlement } from "./orderLookupSettlement.js";
import type { PositionCloses } from "./positionCloses.js";
import type { SymbolState, UnwinderOptions } from "./unwinderOptions.js";

/** What the unwinder lends: its options, its settlement and closes, its scheduling. */
export interface OrderEndsContext {
  readonly options: Required<UnwinderOptions>;
  readonly settlement: OrderLookupSettlement;
  readonly closes: PositionCloses;
  later(st: SymbolState, ms: number): void;
  track(st: SymbolState, p: Promise<void>): void;
  stopped(): boolean;
}

export class OrderEnds {
  readonly #c: OrderEndsContext;

  constructor(c: OrderEndsContext) {
    this.#c = c;
  }

  refused(st: SymbolState, failure: Exclude<Placed, { kind: "accepted" | "not_sent" }>): void {
    const { logger, now, observer, requestPositions, maxBackoffMs, noFillMs } = this.#c.options;
    const { symbol, mode } = st;
    const order = st.order as HeldOrder;
    if (failure.kind === "unknown") {
      logger.warn({ symbol, marginMode: mode, clientOrderId: order.clientOrderId }, "unwind order outcome unknown; looking it up");
      this.outcome({ t: "order_outcome", clientOrderId: order.clientOrderId, at: now(), result: "unknown" });
      observer.order("unknown");
      return this.settleIn(st, 500);
    }
    const { code, action } = failure;
    logger.warn({ symbol, marginMode: mode, clientOrderId: order.clientOrderId, code, action }, "unwind order refused");
    this.outcome({
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
        return this.#c.later(st, 1_000);
      case "reprice":
        return this.#c.later(st, 200);
      case "backoff":
        return this.#c.later(st, 1_000);
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
        return this.#c.later(st, st.backoffMs);
    }
  }

  /** The order is over: record what the reports missed, then plan the next slice. */
  finish(st: SymbolState, status: string, totalQty: number, avgPrice: number, totalFee: number, venueTs: number): void {
    const order = st.order;
    if (order === undefined) return;
    st.timer?.();
    st.timer = undefined;
    this.#c.options.own.complete(order, totalQty, avgPrice, totalFee, venueTs);
    const traded = order.filled;
    this.#c.closes.traded(st.symbol, st.mode, order.side, traded, order.notional, order.mark);
    const result = status === "REJECTED" ? "rejected" : status === "FILLED" ? "filled" : "cancelled";
    this.outcome({
      t: "order_outcome",
      clientOrderId: order.clientOrderId,
      at: this.#c.options.now(),
      result,
      ...(order.orderId !== undefined ? { orderId: order.orderId } : {}),
      filledQty: order.side === "BUY" ? traded : -traded,
      ...(traded > 0 ? { avgPrice: order.notional / traded } : {}),
      fee: order.fee,
      venueTs,
    });
    this.#c.options.observer.order(
      status === "FILLED" ? "filled" : traded > 0 ? "partial" : status === "REJECTED" ? "rejected" : "unfilled",
    );
    st.order = undefined;
    st.busy = false;
    // An IOC that found no liquidity: the book needs time to refill; back off, re-price on a fresh mark.
    if (traded > 0) st.backoffMs = 0;
    else st.backoffMs = Math.min(this.#c.options.maxBackoffMs, Math.max(this.#c.options.noFillMs, st.backoffMs * 2));
    this.#c.later(st, traded > 0 ? this.#c.options.afterFillMs : st.backoffMs);
  }

  /** Settle the order in hand by lookup (orderLookupSettlement.ts), then act on the verdict. */
  async settle(st: SymbolState): Promise<void> {
    const order = st.order;
    if (order === undefined || this.#c.stopped()) return;
    const verdict = await this.#c.settlement.settle(order, () => st.order === order);
    if (st.order !== order) return; // settled meanwhile by a report
    switch (verdict.kind) {
      case "final":
        return this.#finishFrom(st, verdict.record);
      case "not_placed":
        return this.#notAccepted(st, order);
      case "again":
        return this.settleIn(st, verdict.ms);
      case "given_up":
        st.order = undefined;
        st.busy = false;
        return this.#c.later(st, this.#c.options.noFillMs);
      case "moot":
        return;
    }
  }

  #finishFrom(st: SymbolState, r: OrderRecord): void {
    (st.order as HeldOrder).orderId = r.order_id;
    this.finish(
      st,
      r.status,
      r.total_executed_quantity,
      r.average_executed_price ?? 0,
      r.total_fee,
      r.updated_time ?? this.#c.options.now(),
    );
  }

  #notAccepted(st: SymbolState, order: HeldOrder): void {
    this.outcome({ t: "order_outcome", clientOrderId: order.clientOrderId, at: this.#c.options.now(), result: "not_accepted" });
    this.#c.options.observer.order("not_accepted");
    st.order = undefined;
    st.busy = false;
    this.#c.later(st, 200);
  }

  settleIn(st: SymbolState, ms: number): void {
    st.timer?.();
    st.timer = this.#c.options.schedule(ms, () => {
      st.timer = undefined;
      this.#c.track(st, this.settle(st));
    });
  }

  outcome(record: OrderOutcomeRecord): void {
    this.#c.options.own.outcome(record);
  }
}
