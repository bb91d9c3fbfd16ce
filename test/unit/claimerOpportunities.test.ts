/**
 * What the claimer tells the opportunity ledger: each new skip verdict with its id, and, when an id
 * leaves the open list, whether our claim was queued for it (not yet sent) — the difference between
 * `lost` (left while we waited our turn) and a departure with nothing of ours pending.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { type ClaimerRig, claimerRig } from "../support/daemonClaimerRig.js";
import { liq } from "./engine.fixtures.js";

const ETH = "PERP_ETH_USDC"; // mark 2,000, fee 0.006: 12 of fee per ETH

let rig: ClaimerRig;
const calls: [string, number, string | boolean][] = [];
const opportunities = {
  skipped: (id: number, reason: string) => void calls.push(["skipped", id, reason]),
  left: (id: number, wanted: boolean) => void calls.push(["left", id, wanted]),
};

beforeEach(() => {
  calls.length = 0;
  vi.useFakeTimers({ now: 1_000_000, toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
});

afterEach(async () => {
  await rig?.close();
  vi.useRealTimers();
});

const settle = async (ms = 0): Promise<void> => void (await vi.advanceTimersByTimeAsync(ms));

describe("the claimer and the opportunity ledger", () => {
  test("queued and gone: wanted; skipped and gone: not; a skip is told once per reason", async () => {
    rig = await claimerRig({ policy: { min_fee: 20 }, opportunities });
    rig.add(liq(1, [ETH, 5])); // 60: queued, no permit granted
    rig.add(liq(2, [ETH, 1])); // 12 < 20: skipped
    rig.add(liq(2, [ETH, 1.01])); // the same verdict again: not told again
    await settle();
    rig.claimer.cancel(1);
    rig.claimer.cancel(2);
    expect(calls).toEqual([
      ["skipped", 2, "below_min_fee"],
      ["left", 1, true],
      ["left", 2, false],
    ]);
  });

  test("sent and gone: not queued any more (its answer decides)", async () => {
    rig = await claimerRig({ opportunities });
    rig.add(liq(3, [ETH, 5]));
    await settle();
    rig.permits.grant();
    await settle();
    expect(rig.venue.calls.length).toBe(1);
    rig.claimer.cancel(3);
    expect(calls).toEqual([["left", 3, false]]);
  });
});
