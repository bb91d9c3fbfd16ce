/**
 * The simulated venue's margin (docs/protocol.md §7, §10), its own implementation of the venue's published
 * formulas (the venue does not share code with a client; test/unit/marginParity.test.ts holds the
 * engine's to it): a symbol's initial margin ratio `max(1 / leverage, base_imr, imr_factor ×
 * |notional|^(4/5))` at the account's leverage setting for that symbol and with the account's own
 * `imr_factor` where it has one, the maintenance ratio `max(base_mmr, base_mmr / base_imr ×
 * imr_factor × |notional|^(4/5))`, and the initial margin of a set of positions at their marks.
 */
import type { SymbolSpec } from "./symbols.js";

/** A symbol's margin parameters as `/v1/public/info` serves them. */
export interface SymbolMargin {
  baseImr: number;
  baseMmr: number;
  imrFactor: number;
}

/** What an account's own settings make of margin (docs/protocol.md §10). */
export interface AccountMargin {
  /** The account's leverage setting of `symbol` (cross). */
  leverage(symbol: string): number;
  /** The account's own `imr_factor` of `symbol` (client info), when it has one. */
  imrFactor(symbol: string): number | undefined;
}

/** An account with every symbol at `leverage` and no `imr_factor` of its own. */
export function uniformMargin(leverage: number): AccountMargin {
  return { leverage: () => leverage, imrFactor: () => undefined };
}

/** The venue's published examples: majors 1 % / 0.6 % (BTC, ETH), alts 10 % / 5 % (ARB, OP). */
const MAJOR_MARGIN: SymbolMargin = { baseImr: 0.01, baseMmr: 0.006, imrFactor: 3.8e-7 };
const ALT_MARGIN: SymbolMargin = { baseImr: 0.1, baseMmr: 0.05, imrFactor: 2.1e-6 };

/**
 * A spec's margin parameters; a spec without them gets its tier's example (tier 1 major, tier 2
 * alt). With `account`, its own `imr_factor` of the symbol replaces the public one.
 */
export function marginOf(spec: SymbolSpec, account?: AccountMargin): SymbolMargin {
  const fallback = spec.tier === 1 ? MAJOR_MARGIN : ALT_MARGIN;
  return {
    baseImr: spec.baseImr ?? fallback.baseImr,
    baseMmr: spec.baseMmr ?? fallback.baseMmr,
    imrFactor: account?.imrFactor(spec.symbol) ?? spec.imrFactor ?? fallback.imrFactor,
  };
}

export function imr(m: SymbolMargin, notional: number, leverage: number): number {
  return Math.max(1 / leverage, m.baseImr, m.imrFactor * Math.abs(notional) ** 0.8);
}

export function mmr(m: SymbolMargin, notional: number): number {
  return Math.max(m.baseMmr, (m.baseMmr / m.baseImr) * m.imrFactor * Math.abs(notional) ** 0.8);
}

/** |notional| × IMR at that notional. */
export function positionInitialMargin(m: SymbolMargin, notional: number, leverage: number): number {
  const n = Math.abs(notional);
  return n === 0 ? 0 : n * imr(m, n, leverage);
}

/**
 * Initial margin of positions (one net quantity per symbol and margin mode), each at its mark, its
 * symbol's leverage and the account's `imr_factor` (`account`; a number: every symbol at that leverage).
 */
export function initialMarginOfHeld(
  held: Iterable<{ symbol: string; qty: number }>,
  spec: (symbol: string) => SymbolSpec | undefined,
  mark: (symbol: string) => number | undefined,
  account: AccountMargin | number,
): number {
  const a = typeof account === "number" ? uniformMargin(account) : account;
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
    sum += positionInitialMargin(marginOf(s, a), Math.abs(h.qty) * m, a.leverage(h.symbol));
  }
  return sum;
}
