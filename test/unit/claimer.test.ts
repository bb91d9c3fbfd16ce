/**
 * The Claimer: late binding (each permit takes the best pending claim, re-decided on the latest
 * inputs), one state per id (never twice), the journal before the send, outcomes by venue code,
 * dry run at the single send point, and a draining stop. Real engine objects and a real journal;
 * the permits and the venue's answers are in the test's hands; time is fake.
 */
import { describe, expect, test } from "vitest";
import { CoreFold } from "../../src/core/coreFold.js";
import type { IntentRecord, OutcomeRecord } from "../../src/core/journalRecords.js";
import { TransportError } from "../../src/venue/errors.js";
import { type ClaimerRig, claimerRig, settleTimers, useClaimerClock, type VenueCall, venueError } from "../support/daemonClaimerRig.js";
import { liq } from "./engine.fixtures.js";

const ETH = "PERP_ETH_USDC"; // tier 1, mark 2,000, fee 0.006: 12 of fee per ETH
const BTC = "PERP_BTC_USDC"; // tier 1, mark 100,000, fee 0.006: 600 per BTC
const SOL = "PERP_SOL_USDC"; // tier 2, mark 100, fee 0.01: 1 per SOL

let rig: ClaimerRig;

useClaimerClock(() => rig);

/** Let promises and due timers run. */
const settle = settleTimers;

/** Grant the one permit the claimer is waiting for, and let it act. */
async function grantOne(): Promise<void> {
  await settle();
  rig.permits.grant();
  await settle();
}

/** Grant permits while the claimer asks for them (up to `max`), letting each one act. */
async function grantAll(max = 20): Promise<void> {
  for (let i = 0; i < max; i++) {
    await settle();
    if (rig.permits.waiting === 0) return;
    rig.permits.grant();
  }
  await settle();
}

const intents = (): IntentRecord[] => rig.records().filter((r): r is IntentRecord => r.t === "intent");
const outcomes = (id?: number): OutcomeRecord[] =>
  rig.records().filter((r): r is OutcomeRecord => r.t === "outcome" && (id === undefined || r.id === id));

describe("ordering and late binding", () => {
  test("highest expected fee first, chosen when each permit is granted", async () => {
    rig = await claimerRig();
    rig.add(liq(1, [ETH, 1])); // 12
    rig.add(liq(2, [ETH, 5])); // 60
    rig.add(liq(3, [BTC, 0.05])); // 30
    rig.add(liq(4, [SOL, 10])); // 10
    await settle();
    expect(rig.permits.waiting).toBe(1); // one permit asked for, nothing sent before it
    expect(rig.venue.calls).toEqual([]);
    await grantOne();
    expect(rig.venue.ids()).toEqual([2]);
    // A better one arriving while others wait goes next.
    rig.add(liq(5, [ETH, 10])); // 120
    rig.venue.last().resolve(rig.resultFor(rig.venue.last()));
    await grantAll();
    expect(rig.venue.ids()).toEqual([2, 5, 3, 1, 4]);
    expect(rig.permits.granted).toBe(5); // one permit per claim sent, none wasted
  });

  test("a mark gone stale while queued: not sent, and the same permit goes to the next best", async () => {
    rig = await claimerRig({ policy: { max_mark_age_ms: 3_000 } });
    rig.add(liq(1, [ETH, 5])); // 60, best
    rig.add(liq(2, [SOL, 10])); // 10
    await settle(3_500);
    rig.marks.set(SOL, 100, Date.now()); // only SOL's mark is fresh now
    await grantOne();
    expect(rig.venue.ids()).toEqual([2]);
    expect(rig.events).toContainEqual({ e: "skipped", reason: "mark_stale" });
    expect(intents().map((r) => r.id)).toEqual([2]);
  });

  test("an id that left the open list while queued is not sent (with or without cancel)", async () => {
    rig = await claimerRig();
    rig.add(liq(1, [ETH, 5]));
    rig.add(liq(2, [ETH, 3]));
    rig.add(liq(3, [ETH, 1]));
    rig.book.remove(1); // e.g. a -1202 seen elsewhere; the late re-check reads the book
    rig.claimer.cancel(2); // the daemon's path for a removal push
    await grantAll();
    expect(rig.venue.ids()).toEqual([3]);
    expect(rig.events).toContainEqual({ e: "skipped", reason: "gone" });
    expect(rig.permits.granted).toBe(1);
  });

  test("the re-check sees the exposure taken by claims decided before it", async () => {
    // Cap 5,000: two ETH 2 (4,000 each) were both fine alone; the second no longer fits once the
    // first is in flight.
    rig = await claimerRig({ policy: { max_total_exposure: 5_000 } });
    rig.add(liq(1, [ETH, 2]));
    rig.add(liq(2, [ETH, 2]));
    await grantAll();
    expect(rig.venue.ids()).toEqual([1]);
    expect(rig.events).toContainEqual({ e: "skipped", reason: "exposure_cap" });
  });
});

describe("never twice", () => {
  test("offering an id again while it is pending, in flight or done does nothing", async () => {
    rig = await claimerRig();
    const l = liq(1, [ETH, 1]);
    rig.add(l);
    rig.claimer.offer(l);
    rig.claimer.offer(liq(1, [ETH, 0.5])); // changed quantities while pending: re-keyed, not duplicated
    await grantOne();
    expect(rig.venue.ids()).toEqual([1]);
    expect(rig.venue.last().body.ratio_qty_request).toBe(1);
    // In flight: offers (stream pushes, reconcile rounds) must not queue it again.
    for (let i = 0; i < 3; i++) rig.claimer.offer(l);
    await settle();
    expect(rig.permits.waiting).toBe(0);
    rig.venue.last().resolve(rig.resultFor(rig.venue.last()));
    await settle();
    rig.claimer.offer(l); // done
    await grantAll();
    expect(rig.venue.ids()).toEqual([1]);
    expect(intents()).toHaveLength(1);
    expect(outcomes(1).map((o) => o.result)).toEqual(["accepted"]);
  });

  test("an in-flight id whose re-decision now says skip keeps its state: offered again later, still not sent", async () => {
    rig = await claimerRig({ policy: { max_mark_age_ms: 3_000 } });
    const l = liq(1, [ETH, 1]);
    rig.add(l);
    await grantAll();
    await settle(4_000); // marks stale: a re-decision would skip it now
    rig.claimer.offer(l);
    rig.refreshMarks(); // fresh again: a re-decision would claim it
    rig.claimer.offer(l);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1]);
    rig.venue.last().resolve(rig.resultFor(rig.venue.last()));
    await settle(4_000);
    rig.claimer.offer(l); // done, and a skip now
    rig.refreshMarks();
    rig.claimer.offer(l);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1]);
  });

  test("the intent is journaled before the request leaves", async () => {
    rig = await claimerRig();
    rig.add(liq(1, [SOL, -30]));
    await grantAll();
    const call = rig.venue.last();
    const [intent] = intents();
    expect(intent).toMatchObject({
      id: 1,
      ratio: call.body.ratio_qty_request,
      limitPrice: call.body.limit_price,
      perSymbolQty: { [SOL]: -30 },
    });
    expect(outcomes()).toEqual([]);
  });

  test("an id the journal says was claimed (a restart) is blocked for good", async () => {
    const fold = new CoreFold();
    fold.done.add(1);
    rig = await claimerRig({ fold });
    rig.add(liq(1, [ETH, 1]));
    await grantAll();
    expect(rig.venue.calls).toEqual([]);
  });
});

describe("outcomes by venue code", () => {
  test("success: accepted with the venue's fills, fee counted, reservation turned into a held position", async () => {
    rig = await claimerRig();
    rig.add(liq(1, [ETH, 2]));
    await grantAll();
    const call = rig.venue.last();
    expect(rig.exposure.reservation(1)).toEqual({ [ETH]: 2 });
    const result = rig.resultFor(call);
    call.resolve(result);
    await settle();
    const [outcome] = outcomes(1);
    expect(outcome?.result).toBe("accepted");
    expect(outcome?.venueTs).toBe(result.timestamp);
    expect(outcome?.fills).toEqual([
      { symbol: ETH, qty: 2, price: result.positions_by_perp?.[0]?.transfer_price, fee: result.positions_by_perp?.[0]?.abs_liquidator_fee },
    ]);
    expect(rig.exposure.reservationCount).toBe(0);
    expect(rig.exposure.netQty(ETH)).toBe(2);
    expect(rig.events).toContainEqual({ e: "submitted" });
    expect(rig.events).toContainEqual({ e: "result", result: "success", code: "none" });
    expect(rig.events).toContainEqual({ e: "fee", symbol: ETH, amount: result.positions_by_perp?.[0]?.abs_liquidator_fee });
  });

  test("-1202 gone: journaled, dropped from the open list, never claimed again", async () => {
    rig = await claimerRig();
    const l = liq(1, [ETH, 1]);
    rig.add(l);
    await grantAll();
    rig.venue.last().reject(venueError(-1202));
    await settle();
    expect(outcomes(1)).toMatchObject([{ result: "rejected", code: -1202 }]);
    expect(rig.book.has(1)).toBe(false);
    expect(rig.exposure.reservationCount).toBe(0);
    rig.add(l); // a stale push brings it back
    await settle(5_000);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1]);
  });

  test("-1012 racing: retried exactly once, after the retry delay", async () => {
    rig = await claimerRig({ timings: { retryDelayMs: 500 } });
    rig.add(liq(1, [ETH, 1]));
    await grantAll();
    rig.venue.last().reject(venueError(-1012));
    await settle(499);
    expect(rig.permits.waiting).toBe(0);
    await settle(1);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1]);
    rig.venue.last().reject(venueError(-1012));
    await settle(10_000);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1]);
    expect(outcomes(1).map((o) => [o.result, o.code])).toEqual([
      ["rejected", -1012],
      ["rejected", -1012],
    ]);
    expect(intents()).toHaveLength(2);
  });

  test("a request that never left (transport, not delivered): retried exactly once", async () => {
    rig = await claimerRig({ timings: { retryDelayMs: 200 } });
    rig.add(liq(1, [ETH, 1]));
    await grantAll();
    rig.venue.last().reject(new TransportError("connect ECONNREFUSED", false));
    await settle(200);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1]);
    rig.venue.last().resolve(rig.resultFor(rig.venue.last()));
    await settle();
    expect(outcomes(1).map((o) => o.result)).toEqual(["rejected", "accepted"]);
  });

  test("-1003 rate limited: every claim held one window, then the refused one goes first again", async () => {
    rig = await claimerRig({ timings: { rateLimitHoldMs: 1_000 } });
    rig.add(liq(1, [ETH, 5])); // 60
    rig.add(liq(2, [ETH, 1])); // 12
    await grantOne();
    expect(rig.venue.ids()).toEqual([1]);
    // The claimer may already wait for the next permit (2 is pending) when the -1003 comes back.
    rig.venue.last().reject(venueError(-1003));
    await grantAll();
    await settle(999);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1]); // nothing inside the window, whoever holds a permit
    await settle(1);
    await grantAll();
    expect(rig.venue.ids().slice(0, 2)).toEqual([1, 1]);
    const retry = rig.venue.calls[1] as VenueCall;
    retry.resolve(rig.resultFor(retry));
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1, 2]);
    expect(outcomes(1).map((o) => [o.result, o.code ?? null])).toEqual([
      ["rejected", -1003],
      ["accepted", null],
    ]);
  });

  test("-1203 price moved: re-decided at once on fresh marks, then later and less often while it stays open", async () => {
    rig = await claimerRig();
    rig.add(liq(1, [ETH, 1]));
    await grantAll();
    const first = rig.venue.last().body.limit_price[ETH] as number;
    rig.refreshMarks({ [ETH]: 2_100 }); // the market moved
    rig.venue.last().reject(venueError(-1203));
    await settle();
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1]);
    const second = rig.venue.last().body.limit_price[ETH] as number;
    expect(second).toBeGreaterThan(first); // a new limit from the new mark
    rig.venue.last().reject(venueError(-1203));
    await settle(1_999);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1]); // not before 2 s
    rig.refreshMarks({ [ETH]: 2_100 });
    await settle(1);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1, 1]);
    rig.venue.last().reject(venueError(-1203));
    await settle(3_999);
    await grantAll();
    expect(rig.venue.ids()).toHaveLength(3); // then 4 s
    rig.refreshMarks({ [ETH]: 2_100 });
    await settle(1);
    await grantAll();
    expect(rig.venue.ids()).toHaveLength(4);
    // The price came back within the guard: applied.
    const call = rig.venue.last();
    call.resolve(rig.resultFor(call));
    await settle();
    expect(outcomes(1).map((o) => o.code ?? 0)).toEqual([-1203, -1203, -1203, 0]);
  });

  test("-1203 again: once the liquidation has left the open list, it is not tried again", async () => {
    rig = await claimerRig();
    rig.add(liq(1, [ETH, 1]));
    await grantAll();
    rig.venue.last().reject(venueError(-1203));
    await settle();
    await grantAll();
    rig.venue.last().reject(venueError(-1203));
    rig.book.remove(1); // taken by someone else, or expired
    await settle(60_000);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1]);
  });

  test("-1101 margin: claiming pauses (reason margin), resumes by itself after the pause", async () => {
    rig = await claimerRig({ timings: { marginPauseMs: 60_000 } });
    const l1 = liq(1, [ETH, 5]);
    rig.add(l1);
    rig.add(liq(2, [ETH, 1]));
    await grantOne();
    rig.venue.last().reject(venueError(-1101));
    await settle();
    expect(rig.claimer.pausedReasons()).toContain("margin");
    expect(rig.events).toContainEqual({ e: "paused", reason: "margin", on: true });
    await grantAll();
    await settle(59_999);
    await grantAll();
    expect(rig.venue.ids()).toEqual([1]); // 2 waits out the pause
    expect(rig.claimer.pausedReasons()).toContain("margin");
    rig.refreshMarks(); // the market kept pushing marks meanwhile
    await settle(1);
    expect(rig.claimer.pausedReasons()).toEqual([]);
    expect(rig.events).toContainEqual({ e: "paused", reason: "margin", on: false });
    // The refused one waited in the queue and may fit now: re-decided and sent first (higher fee).
    await grantAll();
    expect(rig.venue.ids()).toEqual([1, 1, 2]);
    expect(l1.liquidationId).toBe(1);
  });

  describe("unknown outcome (the request may have reached the venue)", () => {
    const lost = (): TransportError => new TransportError("socket hang up", true);

    test("never resent; the private push confirms it with the venue's fills", async () => {
      rig = await claimerRig();
      rig.record.unavailable = true; // only the push can tell here
      const l = liq(1, [ETH, 2]);
      rig.add(l);
      await grantAll();
      const call = rig.venue.last();
      call.reject(lost());
      await settle();
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown"]);
      expect(rig.exposure.reservation(1)).toEqual({ [ETH]: 2 }); // may be ours: still counted
      rig.claimer.offer(l);
      await settle(60_000);
      await grantAll();
      expect(rig.venue.ids()).toEqual([1]);
      rig.core.assignment(rig.assignmentFor(call));
      await settle();
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown", "confirmed"]);
      expect(outcomes(1)[1]?.fills?.map((f) => [f.symbol, f.qty])).toEqual([[ETH, 2]]);
      expect(rig.exposure.reservationCount).toBe(0);
      expect(rig.exposure.netQty(ETH)).toBe(2);
      expect(rig.events).toContainEqual({ e: "result", result: "confirmed", code: "none" });
    });

    test("the venue's record says it applied: confirmed with its fills at the first look, never resent", async () => {
      rig = await claimerRig({ timings: { firstCheckMs: 1_000 } });
      const l = liq(1, [ETH, 2]);
      rig.add(l);
      await grantAll();
      const call = rig.venue.last();
      rig.record.rows = [rig.recordFor(call)];
      call.reject(lost());
      await settle(999);
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown"]);
      await settle(1);
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown", "confirmed"]);
      expect(outcomes(1)[1]?.fills?.map((f) => [f.symbol, f.qty])).toEqual([[ETH, 2]]);
      expect(rig.exposure.netQty(ETH)).toBe(2);
      rig.claimer.offer(l);
      await grantAll();
      expect(rig.venue.ids()).toEqual([1]);
    });

    test("a push that beats the transport error settles the claim as soon as the error comes", async () => {
      rig = await claimerRig();
      rig.add(liq(1, [ETH, 2]));
      await grantAll();
      const call = rig.venue.last();
      rig.core.assignment(rig.assignmentFor(call)); // the venue applied it and pushed...
      call.reject(lost()); // ...then the connection dropped before the answer
      await settle();
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown", "confirmed"]);
      expect(rig.exposure.netQty(ETH)).toBe(2);
      await settle(200_000);
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown", "confirmed"]);
    });

    test("the venue's record lists no claim once the venue is done with the request: not applied, claimed again", async () => {
      rig = await claimerRig({ timings: { settleMs: 30_000, firstCheckMs: 1_000, maxCheckMs: 4_000 } });
      const l = liq(1, [ETH, 2]);
      rig.add(l);
      await grantAll();
      rig.venue.last().reject(lost());
      await settle(29_000);
      // Absent so far, but the venue may still be working on it: still unknown.
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown"]);
      expect(rig.record.reads).toBeGreaterThan(1);
      await settle(5_000);
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown", "not_accepted"]);
      expect(rig.exposure.reservationCount).toBe(0);
      rig.refreshMarks(); // 30 s later the marks of the first decision are stale
      rig.claimer.offer(l);
      await grantAll();
      expect(rig.venue.ids()).toEqual([1, 1]);
    });

    test("no record and no push within the bound: given up loudly, never claimed again", async () => {
      rig = await claimerRig({ timings: { boundMs: 120_000, maxCheckMs: 10_000 } });
      rig.record.unavailable = true;
      const l = liq(1, [ETH, 2]);
      rig.add(l);
      await grantAll();
      rig.venue.last().reject(lost());
      await settle(110_000);
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown"]);
      await settle(20_000);
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown", "given_up"]);
      expect(rig.events).toContainEqual({ e: "given_up" });
      expect(rig.exposure.reservationCount).toBe(0);
      expect(rig.core.unsettledClaims()).toBe(0);
      rig.refreshMarks();
      rig.claimer.offer(l);
      await grantAll();
      expect(rig.venue.ids()).toEqual([1]);
    });

    test("the open list shows it untouched long enough after the failure (no record to read): not applied, claimed again", async () => {
      rig = await claimerRig({ timings: { boundMs: 120_000, settleMs: 30_000 } });
      rig.record.unavailable = true;
      const l = liq(1, [ETH, 2]);
      rig.add(l);
      await grantAll();
      rig.venue.last().reject(lost());
      await settle();
      // Too soon after the failure: the venue may still be working on the request.
      rig.core.openList((id) => rig.book.get(id), Date.now() + 29_000);
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown"]);
      await settle(30_000);
      rig.core.openList((id) => rig.book.get(id), Date.now());
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown", "not_accepted"]);
      expect(rig.exposure.reservationCount).toBe(0);
      rig.refreshMarks();
      rig.claimer.offer(l);
      await grantAll();
      expect(rig.venue.ids()).toEqual([1, 1]);
    });

    test("an intent a killed process left without an outcome: settled from the venue's record, then claimed once", async () => {
      const l = liq(1, [ETH, 2]);
      const fold = new CoreFold();
      fold.add({
        t: "intent",
        id: 1,
        at: Date.now(),
        ratio: 1,
        limitPrice: { [ETH]: 2_010 },
        expectedFee: 24,
        perSymbolQty: { [ETH]: 2 },
        open: [...l.positions],
      });
      rig = await claimerRig({ fold, timings: { settleMs: 30_000, firstCheckMs: 1_000, maxCheckMs: 4_000 } });
      rig.book.applyDelta([l], Date.now());
      rig.claimer.offer(l);
      await grantAll();
      // Unknown: the previous process may have sent it, so nothing goes out yet.
      expect(rig.venue.ids()).toEqual([]);
      expect(rig.exposure.reservation(1)).toEqual({ [ETH]: 2 });
      await settle(34_000);
      rig.refreshMarks();
      rig.claimer.retrySkipped(); // a mark frame re-decides what a stale mark skipped
      await grantAll();
      expect(outcomes(1).map((o) => o.result)).toEqual(["not_accepted"]);
      expect(rig.venue.ids()).toEqual([1]);
    });

    test("an intent a killed process left that the venue applied: confirmed from its record, never claimed again", async () => {
      const fold = new CoreFold();
      fold.add({
        t: "intent",
        id: 1,
        at: Date.now(),
        ratio: 0.5,
        limitPrice: { [ETH]: 2_010 },
        expectedFee: 12,
        perSymbolQty: { [ETH]: 1 },
      });
      rig = await claimerRig({ fold });
      rig.record.rows = [{ liquidationId: 1, timestamp: Date.now(), fills: [{ symbol: ETH, qty: 1, price: 1_990, fee: 11.94 }] }];
      const after = liq(1, [ETH, 1]); // the previous process's claim took half
      rig.book.applyDelta([after], Date.now());
      rig.claimer.offer(after);
      await settle(5_000);
      rig.refreshMarks();
      rig.claimer.offer(after);
      await grantAll();
      expect(rig.venue.ids()).toEqual([]);
      expect(outcomes(1).map((o) => o.result)).toEqual(["confirmed"]);
      expect(rig.core.fold.holdings.unplaced(ETH)).toBe(1);
    });

    test("the open list shows changed quantities (no record to read): still unknown (someone's claim was applied, maybe ours)", async () => {
      rig = await claimerRig({ timings: { boundMs: 120_000, settleMs: 30_000 } });
      rig.record.unavailable = true;
      rig.add(liq(1, [ETH, 2]));
      await grantAll();
      rig.venue.last().reject(lost());
      await settle(30_000);
      rig.book.applyDelta(
        [{ liquidationId: 1, timestamp: 1, positions: [{ symbol: ETH, positionQty: 1, liquidatorFee: 0.006 }] }],
        Date.now(),
      );
      rig.core.openList((id) => rig.book.get(id), Date.now());
      expect(outcomes(1).map((o) => o.result)).toEqual(["unknown"]);
      expect(rig.exposure.reservationCount).toBe(1);
    });
  });
});

describe("exposure against the venue's position pushes", () => {
  test("a position push that beat the answer already holds the fill: not counted twice", async () => {
    rig = await claimerRig();
    rig.add(liq(1, [ETH, 2]));
    await grantAll();
    const call = rig.venue.last();
    const appliedAt = Date.now();
    rig.positions.applyPush([{ symbol: ETH, positionQty: 2, markPrice: 2_000 }], appliedAt);
    expect(rig.exposure.heldQty(ETH)).toBe(2);
    call.resolve(rig.resultFor(call, appliedAt));
    await settle();
    expect(rig.exposure.heldQty(ETH)).toBe(2);
    expect(rig.exposure.reservationCount).toBe(0);
    // Positions are the venue's to say: nothing about them is journaled.
    expect(rig.records().filter((r) => r.t === "positions")).toEqual([]);
  });

  test("an answer before the push: the fill is held at once, the push then confirms it", async () => {
    rig = await claimerRig();
    rig.positions.applyPush([{ symbol: SOL, positionQty: -3, markPrice: 100 }], Date.now());
    await settle(10);
    rig.add(liq(1, [ETH, 2]));
    await grantAll();
    const call = rig.venue.last();
    call.resolve(rig.resultFor(call, Date.now()));
    await settle();
    expect(rig.exposure.netQty(ETH)).toBe(2);
    expect(rig.exposure.heldQty(SOL)).toBe(-3);
    rig.positions.applyPush([{ symbol: ETH, positionQty: 2, markPrice: 2_000 }], Date.now());
    expect(rig.exposure.heldQty(ETH)).toBe(2);
    expect(rig.exposure.heldQty(SOL)).toBe(-3); // a push is a delta per symbol (docs/protocol.md §5)
  });

  test("nothing is claimed until the venue has reported the account's positions", async () => {
    rig = await claimerRig();
    rig.claimer.setPaused("positions", true);
    rig.add(liq(1, [ETH, 2]));
    await grantAll();
    expect(rig.venue.calls).toEqual([]);
    rig.positions.applySnapshot([{ symbol: SOL, positionQty: -3 }], Date.now());
    rig.claimer.setPaused("positions", false);
    expect(rig.exposure.heldQty(SOL)).toBe(-3);
    await grantAll();
    expect(rig.venue.calls.map((c) => c.body.liquidation_id)).toEqual([1]);
  });
});

describe("dry run, journal failure, stop", () => {
  test("dry run: nothing reaches the transport; intent (dryRun) and dry_run outcome are journaled", async () => {
    rig = await claimerRig({ dryRun: true });
    const l = liq(1, [ETH, 1]);
    rig.add(l);
    rig.add(liq(2, [SOL, -10])); // 10, after ETH's 12
    await grantAll();
    expect(rig.venue.calls).toEqual([]);
    expect(rig.permits.granted).toBe(2); // the same path as a live run, limiter included
    expect(intents().map((r) => [r.id, r.dryRun])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(outcomes().map((o) => [o.id, o.result])).toEqual([
      [1, "dry_run"],
      [2, "dry_run"],
    ]);
    expect(rig.events.filter((e) => e.e === "result")).toEqual([
      { e: "result", result: "dry_run", code: "none" },
      { e: "result", result: "dry_run", code: "none" },
    ]);
    expect(rig.events.some((e) => e.e === "submitted")).toBe(false);
    expect(rig.exposure.reservationCount).toBe(0);
    rig.claimer.offer(l);
    await grantAll();
    expect(intents()).toHaveLength(2);
  });

  test("dry run switched off: ids decided in dry run become claimable, others stay done", async () => {
    rig = await claimerRig({ dryRun: true });
    const l = liq(1, [ETH, 1]);
    rig.add(l);
    await grantAll();
    expect(rig.venue.calls).toEqual([]);
    rig.sender.setDryRun(false);
    rig.claimer.offer(l); // still finished by the dry run: nothing happens without forgetDryRun
    await grantAll();
    expect(rig.venue.calls).toEqual([]);
    rig.claimer.forgetDryRun();
    rig.claimer.offer(l);
    await grantAll();
    expect(rig.venue.calls.map((c) => c.body.liquidation_id)).toEqual([1]);
  });

  test("journal write failure: the claim is not sent and claiming pauses (reason journal)", async () => {
    rig = await claimerRig();
    await rig.journal.close(); // every append now throws
    rig.add(liq(1, [ETH, 1]));
    rig.add(liq(2, [ETH, 2]));
    await grantAll();
    expect(rig.venue.calls).toEqual([]);
    expect(rig.claimer.pausedReasons()).toContain("journal");
    expect(rig.events).toContainEqual({ e: "paused", reason: "journal", on: true });
    expect(rig.exposure.reservationCount).toBe(0);
    await settle(60_000);
    await grantAll();
    expect(rig.venue.calls).toEqual([]);
    expect(rig.permits.granted).toBe(1);
  });

  test("stop() waits for the claim in flight, journals its outcome, and sends nothing more", async () => {
    rig = await claimerRig();
    rig.add(liq(1, [ETH, 5]));
    rig.add(liq(2, [ETH, 1]));
    await grantOne();
    let stopped = false;
    const stopping = rig.claimer.stop().then(() => {
      stopped = true;
    });
    await settle(5_000);
    expect(stopped).toBe(false);
    rig.venue.last().resolve(rig.resultFor(rig.venue.last()));
    await stopping;
    expect(stopped).toBe(true);
    expect(outcomes(1).map((o) => o.result)).toEqual(["accepted"]);
    rig.add(liq(3, [ETH, 9]));
    await settle(1_000);
    expect(rig.permits.waiting).toBe(0);
    expect(rig.venue.ids()).toEqual([1]);
  });
});

describe("rehearsal (claimRehearsal.ts)", () => {
  test("the claim path without its effects: nothing sent, journaled, reserved, queued or counted; the claim itself leaves once", async () => {
    rig = await claimerRig();
    const l = liq(7, [ETH, 5]);
    for (let i = 0; i < 50; i++) expect(rig.claimer.rehearse(l)).toBeGreaterThan(0);
    // A liquidation the policy skips builds nothing, and its skip is not counted.
    expect(rig.claimer.rehearse(liq(8, ["PERP_NOPE_USDC", 5]))).toBe(0);
    await settle(1_000);
    expect(rig.venue.rehearsed).toHaveLength(50);
    expect(rig.venue.rehearsed[0]).toMatchObject({ liquidation_id: 7, ratio_qty_request: 1 });
    expect(rig.venue.calls).toEqual([]);
    expect(intents()).toEqual([]);
    expect(outcomes()).toEqual([]);
    expect(rig.exposure.hasReservation(7)).toBe(false);
    expect(rig.claimer.pendingCount).toBe(0);
    expect(rig.permits.waiting).toBe(0);
    expect(rig.events).toEqual([]);
    // Offered for real, it is claimed once; rehearsals while it is out change nothing.
    rig.add(l);
    await grantOne();
    for (let i = 0; i < 10; i++) rig.claimer.rehearse(l);
    rig.venue.last().resolve(rig.resultFor(rig.venue.last()));
    await settle(1_000);
    for (let i = 0; i < 10; i++) rig.claimer.rehearse(l);
    await settle(1_000);
    expect(rig.venue.ids()).toEqual([7]);
    expect(intents().map((r) => r.id)).toEqual([7]);
    expect(rig.permits.granted).toBe(1);
  });
});

describe("protection gate (claimPipeline.ts)", () => {
  test("asked before deciding: while it says no, nothing is claimed or rehearsed; open again, the skipped claim is retried and leaves", async () => {
    let closed = true;
    const asked: number[] = [];
    rig = await claimerRig({
      gate: (l) => {
        asked.push(l.liquidationId);
        return closed ? "exposure_cap" : undefined;
      },
    });
    const l = liq(5, [ETH, 5]);
    rig.add(l);
    await settle();
    expect(rig.claimer.rehearse(l)).toBe(0);
    await settle(1_000);
    expect(rig.events).toEqual([{ e: "skipped", reason: "exposure_cap" }]);
    expect(rig.claimer.pendingCount).toBe(0);
    expect(rig.permits.waiting).toBe(0);
    expect(rig.venue.calls).toEqual([]);
    expect(intents()).toEqual([]);
    closed = false;
    rig.claimer.retrySkipped();
    await grantOne();
    expect(rig.venue.ids()).toEqual([5]);
    expect(asked.every((id) => id === 5) && asked.length >= 3).toBe(true);
  });
});
