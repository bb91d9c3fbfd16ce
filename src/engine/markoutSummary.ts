/**
 * Markouts aggregated: per symbol and horizon, how many claims were sampled, how many horizons went
 * missing, and the mean and median markout in bps (positive = against us). What `liquidator report`
 * shows per symbol and `liquidator pnl --by claim` per claim. Pure, over the journal's `markout`
 * records (or anything of their shape).
 */
import { MARKOUT_HORIZONS, type MarkoutHorizon } from "./markouts.js";

/** The fields of a `markout` journal record the summaries read. */
export interface MarkoutPoint {
  id: number;
  symbol: string;
  horizon: MarkoutHorizon;
  /** Absent when the horizon went missing. */
  bps?: number | undefined;
  /** Signed quantity and transfer price of the assignment: the weights of a claim's average. */
  qty: number;
  price: number;
}

export interface HorizonStats {
  /** Horizons sampled (with a markout). */
  count: number;
  /** Horizons recorded missing (no fresh mark, or nobody sampling at the time). */
  missing: number;
  /** Undefined when nothing was sampled. */
  meanBps: number | undefined;
  medianBps: number | undefined;
}

export interface SymbolMarkouts {
  symbol: string;
  horizons: Record<MarkoutHorizon, HorizonStats>;
}

function median(sorted: readonly number[]): number | undefined {
  const n = sorted.length;
  if (n === 0) return undefined;
  const mid = n >> 1;
  return n % 2 === 1 ? sorted[mid] : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function stats(values: number[], missing: number): HorizonStats {
  values.sort((a, b) => a - b);
  let sum = 0;
  for (const v of values) sum += v;
  return {
    count: values.length,
    missing,
    meanBps: values.length > 0 ? sum / values.length : undefined,
    medianBps: median(values),
  };
}

/** Mean and median markout per symbol and horizon (each claim counts once per symbol), symbols sorted. */
export function markoutsBySymbol(points: Iterable<MarkoutPoint>): SymbolMarkouts[] {
  const acc = new Map<string, Map<MarkoutHorizon, { values: number[]; missing: number }>>();
  for (const p of points) {
    let bySymbol = acc.get(p.symbol);
    if (bySymbol === undefined) {
      bySymbol = new Map(MARKOUT_HORIZONS.map((h) => [h, { values: [], missing: 0 }]));
      acc.set(p.symbol, bySymbol);
    }
    const h = bySymbol.get(p.horizon);
    if (h === undefined) continue;
    if (p.bps === undefined) h.missing++;
    else h.values.push(p.bps);
  }
  return [...acc.keys()].sort().map((symbol) => {
    const bySymbol = acc.get(symbol) as Map<MarkoutHorizon, { values: number[]; missing: number }>;
    const horizons = {} as Record<MarkoutHorizon, HorizonStats>;
    for (const h of MARKOUT_HORIZONS) {
      const x = bySymbol.get(h) as { values: number[]; missing: number };
      horizons[h] = stats(x.values, x.missing);
    }
    return { symbol, horizons };
  });
}

/**
 * One claim's markout per horizon: the notional-weighted mean over its symbols (a claim of one
 * symbol: that symbol's markout); undefined at a horizon none of its symbols was sampled at.
 */
export function markoutsByClaim(points: Iterable<MarkoutPoint>): Map<number, Partial<Record<MarkoutHorizon, number>>> {
  const acc = new Map<number, Map<MarkoutHorizon, { sum: number; weight: number }>>();
  for (const p of points) {
    if (p.bps === undefined) continue;
    let byClaim = acc.get(p.id);
    if (byClaim === undefined) {
      byClaim = new Map();
      acc.set(p.id, byClaim);
    }
    const w = Math.abs(p.qty) * p.price;
    const h = byClaim.get(p.horizon) ?? { sum: 0, weight: 0 };
    h.sum += p.bps * w;
    h.weight += w;
    byClaim.set(p.horizon, h);
  }
  const out = new Map<number, Partial<Record<MarkoutHorizon, number>>>();
  for (const [id, byClaim] of acc) {
    const row: Partial<Record<MarkoutHorizon, number>> = {};
    for (const [h, x] of byClaim) if (x.weight > 0) row[h] = x.sum / x.weight;
    out.set(id, row);
  }
  return out;
}
