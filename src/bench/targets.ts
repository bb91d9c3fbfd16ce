/**
 * The bench's targets (docs/performance.md): each measured figure against what it should be; a run
 * writes them with its results, and `npm run bench` prints the ones missed.
 */
import type { BenchResults, Target } from "./report.js";
import { formatNumber } from "./stats.js";

export function checkTargets(r: Omit<BenchResults, "targets">): Target[] {
  const t: Target[] = [];
  const add = (name: string, value: number | undefined, target: string, ok: (v: number) => boolean): void => {
    if (value === undefined) return;
    t.push({ name, value, target, met: Number.isFinite(value) && ok(value) });
  };
  add("tick-to-claim p50 daemon/floor", r.tickToClaim?.ratioP50, "<= 1.1", (v) => v <= 1.1);
  add("tick-to-claim p99 daemon/floor", r.tickToClaim?.ratioP99, "<= 1.5", (v) => v <= 1.5);
  add("frames won by the daemon", r.tickToClaim?.paired?.daemonWinShare, ">= 0.45", (v) => v >= 0.45);
  add("after a quiet spell, paired median daemon/floor", r.tickToClaim?.sparse?.paired?.medianRatio, "<= 1.0", (v) => v <= 1.0);
  const sc = r.tickToClaim?.sparse?.daemonClaimConnections;
  add("after a quiet spell, claims on a new connection", sc === undefined ? undefined : sc.fresh + sc.pool, "= 0", (v) => v === 0);
  const sh = r.shadow;
  if (sh !== undefined) {
    add(
      `tick-to-claim p50 daemon/floor with ${sh.on.shadows} shadows`,
      sh.on.ratioP50,
      `<= ${formatNumber(sh.off.ratioP50 * 1.1, 2)} (1.1 × none)`,
      (v) => v <= sh.off.ratioP50 * 1.1,
    );
    add(`cascade event-loop delay p99 during with ${sh.on.shadows} shadows (ms)`, sh.on.cascadeEventLoopP99MsDuring, "< 10", (v) => v < 10);
  }
  const fc = r.forecast;
  if (fc !== undefined) {
    // "No slower": the paired median within what two runs of the same daemon differ by (0.05).
    add(
      `tick-to-claim paired median daemon/floor with the heatmap polling every ${fc.intervalS} s`,
      fc.on.paired.medianRatio,
      `<= ${formatNumber(fc.off.paired.medianRatio + 0.05, 2)} (off + 0.05)`,
      (v) => v <= fc.off.paired.medianRatio + 0.05,
    );
  }
  add("cascade value ratio (first 20 / best 20)", r.cascade?.ratio, ">= 0.98", (v) => v >= 0.98);
  add("cascade 429s", r.cascade?.rateLimited, "= 0", (v) => v === 0);
  add("cascade event-loop delay p99 during (ms)", r.cascade?.eventLoopP99MsDuring, "< 10", (v) => v < 10);
  const runs = r.cascade?.runs;
  add(
    `cascade event-loop delay p99 during, worst of ${runs?.length ?? 0} runs (ms)`,
    runs === undefined || runs.length < 2 ? undefined : Math.max(...runs.map((x) => x.eventLoopP99MsDuring)),
    "< 10",
    (v) => v < 10,
  );
  add("cascade event-loop delay p99 after (ms)", r.cascade?.eventLoopP99MsAfter, "< 10", (v) => v < 10);
  add("cascade RSS during, max (MB)", r.cascade?.rssMbDuringMax, "< 150", (v) => v < 150);
  add("cascade RSS after (MB)", r.cascade?.rssMbAfter, "< 150", (v) => v < 150);
  add("margin cascade fee / best that fits", r.marginCascade?.ratio, ">= 0.95", (v) => v >= 0.95);
  add("margin cascade refusals for insufficient margin", r.marginCascade?.marginRefusals, "= 0", (v) => v === 0);
  add("leverage cascade fee / best that fits", r.leverageCascade?.ratio, ">= 0.85", (v) => v >= 0.85);
  add("leverage cascade refusals for insufficient margin", r.leverageCascade?.marginRefusals, "= 0", (v) => v === 0);
  add("leverage cascade margin usage", r.leverageCascade?.usage, "<= 0.9", (v) => v <= 0.9);
  add("policy decisions per second", r.throughput?.decisionsPerSecond, ">= 1000000", (v) => v >= 1_000_000);
  const sweep = r.lab?.sweep !== undefined && r.lab.sweep.captureHours >= 168 && r.lab.sweep.variants >= 48 ? r.lab.sweep : undefined;
  add("week x 48 variants sweep (s)", sweep?.wallSeconds, "<= 30", (v) => v <= 30);
  add("week x 48 variants sweep RSS (MB)", sweep?.rssMbMax, "<= 1000", (v) => v <= 1000);
  add(
    "24 h capture x 12 variants (s)",
    r.lab !== undefined && r.lab.captureHours >= 24 && r.lab.variants >= 12 ? r.lab.replaySeconds : undefined,
    "< 60",
    (v) => v < 60,
  );
  add("reconcile of 10,000 open ids, longest block, median of rounds (ms)", r.reconcile?.unchangedBlockMsP50, "< 5", (v) => v < 5);
  return t;
}
