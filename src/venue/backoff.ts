/**
 * Exponential backoff with FULL jitter: the n-th retry (n from 0) waits a uniform random time in
 * [0, min(maxMs, initialMs · 2^n)]. Full jitter (rather than "cap ± some jitter") spreads a crowd of
 * clients that all lost the venue at the same instant, so they do not come back in lockstep
 * (docs/protocol.md §5: "reconnect with backoff and jitter"). Pure apart from the injected `random`.
 */
import { InvalidArgumentError } from "../errors.js";

export interface BackoffOptions {
  /** Ceiling of the first delay, ms (> 0). */
  initialMs: number;
  /** Largest ceiling, ms (>= initialMs). */
  maxMs: number;
  /** Uniform source in [0, 1]; Math.random when omitted. Tests inject a fixed one. */
  random?: () => number;
}

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

function positiveFinite(key: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError(`${key} must be a positive finite number of milliseconds`);
  }
  return value;
}

/** Stateful counter around `fullJitterDelay`: `next()` grows the ceiling, `reset()` starts over. */
export class Backoff {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly #random: () => number;
  #attempt = 0;

  constructor(options: BackoffOptions) {
    this.initialMs = positiveFinite("backoff.initialMs", options.initialMs);
    this.maxMs = positiveFinite("backoff.maxMs", options.maxMs);
    if (this.maxMs < this.initialMs) throw new InvalidArgumentError("backoff.maxMs must be >= backoff.initialMs");
    if (options.random !== undefined && typeof options.random !== "function") {
      throw new InvalidArgumentError("backoff.random must be a function returning a number in [0, 1]");
    }
    this.#random = options.random ?? Math.random;
  }

  /** How many delays have been handed out since the last reset (saturates at 61: the ceiling no longer grows). */
  get attempt(): number {
    return this.#attempt;
  }

  /** The ceiling the next delay will be drawn under (for logs). */
  get nextCeilingMs(): number {
    return backoffCeiling(this.#attempt, this.initialMs, this.maxMs);
  }

  /** The delay before the next retry; each call grows the ceiling until it reaches maxMs. */
  next(): number {
    const delay = fullJitterDelay(this.#attempt, this.initialMs, this.maxMs, this.#random);
    if (this.#attempt <= MAX_EXPONENT) this.#attempt++;
    return delay;
  }

  /** After a healthy period: the next delay is drawn under initialMs again. */
  reset(): void {
    this.#attempt = 0;
  }
}
