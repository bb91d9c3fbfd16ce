/**
 * Where an unwind order's trades go: the journal (P&L is recomputed from it), the P&L ledger, the
 * held position (so exposure is released as fills shrink it), and the slippage metric. Trades come
 * from `executionreport` pushes, or — when the private stream missed them — are read off the order's
 * totals (`GET /v1/client/order/{id}`): the missing quantity becomes one fill at the price that makes
 * the order's average right. Each trade is recorded once, whichever way it came.
 */
import type { PnlLedger } from "../engine/pnlLedger.js";
import type { PositionBook } from "../engine/positionBook.js";
import type { MarginMode } from "../engine/types.js";
import type { JournalRecord } from "../store/journalRecords.js";

export interface FillObserver {
  /** Basis points worse than the mark the order was priced on (negative = better). */
  slippage(bps: number): void;
  /** Every trade recorded (`qty` signed), with the mark its order was priced on (the capture). */
  traded?(symbol: string, qty: number, price: number, fee: number, mark: number): void;
}

/** What the recorder keeps of one order while it works. */
export interface WorkingOrder {
  clientOrderId: string;
  symbol: string;
  side: "BUY" | "SELL";
  /** The position (margin mode) the order trades; absent = CROSS. */
  marginMode?: MarginMode;
  /** The mark the order was priced on. */
  mark: number;
  /** Absolute quantity and Σ qty × price of the trades recorded so far. */
  filled: number;
  notional: number;
  fee: number;
}

/** How many trade ids are remembered to drop duplicates (a report replayed across a reconnect). */
const SEEN_TRADES = 10_000;

export class OrderFills {
  readonly #journal: (record: JournalRecord) => void;
  readonly #ledger: PnlLedger;
  readonly #positions: PositionBook;
  readonly #observer: FillObserver;
  readonly #now: () => number;
  readonly #seen = new Set<string>();

  constructor(o: {
    journal: (record: JournalRecord) => void;
    ledger: PnlLedger;
    positions: PositionBook;
    observer: FillObserver;
    now: () => number;
  }) {
    this.#journal = o.journal;
    this.#ledger = o.ledger;
    this.#positions = o.positions;
    this.#observer = o.observer;
    this.#now = o.now;
  }

  /**
   * A trade already journaled before a restart: its id is a duplicate if the venue reports it again,
   * and its quantity is in `order.filled` (Unwinder.takeOver), so a later total adds only what is missing.
   */
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
      this.#seen.add(tradeId);
      if (this.#seen.size > SEEN_TRADES) this.#seen.delete(this.#seen.values().next().value as string);
    }
    const signed = order.side === "BUY" ? qty : -qty;
    this.#journal({
      t: "order_fill",
      clientOrderId: order.clientOrderId,
      symbol: order.symbol,
      qty: signed,
      price,
      fee,
      tradeId,
      at: this.#now(),
      venueTs,
    });
    this.#ledger.fill(order.symbol, signed, price, fee, this.#now(), order.mark);
    this.#positions.applyOwnFill(order.symbol, signed, venueTs, order.marginMode ?? "CROSS");
    order.filled += qty;
    order.notional += qty * price;
    order.fee += fee;
    // Worse = selling below the mark, buying above it.
    this.#observer.slippage(((order.side === "SELL" ? order.mark - price : price - order.mark) / order.mark) * 10_000);
    this.#observer.traded?.(order.symbol, signed, price, fee, order.mark);
  }

  /**
   * The order is over with `totalQty` traded at `avgPrice` and `totalFee` in all: whatever the
   * recorded trades miss becomes one fill.
   */
  complete(order: WorkingOrder, totalQty: number, avgPrice: number, totalFee: number, venueTs: number): void {
    const missing = totalQty - order.filled;
    if (missing <= 1e-12 || !(avgPrice > 0)) return;
    const price = (totalQty * avgPrice - order.notional) / missing;
    this.trade(order, "", missing, price > 0 ? price : avgPrice, Math.max(0, totalFee - order.fee), venueTs);
  }
}
