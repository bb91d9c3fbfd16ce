/**
 * The claim rehearsal's driver: which liquidation it rehearses (one row of the last frame, through
 * the real frame decoder), that it does nothing without a sample, its timer, and that a failure stops
 * it without reaching the event loop. What a rehearsal does not do (send, journal, reserve) is the
 * Claimer's test ("rehearsal").
 */
import { afterEach, describe, expect, test } from "vitest";
import { ClaimRehearsal } from "../../src/daemon/claim/claimRehearsal.js";
import type { Liquidation } from "../../src/engine/types.js";
import { liquidationFromPush, liquidationFromRow } from "../../src/venue/mapping.js";
import type { OpenLiquidation } from "../../src/venue/restSchemas.js";
import type { LiquidationEntry } from "../../src/venue/wire.js";
import { waitFor } from "../support/daemonHarness.js";
import { sleep } from "../support/wait.js";

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
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
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

  test("no rehearsal while real frames keep the path warm (one within the interval)", async () => {
    let t = 0;
    const r = rig(1, () => t);
    r.rehearsal.sample([entry(1)], 1);
    r.rehearsal.start();
    await sleep(30);
    expect(r.counted.runs).toBe(0);
    t = 10;
    await waitFor(() => r.counted.runs >= 3, "rehearsals once the path went quiet", 5_000);
  });

  test("runs on its interval once started, and not after stop", async () => {
    const r = rig(1);
    r.rehearsal.sample([entry(1)], 1);
    r.rehearsal.start();
    await waitFor(() => r.counted.runs >= 5, "five rehearsals", 5_000);
    r.rehearsal.stop();
    const runs = r.counted.runs;
    await sleep(30);
    expect(r.counted.runs).toBe(runs);
  });

  test("no rehearsal while the claim path is busy (claims waiting for permits)", async () => {
    let busy = true;
    const r = rig(1, undefined, () => !busy);
    r.rehearsal.sample([entry(1)], 1);
    r.rehearsal.start();
    await sleep(30);
    expect(r.counted.runs).toBe(0);
    busy = false;
    await waitFor(() => r.counted.runs >= 3, "rehearsals once idle", 5_000);
  });

  test("interval 0 never starts a timer", async () => {
    const r = rig(0);
    r.rehearsal.sample([entry(1)], 1);
    r.rehearsal.start();
    await sleep(30);
    expect(r.counted.runs).toBe(0);
  });

  test("a rehearsal that throws stops the rehearsals and is reported, never thrown to the loop", async () => {
    const r = rig(1);
    r.rehearsal.sample([entry(1)], 1);
    r.failWith(new Error("boom"));
    r.rehearsal.start();
    await waitFor(() => r.errors.length > 0, "the failure reported", 5_000);
    const runs = r.counted.runs;
    await sleep(30);
    expect(r.errors.map((e) => e.message)).toEqual(["boom"]);
    expect(r.counted.runs).toBe(runs);
  });

  test("the interval is checked", () => {
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => rig(bad)).toThrow(RangeError);
  });
});
