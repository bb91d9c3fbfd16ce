/**
 * One pump per claim limiter (core/claimQueue.ts, daemon/claim/claimer.ts): the insurance fund's
 * claims wait for the fund endpoint's limiter and liquidation claims for the claims limiter, so one
 * supply never spends the other's permits (docs/protocol.md §10: 5/s each). Each takes its own best first.
 */
import { describe, expect, test } from "vitest";
import { ClaimQueue } from "../../src/core/claimQueue.js";
import { claimLimiterOf } from "../../src/core/fundSupply.js";
import type { ClaimDecision } from "../../src/engine/policy.js";
import type { Liquidation } from "../../src/engine/types.js";
import { type ClaimerRig, claimerRig, settleTimers, useClaimerClock } from "../support/daemonClaimerRig.js";
import { liq } from "./engine.fixtures.js";

const ETH = "PERP_ETH_USDC"; // mark 2,000, fee 0.006: 12 of fee per ETH
const fundRow = (id: number, qty: number): Liquidation => ({ ...liq(id, [ETH, qty, 0.003]), type: "claim" });

describe("the claim queue, per limiter", () => {
  const claim = (l: Liquidation): ClaimDecision =>
    ({ action: "claim", liquidationId: l.liquidationId, expectedFee: Math.abs(l.positions[0]?.positionQty ?? 0) }) as ClaimDecision;

  function queue(route: "claim_insurance_fund" | "liquidation") {
    const book = new Map<number, Liquidation>();
    const taken: number[] = [];
    const q = new ClaimQueue({
      decide: (l) => claim(l),
      now: () => 0,
      book: { get: (id) => book.get(id) },
      busy: () => false,
      skipped: () => undefined,
      queued: () => undefined,
      dispatch: (d) => void taken.push(d.liquidationId),
      limiter: claimLimiterOf(route),
    });
    const offer = (l: Liquidation) => {
      book.set(l.liquidationId, l);
      q.offer(l, 0);
    };
    return { q, offer, taken };
  }

  test("on the fund's route: each limiter's permit takes its own best claim, never the other's", () => {
    const { q, offer, taken } = queue("claim_insurance_fund");
    offer(liq(1, [ETH, 1]));
    offer(fundRow(2, 9));
    offer(liq(3, [ETH, 5]));
    offer(fundRow(4, 3));
    expect([q.size, q.sizeOf("claims"), q.sizeOf("fund_claims")]).toEqual([4, 2, 2]);
    expect(q.take(undefined, "claims")).toBe(true);
    expect(q.take(undefined, "fund_claims")).toBe(true);
    expect(q.take(undefined, "claims")).toBe(true);
    expect(q.take(undefined, "claims")).toBe(false); // the fund's row 4 waits for the fund's limiter
    expect(q.take(undefined, "fund_claims")).toBe(true);
    expect(taken).toEqual([3, 2, 1, 4]);
  });

  test("through /v1/liquidation the fund's rows wait for the claims limiter, ranked with the liquidations", () => {
    const { q, offer, taken } = queue("liquidation");
    offer(liq(1, [ETH, 1]));
    offer(fundRow(2, 9));
    expect(q.sizeOf("fund_claims")).toBe(0);
    while (q.take(undefined, "claims"));
    expect(taken).toEqual([2, 1]);
  });

  test("a cancelled or re-offered id leaves the queue that holds it", () => {
    const { q, offer } = queue("claim_insurance_fund");
    offer(fundRow(2, 9));
    offer(fundRow(2, 4)); // re-ranked in place
    expect(q.sizeOf("fund_claims")).toBe(1);
    q.cancel(2);
    expect(q.size).toBe(0);
  });
});

describe("the claimer's pumps", () => {
  let rig: ClaimerRig;
  useClaimerClock(() => rig);
  const settle = (): Promise<void> => settleTimers();

  test("fund claims leave on the fund limiter's permits while the claims limiter grants none, and the other way round", async () => {
    rig = await claimerRig({ fundLimiter: true });
    rig.add(liq(1, [ETH, 5]));
    rig.add(liq(2, [ETH, 1]));
    rig.add(fundRow(3, 2));
    rig.add(fundRow(4, 8));
    await settle();
    // Each pump asks its own limiter for one permit.
    expect([rig.permits.waiting, rig.fundPermits.waiting]).toEqual([1, 1]);
    rig.fundPermits.grant();
    await settle();
    rig.fundPermits.grant();
    await settle();
    expect(rig.fund.calls.map((c) => c.body.claim_id)).toEqual([4, 3]);
    expect(rig.venue.calls).toEqual([]);
    expect(rig.permits.granted).toBe(0);
    rig.permits.grant();
    await settle();
    expect(rig.venue.ids()).toEqual([1]);
    expect(rig.fund.calls).toHaveLength(2);
  });

  test("without a fund limiter of their own, fund claims wait for the claims limiter (a rig, a port without one)", async () => {
    rig = await claimerRig();
    rig.add(fundRow(3, 2));
    await settle();
    expect([rig.permits.waiting, rig.fundPermits.waiting]).toEqual([1, 0]);
    rig.permits.grant();
    await settle();
    expect(rig.fund.calls.map((c) => c.body.claim_id)).toEqual([3]);
  });
});
