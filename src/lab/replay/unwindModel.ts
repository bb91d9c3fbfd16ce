/**
 * The unwinder in a replay: every position a won claim assigns is closed in the slices the
 * daemon's own `planUnwind` gives (reduce-only IOC, at most `max_order_notional` each, priced within
 * `max_slippage_bps` of the mark), one order per permit of the orders limiter's spacing. A recorded
 * capture holds marks, not fills, so each slice is assumed to fill whole at the mark of its moment
 * moved `slippageBps` against us (never beyond the order's own bound), paying `takerFeeBps` of its
 * notional (docs/policy-lab.md). Each slice is booked by the trading core as a live order is
 * (core/ownOrders.ts `modelled`: intent, trade, end): the P&L, what is ours, the held position.
 */
import { unwindIntent } from "../../core/journalRecords.js";
import type { OwnOrders } from "../../core/ownOrders.js";
import type { MarkBook } from "../../engine/marks.js";
import type { PositionBook } from "../../engine/positionBook.js";
import { BPS } from "../../engine/quantize.js";
import type { SymbolTable } from "../../engine/symbolInfo.js";
import { planUnwind, type UnwindLimits } from "../../engine/unwindPlan.js";
import type { Timeline } from "./timeline.js";

export interface UnwindModelOptions {
  settings: { unwinds(symbol: string): boolean; limitsFor(symbol: string): UnwindLimits };
  symbols: () => SymbolTable;
  marks: MarkBook;
  positions: PositionBook;
  own: Pick<OwnOrders, "modelled">;
  timeline: Timeline;
  /** Orders limiter spacing, ms. */
  spacingMs: number;
  /** Assumed fill price distance from the mark, against us, bps. */
  slippageBps: number;
  /**
   * Other slippages to price every fill at besides (the report's sensitivity): a fill's size and time
   * do not depend on its price, so each one's net differs only by the cash of the fills.
   */
  altSlippageBps?: readonly number[];
  /** Assumed taker fee, bps of the fill's notional. */
  takerFeeBps: number;
  /** After every fill (exposure and P&L changed): `qty` signed, at `price`, paying `fee`. */
  filled: (symbol: string, qty: number, price: number, fee: number) => void;
}

/** A symbol without a usable mark is retried this often, up to this many times. */
const BLOCKED_RETRY_MS = 1_000;
const BLOCKED_RETRIES = 60;

export class UnwindModel {
  readonly #o: UnwindModelOptions;
  /**
   * Whether a symbol's unwind is under way. Flags, not a set: every claim starts one and its last
   * slice ends it, and a set's add and delete would resize its table each time.
   */
  readonly #active = new Map<string, boolean>();
  #nextOrderAt = Number.NEGATIVE_INFINITY;
  orders = 0;
  /** Per `altSlippageBps`: the cash the fills would have brought at it, minus what they brought. */
  readonly altCashDelta: number[];

  constructor(options: UnwindModelOptions) {
    this.#o = options;
    this.altCashDelta = (options.altSlippageBps ?? []).map(() => 0);
  }

  /** A claim assigned positions in `symbols`: close those the settings unwind. */
  assigned(symbols: readonly string[]): void {
    for (const symbol of symbols) {
      if (!this.#o.settings.unwinds(symbol) || this.#active.get(symbol) === true) continue;
      this.#active.set(symbol, true);
      this.#schedule(symbol, 0);
    }
  }

  #schedule(symbol: string, retries: number, delayMs = 0): void {
    const t = this.#o.timeline;
    // +1 ms: the claim's transfer is booked at its landing time; a fill is strictly after it.
    const at = Math.max(t.now + 1 + delayMs, this.#nextOrderAt + this.#o.spacingMs);
    this.#nextOrderAt = at;
    t.at(at, () => this.#slice(symbol, retries));
  }

  #slice(symbol: string, retries: number): void {
    const o = this.#o;
    const info = o.symbols().get(symbol);
    const limits = o.settings.limitsFor(symbol);
    const held = o.positions.held(symbol);
    const mark = o.marks.price(symbol);
    const plan = info === undefined ? undefined : planUnwind(held, mark, info, limits);
    if (plan === undefined || plan.kind === "blocked") {
      if (retries < BLOCKED_RETRIES) this.#schedule(symbol, retries + 1, BLOCKED_RETRY_MS);
      else this.#active.set(symbol, false);
      return;
    }
    if (plan.kind !== "order" || mark === undefined) {
      this.#active.set(symbol, false);
      return;
    }
    const price = fillPrice(plan.side, mark, Math.min(o.slippageBps, limits.maxSlippageBps));
    const qty = plan.side === "SELL" ? -plan.qty : plan.qty;
    const fee = (plan.qty * price * o.takerFeeBps) / BPS;
    const alt = o.altSlippageBps;
    if (alt !== undefined) {
      for (let i = 0; i < alt.length; i++) {
        const p = fillPrice(plan.side, mark, Math.min(alt[i] as number, limits.maxSlippageBps));
        this.altCashDelta[i] = (this.altCashDelta[i] as number) + (p - price) * (-qty - (plan.qty * o.takerFeeBps) / BPS);
      }
    }
    const now = o.timeline.now;
    this.orders++;
    o.own.modelled(
      unwindIntent({ clientOrderId: `lab-${this.orders}`, at: now, symbol, order: plan, marginMode: "CROSS", mark, seq: this.orders }),
      price,
      fee,
    );
    o.filled(symbol, qty, price, fee);
    if (o.positions.held(symbol) !== 0) this.#schedule(symbol, 0);
    else this.#active.set(symbol, false);
  }
}

function fillPrice(side: "BUY" | "SELL", mark: number, bps: number): number {
  return side === "SELL" ? (mark * (BPS - bps)) / BPS : (mark * (BPS + bps)) / BPS;
}
