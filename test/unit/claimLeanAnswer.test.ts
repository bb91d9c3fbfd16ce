/**
 * A claim accepted by a lean answer (docs/protocol.md §9: every field of the claim answer is optional): a
 * success, never a failure; held at the requested quantities as pending until the venue's next
 * position report says what is held; its fills come from the private `liquidatorliquidations` push
 * (before or after the answer) or the venue's record of our claims. Never claimed again, never
 * counted twice.
 */
import { expect, test } from "vitest";
import type { OutcomeRecord } from "../../src/core/journalRecords.js";
import { type ClaimerRig, claimerRig, grantAll as grantAllPermits, settleTimers, useClaimerClock } from "../support/daemonClaimerRig.js";
import { liq } from "./engine.fixtures.js";

const ETH = "PERP_ETH_USDC";
let rig: ClaimerRig;

useClaimerClock(() => rig);

const settle = settleTimers;
const grantAll = (max?: number): Promise<void> => grantAllPermits(rig, max);

const outcomes = (id: number): OutcomeRecord[] => rig.records().filter((r): r is OutcomeRecord => r.t === "outcome" && r.id === id);
const successes = (): number => rig.events.filter((e) => e.e === "result" && "result" in e && e.result === "success").length;

test.each([
  ["no fields at all", () => ({})],
  ["no positions_by_perp", () => ({ liquidation_id: 1, timestamp: Date.now(), type: "liquidated" })],
  [
    "no timestamp",
    () => ({ liquidation_id: 1, positions_by_perp: [{ symbol: ETH, position_qty: 2, transfer_price: 2000, abs_liquidator_fee: 24 }] }),
  ],
  ["a fill without its price", () => ({ liquidation_id: 1, timestamp: Date.now(), positions_by_perp: [{ symbol: ETH, position_qty: 2 }] })],
])("lean answer (%s), then the push: accepted once, held from the push, never claimed again", async (_what, answer) => {
  rig = await claimerRig({ timings: { boundMs: 120_000, settleMs: 30_000 } });
  const l = liq(1, [ETH, 2]);
  rig.add(l);
  await grantAll();
  const call = rig.venue.last();
  call.resolve(answer() as never);
  await settle();
  expect(outcomes(1).map((o) => o.result)).toEqual(["accepted"]);
  expect(outcomes(1)[0]?.fills).toBeUndefined();
  expect(successes()).toBe(1);
  expect(rig.exposure.reservationCount).toBe(0);
  expect(rig.exposure.pendingQty(ETH)).toBe(2); // counted as requested until a report says what is held
  // The open list, unchanged long after: an accepted claim is never settled as "not applied".
  await settle(30_000);
  rig.core.openList((id) => rig.book.get(id), Date.now());
  expect(outcomes(1).map((o) => o.result)).toEqual(["accepted"]);
  rig.core.assignment(rig.assignmentFor(call));
  await settle();
  expect(outcomes(1).map((o) => o.result)).toEqual(["accepted", "confirmed"]);
  expect(outcomes(1)[1]?.fills?.map((f) => [f.symbol, f.qty])).toEqual([[ETH, 2]]);
  expect(rig.exposure.reservationCount).toBe(0);
  expect(rig.exposure.netQty(ETH)).toBe(2);
  expect(successes()).toBe(1); // the push does not count the claim a second time
  expect(rig.events).not.toContainEqual({ e: "result", result: "confirmed", code: "none" });
  rig.refreshMarks();
  rig.claimer.offer(l);
  await grantAll();
  expect(rig.venue.ids()).toEqual([1]);
});

test("a push that beat the lean answer settles it at once", async () => {
  rig = await claimerRig();
  rig.add(liq(1, [ETH, 2]));
  await grantAll();
  const call = rig.venue.last();
  rig.core.assignment(rig.assignmentFor(call));
  call.resolve({} as never);
  await settle();
  // One outcome, with the push's fills: the answer said applied, the push said what.
  expect(outcomes(1).map((o) => o.result)).toEqual(["accepted"]);
  expect(outcomes(1)[0]?.fills?.map((f) => [f.symbol, f.qty])).toEqual([[ETH, 2]]);
  expect(rig.exposure.netQty(ETH)).toBe(2);
  expect(rig.exposure.reservationCount).toBe(0);
  expect(successes()).toBe(1);
});

test("no push and no record ever: pending at the requested quantity until a position report replaces it, given up at the bound, never claimed again", async () => {
  rig = await claimerRig({ timings: { boundMs: 120_000 } });
  const l = liq(1, [ETH, 2]);
  rig.add(l);
  await grantAll();
  rig.venue.last().resolve({} as never);
  await settle(150_000);
  expect(outcomes(1).map((o) => o.result)).toEqual(["accepted", "given_up"]);
  expect(rig.exposure.reservationCount).toBe(0);
  expect(rig.exposure.pendingQty(ETH)).toBe(2);
  // The venue's report: someone else took part first, 1.5 was transferred.
  rig.positions.applySnapshot([{ symbol: ETH, positionQty: 1.5 }], Date.now() + 1);
  expect(rig.exposure.pendingQty(ETH)).toBe(0);
  expect(rig.exposure.netQty(ETH)).toBe(1.5);
  rig.refreshMarks();
  rig.claimer.offer(l);
  await grantAll();
  expect(rig.venue.ids()).toEqual([1]);
});
