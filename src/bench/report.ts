/**
 * The bench's results: the JSON document written to bench/results/<date>.json, the target checks of
 * the performance issue, and the short table printed on stdout. Pure.
 *
 * Longer than most files: the results' shapes and the one table that prints them side by side; the
 * targets are targets.ts.
 */

import type { ForecastBenchResult, ForecastSide } from "./forecastBench.js";
import type { LabResult } from "./labBench.js";
import type { MarginCascadeResult } from "./marginCascade.js";
import type { ReconcileResult } from "./reconcile.js";
import type { ShadowResult } from "./shadowBench.js";
import { formatNumber, type LatencySummary, summarize, type ValueResult } from "./stats.js";
import type { ThroughputResult } from "./throughput.js";
import type { TickResult } from "./venueProtocol.js";

export interface ClientLatency extends LatencySummary {
  missed: number;
  refusedByCode: Record<string, number>;
  /** Every measured tick-to-claim, µs, in frame order (for re-analysis; the SVG is drawn from these). */
  samplesUs?: number[];
}

export interface CascadeResult extends ValueResult {
  /** Every consecutive run (the fields above are the first's). */
  runs?: { eventLoopP99MsDuring: number; ratio: number; rateLimited: number }[];
  liquidations: number;
  pushes: number;
  spanMs: number;
  claimsPerSecond: number;
  claimsCounted: number;
  /** Claims the venue refused with -1003 (rate limit) during the measured windows. */
  rateLimited: number;
  /** Every claim received by the end of the after window, and the refusals among them by code. */
  claimsReceived: number;
  refusedByCode: Record<string, number>;
  /** TCP connections (REST and streams) the daemon opened to the venue, start to end. */
  venueConnections: number;
  /** [ms after the first push, venue code] of every claim received, in arrival order. */
  claims: [number, number][];
  /** p99 event-loop delay (monitorEventLoopDelay reading minus its resolution), ms. */
  eventLoopP99MsDuring: number;
  eventLoopP99MsAfter: number;
  /** The readings as prom-client exposes them (resolution included). */
  eventLoopRawP99MsDuring: number;
  eventLoopRawP99MsAfter: number;
  eventLoopResolutionMs: number;
  rssMbBefore: number;
  rssMbDuringMax: number;
  rssMbAfter: number;
  duringWindowMs: number;
  afterWindowMs: number;
}

export interface BenchResults {
  date: string;
  command: string;
  machine: { cpu: string; cores: number; memoryGb: number; node: string; os: string };
  settings: Record<string, unknown>;
  tickToClaim?: {
    daemon: ClientLatency;
    floor?: ClientLatency;
    ratioP50?: number;
    ratioP99?: number;
    /** Per frame, daemon/floor: their median and the share of frames the daemon's claim arrived first. */
    paired?: { pairs: number; medianRatio: number; daemonWinShare: number };
    /** Frames ~8 s apart per client, past the venue's keep-alive: what a quiet spell costs. */
    sparse?: {
      daemon: ClientLatency;
      floor: ClientLatency;
      paired?: { pairs: number; medianRatio: number; daemonWinShare: number };
      /** The daemon's claims by connection (warm, fresh, pool), and connections each client opened. */
      daemonClaimConnections?: { warm: number; fresh: number; pool: number };
      connectionsOpened?: { daemon: number; floor: number };
    };
  };
  cascade?: CascadeResult;
  marginCascade?: MarginCascadeResult;
  /** Issue #34's cascade: leverage per symbol, the account's own imr_factor (docs/protocol.md §10). */
  leverageCascade?: MarginCascadeResult;
  throughput?: ThroughputResult;
  lab?: LabResult;
  reconcile?: ReconcileResult;
  shadow?: ShadowResult;
  forecast?: ForecastBenchResult;
  targets: Target[];
}

export interface Target {
  name: string;
  value: number;
  target: string;
  met: boolean;
}

/** The longest the loop was held by a reconcile: a synchronous call or a turn while its offers were sliced. */
function reconcileLongestMs(r: ReconcileResult | undefined): number | undefined {
  if (r === undefined) return undefined;
  return Math.max(r.firstBlockMs, r.unchangedBlockMsMax, r.changedBlockMs);
}

/** The short table for stdout (and, as Markdown, for the README). */
export function benchTable(r: BenchResults, markdown = false): string {
  const rows: string[][] = [["measure", "daemon", "floor", "daemon/floor", "target"]];
  const tc = r.tickToClaim;
  const target = (name: string): string => {
    const x = r.targets.find((t) => t.name === name);
    return x === undefined ? "" : `${x.target} ${x.met ? "met" : "NOT met"}`;
  };
  if (tc !== undefined) {
    const ratio = (a: number, b: number | undefined): string => (b === undefined ? "" : formatNumber(a / b, 2));
    rows.push([
      "tick-to-claim p50 (µs)",
      formatNumber(tc.daemon.p50Us),
      formatNumber(tc.floor?.p50Us),
      ratio(tc.daemon.p50Us, tc.floor?.p50Us),
      target("tick-to-claim p50 daemon/floor"),
    ]);
    rows.push([
      "tick-to-claim p99 (µs)",
      formatNumber(tc.daemon.p99Us),
      formatNumber(tc.floor?.p99Us),
      ratio(tc.daemon.p99Us, tc.floor?.p99Us),
      target("tick-to-claim p99 daemon/floor"),
    ]);
    rows.push([
      "tick-to-claim p99.9 (µs)",
      formatNumber(tc.daemon.p999Us),
      formatNumber(tc.floor?.p999Us),
      ratio(tc.daemon.p999Us, tc.floor?.p999Us),
      "",
    ]);
    rows.push([
      "frames measured / missed",
      `${tc.daemon.count} / ${tc.daemon.missed}`,
      tc.floor ? `${tc.floor.count} / ${tc.floor.missed}` : "",
      "",
      "",
    ]);
    if (tc.paired !== undefined) {
      rows.push([
        "per-frame ratio, median (pairs)",
        "",
        "",
        `${formatNumber(tc.paired.medianRatio, 2)} (${formatNumber(tc.paired.pairs)})`,
        "",
      ]);
      rows.push(["frames won", `${formatNumber(tc.paired.daemonWinShare * 100, 1)} %`, "", "", target("frames won by the daemon")]);
    }
    const sp = tc.sparse;
    if (sp !== undefined) {
      rows.push([
        `after a quiet spell, p50 (µs, n=${sp.daemon.count})`,
        formatNumber(sp.daemon.p50Us),
        formatNumber(sp.floor.p50Us),
        ratio(sp.daemon.p50Us, sp.floor.p50Us),
        "",
      ]);
      if (sp.paired !== undefined)
        rows.push([
          "  per-frame ratio, median",
          "",
          "",
          formatNumber(sp.paired.medianRatio, 2),
          target("after a quiet spell, paired median daemon/floor"),
        ]);
      if (sp.daemonClaimConnections !== undefined && sp.connectionsOpened !== undefined) {
        const k = sp.daemonClaimConnections;
        rows.push([
          "  claims on a new connection / connections opened",
          `${formatNumber(k.fresh + k.pool)} / ${formatNumber(sp.connectionsOpened.daemon)}`,
          `– / ${formatNumber(sp.connectionsOpened.floor)}`,
          "",
          target("after a quiet spell, claims on a new connection"),
        ]);
      }
    }
  }
  const c = r.cascade;
  if (c !== undefined) {
    rows.push(["cascade value, first 20 / best 20", formatNumber(c.ratio, 3), "", "", target("cascade value ratio (first 20 / best 20)")]);
    rows.push(["  (vs best possible at the same times)", formatNumber(c.ratioOnline, 3), "", "", ""]);
    rows.push(["cascade 429s", formatNumber(c.rateLimited), "", "", target("cascade 429s")]);
    rows.push([
      "event-loop delay p99 during / after (ms)",
      `${formatNumber(c.eventLoopP99MsDuring, 1)} / ${formatNumber(c.eventLoopP99MsAfter, 1)}`,
      "",
      "",
      `< 10 ${r.targets.filter((t) => t.name.startsWith("cascade event-loop")).every((t) => t.met) ? "met" : "NOT met"}`,
    ]);
    if (c.runs !== undefined && c.runs.length > 1) {
      const worst = Math.max(...c.runs.map((x) => x.eventLoopP99MsDuring));
      rows.push([
        `  worst of ${c.runs.length} consecutive runs, during (ms)`,
        formatNumber(worst, 1),
        "",
        "",
        target(`cascade event-loop delay p99 during, worst of ${c.runs.length} runs (ms)`),
      ]);
    }
    rows.push([
      "RSS during (max) / after (MB)",
      `${formatNumber(c.rssMbDuringMax)} / ${formatNumber(c.rssMbAfter)}`,
      "",
      "",
      `< 150 ${r.targets.filter((t) => t.name.startsWith("cascade RSS")).every((t) => t.met) ? "met" : "NOT met"}`,
    ]);
  }
  // The margin and leverage cascades report alike (one measurement, two scenarios), each with one row of its own.
  for (const [name, c] of [
    ["margin", r.marginCascade],
    ["leverage", r.leverageCascade],
  ] as const) {
    if (c === undefined) continue;
    rows.push([
      `${name} cascade (${c.budgets} budgets), fee / best that fits`,
      formatNumber(c.ratio, 3),
      "",
      "",
      target(`${name} cascade fee / best that fits`),
    ]);
    rows.push([
      `${name} cascade refusals for insufficient margin`,
      formatNumber(c.marginRefusals),
      "",
      "",
      target(`${name} cascade refusals for insufficient margin`),
    ]);
    if (name === "margin") rows.push(["margin cascade, push to last claim that fits (ms)", formatNumber(c.pushToLastClaimMs), "", "", ""]);
    else rows.push(["leverage cascade margin usage", formatNumber(c.usage, 4), "", "", target("leverage cascade margin usage")]);
  }
  const th = r.throughput;
  if (th !== undefined) {
    rows.push(["policy decisions / s", formatNumber(th.decisionsPerSecond), "", "", target("policy decisions per second")]);
    rows.push([
      "signatures / s node:crypto (noble)",
      `${formatNumber(th.signaturesPerSecond)} (${formatNumber(th.nobleSignaturesPerSecond)})`,
      "",
      "",
      "",
    ]);
  }
  const fc = r.forecast;
  if (fc !== undefined) {
    const side = (x: ForecastSide): string =>
      `${formatNumber(x.paired.medianRatio, 2)} (won ${formatNumber(x.paired.daemonWinShare * 100, 1)} %)${x.sparsePaired === undefined ? "" : `, quiet ${formatNumber(x.sparsePaired.medianRatio, 2)}`}`;
    rows.push([
      `tick-to-claim paired median daemon/floor, heatmap off → polling every ${fc.intervalS} s (${formatNumber(fc.positions)} positions, ${formatNumber(fc.on.polls)} polls)`,
      "",
      "",
      `${side(fc.off)} → ${side(fc.on)}`,
      target(`tick-to-claim paired median daemon/floor with the heatmap polling every ${fc.intervalS} s`),
    ]);
    const sc = fc.on.sparseConnections;
    rows.push([
      "make ready at band fill? claims after quiet spells warm / fresh / pool; one limit price (ns, share of a claim)",
      `${sc === undefined ? "-" : `${formatNumber(sc.warm)} / ${formatNumber(sc.fresh)} / ${formatNumber(sc.pool)}`}; ${formatNumber(fc.limitPriceNs, 1)} (${formatNumber(fc.limitPriceShareOfClaim * 100, 4)} %)`,
      "",
      "",
      "",
    ]);
  }
  const sh = r.shadow;
  if (sh !== undefined) {
    const n = sh.on.shadows;
    rows.push([
      `tick-to-claim p50 / p99 daemon/floor, 0 → ${n} shadows`,
      "",
      "",
      `${formatNumber(sh.off.ratioP50, 2)} / ${formatNumber(sh.off.ratioP99, 2)} → ${formatNumber(sh.on.ratioP50, 2)} / ${formatNumber(sh.on.ratioP99, 2)}`,
      target(`tick-to-claim p50 daemon/floor with ${n} shadows`),
    ]);
    rows.push([
      `cascade event-loop delay p99 during (ms), 0 → ${n} shadows`,
      `${formatNumber(sh.off.cascadeEventLoopP99MsDuring, 1)} → ${formatNumber(sh.on.cascadeEventLoopP99MsDuring, 1)}`,
      "",
      "",
      target(`cascade event-loop delay p99 during with ${n} shadows (ms)`),
    ]);
    rows.push([
      "shadow CPU: µs per event per shadow / cascade ms per shadow",
      `${formatNumber(sh.cpuUsPerEventPerShadow, 1)} / ${formatNumber(sh.cascadeCpuMsPerShadow, 1)}`,
      "",
      "",
      "",
    ]);
  }
  const lab = r.lab;
  if (lab !== undefined) {
    rows.push(["capture tap, ns per event (dropped)", `${formatNumber(lab.tapNsPerEvent)} (${formatNumber(lab.tapDropped)})`, "", "", ""]);
    rows.push([
      `replay ${lab.captureHours} h (${formatNumber(lab.captureEvents)} events) x ${lab.variants} variants, 1 thread: s / events per s per variant / RSS MB`,
      `${formatNumber(lab.oneThread.replaySeconds, 1)} / ${formatNumber(lab.oneThread.eventsPerSecondPerVariant)} / ${formatNumber(lab.oneThread.rssMbMax)}`,
      "",
      "",
      "",
    ]);
    rows.push([
      `  the same on ${lab.jobs} threads (backtest's default --jobs)`,
      `${formatNumber(lab.replaySeconds, 1)} / ${formatNumber(lab.eventsPerSecondPerVariant)} / ${formatNumber(lab.rssMbMax)}`,
      "",
      "",
      `< 60 s: ${target("24 h capture x 12 variants (s)")}`,
    ]);
    const sw = lab.sweep;
    if (sw !== undefined) {
      rows.push([
        `sweep ${sw.captureHours} h (${formatNumber(sw.captureEvents)} events) x ${sw.variants} variants, ${sw.jobs} threads: wall s (CPU s) / RSS MB / --json MB`,
        `${formatNumber(sw.wallSeconds, 1)} (${formatNumber(sw.cpuSeconds, 1)}) / ${formatNumber(sw.rssMbMax)} / ${formatNumber(sw.jsonMb, 2)}`,
        "",
        "",
        `<= 30 s: ${target("week x 48 variants sweep (s)")}; <= 1000 MB: ${target("week x 48 variants sweep RSS (MB)")}`,
      ]);
      rows.push([
        "  the capture's first sweep (it also writes the prepared form): wall s (CPU s) / RSS MB",
        `${formatNumber(sw.firstRun.wallSeconds, 1)} (${formatNumber(sw.firstRun.cpuSeconds, 1)}) / ${formatNumber(sw.firstRun.rssMbMax)}`,
        "",
        "",
        "",
      ]);
    }
  }
  const rc = r.reconcile;
  if (rc !== undefined) {
    rows.push([
      `reconcile of ${formatNumber(rc.openIds)} open ids: longest block, median of ${rc.rounds} rounds / worst (ms)`,
      `${formatNumber(rc.unchangedBlockMsP50, 2)} / ${formatNumber(reconcileLongestMs(rc), 2)} (CPU ${formatNumber(rc.unchangedBlockCpuMsP50, 2)} / ${formatNumber(rc.unchangedBlockCpuMsMax, 2)})`,
      "",
      "",
      target("reconcile of 10,000 open ids, longest block, median of rounds (ms)"),
    ]);
  }
  if (markdown) {
    const line = (cells: string[]): string => `| ${cells.join(" | ")} |`;
    return [line(rows[0] as string[]), line(rows[0]!.map(() => "---")), ...rows.slice(1).map(line)].join("\n");
  }
  const widths = (rows[0] as string[]).map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] as number))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** A client's latencies as the results keep them: the summary, what it missed, the samples in µs. */
export function clientLatency(r: TickResult): ClientLatency {
  return {
    ...summarize(r.samplesMs),
    missed: r.missed,
    refusedByCode: r.refusedByCode,
    samplesUs: r.samplesMs.map((ms) => Math.round(ms * 1000)),
  };
}
