/**
 * The claim rehearsal's driver: which liquidation it rehearses (one row of the last frame, through
 * the real frame decoder), that it does nothing without a sample, its timer, and that a failure stops
 * it without reaching the event loop. What a rehearsal does not do (send, journal, reserve) is the
 * Claimer's test ("rehearsal").
 */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { ClaimRehearsal } from "../../src/daemon/claim/claimRehearsal.js";
import type { Liquidation } from "../../src/engine/types.js";
import { liquidationFromPush, liquidationFromRow } from "../../src/venue/mapping.js";
import type { OpenLiquidation } from "../../src/venue/restSchemas.js";
import type { LiquidationEntry } from "../../src/venue/wire.js";

function entry(id: number): LiquidationEntry {
  return {
    liquidationId: id,
    timestamp: 1_700_000_000_000 + id,
    type: "liquidated",
    positionsByPerp: [
      { symbol: "PERP_ETH_USDC", positionQty: 1.5, liquidatorFee: 0.006 },
      { symbol: "PERP_BTC_USDC", positionQty: -0.01, liquidatorFee: 0.006 },
    ],
  };
}

function rig(intervalMs = 0, now?: () => number, idle?: () => boolean) {
  const seen: Liquidation[] = [];
  let fail: Error | undefined;
  const errors: Error[] = [];
  const counted = { runs: 0 };
  const rehearsal = new ClaimRehearsal({
    claimer: {
      rehearse: (l) => {
        if (fail !== undefined) throw fail;
        seen.push(l);
        return 100;
      },
    },
    intervalMs,
    onRun: () => void counted.runs++,
    onError: (err) => errors.push(err),
    ...(now !== undefined ? { now } : {}),
    ...(idle !== undefined ? { idle } : {}),
  });
  stops.push(() => rehearsal.stop());
  return { rehearsal, seen, errors, counted, failWith: (e: Error) => (fail = e) };
}

const stops: Array<() => void> = [];
// The rehearsal is a timer: every test drives it (and the clock it reads) by hand.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "performance", "Date"] });
});
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
  vi.useRealTimers();
});

describe("ClaimRehearsal", () => {
  test("no sample, nothing rehearsed", () => {
    const r = rig();
    expect(r.rehearsal.runOnce()).toBe(0);
    expect(r.seen).toEqual([]);
    expect(r.counted.runs).toBe(0);
  });

  test("the first row of the last frame, decoded as a one-row frame, is what the claimer rehearses", () => {
    const r = rig();
    const cascade = Array.from({ length: 1_000 }, (_, i) => entry(i + 1));
    r.rehearsal.sample(cascade, 1_700_000_000_500);
    expect(r.rehearsal.runOnce()).toBe(100);
    expect(r.rehearsal.runOnce()).toBe(100);
    expect(r.seen).toHaveLength(2);
    expect(r.seen[0]).toEqual(liquidationFromPush(cascade[0] as LiquidationEntry));
    r.rehearsal.sample([entry(5_000)], undefined);
    r.rehearsal.runOnce();
    expect(r.seen.at(-1)?.liquidationId).toBe(5_000);
    // An empty frame, or one of removals only, keeps the sample it had; a removal is never the sample.
    r.rehearsal.sample([], 1);
    r.rehearsal.sample([{ ...entry(6_000), positionsByPerp: [] }], 1);
    r.rehearsal.runOnce();
    expect(r.seen.at(-1)?.liquidationId).toBe(5_000);
    r.rehearsal.sample([{ ...entry(6_000), positionsByPerp: [] }, entry(6_001)], 1);
    r.rehearsal.runOnce();
    expect(r.seen.at(-1)?.liquidationId).toBe(6_001);
  });

  test("before any push, a liquidation of the open list is the sample; a push replaces it", () => {
    const r = rig();
    const row = (id: number, qty: number): OpenLiquidation =>
      ({
        liquidation_id: id,
        timestamp: 1_700_000_000_000 + id,
        type: "liquidated",
        positions_by_perp: qty === 0 ? [] : [{ symbol: "PERP_ETH_USDC", position_qty: qty, liquidator_fee: 0.006 }],
      }) as OpenLiquidation;
    r.rehearsal.sampleOpenList([row(8, 0)]);
    expect(r.rehearsal.runOnce()).toBe(0);
    r.rehearsal.sampleOpenList([row(8, 0), row(9, 1.5)]);
    r.rehearsal.runOnce();
    expect(r.seen.at(-1)).toEqual(liquidationFromRow(row(9, 1.5)));
    r.rehearsal.sample([entry(10)], 1);
    r.rehearsal.sampleOpenList([row(11, 2)]);
    r.rehearsal.runOnce();
    expect(r.seen.at(-1)?.liquidationId).toBe(10);
  });

  test("no rehearsal while real frames keep the path warm (one within the interval)", () => {
    let t = 0;
    const r = rig(1, () => t);
    r.rehearsal.sample([entry(1)], 1);
    r.rehearsal.start();
    vi.advanceTimersByTime(30);
    expect(r.counted.runs).toBe(0);
    t = 10;
    vi.advanceTimersByTime(3);
    expect(r.counted.runs).toBe(3);
  });

  test("runs on its interval once started, and not after stop", () => {
    const r = rig(1);
    r.rehearsal.sample([entry(1)], 1);
    r.rehearsal.start();
    vi.advanceTimersByTime(5);
    expect(r.counted.runs).toBe(5);
    r.rehearsal.stop();
    vi.advanceTimersByTime(30);
    expect(r.counted.runs).toBe(5);
  });

  test("no rehearsal while the claim path is busy (claims waiting for permits)", () => {
    let busy = true;
    const r = rig(1, undefined, () => !busy);
    r.rehearsal.sample([entry(1)], 1);
    r.rehearsal.start();
    vi.advanceTimersByTime(30);
    expect(r.counted.runs).toBe(0);
    busy = false;
    vi.advanceTimersByTime(3);
    expect(r.counted.runs).toBe(3);
  });

  test("interval 0 never starts a timer", () => {
    const r = rig(0);
    r.rehearsal.sample([entry(1)], 1);
    r.rehearsal.start();
    vi.advanceTimersByTime(30);
    expect(r.counted.runs).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  test("a rehearsal that throws stops the rehearsals and is reported, never thrown to the loop", () => {
    const r = rig(1);
    r.rehearsal.sample([entry(1)], 1);
    r.failWith(new Error("boom"));
    r.rehearsal.start();
    vi.advanceTimersByTime(1);
    expect(r.errors.map((e) => e.message)).toEqual(["boom"]);
    const runs = r.counted.runs;
    vi.advanceTimersByTime(30);
    expect(r.errors.map((e) => e.message)).toEqual(["boom"]);
    expect(r.counted.runs).toBe(runs);
    expect(vi.getTimerCount()).toBe(0);
  });

  test("the interval is checked", () => {
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => rig(bad)).toThrow(RangeError);
  });
});
