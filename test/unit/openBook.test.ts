/**
 * The open list from two sources that disagree in time: stream deltas (fast, may be missed) and REST
 * snapshots (the truth, but possibly older than a push received while the snapshot was in flight).
 */
import { describe, expect, test } from "vitest";
import { OpenBook } from "../../src/daemon/feeds/openBook.js";
import type { Liquidation } from "../../src/engine/types.js";

/** A liquidation as either source reports it (venue/mapping.ts maps both to this). */
function liq(id: number, ...positions: [string, number][]): Liquidation {
  return {
    liquidationId: id,
    timestamp: 1_000 + id,
    positions: positions.map(([symbol, positionQty]) => ({ symbol, positionQty, liquidatorFee: 0.01 })),
  };
}
const push = liq;
const row = liq;

const ids = (b: OpenBook): number[] => [...b.ids()].sort((a, c) => a - c);

describe("OpenBook deltas", () => {
  test("new ids are added, a changed id is upserted (not counted as new), an empty one is a removal", () => {
    const b = new OpenBook();
    const c1 = b.applyDelta([push(1, ["PERP_ETH_USDC", 2]), push(2, ["PERP_SOL_USDC", -5])], 10);
    expect(c1.added).toBe(2);
    expect(c1.upserted.map((l) => l.liquidationId)).toEqual([1, 2]);
    expect(c1.removed).toEqual([]);

    const c2 = b.applyDelta([push(1, ["PERP_ETH_USDC", 0.5])], 20);
    expect(c2.added).toBe(0);
    expect(c2.upserted).toEqual([
      { liquidationId: 1, timestamp: 1_001, positions: [{ symbol: "PERP_ETH_USDC", positionQty: 0.5, liquidatorFee: 0.01 }] },
    ]);
    expect(b.get(1)?.positions[0]?.positionQty).toBe(0.5);

    const c3 = b.applyDelta([push(2), push(1, ["PERP_ETH_USDC", 0])], 30);
    expect(c3.removed.sort()).toEqual([1, 2]);
    expect(c3.upserted).toEqual([]);
    expect(b.size).toBe(0);
  });

  test("removing an id never seen is not reported as a removal", () => {
    const b = new OpenBook();
    expect(b.applyDelta([push(9)], 10).removed).toEqual([]);
    expect(b.remove(9)).toBe(false);
  });
});

describe("OpenBook reconcile", () => {
  test("the snapshot adds what the pushes missed and removes what it no longer lists", () => {
    const b = new OpenBook();
    b.applyDelta([push(1, ["PERP_ETH_USDC", 1]), push(2, ["PERP_ETH_USDC", 2])], 10);
    const c = b.reconcile([row(2, ["PERP_ETH_USDC", 2]), row(3, ["PERP_SOL_USDC", 4])], 100, 150);
    expect(c.added).toBe(1);
    expect(c.upserted.map((l) => l.liquidationId)).toEqual([3]); // 2 unchanged: not re-offered
    expect(c.removed).toEqual([1]);
    expect(ids(b)).toEqual([2, 3]);
    expect(b.get(3)?.positions).toEqual([{ symbol: "PERP_SOL_USDC", positionQty: 4, liquidatorFee: 0.01 }]);
  });

  test("an id pushed after the snapshot request left is kept although the snapshot lacks it", () => {
    const b = new OpenBook();
    b.applyDelta([push(5, ["PERP_ETH_USDC", 1])], 120); // pushed while the request (sent at 100) was in flight
    const c = b.reconcile([], 100, 150);
    expect(c.removed).toEqual([]);
    expect(ids(b)).toEqual([5]);
    // The next snapshot, requested after the push, is the truth: gone.
    expect(b.reconcile([], 200, 250).removed).toEqual([5]);
  });

  test("a snapshot row never overwrites a push newer than the request", () => {
    const b = new OpenBook();
    b.applyDelta([push(7, ["PERP_ETH_USDC", 3])], 50);
    b.applyDelta([push(7, ["PERP_ETH_USDC", 1])], 120); // a competitor took 2 while the snapshot was in flight
    const c = b.reconcile([row(7, ["PERP_ETH_USDC", 3])], 100, 150);
    expect(c.upserted).toEqual([]);
    expect(b.get(7)?.positions[0]?.positionQty).toBe(1);
  });

  test("a snapshot row with new quantities replaces an older entry and is re-offered", () => {
    const b = new OpenBook();
    b.applyDelta([push(7, ["PERP_ETH_USDC", 3])], 50);
    const c = b.reconcile([row(7, ["PERP_ETH_USDC", 1.5])], 100, 150);
    expect(c.added).toBe(0);
    expect(c.upserted.map((l) => l.positions[0]?.positionQty)).toEqual([1.5]);
  });

  test("a removal pushed after the snapshot request left is not undone by that snapshot", () => {
    const b = new OpenBook();
    b.applyDelta([push(8, ["PERP_ETH_USDC", 1])], 50);
    b.applyDelta([push(8)], 120); // claimed away while the snapshot was in flight
    const c = b.reconcile([row(8, ["PERP_ETH_USDC", 1])], 100, 150);
    expect(c.upserted).toEqual([]);
    expect(c.added).toBe(0);
    expect(b.has(8)).toBe(false);
    // Same for an id that came and went during the request, never seen before.
    b.applyDelta([push(9, ["PERP_SOL_USDC", 1])], 210);
    b.applyDelta([push(9)], 220);
    expect(b.reconcile([row(9, ["PERP_SOL_USDC", 1])], 200, 250).upserted).toEqual([]);
    expect(b.has(9)).toBe(false);
    // A later snapshot that still lists it is the truth (an id may reappear).
    expect(b.reconcile([row(9, ["PERP_SOL_USDC", 1])], 300, 350).added).toBe(1);
    expect(b.has(9)).toBe(true);
  });

  test("an id removed after a -1202 (remove) is not brought back by a snapshot older than that", () => {
    const b = new OpenBook();
    b.applyDelta([push(4, ["PERP_ETH_USDC", 1])], 50);
    expect(b.remove(4, 120)).toBe(true);
    expect(b.reconcile([row(4, ["PERP_ETH_USDC", 1])], 100, 150).upserted).toEqual([]);
    expect(b.has(4)).toBe(false);
  });

  test("rows with no open quantity are ignored", () => {
    const b = new OpenBook();
    const c = b.reconcile([row(1), row(2, ["PERP_ETH_USDC", 0])], 100, 150);
    expect(c.upserted).toEqual([]);
    expect(b.size).toBe(0);
  });
});
