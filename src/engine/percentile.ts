/**
 * The one percentile of the project (the bench's latencies, the soak's delays): nearest rank, p in
 * (0, 100], of unsorted samples; undefined when there are none, so a caller says what an empty
 * series prints rather than carrying a NaN into a sum.
 */
export function percentile(samples: readonly number[], p: number): number | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  // The epsilon keeps float noise (99.9 × 1000 / 100 = 999.0000000000001) from skipping a rank.
  const rank = Math.ceil((p * sorted.length) / 100 - 1e-9);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
