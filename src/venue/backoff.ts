/**
 * Exponential backoff with FULL jitter: the n-th retry (n from 0) waits a uniform random time in
 * [0, min(maxMs, initialMs · 2^n)]. Full jitter (rather than "cap ± some jitter") spreads a crowd of
 * clients that all lost the venue at the same instant, so they do not come back in lockstep
 * (docs/protocol.md §5: "reconnect with backoff and jitter"). Pure apart from the injected `random`.
 */
// 2^60 · initialMs overflows any sane cap long before; keeps the exponent finite for huge attempt counts.
const MAX_EXPONENT = 60;

/** The ceiling of the delay for retry number `attempt` (0-based). */
export function backoffCeiling(attempt: number, initialMs: number, maxMs: number): number {
  const n = attempt > MAX_EXPONENT ? MAX_EXPONENT : attempt < 0 ? 0 : Math.floor(attempt);
  const grown = initialMs * 2 ** n;
  return grown < maxMs ? grown : maxMs;
}

/**
 * Delay for retry number `attempt`: random in [0, ceiling], rounded to whole ms. A `random` that
 * returns garbage (NaN, out of range) is clamped rather than trusted, so the result is always in range.
 */
export function fullJitterDelay(attempt: number, initialMs: number, maxMs: number, random: () => number): number {
  let r = random();
  if (!(r >= 0))
    r = 0; // also catches NaN
  else if (r > 1) r = 1;
  return Math.round(r * backoffCeiling(attempt, initialMs, maxMs));
}
