/**
 * Seeded shapes of liquidations: which symbols, which side, how big. Sizes are log-uniform in
 * notional so that both sides of the full-take thresholds (10,000 / 5,000, docs/protocol.md §11) occur often.
 */
import type { Prng } from "./prng.js";
import { type ListedSymbols, roundToStep } from "./symbols.js";

export interface GeneratedPosition {
  symbol: string;
  position_qty: number;
}

export interface GenerateOptions {
  /** Restrict to these symbols (default: all). */
  symbols?: readonly string[];
  /** Force every position long (+1) or short (−1); default random per position. */
  side?: 1 | -1;
  /** Notional range per position, quote (default 1,000 to 60,000). */
  notional?: readonly [number, number];
  /** Number of symbols in the liquidation (default: 1 mostly, up to 3). */
  count?: number;
}

export function generatePositions(
  prng: Prng,
  table: ListedSymbols,
  mark: (symbol: string) => number | undefined,
  options: GenerateOptions = {},
): GeneratedPosition[] {
  const pool = [...(options.symbols ?? table.names())];
  if (pool.length === 0) throw new RangeError("no symbols to liquidate");
  const count = Math.min(pool.length, options.count ?? (prng.chance(0.7) ? 1 : prng.chance(0.66) ? 2 : 3));
  const [lo, hi] = options.notional ?? [1_000, 60_000];
  const out: GeneratedPosition[] = [];
  for (let i = 0; i < count; i++) {
    const idx = prng.int(0, pool.length - 1);
    const symbol = pool.splice(idx, 1)[0] as string;
    const spec = table.get(symbol);
    const price = mark(symbol);
    if (spec === undefined || price === undefined) throw new RangeError(`unknown symbol ${symbol}`);
    const qty = Math.max(spec.qtyStep, roundToStep(prng.logUniform(lo, hi) / price, spec.qtyStep));
    const side = options.side ?? (prng.chance(0.5) ? 1 : -1);
    out.push({ symbol, position_qty: side * qty });
  }
  return out;
}
