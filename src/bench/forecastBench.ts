/**
 * `npm run bench -- --phases forecast`: what the liquidation heatmap costs the live claim path, and
 * what "making ready when a band fills" could win (issue 35). The tick-to-claim run (daemon and the
 * bare client, frames alternating, each on a lane whose traders hold ~10,000 positions on still
 * marks) twice: the daemon's heatmap off, then on and polling every 10 s (the default is 30 s):
 * the paired ratio daemon/floor of each, dense and after quiet spells, and the polls made.
 *
 * The candidates for making ready, and what measures them here:
 * - connections warm: the daemon's claims after quiet spells by connection (a claim that had to
 *   connect or went through the read pool is one a warm-up at band fill could have helped);
 * - limit prices precomputed: what computing one costs (`safeLimitPrice`, in this process), against
 *   the tick-to-claim it would come off;
 * - marks fresh: the venue pushes every mark every second and the daemon claims on the latest; a
 *   claim never waits for a mark, so there is nothing to measure but that.
 */
import { safeLimitPrice } from "../engine/quantize.js";
import { paired, summarize } from "./stats.js";
import type { TickResult } from "./venueProtocol.js";

export interface PairedRatio {
  pairs: number;
  medianRatio: number;
  daemonWinShare: number;
}

export interface ForecastSide {
  heatmap: boolean;
  ratioP50: number;
  ratioP99: number;
  paired: PairedRatio;
  sparsePaired: PairedRatio | undefined;
  /** The daemon's claims after quiet spells, by connection. */
  sparseConnections: { warm: number; fresh: number; pool: number } | undefined;
  /** Heatmap polls the daemon made during the run. */
  polls: number;
  /** The daemon's tick-to-claim p50, µs. */
  daemonP50Us: number;
}

export interface ForecastBenchResult {
  intervalS: number;
  /** Platform positions on the daemon's lane (each poll reads them all). */
  positions: number;
  off: ForecastSide;
  on: ForecastSide;
  /** One limit price, ns (median of rounds), and its share of the daemon's tick-to-claim p50. */
  limitPriceNs: number;
  limitPriceShareOfClaim: number;
}

/** What one tick-to-claim run (run.ts `latencyPhase`) gives this phase. */
export interface LatencyRun {
  daemon: TickResult;
  floor: TickResult;
  sparse?: { daemon: TickResult; floor: TickResult; daemonClaimConnections: { warm: number; fresh: number; pool: number } };
  forecastPolls: number;
  positions: number;
}

/**
 * The heatmap's polling interval in the bench: a third of the default 30 s, so a run of a few
 * minutes holds a score of polls. (At the least, 5 s, the bench's venue spends most of its time
 * answering them: the venue's snapshot of every position, not the daemon, is what then delays frames.)
 */
export const BENCH_FORECAST_INTERVAL_S = 10;

export async function measureForecast(latency: (heatmap: boolean) => Promise<LatencyRun>): Promise<ForecastBenchResult> {
  const off = await latency(false);
  const on = await latency(true);
  const limitPriceNs = limitPriceCost();
  const onSide = side(true, on);
  return {
    intervalS: BENCH_FORECAST_INTERVAL_S,
    positions: on.positions,
    off: side(false, off),
    on: onSide,
    limitPriceNs,
    limitPriceShareOfClaim: Math.round((limitPriceNs / (onSide.daemonP50Us * 1000)) * 1e6) / 1e6,
  };
}

function side(heatmap: boolean, r: LatencyRun): ForecastSide {
  const d = summarize(r.daemon.samplesMs);
  const f = summarize(r.floor.samplesMs);
  const r2 = (x: number): number => Math.round(x * 100) / 100;
  return {
    heatmap,
    ratioP50: r2(d.p50Us / f.p50Us),
    ratioP99: r2(d.p99Us / f.p99Us),
    paired: paired(r.daemon.samplesMs, r.floor.samplesMs),
    sparsePaired: r.sparse === undefined ? undefined : paired(r.sparse.daemon.samplesMs, r.sparse.floor.samplesMs),
    sparseConnections: r.sparse?.daemonClaimConnections,
    polls: r.forecastPolls,
    daemonP50Us: d.p50Us,
  };
}

/** How many positions a lane's platform positions hold (one page of one row says the total). */
export async function platformPositionCount(baseUrl: string): Promise<number> {
  const res = await fetch(`${baseUrl}/v1/public/query`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "platformPositions", limit: 1 }),
  });
  return ((await res.json()) as { data?: { total_positions?: number } }).data?.total_positions ?? 0;
}

/** ns per `safeLimitPrice` (the decision's limit price of one leg), median of 7 rounds of 200,000. */
function limitPriceCost(): number {
  const rounds: number[] = [];
  let sink = 0;
  for (let r = 0; r < 7; r++) {
    const n = 200_000;
    const start = performance.now();
    // A long's limit 50 bps above the mark, a short's 50 bps below (limit_price_slippage_bps), ETH's tick.
    for (let i = 0; i < n; i++) {
      const long = (i & 1) === 1;
      sink += safeLimitPrice(long ? 1 : -1, 3850.12 + (i & 255) * 0.01, long ? 10_050 : 9_950, 0.01, 2);
    }
    rounds.push(((performance.now() - start) * 1e6) / n);
  }
  if (Number.isNaN(sink)) throw new Error("limit price bench produced NaN");
  rounds.sort((a, b) => a - b);
  return Math.round((rounds[3] as number) * 10) / 10;
}
