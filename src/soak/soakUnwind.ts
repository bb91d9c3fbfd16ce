/**
 * The soak's unwinding figures, from the daemon's own histograms and P&L gauges: time to flat and
 * slippage (summed over every daemon process of the run: each restart starts its histograms at 0),
 * realized net P&L against the liquidator fees earned (the gauges replay the journal, so the last
 * process has the whole run), and whether claiming ever stopped at the exposure cap.
 */
import type { Sample } from "../observe/promText.js";

/** Cumulative histogram buckets: upper bound (`le`, "+Inf" included) → observations at or below it. */
export type Buckets = Record<string, number>;

export interface UnwindSample {
  timeToFlat: Buckets;
  slippage: Buckets;
  /** `pnl_quote` by component (liquidator_fee, trading, fees, net). */
  pnl: Record<string, number>;
}

export interface UnwindFigures {
  flats: number;
  /** Upper bounds of the buckets holding the percentile (a histogram gives no finer answer). */
  timeToFlatS: { p50: number | undefined; p99: number | undefined };
  slippageBps: { p50: number | undefined; p99: number | undefined };
  pnl: Record<string, number>;
  /** Realized net P&L ÷ liquidator fees earned (undefined before the first fee). */
  netOverFees: number | undefined;
  exposureCapSkips: number;
}

function bucketsOf(samples: readonly Sample[], name: string): Buckets {
  const out: Buckets = {};
  for (const s of samples) if (s.name === `${name}_bucket` && s.labels.le !== undefined) out[s.labels.le] = s.value;
  return out;
}

export function unwindSample(samples: readonly Sample[]): UnwindSample {
  const pnl: Record<string, number> = {};
  for (const s of samples) if (s.name === "liquidator_pnl_quote" && s.labels.component !== undefined) pnl[s.labels.component] = s.value;
  return {
    timeToFlat: bucketsOf(samples, "liquidator_time_to_flat_seconds"),
    slippage: bucketsOf(samples, "liquidator_unwind_slippage_bps"),
    pnl,
  };
}

/** The smallest bucket bound with at least `q` of the observations (Prometheus' upper-bound reading). */
function bucketQuantile(buckets: Buckets, q: number): number | undefined {
  const bounds = Object.entries(buckets)
    .map(([le, n]) => [le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le), n] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = bounds.at(-1)?.[1] ?? 0;
  if (total === 0) return undefined;
  return bounds.find(([, n]) => n >= q * total)?.[0];
}

/** `processes`: the last sample of each daemon process, in order (the last one is the latest). */
export function unwindFigures(processes: readonly UnwindSample[], exposureCapSkips: number): UnwindFigures {
  const add = (into: Buckets, from: Buckets): Buckets => {
    for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
    return into;
  };
  const flat = processes.reduce((b, p) => add(b, p.timeToFlat), {} as Buckets);
  const slip = processes.reduce((b, p) => add(b, p.slippage), {} as Buckets);
  const pnl = processes.at(-1)?.pnl ?? {};
  const fees = pnl.liquidator_fee ?? 0;
  return {
    flats: flat["+Inf"] ?? 0,
    timeToFlatS: { p50: bucketQuantile(flat, 0.5), p99: bucketQuantile(flat, 0.99) },
    slippageBps: { p50: bucketQuantile(slip, 0.5), p99: bucketQuantile(slip, 0.99) },
    pnl,
    netOverFees: fees > 0 ? (pnl.net ?? 0) / fees : undefined,
    exposureCapSkips,
  };
}

export function formatUnwind(u: UnwindFigures): string {
  const le = (v: number | undefined, unit: string): string => (v === undefined ? "n/a" : `≤ ${v}${unit}`);
  const q = (v: number | undefined): string => (v === undefined ? "n/a" : v.toFixed(2));
  return (
    `unwinding: ${u.flats} positions back to flat, time to flat p50 ${le(u.timeToFlatS.p50, " s")}, p99 ${le(u.timeToFlatS.p99, " s")}; ` +
    `slippage p50 ${le(u.slippageBps.p50, " bps")}, p99 ${le(u.slippageBps.p99, " bps")}\n` +
    `P&L (quote): liquidator fees ${q(u.pnl.liquidator_fee)}, trading ${q(u.pnl.trading)}, fees paid ${q(u.pnl.fees)}, net ${q(u.pnl.net)}` +
    ` = ${u.netOverFees === undefined ? "n/a" : `${(u.netOverFees * 100).toFixed(1)} %`} of the liquidator fees; ` +
    `exposure cap ${u.exposureCapSkips > 0 ? `reached (${u.exposureCapSkips} skips)` : "never reached"}\n`
  );
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { bucketQuantile as bucketQuantileForTests };
