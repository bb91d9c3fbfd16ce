/**
 * Markouts of an assignment along a mark path known in full (marks of its symbol in receive order),
 * for tests: at each horizon, the latest mark received at or before it, if fresh. What the daemon's
 * sampler (daemon/records/markoutSampler.ts) computes live, one horizon at a time, through the same
 * `sampleMarkout`.
 */
import {
  type Assignment,
  MARKOUT_DELAYS_MS,
  MARKOUT_HORIZONS,
  type MarkoutHorizon,
  type MarkoutSample,
  type MarkPoint,
  sampleMarkout,
} from "../../src/engine/markouts.js";

export function markoutsAlongPath(
  a: Assignment,
  path: readonly MarkPoint[],
  maxAgeMs: number,
  delaysMs: readonly number[] = MARKOUT_DELAYS_MS,
): MarkoutSample[] {
  const out: MarkoutSample[] = [];
  let i = -1;
  for (let h = 0; h < MARKOUT_HORIZONS.length; h++) {
    const at = a.at + (delaysMs[h] as number);
    while (i + 1 < path.length && (path[i + 1] as MarkPoint).receivedAt <= at) i++;
    out.push(sampleMarkout(a, MARKOUT_HORIZONS[h] as MarkoutHorizon, at, i >= 0 ? path[i] : undefined, maxAgeMs));
  }
  return out;
}
