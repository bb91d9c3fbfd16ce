/**
 * Sliding-window rate limits (docs/protocol.md §4: 10/s per IP on public reads, 5/s per account on claims,
 * 10/s per account on admin orders). A request is admitted when fewer than `limit` requests were
 * admitted in the last `windowMs`; refused requests do not count, so a client that backs off for one
 * window always gets through again.
 */
export interface SlidingWindowOptions {
  limit: number;
  windowMs: number;
  now: () => number;
}

export class SlidingWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #now: () => number;
  /** Admission times per key, oldest first. */
  readonly #hits = new Map<string, number[]>();
  #sinceSweep = 0;

  constructor(options: SlidingWindowOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError("limit must be a positive integer");
    if (!(options.windowMs > 0)) throw new RangeError("windowMs must be positive");
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.#now = options.now;
  }

  /** Admit (and count) one request for `key`, or refuse it. */
  tryAcquire(key: string): boolean {
    const now = this.#now();
    const cutoff = now - this.windowMs;
    if (++this.#sinceSweep >= 1000) this.#sweep(cutoff);
    let hits = this.#hits.get(key);
    if (hits === undefined) {
      hits = [];
      this.#hits.set(key, hits);
    }
    let drop = 0;
    while (drop < hits.length && (hits[drop] as number) <= cutoff) drop++;
    if (drop > 0) hits.splice(0, drop);
    if (hits.length >= this.limit) return false;
    hits.push(now);
    return true;
  }

  /** Requests admitted for `key` within the current window. */
  inWindow(key: string): number {
    const cutoff = this.#now() - this.windowMs;
    return (this.#hits.get(key) ?? []).filter((t) => t > cutoff).length;
  }

  /** Forget keys with no recent hits, so a scan from many addresses cannot grow the map forever. */
  #sweep(cutoff: number): void {
    this.#sinceSweep = 0;
    for (const [key, hits] of this.#hits) {
      const last = hits[hits.length - 1];
      if (last === undefined || last <= cutoff) this.#hits.delete(key);
    }
  }

  /** Keys currently remembered (for tests of the sweep). */
  get trackedKeys(): number {
    return this.#hits.size;
  }

  reset(): void {
    this.#hits.clear();
  }
}
