/**
 * Markouts worked by hand: a scripted mark path after a long and a short assignment, the sign
 * convention (positive = against us), stale marks, the horizons a restart must still sample or
 * record missing, the per-symbol and per-claim summaries, and the split of a claim's net into fee,
 * drift and unwind cost.
 */
import { describe, expect, it } from "vitest";
import { type MarkoutPoint, markoutsByClaim, markoutsBySymbol } from "../../src/engine/markoutSummary.js";
import { assignmentsOf, MARKOUT_HORIZONS, markoutBps, pendingHorizons } from "../../src/engine/markouts.js";
import { PnlLedger } from "../../src/engine/pnlLedger.js";
import { markoutsAlongPath } from "../support/markoutsAlongPath.js";

describe("markouts", () => {
  it("positive is against us: a long loses when the mark falls, a short when it rises", () => {
    expect(markoutBps(2, 100, 99)).toBeCloseTo(100, 9);
    expect(markoutBps(2, 100, 101)).toBeCloseTo(-100, 9);
    expect(markoutBps(-1, 2000, 2010)).toBeCloseTo(50, 9);
    expect(markoutBps(-1, 2000, 1990)).toBeCloseTo(-50, 9);
  });

  it("a scripted mark path: the latest mark at each horizon, missing when it is too old", () => {
    // Long 2 at 100, assigned at t = 1000; marks older than 10 s do not count.
    const a = { id: 7, symbol: "PERP_BTC_USDC", qty: 2, price: 100, at: 1_000 };
    const path = [
      { receivedAt: 900, price: 101 }, // before the assignment
      { receivedAt: 1_500, price: 99.5 }, // 1s horizon (t = 2000): 0.5 below → +50 bps
      { receivedAt: 5_000, price: 99 }, // 5s horizon (t = 6000): 1 below → +100 bps
      { receivedAt: 20_000, price: 102 }, // 30s horizon (t = 31000): 11 s old → missing (stale)
      { receivedAt: 61_000, price: 100.5 }, // 60s horizon (t = 61000, received exactly then): 0.5 above → −50 bps
    ]; // 300s horizon (t = 301000): the last mark is 240 s old → missing
    const out = markoutsAlongPath(a, path, 10_000);
    expect(out.map((s) => s.horizon)).toEqual(["1s", "5s", "30s", "60s", "300s"]);
    expect(out[0]).toEqual({ horizon: "1s", at: 2_000, mark: 99.5, markAt: 1_500, bps: 50 });
    expect(out[1]).toEqual({ horizon: "5s", at: 6_000, mark: 99, markAt: 5_000, bps: 100 });
    expect(out[2]).toEqual({ horizon: "30s", at: 31_000, missing: "stale" });
    expect(out[3]).toEqual({ horizon: "60s", at: 61_000, mark: 100.5, markAt: 61_000, bps: -50 });
    expect(out[4]).toEqual({ horizon: "300s", at: 301_000, missing: "stale" });
  });

  it("a short: the mark rising 1 % is +100 bps; with no mark at all every horizon is missing", () => {
    const a = { id: 8, symbol: "PERP_ETH_USDC", qty: -0.5, price: 2_000, at: 0 };
    const out = markoutsAlongPath(a, [{ receivedAt: 0, price: 2_020 }], 1e9);
    expect(out.map((s) => ("bps" in s ? Math.round(s.bps * 1e9) / 1e9 : s.missing))).toEqual([100, 100, 100, 100, 100]);
    expect(markoutsAlongPath(a, [], 1e9).every((s) => "missing" in s && s.missing === "stale")).toBe(true);
  });

  it("a claim's fills of one symbol are one assignment at the quantity-weighted price", () => {
    const fills = [
      { symbol: "PERP_SOL_USDC", qty: 1, price: 100, fee: 0.1 },
      { symbol: "PERP_SOL_USDC", qty: 3, price: 104, fee: 0.3 },
      { symbol: "PERP_ETH_USDC", qty: -2, price: 2_000, fee: 1 },
    ];
    expect(assignmentsOf(5, fills, 42)).toEqual([
      { id: 5, symbol: "PERP_SOL_USDC", qty: 4, price: 103, at: 42 },
      { id: 5, symbol: "PERP_ETH_USDC", qty: -2, price: 2_000, at: 42 },
    ]);
  });

  it("after a restart: horizons already recorded are skipped, past ones missed, future ones due", () => {
    const a = { id: 1, symbol: "X", qty: 1, price: 10, at: 10_000 };
    const p = pendingHorizons(a, new Set(["1s"]), 40_000);
    expect(p).toEqual([
      { horizon: "5s", due: 15_000, missed: true },
      { horizon: "30s", due: 40_000, missed: false },
      { horizon: "60s", due: 70_000, missed: false },
      { horizon: "300s", due: 310_000, missed: false },
    ]);
  });
});

describe("markout summaries", () => {
  const pt = (
    id: number,
    symbol: string,
    horizon: MarkoutPoint["horizon"],
    bps: number | undefined,
    qty = 1,
    price = 100,
  ): MarkoutPoint => ({
    id,
    symbol,
    horizon,
    bps,
    qty,
    price,
  });

  it("per symbol and horizon: count, missing, mean and median", () => {
    const rows = markoutsBySymbol([
      pt(1, "B", "1s", 10),
      pt(2, "B", "1s", -20),
      pt(3, "B", "1s", 40),
      pt(4, "B", "1s", undefined),
      pt(1, "A", "5s", 1),
      pt(2, "A", "5s", 2),
      pt(3, "A", "5s", 3),
      pt(4, "A", "5s", 10),
    ]);
    expect(rows.map((r) => r.symbol)).toEqual(["A", "B"]);
    const [a, b] = rows as [(typeof rows)[0], (typeof rows)[0]];
    expect(b.horizons["1s"]).toEqual({ count: 3, missing: 1, meanBps: 10, medianBps: 10 });
    expect(a.horizons["5s"]).toEqual({ count: 4, missing: 0, meanBps: 4, medianBps: 2.5 });
    expect(a.horizons["300s"]).toEqual({ count: 0, missing: 0, meanBps: undefined, medianBps: undefined });
    expect(Object.keys(a.horizons)).toEqual([...MARKOUT_HORIZONS]);
  });

  it("per claim: the notional-weighted mean over its symbols", () => {
    // 1 × 100 = 100 of notional at +30 bps, 3 × 100 = 300 at −10 bps → (3000 − 3000) / 400 = 0.
    const byClaim = markoutsByClaim([pt(9, "A", "1s", 30, 1), pt(9, "B", "1s", -10, -3), pt(9, "A", "5s", undefined)]);
    expect(byClaim.get(9)).toEqual({ "1s": 0 });
  });
});

describe("the net of a claim: fee + drift − unwind cost", () => {
  it("a long closed below the mark it was priced on", () => {
    const ledger = new PnlLedger();
    // Long 2 at 100 earning 3; the mark falls to 99; the unwind sells 2 at 98.5 paying 0.2.
    ledger.claim(1, "X", 2, 100, 3, 0);
    ledger.fill("X", -2, 98.5, 0.2, 1_000, 99);
    const [c] = ledger.claims();
    expect(c?.trading).toBeCloseTo(-3, 9); // 2 × (98.5 − 100)
    expect(c?.drift).toBeCloseTo(-2, 9); // 2 × (99 − 100)
    const unwindCost = (c?.drift ?? 0) - (c?.trading ?? 0) + (c?.fees ?? 0);
    expect(unwindCost).toBeCloseTo(1.2, 9); // 2 × 0.5 of slippage + 0.2 of fees
    expect((c?.liquidatorFee ?? 0) + (c?.drift ?? 0) - unwindCost).toBeCloseTo(ledger.totals().net, 9);
    expect(ledger.totals().net).toBeCloseTo(-0.2, 9);
  });

  it("a fill without a known mark: all of the trading result is drift", () => {
    const ledger = new PnlLedger();
    ledger.claim(2, "X", -1, 50, 1, 0);
    ledger.fill("X", 1, 49, 0.05, 1_000);
    expect(ledger.claims()[0]?.drift).toBeCloseTo(1, 9);
  });
});
