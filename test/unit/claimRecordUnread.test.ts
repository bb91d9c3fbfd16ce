/**
 * The venue's record of our claims with a row the daemon cannot read (issue #34 item 4): the row is
 * left out and the rest of the page is used, but a claim missing from the readable rows is not
 * concluded "not applied" from that read — the unreadable row may be it. It stays unknown (settled
 * by a later whole read, a push, or given up at the bound), never claimed again on that evidence.
 */
import { expect, test } from "vitest";
import type { OutcomeRecord } from "../../src/core/journalRecords.js";
import { TransportError } from "../../src/venue/errors.js";
import { type ClaimerRig, claimerRig, settleTimers, useClaimerClock } from "../support/daemonClaimerRig.js";
import { liq } from "./engine.fixtures.js";

const ETH = "PERP_ETH_USDC";
let rig: ClaimerRig;

useClaimerClock(() => rig);

const settle = settleTimers;
const outcomes = (id: number): string[] =>
  rig
    .records()
    .filter((r): r is OutcomeRecord => r.t === "outcome" && r.id === id)
    .map((o) => o.result);

test("a record read with an unreadable row never says 'not applied'; the next whole read does", async () => {
  rig = await claimerRig({ timings: { settleMs: 30_000, firstCheckMs: 1_000, maxCheckMs: 4_000, boundMs: 600_000 } });
  rig.add(liq(1, [ETH, 2]));
  for (let i = 0; i < 5 && rig.permits.waiting === 0; i++) await settle();
  rig.permits.grant();
  await settle();
  rig.venue.last().reject(new TransportError("socket hang up", true));
  rig.record.unreadRows = 1;
  await settle(60_000);
  // Long past settleMs, the record read every few seconds: still unknown, never claimed again.
  expect(outcomes(1)).toEqual(["unknown"]);
  expect(rig.record.reads).toBeGreaterThan(5);
  expect(rig.venue.ids()).toEqual([1]);
  rig.record.unreadRows = 0;
  await settle(5_000);
  expect(outcomes(1)).toEqual(["unknown", "not_accepted"]);
});
