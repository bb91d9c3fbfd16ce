/**
 * The backtest report's facts worked by hand: drawdown of a scripted net path, days marked to market
 * adding up to the net, the time at the exposure cap, the worst claims kept in order, the exposure
 * envelope keeping its peak however far it is thinned, and readable axis ticks.
 */
import { describe, expect, test } from "vitest";
import { PnlLedger } from "../../src/engine/pnlLedger.js";
import type { BacktestReport, VariantReport } from "../../src/lab/replay/backtest.js";
import { netInterval } from "../../src/lab/replay/netInterval.js";
import { Series } from "../../src/lab/replay/series.js";
import { VariantFacts } from "../../src/lab/replay/variantFacts.js";
import { centsAddingUp, unwindText, verdictText } from "../../src/lab/report/reportText.js";
import { timeTicksForTests, valueTicksForTests } from "../../src/lab/report/svgChart.js";

const T = Date.UTC(2026, 0, 5, 22, 0, 0);

describe("variant facts", () => {
  test("drawdown, days, cap time from a scripted path", () => {
    const f = new VariantFacts();
    // net: 0 → 10 → 4 → 12 → 1 (the largest fall: 12 → 1 = 11) → 5, across midnight.
    const path: [number, number, number][] = [
      [T, 0, 0],
      [T + 1_000, 10, 100],
      [T + 2_000, 4, 100],
      [T + 3 * 3_600_000, 12, 200], // next day, 01:00
      [T + 3 * 3_600_000 + 1_000, 1, 150],
      [T + 3 * 3_600_000 + 2_000, 5, 150],
    ];
    f.capRefused(T + 1_500); // the cap binds from here until exposure next falls (at the 5th point)
    for (const [t, v, e] of path) f.point(t, v, e);
    const out = f.finish(T + 3 * 3_600_000 + 2_000, 5, new PnlLedger(), () => undefined);
    expect(out.max_drawdown).toEqual({ amount: 11, peak_at: T + 3 * 3_600_000, trough_at: T + 3 * 3_600_000 + 1_000 });
    expect(out.by_day.map((d) => [d.day, d.net])).toEqual([
      ["2026-01-05", 4],
      ["2026-01-06", 1],
    ]);
    expect(out.by_day.reduce((s, d) => s + d.net, 0)).toBe(5);
    expect(out.at_cap_seconds).toBe((3 * 3_600_000 + 1_000 - 1_500) / 1000);
  });

  test("at the cap: exposure within 1 % of it", () => {
    const f = new VariantFacts(100);
    for (const [t, e] of [
      [T, 50],
      [T + 1_000, 99.5], // at the cap from here
      [T + 2_000, 99.5],
      [T + 5_000, 80], // to here: 4 s
      [T + 6_000, 100], // again, until the end: 1 s
    ] as const)
      f.point(t, 0, e);
    expect(f.finish(T + 7_000, 0, new PnlLedger(), () => undefined).at_cap_seconds).toBe(5);
  });

  test("worst claims: the five lowest nets in order, open ones at the last mark", () => {
    const f = new VariantFacts();
    const ledger = new PnlLedger({ keepClosedClaims: false, closed: (c) => f.claimClosed(c) });
    for (let id = 1; id <= 8; id++) {
      ledger.claim(id, "ETH", 1, 100, 1, T); // fee 1
      ledger.fill("ETH", -1, 100 - id, 0, T + 1); // closed at a loss of id: net 1 − id
    }
    ledger.claim(9, "ETH", 2, 100, 1, T + 2); // still open: at mark 90 its net is 1 − 20 = −19
    const out = f.finish(T + 3, 0, ledger, () => 90);
    expect(out.worst_claims.map((c) => [c.id, c.net])).toEqual([
      [9, -19],
      [8, -7],
      [7, -6],
      [6, -5],
      [5, -4],
    ]);
  });

  test("the exposure envelope keeps the peak through thinning; a last-value curve keeps the last", () => {
    const max = new Series(1_000, 8, "max");
    const last = new Series(1_000, 8);
    for (let i = 0; i < 1_000; i++) {
      const v = i === 437 ? 1_000 : i % 7;
      max.add(i * 100, v);
      last.add(i * 100, v);
    }
    expect(Math.max(...max.points(5).map(([, v]) => v))).toBe(1_000);
    expect(last.points(5).at(-1)?.[1]).toBe(999 % 7);
  });

  test("time ticks fall on round UTC instants; value ticks on 1, 2, 5 × 10ⁿ", () => {
    const week = timeTicksForTests(Date.UTC(2026, 0, 5), Date.UTC(2026, 0, 12));
    expect(week.map((t) => t.label)).toEqual(["01-05", "01-06", "01-07", "01-08", "01-09", "01-10", "01-11", "01-12"]);
    const hours = timeTicksForTests(T + 60_000, T + 6 * 3_600_000);
    expect(hours[0]?.label).toBe("01-05 23:00");
    expect(hours.every((t) => t.at % 3_600_000 === 0)).toBe(true);
    expect(hours[1]?.label).toBe("01-06 00:00"); // midnight says the new day
    expect(timeTicksForTests(T, T + 10 * 60_000).map((t) => t.label)).toEqual(["01-05 22:00", "22:05", "22:10"]);
    expect(valueTicksForTests(-30, 124_972)).toEqual([0, 50_000, 100_000]);
    expect(valueTicksForTests(0, 4.2)).toEqual([0, 1, 2, 3, 4]);
  });
});

describe("report texts", () => {
  test("cents that add up: rounded rows sum to the rounded total", () => {
    const rows = [0.334, 0.333, 0.333];
    expect(centsAddingUp(rows, 1)).toEqual(["0.34", "0.33", "0.33"]);
    const many = Array.from({ length: 9 }, () => 1 / 9);
    expect(centsAddingUp(many, 1).reduce((s, c) => s + Math.round(Number(c) * 100), 0)).toBe(100);
    expect(centsAddingUp([-0.125, -0.125], -0.25).reduce((s, c) => s + Math.round(Number(c) * 100), 0)).toBe(-25);
    expect(centsAddingUp([], 0)).toEqual([]);
  });

  test("the interval on a net: a bootstrap over its claims, the same every time; normal past 2,000 claims", () => {
    const nets = [3, -1, 2, 5, -4, 1, 0.5, 2, -2, 4];
    const a = netInterval(nets);
    expect(a.method).toBe("bootstrap");
    expect(a.low).toBeLessThan(10.5);
    expect(a.high).toBeGreaterThan(10.5);
    expect(netInterval(nets)).toEqual(a);
    expect(netInterval([7])).toEqual({ claims: 1, low: 7, high: 7, method: "none" });
    const big = netInterval(Array.from({ length: 5_000 }, (_, i) => (i % 2 === 0 ? 1 : -0.5)));
    expect(big.method).toBe("normal");
    expect(big.low).toBeLessThan(1_250);
    expect(big.high).toBeGreaterThan(1_250);
  });

  test("the verdict on the best variant: too few claims, a difference inside the interval, or one outside it", () => {
    const variant = (name: string, net: number, low: number, high: number, claims: number) =>
      ({ name, estimated_net: net, same_as: null, net_interval: { claims, low, high, method: "bootstrap" } }) as unknown as VariantReport;
    const report = (...variants: VariantReport[]) => ({ variants }) as unknown as BacktestReport;
    // Two claims, 0.2 % apart: no "best" on that.
    expect(verdictText(report(variant("a", 100.2, 90, 110, 2), variant("b", 100, 90, 110, 2)))).toMatch(/Only 2 claims: too few to choose/);
    expect(verdictText(report(variant("a", 100.2, 80, 120, 300), variant("b", 100, 80, 120, 300)))).toMatch(
      /inside the 90 % interval .*: not a finding/,
    );
    expect(verdictText(report(variant("a", 200, 180, 220, 300), variant("b", 100, 80, 120, 300)))).toMatch(/Outside the 90 % interval/);
    expect(verdictText(report(variant("a", 1, 0, 2, 300)))).toBe("");
  });

  test("the unwind cost's origin is said, loudly when assumed", () => {
    const r = (model: Partial<BacktestReport["model"]>) =>
      ({ model: { unwind_slippage_bps: 5, taker_fee_bps: 5, unwind_samples: 0, ...model } }) as unknown as BacktestReport;
    expect(unwindText(r({ unwind_source: "measured", unwind_samples: 40, unwind_slippage_bps: 23.5 }))).toMatch(
      /measured from .* 40 unwind trades in the capture: 23.5 bps/,
    );
    expect(unwindText(r({ unwind_source: "assumed" }))).toMatch(/^Unwind cost ASSUMED/);
    expect(unwindText(r({ unwind_source: "assumed", unwind_given: true }))).toMatch(/as given/);
  });
});
