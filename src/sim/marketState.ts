/**
 * Mark and index prices of every symbol, moved by a seeded geometric random walk. The walk has a
 * faint pull back to the start price so a long run does not drift a market to zero or to the moon.
 */
import type { Prng } from "./prng.js";
import { type ListedSymbols, roundToStep } from "./symbols.js";

export interface MarkRow {
  symbol: string;
  markPrice: number;
  indexPrice: number;
  updatedAt: number;
}

export class MarketState {
  readonly #symbols: ListedSymbols;
  readonly #marks = new Map<string, MarkRow>();

  constructor(symbols: ListedSymbols, now: number) {
    this.#symbols = symbols;
    for (const s of symbols.all()) {
      this.#marks.set(s.symbol, { symbol: s.symbol, markPrice: s.startPrice, indexPrice: s.startPrice, updatedAt: now });
    }
  }

  mark(symbol: string): number | undefined {
    return this.#marks.get(symbol)?.markPrice;
  }

  rows(): MarkRow[] {
    return [...this.#marks.values()].map((r) => ({ ...r }));
  }

  /** Set a mark directly (tests, cascades). The price is rounded to the symbol's tick. */
  set(symbol: string, price: number, now: number): void {
    const spec = this.#symbols.get(symbol);
    if (spec === undefined) throw new RangeError(`unknown symbol ${symbol}`);
    if (!(Number.isFinite(price) && price > 0)) throw new RangeError(`mark price must be a positive number, got ${price}`);
    const mark = Math.max(spec.baseTick, roundToStep(price, spec.baseTick));
    this.#marks.set(symbol, { symbol, markPrice: mark, indexPrice: mark, updatedAt: now });
  }

  /**
   * Advance every mark by `dtSec` seconds of random walk; `scale` multiplies each symbol's
   * volatility (0 keeps prices still but still stamps them as fresh).
   */
  step(prng: Prng, dtSec: number, scale: number, now: number): void {
    for (const spec of this.#symbols.all()) {
      const row = this.#marks.get(spec.symbol);
      if (row === undefined) continue;
      let mark = row.markPrice;
      if (scale > 0 && dtSec > 0) {
        const sigma = spec.volatilityPerSec * scale * Math.sqrt(dtSec);
        const pull = 0.001 * Math.log(spec.startPrice / mark) * dtSec;
        mark = mark * Math.exp(sigma * prng.normal() + pull);
        mark = Math.max(spec.baseTick, roundToStep(mark, spec.baseTick));
      }
      // The index sits a few basis points off the mark, as a real index does.
      const index = scale > 0 ? roundToStep(mark * (1 + 0.0002 * prng.normal()), spec.baseTick) : mark;
      this.#marks.set(spec.symbol, { symbol: spec.symbol, markPrice: mark, indexPrice: Math.max(spec.baseTick, index), updatedAt: now });
    }
  }
}
