/**
 * Big inputs in bounded slices (daemon/feeds/sliceQueue.ts): small jobs run at once, big ones yield to the
 * event loop between slices and keep their order; with a real claimer and the daemon's gated permit,
 * the first claim of a sliced 1,000-liquidation frame is the frame's best, even when its best entry
 * is in the last slice and a permit is granted while the frame is still being sliced.
 */
import { afterEach, describe, expect, test } from "vitest";
import { gatedPermit, SliceQueue } from "../../src/daemon/feeds/sliceQueue.js";
import type { LiquidationEntry } from "../../src/venue/wire.js";
import { type ClaimerRig, claimerRig, ingestFor, Permits } from "../support/daemonClaimerRig.js";
import { waitFor } from "../support/wait.js";

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe("SliceQueue", () => {
  test("a job within one slice on an idle queue runs synchronously", () => {
    const q = new SliceQueue(10);
    const seen: number[] = [];
    let done = false;
    q.run({ items: [1, 2, 3], each: (i) => void seen.push(i), done: () => (done = true) });
    expect(seen).toEqual([1, 2, 3]);
    expect(done).toBe(true);
    expect(q.busy).toBe(false);
  });

  test("a big job yields to the event loop after every slice; later jobs keep their order", async () => {
    const q = new SliceQueue(100);
    const seen: number[] = [];
    const perTurn: number[] = [];
    q.run({ items: Array.from({ length: 1_000 }, (_, i) => i), each: (i) => void seen.push(i) });
    q.run({ items: [-1], each: (i) => void seen.push(i) }); // small, but behind the big one
    expect(seen).toHaveLength(0);
    expect(q.busy).toBe(true);
    let last = 0;
    while (q.busy) {
      await turn();
      perTurn.push(seen.length - last);
      last = seen.length;
    }
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(100);
    expect(perTurn.filter((n) => n > 0).length).toBeGreaterThanOrEqual(10);
    expect(seen).toEqual([...Array.from({ length: 1_000 }, (_, i) => i), -1]);
    await q.idle();
  });

  test("a slice also ends once its time is up: items that cost more do not hold the loop longer", async () => {
    const q = new SliceQueue(100, undefined, 3);
    const busy = (ms: number): void => {
      const end = performance.now() + ms;
      while (performance.now() < end); // an item that costs 2 ms of CPU
    };
    let ran = 0;
    const perTurn: number[] = [];
    q.run({
      items: Array.from({ length: 12 }, (_, i) => i),
      each: () => {
        busy(2);
        ran++;
      },
    });
    let last = 0;
    while (q.busy) {
      await turn();
      perTurn.push(ran - last);
      last = ran;
    }
    expect(ran).toBe(12);
    // 3 ms are up after the second item of a slice, however slow the machine: never 3 in one turn.
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(2);
    expect(() => new SliceQueue(100, undefined, 0)).toThrow(RangeError);
  });

  test("an item that throws in a later slice is reported and the job goes on", async () => {
    const errors: unknown[] = [];
    const q = new SliceQueue(2, (e) => errors.push(e));
    const seen: number[] = [];
    q.run({
      items: [1, 2, 3, 4, 5],
      each: (i) => {
        if (i === 4) throw new Error("boom");
        seen.push(i);
      },
    });
    await q.idle();
    expect(seen).toEqual([1, 2, 3, 5]);
    expect(errors).toHaveLength(1);
  });

  test("idle() ends at the abort of its signal", async () => {
    const q = new SliceQueue(1);
    q.run({ items: [1, 2, 3], each: () => undefined });
    const ac = new AbortController();
    const waiting = q.idle(ac.signal);
    ac.abort();
    await expect(waiting).resolves.toBeUndefined();
    await q.idle();
  });
});

describe("a 1,000-liquidation frame through the claimer", () => {
  let rig: ClaimerRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  /** ETH only, whole claims (under 10,000 of notional); the best entry (4.9 ETH) sits at `bestAt`. */
  function frame(firstId: number, n: number, bestAt: number): LiquidationEntry[] {
    return Array.from({ length: n }, (_, i) => ({
      liquidationId: firstId + i,
      timestamp: Date.now(),
      type: "liquidated",
      positionsByPerp: [{ symbol: "PERP_ETH_USDC", positionQty: i === bestAt ? 4.9 : 1 + (i % 97) * 0.01, liquidatorFee: 0.006 }],
    }));
  }

  async function setup() {
    const slices = new SliceQueue(100);
    const permits = new Permits();
    rig = await claimerRig({ acquire: gatedPermit(slices, permits.acquire) });
    const r = rig;
    const ingest = ingestFor(r, { slices });
    return { slices, permits, ingest, r };
  }

  test("the first claim is the frame's best, which arrives in the last slice", async () => {
    const { slices, permits, ingest, r } = await setup();
    ingest.stream(["liquidation", frame(1, 1_000, 950), Date.now()]);
    expect(slices.busy).toBe(true);
    await turn();
    await turn();
    // Slices done so far woke the pump, but it waits for the frame's end before taking a permit.
    expect(permits.waiting).toBe(0);
    await slices.idle();
    await waitFor(() => permits.waiting === 1, "the pump asks for a permit");
    permits.grant();
    await waitFor(() => r.venue.calls.length === 1, "a claim");
    expect(r.venue.ids()).toEqual([951]);
  });

  test("a permit granted while the frame is sliced still goes to the frame's best", async () => {
    const { slices, permits, ingest, r } = await setup();
    ingest.stream(["liquidation", frame(1, 1, -1), Date.now()]); // one small pending claim, id 1
    await waitFor(() => permits.waiting === 1, "the pump asks for a permit");
    ingest.stream(["liquidation", frame(100, 1_000, 990), Date.now()]);
    await turn();
    expect(slices.busy).toBe(true);
    permits.grant(); // mid-frame
    await turn();
    expect(r.venue.calls).toHaveLength(0);
    await slices.idle();
    await waitFor(() => r.venue.calls.length === 1, "a claim");
    expect(r.venue.ids()).toEqual([1_090]);
  });
});
