/**
 * Pure numbers of the bench: latency summaries (percentiles from engine/percentile.ts) and the
 * cascade's value ratio.
 */
import { percentile } from "../engine/percentile.js";

/** A latency percentile for the bench's tables and charts: NaN (printed "n/a") when there are none. */
export function latencyPercentile(samples: readonly number[], p: number): number {
  return percentile(samples, p) ?? Number.NaN;
}

export interface LatencySummary {
  count: number;
  /** Microseconds. */
  p50Us: number;
  p90Us: number;
  p99Us: number;
  p999Us: number;
  maxUs: number;
  meanUs: number;
}

/** Summary of latencies given in milliseconds, reported in microseconds (rounded to 0.1 µs). */
export function summarize(samplesMs: readonly number[]): LatencySummary {
  const us = (ms: number): number => Math.round(ms * 10_000) / 10;
  const mean = samplesMs.length === 0 ? Number.NaN : samplesMs.reduce((a, b) => a + b, 0) / samplesMs.length;
  return {
    count: samplesMs.length,
    p50Us: us(latencyPercentile(samplesMs, 50)),
    p90Us: us(latencyPercentile(samplesMs, 90)),
    p99Us: us(latencyPercentile(samplesMs, 99)),
    p999Us: us(latencyPercentile(samplesMs, 99.9)),
    maxUs: us(samplesMs.length === 0 ? Number.NaN : Math.max(...samplesMs)),
    meanUs: us(mean),
  };
}

export interface ValueInput {
  /** Expected fee of every liquidation offered, with when it was pushed. */
  fees: readonly { id: number; fee: number; pushedAt: number }[];
  /** Claims in the order the venue received them: value captured and receive time. */
  claims: readonly { liquidationId: number | undefined; receivedAt: number; value: number }[];
  /** How many first claims count (20 in the issue). */
  first: number;
}

export interface ValueResult {
  /** Σ value of the first `first` claims. */
  captured: number;
  /** Σ of the `first` largest expected fees of all liquidations offered. */
  best: number;
  /** captured / best (1.0 = perfect ordering with hindsight). */
  ratio: number;
  /**
   * captured / the best a perfect ranker could have done at the same moments: claim k may only pick
   * among liquidations pushed before it was received. Separates ordering quality from arrival times.
   */
  ratioOnline: number;
  bestOnline: number;
}

export function valueRatio(input: ValueInput): ValueResult {
  const n = input.first;
  const firstClaims = input.claims.slice(0, n);
  const captured = firstClaims.reduce((a, c) => a + c.value, 0);
  const best = [...input.fees]
    .sort((a, b) => b.fee - a.fee)
    .slice(0, n)
    .reduce((a, f) => a + f.fee, 0);
  // Online optimum: at each of the first n receive times, take the largest fee pushed before it
  // and not yet taken. Fees are pushed in batches, so a sort by push time then a running heap works;
  // n is small, so a sorted array of what is available is enough.
  const byPush = [...input.fees].sort((a, b) => a.pushedAt - b.pushedAt);
  const available: number[] = [];
  let next = 0;
  let bestOnline = 0;
  for (const c of firstClaims) {
    const t = Number.isFinite(c.receivedAt) ? c.receivedAt : Number.POSITIVE_INFINITY;
    while (next < byPush.length && (byPush[next] as { pushedAt: number }).pushedAt <= t)
      available.push((byPush[next++] as { fee: number }).fee);
    if (available.length === 0) continue;
    let bi = 0;
    for (let i = 1; i < available.length; i++) if ((available[i] as number) > (available[bi] as number)) bi = i;
    bestOnline += available[bi] as number;
    available[bi] = available[available.length - 1] as number;
    available.pop();
  }
  return {
    captured,
    best,
    ratio: best > 0 ? captured / best : Number.NaN,
    ratioOnline: bestOnline > 0 ? captured / bestOnline : Number.NaN,
    bestOnline,
  };
}

/** Frame by frame (same index = the same moment, frames alternate): the median of daemon/floor, and the share the daemon won. */
export function paired(
  daemonMs: readonly number[],
  floorMs: readonly number[],
): { pairs: number; medianRatio: number; daemonWinShare: number } {
  const n = Math.min(daemonMs.length, floorMs.length);
  const ratios: number[] = [];
  let wins = 0;
  for (let i = 0; i < n; i++) {
    const d = daemonMs[i] as number;
    const f = floorMs[i] as number;
    ratios.push(d / f);
    if (d < f) wins++;
  }
  ratios.sort((a, b) => a - b);
  const mid =
    ratios.length === 0
      ? Number.NaN
      : ratios.length % 2 === 1
        ? (ratios[(ratios.length - 1) / 2] as number)
        : ((ratios[ratios.length / 2 - 1] as number) + (ratios[ratios.length / 2] as number)) / 2;
  return {
    pairs: n,
    medianRatio: Math.round(mid * 100) / 100,
    daemonWinShare: n === 0 ? Number.NaN : Math.round((wins / n) * 1000) / 1000,
  };
}

/** A number for the bench's tables: grouped, `digits` decimals; "n/a" when absent or not finite. */
export function formatNumber(v: number | undefined, digits = 0): string {
  if (v === undefined || !Number.isFinite(v)) return "n/a";
  return v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

export function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
