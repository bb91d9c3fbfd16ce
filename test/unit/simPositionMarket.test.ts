/**
 * The position-driven market (src/sim/positionMarket.ts) in virtual time: deterministic for a seed,
 * its check schedule equal to checking every account at every step, liquidations that follow the
 * venue's rules and come in bursts from clustered liquidation prices, bankrupt accounts to the fund.
 */
import { describe, expect, it } from "vitest";
import { Calendar } from "../../src/sim/calendar.js";
import { InsuranceFund } from "../../src/sim/insuranceFund.js";
import { type MarketLiquidation, PositionMarket, type PositionMarketOptions } from "../../src/sim/positionMarket.js";
import { Prng } from "../../src/sim/prng.js";
import type { SimPush } from "../../src/sim/simPush.js";
import { VenueCore } from "../../src/sim/venueCore.js";

const T0 = Date.UTC(2026, 0, 5);

function world(seed: number, options: Partial<PositionMarketOptions> = {}) {
  let now = T0;
  const core = new VenueCore({ seed, now: () => now, orderCounts: [1] });
  const fund = new InsuranceFund(core);
  fund.attach();
  const market = new PositionMarket(core, new Prng(seed), fund, { population: { arrivalsPerSec: 0.5 }, ...options });
  const liquidations: MarketLiquidation[] = [];
  market.onLiquidation((l) => liquidations.push(l));
  const pushes: SimPush[] = [];
  core.onPush((p) => pushes.push(p));
  const run = (seconds: number): void => {
    for (let s = 0; s < seconds; s++) {
      now += 1000;
      market.step(1);
      if (s % 5 === 0) core.expireDue();
    }
  };
  return { core, fund, market, liquidations, pushes, run };
}

describe("PositionMarket", () => {
  it("is deterministic for a seed: the same marks and the same liquidations, and another seed differs", () => {
    const a = world(5);
    const b = world(5);
    const c = world(6);
    for (const w of [a, b, c]) w.run(1800);
    const key = (w: ReturnType<typeof world>) => ({
      marks: w.core.market.rows().map((r) => r.markPrice),
      liquidations: w.liquidations.map((l) => [l.liquidationId, l.accountId, l.at, l.positions]),
    });
    expect(key(a)).toEqual(key(b));
    expect(a.liquidations.length).toBeGreaterThan(10);
    expect(key(c)).not.toEqual(key(a));
  });

  it("checks accounts on a schedule that finds exactly what checking every account at every step finds", () => {
    const scheduled = world(9);
    const every = world(9, { scan: "every" });
    scheduled.run(2400);
    every.run(2400);
    const sorted = (w: ReturnType<typeof world>) =>
      w.liquidations.map((l) => `${l.at} ${l.accountId} ${JSON.stringify(l.positions)}`).sort();
    expect(sorted(scheduled)).toEqual(sorted(every));
    expect(scheduled.liquidations.length).toBeGreaterThan(50);
  });

  it("liquidates by the venue's rules: each symbol's fee, one frame per step, the fund taking the expired ones at its discount", () => {
    const w = world(3);
    w.run(3600);
    expect(w.liquidations.length).toBeGreaterThan(50);
    const frames = w.pushes.filter((p) => p.topic === "liquidation");
    const offered = frames.flatMap(
      (p) => p.data as { liquidationId: number; type: string; positionsByPerp: { symbol: string; liquidatorFee: number }[] }[],
    );
    for (const l of w.liquidations.filter((x) => !x.bankrupt)) {
      const row = offered.find((r) => r.liquidationId === l.liquidationId && r.positionsByPerp.length > 0);
      expect(row?.type).toBe("liquidated");
      for (const p of row?.positionsByPerp ?? []) expect(p.liquidatorFee).toBe(w.core.symbols.get(p.symbol)?.liquidatorFee);
    }
    // A step's liquidations leave together, as the venue batches them.
    const byTime = new Map<number, number>();
    for (const l of w.liquidations) byTime.set(l.at, (byTime.get(l.at) ?? 0) + 1);
    const busiest = Math.max(...byTime.values());
    expect(busiest).toBeGreaterThan(1);
    expect(frames.some((p) => (p.data as unknown[]).length >= busiest)).toBe(true);
    // Nobody claimed: after the TTL every liquidation is the fund's, offered as a claim row at the discount.
    const rows = w.core.openLiquidations().filter((l) => l.type === "claim");
    expect(rows.length).toBeGreaterThan(10);
    for (const r of rows) for (const p of r.positions) expect(p.liquidatorFee).toBe((w.core.symbols.get(p.symbol)?.liquidatorFee ?? 0) / 2);
  });

  it("makes cascades from clustered liquidation prices: liquidations come in bursts far above their mean rate", () => {
    const w = world(1);
    w.run(3 * 3600);
    const perMinute = new Map<number, number>();
    for (const l of w.liquidations)
      perMinute.set(Math.floor((l.at - T0) / 60_000), (perMinute.get(Math.floor((l.at - T0) / 60_000)) ?? 0) + 1);
    const mean = w.liquidations.length / (3 * 60);
    const busiest = Math.max(...perMinute.values());
    expect(busiest).toBeGreaterThan(10 * mean);
    // ...and most minutes see none: the quiet spells.
    expect(perMinute.size).toBeLessThan(0.6 * 3 * 60);
  });

  it("hands a bankrupt account to the fund whole, with no liquidation offered", () => {
    const w = world(2, { path: { jumpsPerDay: 400, jumpSigma: 0.05, jumpSpreadS: [1, 2] } });
    w.run(1800);
    const bankrupt = w.liquidations.filter((l) => l.bankrupt);
    expect(bankrupt.length).toBeGreaterThan(0);
    for (const b of bankrupt) {
      const offered = w.pushes
        .filter((p) => p.topic === "liquidation")
        .flatMap((p) => p.data as { liquidationId: number; type: string }[])
        .find((r) => r.liquidationId === b.liquidationId);
      expect(offered?.type).toBe("claim");
    }
  });
});

describe("Calendar", () => {
  it("returns each item once, at or after its time, in its bucket", () => {
    const c = new Calendar<string>(1000);
    c.add(5_500, "a");
    c.add(1_200, "b");
    c.add(1_900, "c");
    c.add(90_000, "d");
    expect(c.due(900)).toEqual([]);
    expect(c.due(1_000).sort()).toEqual(["b", "c"]);
    expect(c.due(4_999)).toEqual([]);
    c.add(2_000, "late"); // added for a time already passed: returned at the next call
    expect(c.due(6_000).sort()).toEqual(["a", "late"]);
    expect(c.size).toBe(1);
    expect(c.due(1e9)).toEqual(["d"]);
    expect(c.size).toBe(0);
  });
});
