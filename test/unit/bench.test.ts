import { describe, expect, test } from "vitest";
import { formatMsForTests, latencySvg, tickLabelForTests } from "../../src/bench/latencySvg.js";
import { type BenchResults, benchTable } from "../../src/bench/report.js";
import { paired, summarize, valueRatio } from "../../src/bench/stats.js";
import { checkTargets } from "../../src/bench/targets.js";
import { percentile } from "../../src/engine/percentile.js";
import { metricValue } from "../../src/observe/promText.js";

describe("bench stats", () => {
  test("nearest-rank percentiles of unsorted samples", () => {
    const xs = Array.from({ length: 1000 }, (_, i) => 1000 - i); // 1000..1
    expect(percentile(xs, 50)).toBe(500);
    expect(percentile(xs, 99)).toBe(990);
    expect(percentile(xs, 99.9)).toBe(999);
    expect(percentile(xs, 100)).toBe(1000);
    expect(percentile([7], 99.9)).toBe(7);
    expect(percentile([], 50)).toBeUndefined();
    expect(xs[0]).toBe(1000); // the input is not sorted in place
  });

  test("summaries are in microseconds", () => {
    const s = summarize([0.5, 1, 1.5, 2]);
    expect(s).toMatchObject({ count: 4, p50Us: 1000, maxUs: 2000, meanUs: 1250 });
  });

  const fees = [10, 50, 30, 20, 40].map((fee, i) => ({ id: i + 1, fee, pushedAt: 0 }));

  test("value ratio: best order is 1, a worse pick and a refused claim cost their share", () => {
    const perfect = valueRatio({
      fees,
      first: 2,
      claims: [
        { liquidationId: 2, receivedAt: 1, value: 50 },
        { liquidationId: 5, receivedAt: 2, value: 40 },
      ],
    });
    expect(perfect.ratio).toBe(1);
    expect(perfect.best).toBe(90);
    const worse = valueRatio({
      fees,
      first: 2,
      claims: [
        { liquidationId: 2, receivedAt: 1, value: 50 },
        { liquidationId: 1, receivedAt: 2, value: 10 },
      ],
    });
    expect(worse.ratio).toBeCloseTo(60 / 90);
    const refused = valueRatio({
      fees,
      first: 2,
      claims: [
        { liquidationId: 2, receivedAt: 1, value: 0 },
        { liquidationId: 5, receivedAt: 2, value: 40 },
      ],
    });
    expect(refused.captured).toBe(40);
    // Only the first `first` claims count.
    const extra = valueRatio({
      fees,
      first: 1,
      claims: [
        { liquidationId: 3, receivedAt: 1, value: 30 },
        { liquidationId: 2, receivedAt: 2, value: 50 },
      ],
    });
    expect(extra.ratio).toBeCloseTo(30 / 50);
  });

  test("online ratio only credits what had been pushed when each claim arrived", () => {
    const staged = [
      { id: 1, fee: 10, pushedAt: 0 },
      { id: 2, fee: 20, pushedAt: 0 },
      { id: 3, fee: 100, pushedAt: 5 },
    ];
    // At t=1 only ids 1 and 2 exist: taking 2 is the best possible; at t=6 id 3 is.
    const r = valueRatio({
      fees: staged,
      first: 2,
      claims: [
        { liquidationId: 2, receivedAt: 1, value: 20 },
        { liquidationId: 3, receivedAt: 6, value: 100 },
      ],
    });
    expect(r.ratioOnline).toBe(1);
    expect(r.ratio).toBeCloseTo(120 / 120);
    const late = valueRatio({ fees: staged, first: 1, claims: [{ liquidationId: 2, receivedAt: 1, value: 20 }] });
    expect(late.ratio).toBeCloseTo(0.2);
    expect(late.ratioOnline).toBe(1);
  });
});

describe("bench latency picture", () => {
  test("labels", () => {
    expect(formatMsForTests(0.0853)).toBe("85 µs");
    expect(formatMsForTests(1.234)).toBe("1.23 ms");
    expect(formatMsForTests(25)).toBe("25.0 ms");
    expect(tickLabelForTests(0.2)).toBe("200 µs");
    expect(tickLabelForTests(20)).toBe("20 ms");
  });

  test("an SVG with both series, axes, legend and markers; empty input still renders", () => {
    const a = Array.from({ length: 500 }, (_, i) => 0.3 + (i % 50) / 100);
    const b = Array.from({ length: 500 }, (_, i) => 0.2 + (i % 40) / 100);
    const svg = latencySvg(
      [
        { label: "daemon", color: "#c00", samplesMs: a },
        { label: "floor", color: "#00c", samplesMs: b },
      ],
      "t <1>",
    );
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg).toContain("daemon: p50");
    expect(svg).toContain("floor: p50");
    expect(svg).toContain("t &lt;1&gt;");
    expect(svg).toContain("log scale");
    expect(svg.match(/<path /g)?.length).toBe(2);
    expect(svg).not.toContain("NaN");
    const empty = latencySvg([{ label: "daemon", color: "#c00", samplesMs: [] }], "none");
    expect(empty).toContain("</svg>");
    expect(empty).not.toMatch(/NaN(?! ms)/);
  });
});

describe("bench report", () => {
  const base: Omit<BenchResults, "targets"> = {
    date: "2026-01-01T00:00:00.000Z",
    command: "npm run bench",
    machine: { cpu: "x", cores: 2, memoryGb: 4, node: "v20", os: "Linux" },
    settings: {},
    tickToClaim: {
      daemon: { count: 10, p50Us: 120, p90Us: 1, p99Us: 500, p999Us: 1, maxUs: 1, meanUs: 1, missed: 0, refusedByCode: {} },
      floor: { count: 10, p50Us: 100, p90Us: 1, p99Us: 200, p999Us: 1, maxUs: 1, meanUs: 1, missed: 0, refusedByCode: {} },
      ratioP50: 1.05,
      paired: { pairs: 100, medianRatio: 1.02, daemonWinShare: 0.4 },
      ratioP99: 2.5,
    },
    throughput: {
      decisionsPerSecond: 1_200_000,
      claimShare: 1,
      signaturesPerSecond: 1,
      signedHeadersPerSecond: 1,
      nobleSignaturesPerSecond: 1,
      rounds: 1,
      roundMs: 1,
    },
  };

  test("targets are judged against the issue's thresholds", () => {
    const t = checkTargets(base);
    const met = Object.fromEntries(t.map((x) => [x.name, x.met]));
    expect(met["tick-to-claim p50 daemon/floor"]).toBe(true);
    expect(met["tick-to-claim p99 daemon/floor"]).toBe(false);
    expect(met["frames won by the daemon"]).toBe(false);
    expect(met["policy decisions per second"]).toBe(true);
    expect(t.some((x) => x.name.startsWith("cascade"))).toBe(false); // not measured, not judged
    // The "≥ 1 M decisions/s": 900,000 is not enough.
    const slow = checkTargets({ ...base, throughput: { ...base.throughput!, decisionsPerSecond: 900_000 } });
    expect(slow.find((x) => x.name === "policy decisions per second")?.met).toBe(false);
    const nan = checkTargets({ ...base, tickToClaim: { ...base.tickToClaim!, ratioP50: Number.NaN } });
    expect(nan.find((x) => x.name === "tick-to-claim p50 daemon/floor")?.met).toBe(false);
  });

  test("paired per frame: the median of the ratios and the daemon's share of wins", () => {
    expect(paired([1, 2, 3, 4], [2, 2, 2, 2])).toEqual({ pairs: 4, medianRatio: 1.25, daemonWinShare: 0.25 });
    expect(paired([1, 1], [2])).toEqual({ pairs: 1, medianRatio: 0.5, daemonWinShare: 1 });
  });

  test("table in text and Markdown", () => {
    const r: BenchResults = { ...base, targets: checkTargets(base) };
    const text = benchTable(r);
    expect(text).toContain("tick-to-claim p50 (µs)");
    expect(text).toContain("NOT met");
    const md = benchTable(r, true).split("\n");
    expect(md[0]).toMatch(/^\| measure \|/);
    expect(md[1]).toMatch(/^\| --- \|/);
  });

  test("metric values from Prometheus text, with or without labels", () => {
    const text = '# HELP x\nliquidator_nodejs_eventloop_lag_p99_seconds 0.0123\nliquidator_process_resident_memory_bytes{a="b"} 1.5e8\n';
    expect(metricValue(text, "liquidator_nodejs_eventloop_lag_p99_seconds")).toBe(0.0123);
    expect(metricValue(text, "liquidator_process_resident_memory_bytes")).toBe(1.5e8);
    expect(metricValue(text, "liquidator_missing")).toBeNaN();
    // A counter the exposition declares but never incremented for these labels counts zero; a gauge never set is missing.
    const declared = '# TYPE c_total counter\nc_total{a="x"} 2\n# TYPE g gauge\n';
    expect(metricValue(declared, "c_total", { a: "x" })).toBe(2);
    expect(metricValue(declared, "c_total", { a: "y" })).toBe(0);
    expect(metricValue(declared, "g")).toBeNaN();
    expect(metricValue(declared, "c")).toBeNaN();
  });
});
