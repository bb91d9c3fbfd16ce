/**
 * The simulated venue's margin (PROTOCOL.md §7), its own implementation of the venue's published
 * formulas (the venue does not share code with a client): a symbol's initial margin ratio
 * `max(1 / max_leverage, base_imr, imr_factor × |notional|^(4/5))` and maintenance ratio
 * `max(base_mmr, base_mmr / base_imr × imr_factor × |notional|^(4/5))`, and the initial margin of
 * a set of positions at their marks.
 */
import type { SymbolSpec } from "./symbols.js";

/** A symbol's margin parameters as `/v1/public/info` serves them. */
export interface SymbolMargin {
  baseImr: number;
  baseMmr: number;
  imrFactor: number;
}

/** The venue's published examples: majors 1 % / 0.6 % (BTC, ETH), alts 10 % / 5 % (ARB, OP). */
const MAJOR_MARGIN: SymbolMargin = { baseImr: 0.01, baseMmr: 0.006, imrFactor: 3.8e-7 };
const ALT_MARGIN: SymbolMargin = { baseImr: 0.1, baseMmr: 0.05, imrFactor: 2.1e-6 };

/** A spec's margin parameters; a spec without them gets its tier's example (tier 1 major, tier 2 alt). */
export function marginOf(spec: SymbolSpec): SymbolMargin {
  const fallback = spec.tier === 1 ? MAJOR_MARGIN : ALT_MARGIN;
  return {
    baseImr: spec.baseImr ?? fallback.baseImr,
    baseMmr: spec.baseMmr ?? fallback.baseMmr,
    imrFactor: spec.imrFactor ?? fallback.imrFactor,
  };
}

export function imr(m: SymbolMargin, notional: number, maxLeverage: number): number {
  return Math.max(1 / maxLeverage, m.baseImr, m.imrFactor * Math.abs(notional) ** 0.8);
}

export function mmr(m: SymbolMargin, notional: number): number {
  return Math.max(m.baseMmr, (m.baseMmr / m.baseImr) * m.imrFactor * Math.abs(notional) ** 0.8);
}

/** |notional| × IMR at that notional. */
export function positionInitialMargin(m: SymbolMargin, notional: number, maxLeverage: number): number {
  const n = Math.abs(notional);
  return n === 0 ? 0 : n * imr(m, n, maxLeverage);
}

/** Initial margin of positions (one net quantity per symbol and margin mode), each at its mark. */
export function initialMarginOfHeld(
  held: Iterable<{ symbol: string; qty: number }>,
  spec: (symbol: string) => SymbolSpec | undefined,
  mark: (symbol: string) => number | undefined,
  maxLeverage: number,
): number {
  let sum = 0;
  for (const h of held) {
    if (h.qty === 0) continue;
    const s = spec(h.symbol);
    const m = mark(h.symbol);
    // A symbol the venue does not list (or has no mark for) is charged its whole notional at cost.
    if (s === undefined || m === undefined) {
      sum += Math.abs(h.qty) * (m ?? 0);
      continue;
    }
    sum += positionInitialMargin(marginOf(s), Math.abs(h.qty) * m, maxLeverage);
  }
  return sum;
}
