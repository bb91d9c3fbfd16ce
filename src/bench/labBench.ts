/**
 * The policy lab's bench phase (`npm run bench -- --phases lab`): what the capture tap costs the
 * daemon per event (mean ns of `record` with the real gzip writer behind it), and replay speed:
 * a synthetic capture of `hours` replayed with 12 variants, streamed, with peak RSS; and what a
 * user waits on, a sweep: `sweepHours` of the same market (a week) × 48 variants on every core, its
 * wall and CPU time, peak RSS and the size of its `--json` (without id lists, as `backtest` prints it
 * unless `--ids`), twice: the capture's first sweep (which prepares it) and the next.
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { CaptureEvent } from "../daemon/records/captureTap.js";
import { CaptureFiles } from "../lab/capture/captureFiles.js";
import { CaptureQueue } from "../lab/capture/captureQueue.js";
import { backtestInJobs } from "../lab/replay/backtestJobs.js";
import { backtestJson } from "../lab/report/backtestJson.js";
import { buildVariants, type Variant } from "../lab/sweep/variants.js";
import { writeLabMarket } from "./labMarket.js";

export interface LabResult {
  tapNsPerEvent: number;
  tapDropped: number;
  captureHours: number;
  captureEvents: number;
  variants: number;
  /** Threads of the replay measured (`backtest --jobs`, default the machine's cores). */
  jobs: number;
  replaySeconds: number;
  /** Recorded events × variants per second of replay. */
  eventsPerSecondPerVariant: number;
  rssMbMax: number;
  /** The same replay on one thread (`--jobs 1`). */
  oneThread: { replaySeconds: number; eventsPerSecondPerVariant: number; rssMbMax: number };
  sweep?: SweepResult;
}

export interface SweepResult {
  captureHours: number;
  captureEvents: number;
  variants: number;
  jobs: number;
  /**
   * The capture's first sweep, which also writes its prepared form beside it (docs/policy-lab.md);
   * the fields below are the next sweep of the same capture, which reads that form.
   */
  firstRun: { wallSeconds: number; cpuSeconds: number; rssMbMax: number };
  wallSeconds: number;
  /** CPU of the whole process (every thread): on a loaded host, wall time says more about the host. */
  cpuSeconds: number;
  rssMbMax: number;
  jsonMb: number;
}

/** The sweep of issue #27: min_fee × max_total_exposure × limit_price_slippage_bps, 48 variants. */
export const SWEEP_SETS = [
  "policy.min_fee=0,1,5,20",
  "policy.max_total_exposure=50000,200000,1000000,5000000",
  "policy.limit_price_slippage_bps=20,50,100",
];

async function tapCost(dir: string): Promise<{ ns: number; dropped: number }> {
  const files = new CaptureFiles({ target: { mode: "single", path: join(dir, "tap.jsonl.gz") }, writer: "bench", venue: "x" });
  const queue = new CaptureQueue(files, { batchMs: 0 });
  const data = [
    { symbol: "PERP_BTC_USDC", price: 60_000 },
    { symbol: "PERP_ETH_USDC", price: 3_000 },
  ];
  let total = 0;
  let calls = 0;
  for (let batch = 0; batch < 200; batch++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < 1_000; i++) queue.record({ k: "markprices", at: Date.now(), data } as CaptureEvent);
    total += Number(process.hrtime.bigint() - t);
    calls += 1_000;
    await new Promise((r) => setImmediate(r)); // the batch is written here, as in the daemon
  }
  await queue.close();
  return { ns: total / calls, dropped: queue.dropped };
}

export async function measureLab(dir: string, hours: number, sweepHours = 0): Promise<LabResult> {
  const tap = await tapCost(dir);
  const file = join(dir, "market.jsonl.gz");
  await writeLabMarket(file, hours);
  const variants = await buildVariants([], ["policy.min_fee=0,1,5,20", "policy.max_total_exposure=50000,200000,1000000"]);
  const jobs = availableParallelism();
  const one = await timedReplay(file, variants, 1);
  const all = await timedReplay(file, variants, jobs);
  return {
    tapNsPerEvent: Math.round(tap.ns),
    tapDropped: tap.dropped,
    captureHours: hours,
    captureEvents: all.events,
    variants: variants.length,
    jobs,
    replaySeconds: all.replaySeconds,
    eventsPerSecondPerVariant: all.eventsPerSecondPerVariant,
    rssMbMax: all.rssMbMax,
    oneThread: { replaySeconds: one.replaySeconds, eventsPerSecondPerVariant: one.eventsPerSecondPerVariant, rssMbMax: one.rssMbMax },
    ...(sweepHours > 0 ? { sweep: await measureSweep(dir, sweepHours, jobs) } : {}),
  };
}

async function measureSweep(dir: string, hours: number, jobs: number): Promise<SweepResult> {
  const file = join(dir, "sweep.jsonl.gz");
  await writeLabMarket(file, hours);
  const variants = await buildVariants([], SWEEP_SETS);
  const first = await timedSweep(file, variants, jobs);
  const r = await timedSweep(file, variants, jobs);
  return {
    captureHours: hours,
    captureEvents: r.events,
    variants: variants.length,
    jobs,
    firstRun: { wallSeconds: first.replaySeconds, cpuSeconds: first.cpuSeconds, rssMbMax: first.rssMbMax },
    wallSeconds: r.replaySeconds,
    cpuSeconds: r.cpuSeconds,
    rssMbMax: r.rssMbMax,
    jsonMb: Math.round(r.jsonBytes / 1e4) / 100,
  };
}

async function timedSweep(file: string, variants: readonly Variant[], jobs: number) {
  const cpu = process.cpuUsage();
  const r = await timedReplay(file, variants, jobs);
  const used = process.cpuUsage(cpu);
  return { ...r, cpuSeconds: Math.round((used.user + used.system) / 1e4) / 100 };
}

async function timedReplay(file: string, variants: readonly Variant[], jobs: number) {
  let rss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage().rss);
  }, 100);
  const t = performance.now();
  const report = await backtestInJobs({ files: [file], variants, defaultLatencyMs: 50, slippageBps: 5, takerFeeBps: 5 }, jobs);
  const seconds = (performance.now() - t) / 1000;
  clearInterval(sampler);
  rss = Math.max(rss, process.memoryUsage().rss);
  const jsonBytes = Buffer.byteLength(backtestJson(report));
  return {
    jsonBytes,
    events: report.events,
    replaySeconds: Math.round(seconds * 100) / 100,
    eventsPerSecondPerVariant: Math.round((report.events * variants.length) / seconds),
    rssMbMax: Math.round(rss / 1e6),
  };
}
