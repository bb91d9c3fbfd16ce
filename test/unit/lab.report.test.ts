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
import { renderBacktest } from "../../src/commands/backtestOutput.js";
import { type BacktestReport, backtest } from "../../src/lab/replay/backtest.js";
import { backtestInJobs } from "../../src/lab/replay/backtestJobs.js";
import { renderHtml } from "../../src/lab/report/htmlReport.js";
import { cents, SIGNS_NOTE, verdictText } from "../../src/lab/report/reportText.js";
import { dayRows, SYMBOL_KEYS, symbolRows } from "../../src/lab/report/sectionRows.js";
import { sensitivityColumns } from "../../src/lab/report/sensitivityView.js";
import { buildVariants } from "../../src/lab/sweep/variants.js";
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

describe("the page a liquidator decides from", () => {
  const toCents = (x: number) => Math.round(x * 100);
  const distinctVariants = () => report.variants.filter((v) => v.same_as === null);

  test("every section adds up to the variant's totals to the cent, exactly as printed", () => {
    for (const v of distinctVariants()) {
      for (const k of SYMBOL_KEYS) {
        const total = k === "net" ? v.estimated_net : v.components[k];
        expect(Math.abs(v.by_symbol.reduce((s, r) => s + r[k], 0) - total), `${v.name} ${k}`).toBeLessThan(0.005);
      }
      expect(Math.abs(v.by_day.reduce((s, d) => s + d.net, 0) - v.estimated_net)).toBeLessThan(0.005);
      expect(Math.abs(v.by_day.reduce((s, d) => s + d.liquidator_fee, 0) - v.components.liquidator_fee)).toBeLessThan(0.005);
    }
    // The printed cents of each variant's rows sum to its printed total.
    for (const v of distinctVariants()) {
      const rows = symbolRows([v]);
      for (const k of SYMBOL_KEYS) {
        const printed = rows.reduce((s, r) => s + toCents(Number(r.cents[k])), 0);
        expect(printed, `${v.name} ${k}`).toBe(toCents(Number(cents(k === "net" ? v.estimated_net : v.components[k]))));
      }
      const days = dayRows([v]);
      expect(days.reduce((s, r) => s + toCents(Number(r.cents.net)), 0)).toBe(toCents(Number(cents(v.estimated_net))));
    }
  });

  test("one word per quantity, liquidator pnl's, with the signs said once, in text, JSON and HTML", async () => {
    const text = renderBacktest("table", report).stdout;
    const html = renderHtml(report);
    const json = renderBacktest("json", report).stdout;
    for (const out of [text, html]) expect(out.split(SIGNS_NOTE.slice(0, 60)).length - 1).toBe(1);
    expect(text).toMatch(/liquidator_fee +trading +fees +open +net/);
    for (const out of [text, html, json]) {
      expect(out).not.toMatch(/unwind[ _]cost/);
      expect(out).not.toMatch(/"unwind"/);
    }
    type Money = { liquidator_fee: number; trading: number; fees: number; open: number; net: number };
    const v = (JSON.parse(json) as { variants: Money[] }).variants[0] as Money;
    expect(v.liquidator_fee + v.trading - v.fees + v.open).toBeCloseTo(v.net, 5);
  });

  test("the sensitivity's worst column is each variant's worst", () => {
    const cols = sensitivityColumns(report);
    const worst = cols.at(-1);
    expect(worst?.label).toBe("worst of these");
    for (const v of report.variants) {
      const others = cols.slice(0, -1).map((c) => c.net(v) as number);
      expect(worst?.net(v)).toBe(Math.min(...others));
    }
    // The fixed "both 2×" column is no longer called the worst case.
    expect(cols.map((c) => c.label).join(" | ")).not.toContain("worst case");
  });

  test("each net has its interval over the variant's claims, and the verdict says what the sample can carry", () => {
    for (const v of report.variants) {
      expect(v.net_interval.claims).toBeGreaterThanOrEqual(v.claimed);
      if (v.net_interval.claims >= 2) {
        expect(v.net_interval.low).toBeLessThanOrEqual(v.estimated_net + 1e-6);
        expect(v.net_interval.high).toBeGreaterThanOrEqual(v.estimated_net - 1e-6);
        expect(v.net_interval.high).toBeGreaterThan(v.net_interval.low);
      }
    }
    const verdict = verdictText(report);
    expect(verdict).toMatch(/^Highest net: .+ claims/);
    expect(renderHtml(report)).toContain('id="verdict"');
    expect(renderBacktest("table", report).stdout).toContain(verdict);
  });

  test("the text output names the variants it lists once", () => {
    const text = renderBacktest("table", report).stdout;
    expect(text).toMatch(/Identical in effect \(same claims, same net\), listed once in the sections: .+ = /);
  });

  test("lines are told apart: each line of a chart its own colour, dash and marker; the legend shows the marker", () => {
    const html = renderHtml(report);
    const svg = html.slice(html.indexOf("<svg"), html.indexOf("</svg>"));
    const lines = [
      ...svg.matchAll(/<path d="M[^"]*" fill="none" stroke="(#[0-9a-f]{6})" stroke-width="1.5"(?: stroke-dasharray="([^"]+)")?>/g),
    ];
    const markers = [...svg.matchAll(/<g class="markers" data-marker="([a-z]+)">/g)].map((m) => m[1]);
    expect(lines.length).toBe(distinctVariants().length);
    expect(markers).toHaveLength(lines.length);
    const styles = lines.map((m, i) => `${m[1]} ${m[2] ?? ""} ${markers[i]}`);
    expect(new Set(styles).size).toBe(styles.length);
    expect(new Set(markers).size).toBe(Math.min(markers.length, 8));
  });
});
