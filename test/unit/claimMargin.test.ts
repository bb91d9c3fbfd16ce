/**
 * Margin in the live claimer: a claim in flight reserves its margin and every outcome releases it
 * (accepted: the position now carries it), a -1101 re-reads the account and claiming resumes on the
 * answer (not after a timer), and when margin binds the queue ranks by fee per unit of margin.
 */
import { describe, expect, test } from "vitest";
import type { Liquidation, SymbolInfo } from "../../src/engine/types.js";
import { TransportError } from "../../src/venue/errors.js";
import { type ClaimerRig, claimerRig, grantAll, settleTimers, useClaimerClock, venueError } from "../support/daemonClaimerRig.js";
import { fixedAccount, liq, SYMBOLS, symbolsWithMargin } from "./engine.fixtures.js";

const ETH = "PERP_ETH_USDC"; // mark 2,000, fee 0.006
const BTC = "PERP_BTC_USDC"; // mark 100,000, fee 0.006

let rig: ClaimerRig | undefined;
useClaimerClock(() => rig);

/** Collateral 2,000 at 50 %: room for 1,000 of IM = 10,000 of notional = 5 ETH (base_imr 10 %). */
async function marginRig(o: { dryRun?: boolean; rereadAccount?: () => void; symbols?: SymbolInfo[]; collateral?: number } = {}) {
  rig = await claimerRig({
    account: fixedAccount(o.collateral ?? 2_000, 20),
    symbols: o.symbols ?? symbolsWithMargin(),
    ...(o.dryRun !== undefined ? { dryRun: o.dryRun } : {}),
    timings: { boundMs: 60_000, settleMs: 30_000 },
    ...(o.rereadAccount !== undefined ? { rereadAccount: o.rereadAccount } : {}),
  });
  return rig;
}

/** Whether a fresh 5 ETH liquidation would be claimed now (the margin room the decision sees). */
const probe = (r: ClaimerRig): string => {
  const d = r.policy.decide(liq(99, [ETH, 5]), Date.now());
  return d.action === "claim" ? "claim" : d.reason;
};

describe("reservations: a claim in flight holds its margin until its outcome", () => {
  const outcomes: [string, (r: ClaimerRig) => Promise<void>, "claim" | "margin"][] = [
    ["accepted: the position carries it", async (r) => r.venue.last().resolve(r.resultFor(r.venue.last())), "margin"],
    ["rejected (-1202 gone)", async (r) => r.venue.last().reject(venueError(-1202)), "claim"],
    ["rejected (-1203 price moved)", async (r) => r.venue.last().reject(venueError(-1203)), "claim"],
    ["refused for margin (-1101)", async (r) => r.venue.last().reject(venueError(-1101)), "claim"],
    [
      "unknown, then not applied by the venue's record",
      async (r) => {
        r.venue.last().reject(new TransportError("socket hang up", true));
        await settleTimers();
        expect(probe(r)).toBe("margin"); // unknown: may be ours, still held
        await settleTimers(31_000);
        r.refreshMarks();
      },
      "claim",
    ],
  ];

  test.each(outcomes)("%s", async (_name, answer, after) => {
    const r = await marginRig();
    r.add(liq(1, [ETH, 5]));
    await grantAll(r, 1);
    expect(r.venue.ids()).toEqual([1]);
    expect(probe(r)).toBe("margin");
    await answer(r);
    await settleTimers();
    expect(r.exposure.reservation(1)).toBeUndefined();
    expect(probe(r)).toBe(after);
  });

  test("dry run: released at once", async () => {
    const r = await marginRig({ dryRun: true });
    r.add(liq(1, [ETH, 5]));
    await grantAll(r, 1);
    await settleTimers();
    expect(r.exposure.reservation(1)).toBeUndefined();
    expect(probe(r)).toBe("claim");
  });

  test("a claim skipped for margin is claimed as soon as the one in flight is refused", async () => {
    const r = await marginRig();
    r.add(liq(1, [ETH, 5]));
    await grantAll(r, 1);
    r.add(liq(2, [ETH, 4]));
    await grantAll(r);
    expect(r.events).toContainEqual({ e: "skipped", reason: "margin" });
    expect(r.venue.ids()).toEqual([1]);
    r.venue.last().reject(venueError(-1202));
    await grantAll(r);
    expect(r.venue.ids()).toEqual([1, 2]);
  });
});

describe("-1101: the account is re-read, not waited out", () => {
  test("claiming holds until the re-read answers, then resumes at once", async () => {
    let reads = 0;
    const r = await marginRig({ rereadAccount: () => reads++ });
    r.add(liq(1, [ETH, 3]));
    r.add(liq(2, [ETH, 1]));
    await grantAll(r, 1);
    r.venue.last().reject(venueError(-1101));
    await settleTimers();
    expect(reads).toBe(1);
    expect(r.claimer.pausedReasons()).toContain("margin");
    await grantAll(r);
    expect(r.venue.ids()).toEqual([1]); // nothing leaves before the answer
    r.claimer.accountRead(); // the positions read was applied
    expect(r.claimer.pausedReasons()).toEqual([]);
    await grantAll(r);
    // The refused one waited in the queue and fits by the corrected model: sent first (higher fee).
    expect(r.venue.ids()).toEqual([1, 1, 2]);
  });

  test("refused again after as many re-reads as the failure table allows (three): dropped", async () => {
    const r = await marginRig({ rereadAccount: () => undefined });
    r.add(liq(1, [ETH, 3]));
    for (let i = 0; i < 4; i++) {
      await grantAll(r);
      r.venue.last().reject(venueError(-1101));
      await settleTimers();
      r.claimer.accountRead();
    }
    await grantAll(r);
    expect(r.venue.ids()).toEqual([1, 1, 1, 1]);
  });
});

describe("ranking when margin binds", () => {
  // BTC needs 50 % of its notional, ETH 5 %: per unit of margin, ETH pays ten times more.
  const symbols: SymbolInfo[] = SYMBOLS.map((s) => ({
    ...s,
    margin: s.symbol === BTC ? { baseImr: 0.5, baseMmr: 0.25, imrFactor: 0 } : { baseImr: 0.05, baseMmr: 0.025, imrFactor: 0 },
  }));
  const cascade = (): Liquidation[] => [liq(1, [BTC, 0.2]), liq(2, [ETH, 5]), liq(3, [ETH, 7])];

  test("fee per margin first: the claims that fit earn more than the biggest fee alone", async () => {
    // Room 1,500 of IM: BTC 0.2 (fee 120) alone would take it all for 18 of fee (cut to 3,000).
    const r = await marginRig({ symbols, collateral: 3_000 });
    for (const l of cascade()) r.add(l);
    await settleTimers();
    for (let i = 0; i < 3; i++) {
      await grantAll(r, 1);
      const call = r.venue.last();
      if (!call.settled) call.resolve(r.resultFor(call));
      await settleTimers();
    }
    expect(r.venue.ids()).toEqual([2, 3, 1]);
    const fee = r.events.reduce((s, e) => s + (e.e === "fee" ? e.amount : 0), 0);
    expect(fee).toBeGreaterThan(140); // 60 + 84 + what is left for BTC
  });

  test("margin not binding: the biggest fee first, as without margin", async () => {
    const r = await marginRig({ symbols, collateral: 1_000_000 });
    for (const l of cascade()) r.add(l);
    await grantAll(r, 1);
    expect(r.venue.ids()).toEqual([1]);
  });
});
