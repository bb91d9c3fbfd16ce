/**
 * One info line per position the unwinder closed (symbol, quantity, average price, slippage against
 * the marks its orders were priced on, time to flat), and one for a position that is dust from the
 * start: what an operator reads to know the claims' risk is gone. A position "closes" when what is
 * left of it is flat or dust (engine/dust.ts): dust is ours but below the venue's minimum order, so
 * the line says how much of it stays. The unwinder calls in at three points (unwinder.ts):
 * `opened` (the position left zero), `traded` (an order of it is over), `settled` (its plan is flat
 * or dust). Money is rounded for the line only (logMoney.ts); the journal keeps the exact values.
 */
import { BPS } from "../../engine/quantize.js";
import type { MarginMode } from "../../engine/types.js";
import { logMoney } from "../../observe/logMoney.js";

interface Episode {
  /** Local ms the position left zero (undefined: it was open before this process knew it). */
  openedAt: number | undefined;
  /**
   * Signed quantity traded by our orders (their net), Σ |q|, Σ |q| × price, Σ |q| × the mark each
   * order was priced on, and Σ of what each fill cost against its mark (a position that took claims of
   * both sides is closed by orders of both sides).
   */
  qty: number;
  filled: number;
  notional: number;
  markNotional: number;
  against: number;
  /** The dust quantity last reported for it (one line per change). */
  dustReported: number | undefined;
}

export interface PositionClosesOptions {
  logger: { info(o: object, m: string): void };
  /** Decimals of the symbol's price tick (the average price is printed to two more). */
  priceDecimals(symbol: string): number | undefined;
  /** Decimals of the symbol's quantity step (a traded quantity is printed to two more: no float noise). */
  qtyDecimals(symbol: string): number | undefined;
  /** A dust close ends the position's time to flat (a flat one is observed where it reaches zero). */
  timeToFlat(seconds: number): void;
  now: () => number;
}

export class PositionCloses {
  readonly #o: PositionClosesOptions;
  readonly #episodes = new Map<string, Episode>();

  constructor(options: PositionClosesOptions) {
    this.#o = options;
  }

  /** The position left zero. */
  opened(symbol: string, mode: MarginMode): void {
    const e = this.#episode(symbol, mode);
    e.openedAt ??= this.#o.now();
  }

  /** An unwind order is over: `filled` (absolute) traded for Σ `notional`, priced on `mark`. */
  traded(symbol: string, mode: MarginMode, side: "BUY" | "SELL", filled: number, notional: number, mark: number): void {
    if (!(filled > 0)) return;
    const e = this.#episode(symbol, mode);
    e.qty += side === "BUY" ? filled : -filled;
    e.filled += filled;
    e.notional += notional;
    e.markNotional += filled * mark;
    // Selling below the mark or buying above it is against us: positive.
    e.against += side === "SELL" ? filled * mark - notional : notional - filled * mark;
  }

  /** What is left to close is flat (`dustQty` 0) or dust: one line when our orders closed it, or when it is new dust. */
  settled(symbol: string, mode: MarginMode, dustQty: number, mark: number | undefined): void {
    const key = keyOf(symbol, mode);
    const e = this.#episodes.get(key);
    if (e === undefined) return dustQty === 0 ? undefined : this.#dustOnly(symbol, mode, dustQty, mark);
    const now = this.#o.now();
    const dust = dustQty === 0 ? {} : { dustQty, dustNotional: mark === undefined ? null : logMoney(Math.abs(dustQty) * mark) };
    if (e.filled === 0) {
      // Nothing of ours traded since the last line: flat says nothing more, dust once per change.
      if (dustQty !== 0) this.#dustOnly(symbol, mode, dustQty, mark);
      else e.dustReported = undefined;
      return;
    }
    const avg = e.notional / e.filled;
    const seconds = e.openedAt === undefined ? undefined : (now - e.openedAt) / 1000;
    this.#o.logger.info(
      {
        symbol,
        marginMode: mode,
        qty: roundTo(e.qty, (this.#o.qtyDecimals(symbol) ?? 8) + 2),
        avgPrice: roundTo(avg, (this.#o.priceDecimals(symbol) ?? 4) + 2),
        slippageBps: roundTo((e.against / e.markNotional) * BPS, 2),
        timeToFlatS: seconds === undefined ? null : roundTo(seconds, 3),
        ...dust,
      },
      dustQty === 0 ? "position closed" : "position closed; dust left (below the venue's minimum order)",
    );
    if (dustQty !== 0 && seconds !== undefined) this.#o.timeToFlat(seconds);
    this.#episodes.set(key, { ...fresh(), dustReported: dustQty === 0 ? undefined : dustQty });
  }

  #dustOnly(symbol: string, mode: MarginMode, dustQty: number, mark: number | undefined): void {
    const e = this.#episode(symbol, mode);
    if (e.dustReported === dustQty) return;
    e.dustReported = dustQty;
    e.openedAt = undefined;
    this.#o.logger.info(
      { symbol, marginMode: mode, dustQty, dustNotional: mark === undefined ? null : logMoney(Math.abs(dustQty) * mark) },
      "dust position left open (below the venue's minimum order)",
    );
  }

  #episode(symbol: string, mode: MarginMode): Episode {
    const key = keyOf(symbol, mode);
    let e = this.#episodes.get(key);
    if (e === undefined) {
      e = fresh();
      this.#episodes.set(key, e);
    }
    return e;
  }
}

function fresh(): Episode {
  return { openedAt: undefined, qty: 0, filled: 0, notional: 0, markNotional: 0, against: 0, dustReported: undefined };
}

function keyOf(symbol: string, mode: MarginMode): string {
  return mode === "CROSS" ? symbol : `${symbol} ${mode}`;
}

function roundTo(x: number, decimals: number): number {
  const f = 10 ** Math.min(12, Math.max(0, decimals));
  return Math.round(x * f) / f;
}
