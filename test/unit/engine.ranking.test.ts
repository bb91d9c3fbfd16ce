import { describe, expect, it } from "vitest";
import { RankingQueue } from "../../src/engine/ranking.js";

function drain<T>(q: RankingQueue<T>): number[] {
  const out: number[] = [];
  for (let r = q.pop(); r !== undefined; r = q.pop()) out.push(r.liquidationId);
  return out;
}

describe("RankingQueue", () => {
  it("highest expected fee first; ties: earlier timestamp, then lower id", () => {
    const q = new RankingQueue<string>();
    q.push(1, 10, 500, "a");
    q.push(2, 30, 900, "b");
    q.push(3, 10, 400, "c"); // same fee as 1, earlier
    q.push(4, 10, 400, "d"); // same fee and time as 3, higher id
    q.push(5, 20, 100, "e");
    expect(q.size).toBe(5);
    expect(q.peek()).toEqual({ liquidationId: 2, expectedFee: 30, timestamp: 900, value: "b" });
    expect(q.toSorted().map((r) => r.liquidationId)).toEqual([2, 5, 3, 4, 1]);
    expect(drain(q)).toEqual([2, 5, 3, 4, 1]);
    expect(q.pop()).toBeUndefined();
    expect(q.peek()).toBeUndefined();
  });

  it("order does not depend on insertion order", () => {
    const entries: [number, number, number][] = [
      [1, 5, 1],
      [2, 5, 1],
      [3, 7, 2],
      [4, 1, 0],
      [5, 7, 1],
    ];
    const a = new RankingQueue<null>();
    const b = new RankingQueue<null>();
    for (const e of entries) a.push(e[0], e[1], e[2], null);
    for (const e of [...entries].reverse()) b.push(e[0], e[1], e[2], null);
    expect(drain(a)).toEqual([5, 3, 1, 2, 4]);
    expect(drain(b)).toEqual([5, 3, 1, 2, 4]);
  });

  it("remove by id, from anywhere in the heap", () => {
    const q = new RankingQueue<number>();
    for (let id = 1; id <= 20; id++) q.push(id, (id * 7) % 13, id, id);
    expect(q.remove(9)?.value).toBe(9);
    expect(q.remove(9)).toBeUndefined();
    expect(q.has(9)).toBe(false);
    expect(q.remove(q.peek()!.liquidationId)).toBeDefined();
    const order = drain(q);
    expect(order).toHaveLength(18);
    expect(order).not.toContain(9);
  });

  it("update re-keys up and down; push on a queued id updates it", () => {
    const q = new RankingQueue<string>();
    q.push(1, 10, 0, "a");
    q.push(2, 20, 0, "b");
    q.push(3, 30, 0, "c");
    expect(q.update(1, 40)).toBe(true);
    expect(q.peek()?.liquidationId).toBe(1);
    expect(q.update(1, 5, "a2")).toBe(true);
    expect(q.get(1)).toEqual({ liquidationId: 1, expectedFee: 5, timestamp: 0, value: "a2" });
    q.push(2, 50, 0, "b2");
    expect(q.size).toBe(3);
    expect(q.peek()?.value).toBe("b2");
    expect(q.update(99, 1)).toBe(false);
    expect(drain(q)).toEqual([2, 3, 1]);
  });

  it("random operations keep heap order (against a sorted reference)", () => {
    let seed = 99;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const q = new RankingQueue<null>();
    const ref = new Map<number, { fee: number; ts: number }>();
    const expectedTop = (): number | undefined =>
      [...ref.entries()].sort((x, y) => y[1].fee - x[1].fee || x[1].ts - y[1].ts || x[0] - y[0])[0]?.[0];
    for (let i = 0; i < 5_000; i++) {
      const op = rnd(4);
      const id = 1 + rnd(200);
      if (op === 0 || op === 1) {
        const fee = rnd(50);
        const ts = rnd(10);
        q.push(id, fee, ts, null);
        ref.set(id, { fee, ts });
      } else if (op === 2) {
        expect(q.remove(id) !== undefined).toBe(ref.delete(id));
      } else {
        const top = q.pop();
        expect(top?.liquidationId).toBe(expectedTop());
        if (top) ref.delete(top.liquidationId);
      }
      expect(q.size).toBe(ref.size);
    }
  });

  it("refuses NaN keys (they would break the order silently)", () => {
    const q = new RankingQueue<null>();
    expect(() => q.push(1, Number.NaN, 0, null)).toThrow(RangeError);
    expect(() => q.push(1, 1, Number.POSITIVE_INFINITY, null)).toThrow(RangeError);
    q.push(1, 1, 0, null);
    expect(() => q.update(1, Number.NaN)).toThrow(RangeError);
    q.clear();
    expect(q.size).toBe(0);
    expect(q.has(1)).toBe(false);
  });
});
