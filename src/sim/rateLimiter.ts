/**
 * Sliding-window rate limits (docs/protocol.md §4: 10/s per IP on public reads, 5/s per account on claims,
 * 10/s per account on admin orders). A request is admitted when no window of `windowMs` holding its
 * arrival would hold more than `limit` admitted requests; refused requests do not count, so a client
 * that backs off for one window always gets through again.
 *
 * Counted at arrival: the server checks a signed request only after verifying its signature (and
 * after an injected "before" delay), and on a busy machine that takes from a millisecond to hundreds,
 * differently for each request. Counted at check time, requests that left the client spaced by more
 * than the limit could bunch into one window, so the simulator would refuse a client that kept the
 * limit. A request checked late may arrive before ones already admitted: admission times are kept
 * sorted, and every window around the new arrival is checked.
 */
export interface SlidingWindowOptions {
  limit: number;
  windowMs: number;
  now: () => number;
  /** How much later than its arrival a request may be checked and still see every earlier admission (default 10 s). */
  lateMs?: number;
}

export class SlidingWindowLimiter {
  readonly limit: number;
  readonly windowMs: number;
  readonly #now: () => number;
  readonly #lateMs: number;
  /** Admission (arrival) times per key, oldest first. */
  readonly #hits = new Map<string, number[]>();
  #sinceSweep = 0;

  constructor(options: SlidingWindowOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError("limit must be a positive integer");
    if (!(options.windowMs > 0)) throw new RangeError("windowMs must be positive");
    const lateMs = options.lateMs ?? 10_000;
    if (!(lateMs >= 0)) throw new RangeError("lateMs must be ≥ 0");
    this.limit = options.limit;
    this.windowMs = options.windowMs;
    this.#now = options.now;
    this.#lateMs = lateMs;
  }

  /** Admit (and count) one request for `key` that arrived at `arrivedAt` (default: now), or refuse it. */
  tryAcquire(key: string, arrivedAt?: number): boolean {
    const now = this.#now();
    const at = arrivedAt === undefined ? now : Math.min(arrivedAt, now);
    // Older admissions can no longer share a window with any request still to be checked.
    const cutoff = now - this.windowMs - this.#lateMs;
    if (++this.#sinceSweep >= 1000) this.#sweep(cutoff);
    let hits = this.#hits.get(key);
    if (hits === undefined) {
      hits = [];
      this.#hits.set(key, hits);
    }
    let drop = 0;
    while (drop < hits.length && (hits[drop] as number) <= cutoff) drop++;
    if (drop > 0) hits.splice(0, drop);
    let i = hits.length; // where `at` goes: after every admission at or before it
    while (i > 0 && (hits[i - 1] as number) > at) i--;
    if (crowded(hits, i, at, this.limit, this.windowMs)) return false;
    hits.splice(i, 0, at);
    return true;
  }

  /** Requests admitted for `key` within the current window. */
  inWindow(key: string): number {
    const now = this.#now();
    const cutoff = now - this.windowMs;
    return (this.#hits.get(key) ?? []).filter((t) => t > cutoff && t <= now).length;
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

/**
 * With `at` inserted at index `i` of the sorted `hits`, would some `limit + 1` consecutive admissions
 * (the new one among them) lie within less than `windowMs`, i.e. one window hold more than `limit`?
 */
function crowded(hits: readonly number[], i: number, at: number, limit: number, windowMs: number): boolean {
  const get = (k: number): number => (k < i ? (hits[k] as number) : k === i ? at : (hits[k - 1] as number));
  const last = hits.length; // the highest index once `at` is inserted
  for (let j = Math.max(0, i - limit); j <= i && j + limit <= last; j++) {
    if (get(j + limit) - get(j) < windowMs) return true;
  }
  return false;
}
