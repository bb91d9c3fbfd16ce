/**
 * Whether the venue's REST API answers right now, from the requests the daemon makes anyway. While
 * it does, a stream outage is the stream gateway's trouble, not the venue's: reconnects stay fast
 * (reconnectPolicy.ts caps their backoff) and degraded mode can keep claiming from REST.
 *
 * An answer is any HTTP response below 500, refusals and 429s included (the venue is there and
 * talking); a 5xx or a transport failure is not. Healthy = an answer within `windowMs` and fewer
 * than `maxFailures` failures since it.
 */
export interface RestHealthOptions {
  /** Local clock, ms. */
  now?: () => number;
  /** How recent the last answer must be. Default 10,000 ms. */
  windowMs?: number;
  /** Consecutive failures that make it unhealthy at once. Default 3. */
  maxFailures?: number;
}

export class RestHealth {
  readonly #now: () => number;
  readonly #windowMs: number;
  readonly #maxFailures: number;
  #lastAnswerAt = Number.NEGATIVE_INFINITY;
  #failures = 0;

  constructor(options: RestHealthOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#windowMs = options.windowMs ?? 10_000;
    this.#maxFailures = options.maxFailures ?? 3;
  }

  /** One finished request: its HTTP status, or "error" when none came. */
  record(status: number | "error"): void {
    if (status !== "error" && status < 500) {
      this.#lastAnswerAt = this.#now();
      this.#failures = 0;
    } else {
      this.#failures++;
    }
  }

  healthy(): boolean {
    return this.#failures < this.#maxFailures && this.#now() - this.#lastAnswerAt <= this.#windowMs;
  }
}
