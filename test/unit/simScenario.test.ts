import { describe, expect, it, vi } from "vitest";
import { InsuranceFund } from "../../src/sim/insuranceFund.js";
import { resolveScenarioForTests, Scenario } from "../../src/sim/scenario.js";
import type { SimPush } from "../../src/sim/simPush.js";
import { VenueCore } from "../../src/sim/venueCore.js";
import { nothingHappens, waitFor } from "../support/wait.js";

const until = (cond: () => boolean, what: string): Promise<unknown> => waitFor(cond, what, 20_000, 10);

describe("Scenario", () => {
  it("drives marks, liquidations, cascades, competitors, expiry and epochs, and stops on abort", async () => {
    // Fake timers: the scenario is its timers, so the test moves the clock and, after the abort, can
    // run the clock on and see that nothing of the scenario is left to fire.
    vi.useFakeTimers();
    try {
      const core = new VenueCore({ seed: 99, orderCounts: [5], liquidationTtlMs: 300 });
      const pushes: SimPush[] = [];
      core.onPush((p) => pushes.push(p));
      const scenario = new Scenario(core, {
        markIntervalMs: 20,
        liquidationsPerSec: 50,
        cascadeIntervalMs: 100,
        cascadeSize: 4,
        competitorProbability: 1,
        competitorDelayMs: [0, 5],
        epochAdvanceMs: 100,
        expirySweepMs: 20,
      });
      const stop = new AbortController();
      const startEpoch = core.rewards.currentEpoch;
      const btcStart = core.mark("PERP_BTC_USDC");
      /** Moves the fake clock 10 ms at a time until `cond` holds (at most 20 s of it). */
      const advanceUntil = async (cond: () => boolean, what: string): Promise<void> => {
        for (let ms = 0; !cond(); ms += 10) {
          if (ms > 20_000) throw new Error(`no ${what} in 20 s of the fake clock`);
          await vi.advanceTimersByTimeAsync(10);
        }
      };
      scenario.start(stop.signal);
      try {
        await advanceUntil(() => pushes.filter((p) => p.topic === "markprices").length >= 5, "mark pushes");
        await advanceUntil(() => pushes.some((p) => p.topic === "PERP_BTC_USDC@markprice"), "per-symbol mark push");
        await advanceUntil(() => core.claims().some((c) => c.source === "competitor"), "a competitor claim");
        await advanceUntil(() => core.rewards.currentEpoch >= startEpoch + 2, "two epoch advances");
        await advanceUntil(() => pushes.some((p) => p.topic === "liquidation" && (p.data as unknown[]).length === 4), "a cascade of 4");
        expect(core.mark("PERP_BTC_USDC")).not.toBe(btcStart);
      } finally {
        stop.abort();
      }
      const count = pushes.length;
      await vi.advanceTimersByTimeAsync(200); // ten market steps on the fake clock, in which a running scenario would have pushed
      expect(pushes.length).toBe(count);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("unwinds the positions of keyed accounts (the liquidators) but not the competitors'", async () => {
    const core = new VenueCore({ seed: 4, orderCounts: [1] });
    core.accounts.add({ accountId: "0xme", collateral: 1e9 });
    core.accounts.registerKey("0xme", "ed25519:11111111111111111111111111111111");
    const id = core.addLiquidation({
      positions: [
        { symbol: "PERP_ETH_USDC", position_qty: 1 },
        { symbol: "PERP_BTC_USDC", position_qty: 1 },
      ],
    });
    await core.submitClaim(
      "0xme",
      { liquidation_id: id, ratio_qty_request: 0.5, limit_price: { PERP_ETH_USDC: 1e9, PERP_BTC_USDC: 1e9 } },
      core.now(),
    );
    await core.competitorClaim(id, 1);
    const stop = new AbortController();
    new Scenario(core, {
      markIntervalMs: 0,
      liquidationsPerSec: 0,
      cascadeIntervalMs: 0,
      competitorProbability: 0,
      epochAdvanceMs: 0,
      unwindIntervalMs: 20,
    }).start(stop.signal);
    try {
      await until(() => core.positionsOf("0xme").every((p) => p.qty === 0), "unwind");
      expect(core.positionsOf(core.competitorIds[0]!).some((p) => p.qty !== 0)).toBe(true);
    } finally {
      stop.abort();
    }
  });

  it("a liquidation nobody claims is pushed as gone after its TTL", async () => {
    const core = new VenueCore({ seed: 1, orderCounts: [1], liquidationTtlMs: 100 });
    const pushes: SimPush[] = [];
    core.onPush((p) => pushes.push(p));
    const stop = new AbortController();
    new Scenario(core, {
      markIntervalMs: 0,
      liquidationsPerSec: 0,
      cascadeIntervalMs: 0,
      competitorProbability: 0,
      epochAdvanceMs: 0,
      expirySweepMs: 20,
    }).start(stop.signal);
    try {
      const id = core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
      await until(
        () =>
          pushes.some(
            (p) =>
              p.topic === "liquidation" &&
              (p.data as { liquidationId: number; positionsByPerp: unknown[] }[]).some(
                (r) => r.liquidationId === id && r.positionsByPerp.length === 0,
              ),
          ),
        "expiry push",
      );
      expect(core.book.closedReason(id)).toBe("expired");
    } finally {
      stop.abort();
    }
  });

  it("market positions: its timers step the position-driven market (still at volatility 0), the fund takes what expires, competitors leave the fund's rows alone", async () => {
    const core = new VenueCore({ seed: 5, orderCounts: [1], liquidationTtlMs: 200 });
    const fund = new InsuranceFund(core);
    const scenario = new Scenario(
      core,
      {
        market: "positions",
        insuranceFund: true,
        liquidationsPerSec: 0.05,
        markIntervalMs: 20,
        volatilityScale: 0,
        competitorProbability: 1,
        competitorDelayMs: [0, 5],
        expirySweepMs: 20,
      },
      undefined,
      fund,
    );
    fund.attach();
    expect(scenario.market).toBeDefined();
    const btc = core.mark("PERP_BTC_USDC");
    const clock = scenario.market?.clock as number;
    const stop = new AbortController();
    scenario.start(stop.signal);
    try {
      await until(() => (scenario.market?.clock ?? 0) >= clock + 200, "ten market steps of 20 ms");
      expect(core.mark("PERP_BTC_USDC")).toBe(btc); // volatility 0: the marks stay
      const id = core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
      await until(() => core.claims(id).length > 0, "a competitor's claim");
      const row = fund.takeOver([{ symbol: "PERP_SOL_USDC", position_qty: 3 }]) as number;
      // Five market steps of 20 ms, each a chance for a competitor (0–5 ms after the push) to claim it.
      await nothingHappens(
        () => core.claimRequests().some((c) => c.liquidationId === row) && "a competitor claimed the fund's row",
        { what: "market steps", count: () => Math.floor((scenario.market?.clock ?? 0) / 20) },
        5,
      );
    } finally {
      stop.abort();
    }
  });

  it.each([
    [{ markIntervalMs: -1 }],
    [{ liquidationsPerSec: Number.NaN }],
    [{ cascadeSize: 0 }],
    [{ competitorProbability: 1.5 }],
    [{ competitorDelayMs: [10, 5] as const }],
    [{ expirySweepMs: 0 }],
    [{ unwindIntervalMs: -5 }],
    [{ market: "neither" as never }],
  ])("refuses invalid options %j", (opts) => {
    expect(() => resolveScenarioForTests(opts)).toThrow(RangeError);
  });
});
