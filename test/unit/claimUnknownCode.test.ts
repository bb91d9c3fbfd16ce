/**
 * A claim refused with a code the failure table does not know (docs/protocol.md §9: the real venue's
 * limit_price code is unpublished) is not final: re-decided while the id is open, at once and then
 * less and less often, a bounded number of times; one claim in flight at a time; every attempt
 * journaled; one warn line per unknown code. Same rig and fake time as claimer.test.ts.
 */
import { describe, expect, test } from "vitest";
import { CoreFold } from "../../src/core/coreFold.js";
import type { IntentRecord, OutcomeRecord } from "../../src/core/journalRecords.js";
import { UNKNOWN_CODE_TRIES_FOR_TESTS } from "../../src/venue/failureTable.js";
import {
  type ClaimerRig,
  claimerRig,
  grantAll as grantAllPermits,
  settleTimers,
  useClaimerClock,
  venueError,
} from "../support/daemonClaimerRig.js";
import { liq } from "./engine.fixtures.js";

const ETH = "PERP_ETH_USDC";
/** Not in the failure table: what a real venue may answer for a claim past its limit price. */
const UNPUBLISHED = -1777;

let rig: ClaimerRig;

useClaimerClock(() => rig);

const settle = settleTimers;
const grantAll = (max?: number): Promise<void> => grantAllPermits(rig, max);

const intents = (id: number): IntentRecord[] => rig.records().filter((r): r is IntentRecord => r.t === "intent" && r.id === id);
const outcomes = (id: number): OutcomeRecord[] => rig.records().filter((r): r is OutcomeRecord => r.t === "outcome" && r.id === id);

interface Line {
  level: "info" | "warn" | "error";
  obj: Record<string, unknown>;
  msg: string;
}

function capturingLogger(lines: Line[]) {
  const at = (level: Line["level"]) => (obj: object, msg: string) => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { info: at("info"), warn: at("warn"), error: at("error") };
}

/** Refuse the claim in flight with `code`, then advance `ms` and grant what is asked. */
async function refuse(code: number, ms: number): Promise<void> {
  rig.venue.last().reject(venueError(code));
  await settle(ms);
  await grantAll();
}

describe("a claim refused with a code the failure table does not know", () => {
  test("re-decided at once, then after 2, 4, 8, 16, 16 s, never sooner; budget spent, it is finished", async () => {
    rig = await claimerRig({ timings: { repriceBackoffMs: 2_000 } });
    rig.add(liq(1, [ETH, 1]));
    await grantAll();
    await refuse(UNPUBLISHED, 0);
    expect(rig.venue.ids()).toEqual([1, 1]); // at once, on fresh marks
    const waits = [2_000, 4_000, 8_000, 16_000, 16_000];
    expect(waits).toHaveLength(UNKNOWN_CODE_TRIES_FOR_TESTS - 1);
    for (const [i, wait] of waits.entries()) {
      await refuse(UNPUBLISHED, wait - 1);
      expect(rig.venue.ids()).toHaveLength(2 + i); // not before its time
      rig.refreshMarks();
      await settle(1);
      await grantAll();
      expect(rig.venue.ids()).toHaveLength(3 + i);
    }
    // The last re-decision refused too: the budget is spent, the id is finished (marks kept fresh,
    // so it is the budget and not a stale mark that stops it).
    await refuse(UNPUBLISHED, 0);
    for (let t = 0; t < 10; t++) {
      await settle(15_999);
      rig.refreshMarks();
      await settle(1);
      await grantAll();
    }
    expect(rig.venue.ids()).toHaveLength(1 + UNKNOWN_CODE_TRIES_FOR_TESTS);
    // Every attempt journaled: an intent before it left, its refusal after.
    expect(intents(1)).toHaveLength(1 + UNKNOWN_CODE_TRIES_FOR_TESTS);
    expect(outcomes(1).map((o) => [o.result, o.code])).toEqual(Array(1 + UNKNOWN_CODE_TRIES_FOR_TESTS).fill(["rejected", UNPUBLISHED]));
    expect(rig.events.filter((e) => e.e === "result")).toContainEqual({ e: "result", result: "error", code: "other" });
    expect(rig.exposure.reservationCount).toBe(0);
  });

  test("claimed once the price fits: the re-decision that is accepted settles it, nothing more is sent", async () => {
    rig = await claimerRig({ timings: { repriceBackoffMs: 2_000 } });
    rig.add(liq(1, [ETH, 1]));
    await grantAll();
    await refuse(UNPUBLISHED, 0);
    await refuse(UNPUBLISHED, 2_000);
    const call = rig.venue.last();
    call.resolve(rig.resultFor(call));
    await settle(600_000);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1, 1]);
    expect(outcomes(1).map((o) => o.result)).toEqual(["rejected", "rejected", "accepted"]);
  });

  test("not re-decided once the id has left the open list", async () => {
    rig = await claimerRig({ timings: { repriceBackoffMs: 2_000 } });
    rig.add(liq(1, [ETH, 1]));
    await grantAll();
    await refuse(UNPUBLISHED, 0);
    rig.venue.last().reject(venueError(UNPUBLISHED));
    rig.book.remove(1); // taken by someone else, or expired
    await settle(600_000);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1]);
  });

  test("one claim in flight per id: offered again while refused and waiting, nothing extra leaves", async () => {
    rig = await claimerRig({ timings: { repriceBackoffMs: 2_000 } });
    const l = liq(1, [ETH, 1]);
    rig.add(l);
    await grantAll();
    rig.add(l); // a push repeats it while the claim is in flight
    await grantAll();
    expect(rig.venue.ids()).toEqual([1]);
    await refuse(UNPUBLISHED, 0);
    rig.venue.last().reject(venueError(UNPUBLISHED));
    await settle();
    rig.add(l); // and again while it waits for its re-decision
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1]);
    expect(rig.venue.calls.every((c) => c.settled)).toBe(true);
    await settle(2_000);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1, 1]);
  });

  test("one warn line per unknown code, with the code and the venue's message, not one per claim", async () => {
    const lines: Line[] = [];
    rig = await claimerRig({ timings: { repriceBackoffMs: 2_000 }, logger: capturingLogger(lines) });
    rig.add(liq(1, [ETH, 1]));
    rig.add(liq(2, [ETH, 1]));
    await grantAll();
    const refuseOpen = async (code: number, ms: number): Promise<void> => {
      for (const c of rig.venue.calls.filter((c) => !c.settled)) c.reject(venueError(code));
      rig.refreshMarks();
      await settle(ms);
      await grantAll();
    };
    await refuseOpen(UNPUBLISHED, 0);
    await refuseOpen(UNPUBLISHED, 2_000);
    await refuseOpen(-1888, 0);
    expect(rig.venue.ids()).toEqual([1, 2, 1, 2, 1, 2]);
    const warned = lines.filter((l) => l.level === "warn");
    expect(warned.map((l) => [l.obj.code, l.obj.message])).toEqual([
      [UNPUBLISHED, "refused"],
      [-1888, "refused"],
    ]);
    // Each refusal still leaves a line, below warn.
    expect(lines.filter((l) => l.level === "info" && l.msg === "claim not accepted")).toHaveLength(4);
  });

  test("after a restart: an id whose re-decisions were spent is never claimed again; one only refused so far may be", async () => {
    rig = await claimerRig({ timings: { repriceBackoffMs: 2_000 } });
    rig.add(liq(1, [ETH, 1]));
    await grantAll();
    // Id 1 refused until its budget is spent (as in the first test: at once, then 2, 4, 8, 16, 16 s).
    await refuse(UNPUBLISHED, 0);
    for (const wait of [2_000, 4_000, 8_000, 16_000, 16_000]) {
      await refuse(UNPUBLISHED, wait - 1);
      rig.refreshMarks();
      await settle(1);
      await grantAll();
    }
    expect(rig.venue.ids()).toHaveLength(UNKNOWN_CODE_TRIES_FOR_TESTS + 1);
    await refuse(UNPUBLISHED, 0);
    expect(outcomes(1).at(-1)?.final).toBe(true);
    // Id 2 refused once: its next re-decision is still to come.
    rig.add(liq(2, [ETH, 0.5]));
    await grantAll();
    expect(rig.venue.last().body.liquidation_id).toBe(2);
    rig.venue.last().reject(venueError(UNPUBLISHED));
    await settle();
    // The restarted core's state is the journal folded: 1 never again, 2 claimable.
    const fold = new CoreFold();
    for (const r of rig.records()) fold.add(r);
    expect(fold.done.values()).toEqual([1]);
    expect(fold.claims.size).toBe(0);
  });
});
