/**
 * Our own orders (the unwinds): the intent durable before an order leaves, the answer, each trade and
 * the end — as records applied to the core's state once, when they are made (what is ours, the P&L
 * lots), and journaled in order behind them. Trades come from `executionreport` pushes or, when the
 * private stream missed them, from the order's totals (its lookup): the missing quantity becomes one
 * trade at the price that makes the order's average right. Each trade is counted once, whichever way
 * it came. The unwinder decides what to send and when; this is where sending it and what it did live.
 */
import type { MarginMode } from "../engine/types.js";
import type { OrderFailureAction } from "../venue/errors.js";
import type { OrderRequest } from "../venue/orderSchemas.js";
import type { CoreContext } from "./coreContext.js";
import type { OrderIntentRecord, OrderOutcomeRecord } from "./journalRecords.js";
import { placementFailure } from "./placementFailure.js";

/** What the core keeps of one order while it works. */
export interface WorkingOrder {
  clientOrderId: string;
  symbol: string;
  side: "BUY" | "SELL";
  marginMode: MarginMode;
  /** The mark the order was priced on. */
  mark: number;
  /** Absolute quantity and Σ qty × price of the trades recorded so far. */
  filled: number;
  notional: number;
  fee: number;
}

export type Placed =
  | { kind: "accepted"; orderId: number }
  /** May have reached the venue: look it up, never resend blindly. */
  | { kind: "unknown" }
  | { kind: "refused"; code: number | undefined; action: OrderFailureAction }
  /** Nothing left: the intent could not be written, or this replica may not send. */
  | { kind: "not_sent"; reason: string };

/** Trade ids remembered to drop duplicates (a report replayed across a reconnect). */
const SEEN_TRADES = 10_000;

export class OwnOrders {
  readonly #c: CoreContext;
  readonly #seen = new Set<string>();

  constructor(c: CoreContext) {
    this.#c = c;
  }

  /** The next order number of this journal (client order ids are `${prefix}-${seq}`). */
  nextSeq(): number {
    return this.#c.fold.orderSeq + 1;
  }

  /** Journal the intent, then place the order (`sending`: told as it leaves); the answer as the unwinder acts on it. */
  async place(intent: OrderIntentRecord, body: OrderRequest, sending?: () => void): Promise<Placed> {
    const { port, fold, outbox } = this.#c;
    // An intent follows every record before it: none is written while older ones wait for the disk.
    if (!outbox.flush()) return { kind: "not_sent", reason: "journal" };
    try {
      const written = port.intent(intent);
      if (written instanceof Promise) await written;
    } catch (err) {
      return { kind: "not_sent", reason: (err as Error).message };
    }
    fold.add(intent);
    if (!port.mayLead()) {
      this.outcome({ t: "order_outcome", clientOrderId: intent.clientOrderId, at: port.now(), result: "not_accepted" });
      return { kind: "not_sent", reason: "standby" };
    }
    sending?.();
    try {
      const ack = await port.placeOrder(body);
      return { kind: "accepted", orderId: ack.order_id };
    } catch (err) {
      const f = placementFailure(err);
      return f.kind === "maybe_applied" ? { kind: "unknown" } : { kind: "refused", code: f.code, action: f.action };
    }
  }

  /**
   * An order a model filled whole at once (the lab: no venue to place it on): its intent, its one
   * trade and its end, booked as a live order's are.
   */
  modelled(intent: OrderIntentRecord, price: number, fee: number): void {
    const { port } = this.#c;
    this.#c.record(intent);
    const order: WorkingOrder = {
      clientOrderId: intent.clientOrderId,
      symbol: intent.symbol,
      side: intent.side,
      marginMode: intent.marginMode ?? "CROSS",
      mark: intent.mark ?? price,
      filled: 0,
      notional: 0,
      fee: 0,
    };
    this.trade(order, "", intent.quantity, price, fee, port.now());
    this.outcome({ t: "order_outcome", clientOrderId: intent.clientOrderId, at: port.now(), result: "filled" });
  }

  /** An order's outcome record (accepted, unknown, rejected, not_accepted, and the final one). */
  outcome(rec: OrderOutcomeRecord): void {
    this.#c.record(rec);
  }

  /** A trade already journaled before a restart: a duplicate if the venue reports it again. */
  remember(tradeId: string): void {
    if (tradeId === "" || this.#seen.has(tradeId)) return;
    this.#seen.add(tradeId);
    if (this.#seen.size > SEEN_TRADES) this.#seen.delete(this.#seen.values().next().value as string);
  }

  /** One trade of `order`: `qty` absolute, at `price`, paying `fee`, at venue time `venueTs`. */
  trade(order: WorkingOrder, tradeId: string, qty: number, price: number, fee: number, venueTs: number): void {
    if (!(qty > 0) || !(price > 0)) return;
    if (tradeId !== "") {
      if (this.#seen.has(tradeId)) return;
      this.remember(tradeId);
    }
    const { port, positions, observer } = this.#c;
    const signed = order.side === "BUY" ? qty : -qty;
    // Applied once, here (what is ours, the lots), whatever the journal's disk does with it.
    this.#c.record({
      t: "order_fill",
      clientOrderId: order.clientOrderId,
      symbol: order.symbol,
      qty: signed,
      price,
      fee,
      tradeId,
      at: port.now(),
      venueTs,
    });
    positions.applyOwnFill(order.symbol, signed, venueTs, order.marginMode);
    order.filled += qty;
    order.notional += qty * price;
    order.fee += fee;
    observer.traded(order.symbol, signed, price, fee, order.mark);
    observer.changed();
  }

  /** The order is over with `totalQty` traded at `avgPrice` and `totalFee` in all: what the trades recorded miss becomes one trade. */
  complete(order: WorkingOrder, totalQty: number, avgPrice: number, totalFee: number, venueTs: number): void {
    const missing = totalQty - order.filled;
    if (missing <= 1e-12 || !(avgPrice > 0)) return;
    const price = (totalQty * avgPrice - order.notional) / missing;
    this.trade(order, "", missing, price > 0 ? price : avgPrice, Math.max(0, totalFee - order.fee), venueTs);
  }
}
