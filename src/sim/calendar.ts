/**
 * Things due at a time, in buckets of `bucketMs`: the market's margin checks and position closes
 * (positionMarket.ts, traderPopulation.ts) visit only what is due, not every account at every step.
 * An item is returned once per `add`; an item re-added for another time is returned for each, so
 * callers check on `due` whether the item still wants this visit (lazy deletion).
 */
export class Calendar<T> {
  readonly #bucketMs: number;
  readonly #buckets = new Map<number, T[]>();
  /** The lowest bucket that may hold items. */
  #low = Number.POSITIVE_INFINITY;

  constructor(bucketMs: number) {
    if (!(bucketMs > 0)) throw new RangeError("calendar bucket must be positive");
    this.#bucketMs = bucketMs;
  }

  add(at: number, item: T): void {
    const b = Math.floor(at / this.#bucketMs);
    let list = this.#buckets.get(b);
    if (list === undefined) {
      list = [];
      this.#buckets.set(b, list);
    }
    list.push(item);
    if (b < this.#low) this.#low = b;
  }

  /** Every item added for a time in a bucket at or before `now`'s, removed from the calendar. */
  due(now: number): T[] {
    const last = Math.floor(now / this.#bucketMs);
    if (this.#low > last) return [];
    const out: T[] = [];
    if (last - this.#low > this.#buckets.size) {
      // A long gap (a first step, a big dt): walk the buckets held rather than every bucket between.
      for (const [b, list] of this.#buckets) {
        if (b > last) continue;
        for (const item of list) out.push(item);
        this.#buckets.delete(b);
      }
    } else {
      for (let b = this.#low; b <= last; b++) {
        const list = this.#buckets.get(b);
        if (list === undefined) continue;
        for (const item of list) out.push(item);
        this.#buckets.delete(b);
      }
    }
    // Every bucket up to `last` is gone: what is left lies after it.
    this.#low = last + 1;
    return out;
  }

  get size(): number {
    let n = 0;
    for (const list of this.#buckets.values()) n += list.length;
    return n;
  }
}
