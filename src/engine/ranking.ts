/**
 * Ordering of pending claims: a binary max-heap keyed by expected fee (docs/protocol.md §11: Σ |q| × mark ×
 * liquidator_fee), so under the venue's 5 claims/s (docs/protocol.md §4) the most valuable claim leaves
 * first. Ties go to the earlier liquidation (it expires first: TTL), then to the lower id, so the
 * order never depends on insertion order. push / pop / remove / update are O(log n); lookup by
 * liquidation id is O(1) through an index.
 */

export interface Ranked<T> {
  readonly liquidationId: number;
  readonly expectedFee: number;
  /** Liquidation timestamp (ms), the first tie-break. */
  readonly timestamp: number;
  readonly value: T;
}

interface Node<T> {
  liquidationId: number;
  expectedFee: number;
  timestamp: number;
  value: T;
  pos: number;
}

/** True when `a` must leave before `b`. */
function before<T>(a: Node<T>, b: Node<T>): boolean {
  if (a.expectedFee !== b.expectedFee) return a.expectedFee > b.expectedFee;
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp;
  return a.liquidationId < b.liquidationId;
}

function view<T>(n: Node<T>): Ranked<T> {
  return { liquidationId: n.liquidationId, expectedFee: n.expectedFee, timestamp: n.timestamp, value: n.value };
}

function checkKey(liquidationId: number, expectedFee: number, timestamp: number): void {
  // A NaN key would silently break the heap order; the engine never produces one, so it is a bug.
  if (!Number.isFinite(expectedFee)) throw new RangeError(`ranking ${liquidationId}: expected fee must be finite`);
  if (!Number.isFinite(timestamp)) throw new RangeError(`ranking ${liquidationId}: timestamp must be finite`);
}

export class RankingQueue<T> {
  private readonly heap: Node<T>[] = [];
  private readonly byId = new Map<number, Node<T>>();

  get size(): number {
    return this.heap.length;
  }

  has(liquidationId: number): boolean {
    return this.byId.has(liquidationId);
  }

  get(liquidationId: number): Ranked<T> | undefined {
    const n = this.byId.get(liquidationId);
    return n === undefined ? undefined : view(n);
  }

  /** Add a pending claim; an id already queued is re-keyed and its value replaced instead. */
  push(liquidationId: number, expectedFee: number, timestamp: number, value: T): void {
    checkKey(liquidationId, expectedFee, timestamp);
    const existing = this.byId.get(liquidationId);
    if (existing !== undefined) {
      existing.value = value;
      this.rekey(existing, expectedFee, timestamp);
      return;
    }
    const n: Node<T> = { liquidationId, expectedFee, timestamp, value, pos: this.heap.length };
    this.heap.push(n);
    this.byId.set(liquidationId, n);
    this.up(n.pos);
  }

  /** Re-key (and optionally replace the value of) a queued claim; false when the id is not queued. */
  update(liquidationId: number, expectedFee: number, value?: T, timestamp?: number): boolean {
    const n = this.byId.get(liquidationId);
    if (n === undefined) return false;
    const ts = timestamp ?? n.timestamp;
    checkKey(liquidationId, expectedFee, ts);
    if (value !== undefined) n.value = value;
    this.rekey(n, expectedFee, ts);
    return true;
  }

  peek(): Ranked<T> | undefined {
    const top = this.heap[0];
    return top === undefined ? undefined : view(top);
  }

  /** Take the most valuable pending claim. */
  pop(): Ranked<T> | undefined {
    const top = this.heap[0];
    if (top === undefined) return undefined;
    this.removeAt(0);
    return view(top);
  }

  /** Take a claim out by id (liquidation gone, skipped on re-check); undefined when not queued. */
  remove(liquidationId: number): Ranked<T> | undefined {
    const n = this.byId.get(liquidationId);
    if (n === undefined) return undefined;
    this.removeAt(n.pos);
    return view(n);
  }

  /**
   * Re-key every queued claim by `key` of its value (the ranking changed what it maximises, e.g. fee
   * per unit of margin once margin binds), then restore the heap order: O(n).
   */
  rekeyAll(key: (value: T, liquidationId: number) => number): void {
    const heap = this.heap;
    for (const n of heap) {
      const k = key(n.value, n.liquidationId);
      checkKey(n.liquidationId, k, n.timestamp);
      n.expectedFee = k;
    }
    for (let pos = (heap.length >> 1) - 1; pos >= 0; pos--) this.down(pos);
  }

  clear(): void {
    this.heap.length = 0;
    this.byId.clear();
  }

  /** Every queued claim in leaving order (copy; O(n log n): for logs, tests and shutdown). */
  toSorted(): Ranked<T>[] {
    return this.heap
      .slice()
      .sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0))
      .map(view);
  }

  private rekey(n: Node<T>, expectedFee: number, timestamp: number): void {
    n.expectedFee = expectedFee;
    n.timestamp = timestamp;
    this.up(n.pos);
    this.down(n.pos);
  }

  private removeAt(pos: number): void {
    const n = this.heap[pos] as Node<T>;
    this.byId.delete(n.liquidationId);
    const last = this.heap.pop() as Node<T>;
    if (last === n) return;
    this.heap[pos] = last;
    last.pos = pos;
    this.up(pos);
    this.down(last.pos);
  }

  private up(pos: number): void {
    const heap = this.heap;
    const n = heap[pos] as Node<T>;
    while (pos > 0) {
      const parentPos = (pos - 1) >> 1;
      const parent = heap[parentPos] as Node<T>;
      if (!before(n, parent)) break;
      heap[pos] = parent;
      parent.pos = pos;
      pos = parentPos;
    }
    heap[pos] = n;
    n.pos = pos;
  }

  private down(pos: number): void {
    const heap = this.heap;
    const len = heap.length;
    const n = heap[pos] as Node<T>;
    for (;;) {
      const l = 2 * pos + 1;
      if (l >= len) break;
      const r = l + 1;
      let child = l;
      if (r < len && before(heap[r] as Node<T>, heap[l] as Node<T>)) child = r;
      const c = heap[child] as Node<T>;
      if (!before(c, n)) break;
      heap[pos] = c;
      c.pos = pos;
      pos = child;
    }
    heap[pos] = n;
    n.pos = pos;
  }
}
