/**
 * The soak's output: one table row per minute (printed as the run goes, and again at the end with
 * final numbers), a summary, and the JSON report. Formatting only.
 */
import type { OutcomeCounts } from "./soakLedger.js";
import type { DaemonSample } from "./soakMetrics.js";

export interface MinuteRow extends OutcomeCounts {
  minute: number;
  /** Our claim requests received by the venue in the minute. */
  requests: number;
  failedByCode: Record<string, number>;
  /** Last sample of the minute. */
  rssMb: number | undefined;
  heapMb: number | undefined;
  /** Worst scrape interval of the minute. */
  eventLoopP99Ms: number | undefined;
  eventLoopMaxMs: number | undefined;
  /** Share of the minute's once-a-second /readyz probes answered 200 (no answer counts as not ready). */
  readyPct: number | undefined;
  faults: string[];
}

export function minuteRow(
  minute: number,
  counts: OutcomeCounts,
  requests: number,
  failedByCode: Record<string, number>,
  samples: readonly (DaemonSample | { at: number; missing: true })[],
  probes: readonly { ready: boolean }[],
  faults: string[],
): MinuteRow {
  const got = samples.filter((s): s is DaemonSample => !("missing" in s));
  const last = got.at(-1);
  const max = (f: (s: DaemonSample) => number | undefined): number | undefined => {
    const v = got.map(f).filter((x): x is number => x !== undefined);
    return v.length === 0 ? undefined : Math.max(...v);
  };
  return {
    minute,
    ...counts,
    requests,
    failedByCode,
    rssMb: last?.rssBytes === undefined ? undefined : last.rssBytes / 2 ** 20,
    heapMb: last?.heapUsedBytes === undefined ? undefined : last.heapUsedBytes / 2 ** 20,
    eventLoopP99Ms: max((s) => s.eventLoopP99Ms),
    eventLoopMaxMs: max((s) => s.eventLoopMaxMs),
    readyPct: probes.length === 0 ? undefined : (100 * probes.filter((p) => p.ready).length) / probes.length,
    faults,
  };
}

const COLUMNS: readonly [string, number][] = [
  ["min", 4],
  ["offered", 8],
  ["eligible", 9],
  ["ours", 6],
  ["missed", 7],
  ["comp.1st", 9],
  ["dup", 4],
  ["requests", 9],
  ["failed (code×n)", 24],
  ["RSS MB", 7],
  ["heap MB", 8],
  ["EL p99 ms", 10],
  ["EL max ms", 10],
  ["ready %", 8],
];

const fmt = (v: number | undefined, digits = 1): string => (v === undefined ? "-" : v.toFixed(digits));

export function formatCodes(codes: Record<string, number>): string {
  const parts = Object.entries(codes)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}×${n}`);
  return parts.length === 0 ? "-" : parts.join(" ");
}

export function tableHeader(): string {
  const head = COLUMNS.map(([name, w]) => name.padStart(w)).join(" ");
  return `${head}  faults\n${"-".repeat(head.length + 8)}`;
}

export function tableRow(r: MinuteRow): string {
  const cells = [
    String(r.minute),
    String(r.offered),
    String(r.eligible),
    String(r.claimedByUs),
    String(r.missed),
    String(r.competitorFirst),
    String(r.duplicates),
    String(r.requests),
    formatCodes(r.failedByCode),
    fmt(r.rssMb),
    fmt(r.heapMb),
    fmt(r.eventLoopP99Ms, 2),
    fmt(r.eventLoopMaxMs, 2),
    fmt(r.readyPct, 0),
  ];
  return `${cells.map((c, i) => c.padStart((COLUMNS[i] as [string, number])[1])).join(" ")}  ${r.faults.join(", ")}`;
}

/** A Markdown version of the final table (for a README or an issue). */
export function markdownTable(rows: readonly MinuteRow[]): string {
  const head = [
    "min",
    "offered",
    "eligible",
    "claimed by us",
    "missed",
    "competitor first",
    "duplicate",
    "requests",
    "failed (code×n)",
    "RSS MB",
    "EL p99 ms",
    "EL max ms",
    "ready %",
    "faults",
  ];
  const lines = [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`];
  for (const r of rows) {
    lines.push(
      `| ${[r.minute, r.offered, r.eligible, r.claimedByUs, r.missed, r.competitorFirst, r.duplicates, r.requests, formatCodes(r.failedByCode), fmt(r.rssMb), fmt(r.eventLoopP99Ms, 2), fmt(r.eventLoopMaxMs, 2), fmt(r.readyPct, 0), r.faults.join(", ") || "-"].join(" | ")} |`,
    );
  }
  return lines.join("\n");
}
