/**
 * The backtest report on a replay of the bench's synthetic market: the sensitivity columns are what a
 * replay at those assumptions gives, the exposure chart's peak is the table's, the days and the
 * symbols add up to the net, variants identical in effect are named, and the HTML page renders in
 * headless chromium with no console message and every section present.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { writeLabMarket } from "../../src/bench/labMarket.js";
import { type BacktestReport, backtest } from "../../src/lab/backtest.js";
import { backtestInJobs } from "../../src/lab/backtestJobs.js";
import { renderHtml } from "../../src/lab/htmlReport.js";
import { buildVariants } from "../../src/lab/variants.js";
import { removeDir, tempDir } from "../support/daemonHarness.js";
import { chromiumAvailable, renderPage } from "../support/headlessChromium.js";

let dir: string;
let file: string;
let report: BacktestReport;
const SETS = ["policy.min_fee=0,0.0001,20", "policy.max_total_exposure=50000,5000000"];

const options = async (latency: number, slippage: number) => ({
  files: [file],
  variants: await buildVariants([], SETS),
  defaultLatencyMs: latency,
  slippageBps: slippage,
  takerFeeBps: 5,
});

beforeAll(async () => {
  dir = await tempDir("report");
  file = join(dir, "market.jsonl.gz");
  await writeLabMarket(file, 0.25);
  report = await backtestInJobs({ ...(await options(50, 5)), sensitivity: true }, 1);
}, 120_000);
afterAll(() => removeDir(dir));

describe("backtest report", () => {
  test("sensitivity columns equal replays at those assumptions", async () => {
    const slip2 = await backtest(await options(50, 10));
    const slipHalf = await backtest(await options(50, 2.5));
    const lat2 = await backtest(await options(100, 5));
    const latHalf = await backtest(await options(25, 5));
    report.variants.forEach((v, i) => {
      const s = v.sensitivity;
      expect(s.latency_ms).toEqual([25, 50, 100]);
      expect(s.net[1]?.[1]).toBe(v.estimated_net);
      expect(s.net[1]?.[2]).toBeCloseTo(slip2.variants[i]?.estimated_net as number, 4);
      expect(s.net[1]?.[0]).toBeCloseTo(slipHalf.variants[i]?.estimated_net as number, 4);
      expect(s.net[2]?.[1]).toBeCloseTo(lat2.variants[i]?.estimated_net as number, 4);
      expect(s.net[0]?.[1]).toBeCloseTo(latHalf.variants[i]?.estimated_net as number, 4);
      expect(s.net[2]?.[2]).toBeCloseTo(lat2.variants[i]?.net_at_alt_slippage[1] as number, 4);
    });
    // Slippage moves the net by a real amount (the columns are not copies).
    expect(slip2.variants[0]?.estimated_net).toBeLessThan((report.variants[0]?.estimated_net as number) - 1);
  });

  test("the exposure chart's peak is the table's peak; days and symbols add up to the net", () => {
    for (const v of report.variants) {
      expect(Math.max(...v.series.exposure.map(([, e]) => e))).toBeCloseTo(v.peak_exposure, 4);
      expect(v.by_day.reduce((s, d) => s + d.net, 0)).toBeCloseTo(v.estimated_net, 3);
      expect(v.by_symbol.reduce((s, d) => s + d.net, 0)).toBeCloseTo(v.estimated_net, 3);
      expect(v.by_symbol.reduce((s, d) => s + d.claims, 0)).toBeGreaterThanOrEqual(v.claimed);
      expect(v.max_drawdown.amount).toBeGreaterThanOrEqual(0);
    }
    // A tight cap binds; a loose one does not.
    const tight = report.variants.find((v) => v.settings["policy.max_total_exposure"] === 50_000);
    expect(tight?.at_cap_seconds).toBeGreaterThan(0);
    expect(tight?.peak_exposure).toBeLessThanOrEqual(50_000);
  });

  test("variants identical in effect name the first of them; different ones name none", () => {
    const by = (fee: number, cap: number) =>
      report.variants.find((v) => v.settings["policy.min_fee"] === fee && v.settings["policy.max_total_exposure"] === cap);
    const zero = by(0, 5_000_000);
    const tiny = by(0.0001, 5_000_000);
    const twenty = by(20, 5_000_000);
    expect(zero?.same_as).toBeNull();
    expect(tiny?.same_as).toBe(zero?.name);
    expect(tiny?.estimated_net).toBe(zero?.estimated_net);
    expect(twenty?.claimed).not.toBe(zero?.claimed);
    expect(twenty?.same_as).toBeNull();
    expect(by(0.0001, 50_000)?.same_as).toBe(by(0, 50_000)?.name);
  });

  test("the HTML page renders in headless chromium: no console message, every section", async (ctx) => {
    const html = renderHtml(report);
    const page = join(dir, "report.html");
    await writeFile(page, html);
    for (const id of ["variants", "sensitivity", "risk", "per-symbol", "per-day", "worst-claims", "assumptions"]) {
      expect(html).toContain(`id="${id}"`);
    }
    // Row 4 (min_fee=0.0001, the loose cap) is identical to row 2 (min_fee=0, the loose cap).
    expect(html).toMatch(/policy\.min_fee=0\.0001 policy\.max_total_exposure=5000000<br><small[^>]*>identical in effect to #2</);
    expect(html).toContain(">#4 = #2<"); // the charts' legend: the line it would hide under
    expect(html).toContain(">#2 min_fee=0 max_total_exposure=5000000<"); // words all names share dropped
    expect(html).not.toContain("<script");
    if (!(await chromiumAvailable())) {
      ctx.skip("chromium is not installed (apt-get install chromium): the page was not rendered");
      return;
    }
    // The detector itself: a page with a script error is caught.
    const bad = join(dir, "bad.html");
    await writeFile(bad, "<!doctype html><html><body><script>missing()</script></body></html>");
    expect((await renderPage(bad)).console.length).toBeGreaterThan(0);
    const { dom, console } = await renderPage(page, process.env.LIQUIDATOR_REPORT_SCREENSHOT);
    expect(console).toEqual([]);
    for (const id of ["variants", "sensitivity", "risk", "per-symbol", "per-day", "worst-claims", "assumptions"]) {
      expect(dom).toContain(`id="${id}"`);
    }
    expect(dom.match(/<svg/g)).toHaveLength(2);
    expect(dom).toContain("time (UTC)");
    expect((await readFile(page, "utf8")).length).toBeGreaterThan(1000);
  }, 300_000);
});
