/**
 * How sure a variant's net is: a 90 % interval on it from its own claims' spread, so a report never
 * names a "best" variant on a difference its sample cannot carry. A bootstrap over claims (the net
 * is their sum: resample the claims with replacement, sum, take the 5th and 95th percentiles); past
 * BOOTSTRAP_MAX claims the sum is normal enough that mean ± 1.645 standard errors gives the same
 * interval at a fraction of the work (a week's sweep replays hundreds of variants). Deterministic:
 * the resampling's generator is seeded by the claims themselves, so a report is reproducible.
 */

export interface NetInterval {
  /** Claims the interval is drawn from. */
  claims: number;
  /** Bounds of the 90 % interval on the net, quote (equal to the net with one claim or none). */
  low: number;
  high: number;
  method: "bootstrap" | "normal" | "none";
}

export const INTERVAL_LEVEL = 0.9;
/** Below this many claims a comparison of variants says the sample is small. */
export const FEW_CLAIMS = 30;
const BOOTSTRAP_MAX = 2_000;
const RESAMPLES = 1_000;
/** z of the two-sided 90 % normal interval. */
const Z90 = 1.6448536269514722;

export function netInterval(nets: readonly number[]): NetInterval {
  const n = nets.length;
  let sum = 0;
  for (const x of nets) sum += x;
  if (n < 2) return { claims: n, low: round(sum), high: round(sum), method: "none" };
  if (n > BOOTSTRAP_MAX) {
    const mean = sum / n;
    let ss = 0;
    for (const x of nets) ss += (x - mean) ** 2;
    const se = Math.sqrt((ss / (n - 1)) * n);
    return { claims: n, low: round(sum - Z90 * se), high: round(sum + Z90 * se), method: "normal" };
  }
  const random = mulberry32(seedOf(nets));
  const sums = new Float64Array(RESAMPLES);
  for (let b = 0; b < RESAMPLES; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += nets[Math.floor(random() * n)] as number;
    sums[b] = s;
  }
  sums.sort();
  const tail = (1 - INTERVAL_LEVEL) / 2;
  return {
    claims: n,
    low: round(sums[Math.floor(tail * RESAMPLES)] as number),
    high: round(sums[Math.ceil((1 - tail) * RESAMPLES) - 1] as number),
    method: "bootstrap",
  };
}

function seedOf(nets: readonly number[]): number {
  let h = 0x811c9dc5 ^ nets.length;
  for (const x of nets) h = Math.imul(h ^ Math.round(x * 1e6), 0x01000193) >>> 0;
  return h >>> 0;
}

/** A small, fast, seedable generator of [0, 1) (Tommy Ettinger's mulberry32). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;
