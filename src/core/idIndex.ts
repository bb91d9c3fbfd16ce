/**
 * A set of liquidation ids, compact for a journal's whole life: the ids this account must never
 * claim again (docs/architecture.md "Never twice"). Most ids arrive in increasing order (the venue
 * numbers liquidations as it opens them), so they go to a small unsorted tail that is merged into a
 * sorted Float64Array (8 bytes an id, ids beyond 2^31 included) when it grows; a lookup is a binary
 * search plus a Set probe. A month of a busy venue's claims is a few megabytes, not a journal.
 */

/** Tail size at which it is merged into the sorted part. */
const TAIL_LIMIT = 1_024;

export class IdIndex {
  #sorted = new Float64Array(0);
  #tail = new Set<number>();

  get size(): number {
    return this.#sorted.length + this.#tail.size;
  }

  has(id: number): boolean {
    return this.#tail.has(id) || bsearch(this.#sorted, id);
  }

  add(id: number): void {
    if (this.has(id)) return;
    this.#tail.add(id);
    if (this.#tail.size >= TAIL_LIMIT) this.#merge();
  }

  /** Whether it was there (a re-claim that the venue's record allowed takes an id out). */
  delete(id: number): boolean {
    if (this.#tail.delete(id)) return true;
    const i = indexOf(this.#sorted, id);
    if (i < 0) return false;
    const next = new Float64Array(this.#sorted.length - 1);
    next.set(this.#sorted.subarray(0, i));
    next.set(this.#sorted.subarray(i + 1), i);
    this.#sorted = next;
    return true;
  }

  /** Ascending, every id once. */
  values(): number[] {
    this.#merge();
    return Array.from(this.#sorted);
  }

  /** Delta-encoded (the first id, then the gaps): small numbers in a snapshot's JSON. */
  toDeltas(): number[] {
    const ids = this.values();
    return ids.map((id, i) => (i === 0 ? id : id - (ids[i - 1] as number)));
  }

  static fromDeltas(deltas: readonly number[]): IdIndex {
    const index = new IdIndex();
    const ids = new Float64Array(deltas.length);
    let id = 0;
    for (let i = 0; i < deltas.length; i++) {
      id = i === 0 ? (deltas[0] as number) : id + (deltas[i] as number);
      ids[i] = id;
    }
    ids.sort();
    index.#sorted = ids;
    return index;
  }

  #merge(): void {
    if (this.#tail.size === 0) return;
    const merged = new Float64Array(this.#sorted.length + this.#tail.size);
    merged.set(this.#sorted);
    let i = this.#sorted.length;
    for (const id of this.#tail) merged[i++] = id;
    merged.sort();
    this.#sorted = merged;
    this.#tail.clear();
  }
}

function indexOf(sorted: Float64Array, id: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid] as number;
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function bsearch(sorted: Float64Array, id: number): boolean {
  return indexOf(sorted, id) >= 0;
}
