/**
 * `npm run bench`: the simulated venue, the daemon and a minimal reference client ("floor") as
 * separate processes on loopback, then in-process throughput. Phases (docs/performance.md):
 * 1. tick-to-claim: single-liquidation frames, each after the previous claim was answered,
 *    alternating between the daemon and the floor (each on its own simulated venue in the one venue
 *    process); claim limits raised on both sides so the limiter is not measured; then a few frames
 *    ~8 s apart (a claim after a quiet spell, when idle sockets have been closed);
 * 2. cascade: 10,000 liquidations in 10 pushes over one second, claim limit 5/s on both sides, after
 *    a warm-up of 5,000 short-lived liquidations;
 * 3. margin: a cascade worth three margin budgets against a 20,000 account (marginCascade.ts): fee
 *    captured ÷ the best that fits, -1101 refusals, push to the last claim that fits; `leverage`:
 *    issue #34's cascade (leverage per symbol, the account's own imr_factor, 2,000 of collateral);
 * 4. throughput: decide() and ed25519 signatures per second, in this process;
 * 5. reconcile: how long a REST reconcile of 10,000 open ids blocks the loop, in this process;
 * 6. lab: the capture tap's cost per event and backtest replay speed (labBench.ts);
 * 7. shadow (not in the default list): tick-to-claim and one cascade run with no shadow variants and
 *    with `--shadows` of them (shadowBench.ts), and the shadows' CPU time.
 * 8. forecast (not in the default list): tick-to-claim with the heatmap off and polling every 10 s,
 *    on lanes holding traders' positions (forecastBench.ts).
 * Writes bench/results/<date>.json and bench/results/latency.svg and prints a table. Every child is
 * killed when the bench ends or fails, and the whole run has a deadline.
 *
 * Longer than most files: the bench's phases in order, each a function; reports and statistics are apart.
 */

import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, release, tmpdir, totalmem, type } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { EVENT_LOOP_RESOLUTION_MS } from "../observe/metrics.js";
import { RATE_LIMITED_CODE } from "../venue/failureTable.js";
import { ProcessGroup, poll, startFloor, stopChild, VenueClient } from "./children.js";
import { type DaemonScrape, startDaemon } from "./daemonRunner.js";
import { BENCH_FORECAST_INTERVAL_S, measureForecast, platformPositionCount } from "./forecastBench.js";
import { measureLab } from "./labBench.js";
import { latencySvg } from "./latencySvg.js";
import { LEVERAGE_CASCADE, measureMarginCascade } from "./marginCascade.js";
import { measureReconcile } from "./reconcile.js";
import { type BenchResults, benchTable, type CascadeResult, clientLatency } from "./report.js";
import { measureShadows, type ShadowCost } from "./shadowBench.js";
import { paired, round1, round2, round4, summarize, valueRatio } from "./stats.js";
import { checkTargets } from "./targets.js";
import { measureThroughput } from "./throughput.js";
import type { CascadeReport, CascadeStarted, TickOptions, TickResult, VenueInfo, VenueStartOptions } from "./venueProtocol.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const DEADLINE_MS = 12 * 60_000;

const { values: args } = parseArgs({
  options: {
    frames: { type: "string", default: "2000" },
    warmup: { type: "string", default: "300" },
    cascade: { type: "string", default: "10000" },
    /** Consecutive cascade runs (a fresh venue and daemon each); the first is reported in full. */
    "cascade-runs": { type: "string", default: "10" },
    /** Frames per client ~8 s apart after the latency run (a claim after a quiet spell); 0 skips. */
    sparse: { type: "string", default: "8" },
    phases: { type: "string", default: "latency,cascade,margin,leverage,throughput,reconcile,lab" },
    /** Hours of synthetic market the lab phase replays (12 variants). */
    "lab-hours": { type: "string", default: "24" },
    /** Hours of synthetic market the lab phase's sweep replays with 48 variants (0 skips it). */
    "lab-sweep-hours": { type: "string", default: "168" },
    /** Shadow variants in the daemon for the `shadow` phase's second half. */
    shadows: { type: "string", default: "8" },
    /** Run the daemon with `state.capture` on (the tick-to-claim phases then include the capture's cost). */
    capture: { type: "boolean", default: false },
    out: { type: "string", default: join(root, "bench", "results") },
    profile: { type: "string" },
    "node-args": { type: "string" },
    /** The daemon's `venue.claim_rehearsal_ms` (default: its own default; 0 measures the claim path cold). */
    "rehearsal-ms": { type: "string" },
    /** The daemon executable to measure (another build, e.g. for a before/after comparison). */
    cli: { type: "string", default: join(root, "dist", "cli.js") },
  },
});
const CLI = resolve(args.cli);
const rehearsal = args["rehearsal-ms"] === undefined ? {} : { claimRehearsalMs: Number(args["rehearsal-ms"]) };
const phases = new Set(args.phases.split(","));
const group = new ProcessGroup();
const work = mkdtempSync(join(tmpdir(), "liquidator-bench-"));
const deadline = setTimeout(() => {
  process.stderr.write(`bench: over the ${DEADLINE_MS / 60_000} min deadline; stopping every child\n`);
  group.killAll();
  process.exit(2);
}, DEADLINE_MS);
/** Node flags for the daemon and the floor (e.g. --node-args="--import ./trace.mjs"); --profile adds a CPU profile of the daemon. */
const clientNodeArgs = args["node-args"]?.split(" ").filter((a) => a.length > 0) ?? [];
const daemonNodeArgs = [
  ...clientNodeArgs,
  ...(args.profile !== undefined ? ["--cpu-prof", `--cpu-prof-dir=${resolve(args.profile)}`] : []),
];

async function startVenue(options: VenueStartOptions): Promise<{ client: VenueClient; lanes: VenueInfo[] }> {
  const client = new VenueClient(group.fork(join(here, "venueProcess.js")));
  const lanes = await client.request<VenueInfo[]>({ cmd: "start", options });
  return { client, lanes };
}

async function stopVenue(v: VenueClient): Promise<void> {
  await v.request({ cmd: "stop" }).catch(() => undefined);
  await stopChild(v.child, 3_000);
}

/**
 * Daemon and floor run at the same time, each against its own simulated venue (a "lane") in the one
 * venue process; frames alternate between the lanes, one at a time, each after the previous claim
 * was answered and a pause.
 */
async function latencyPhase(
  frames: number,
  warmup: number,
  sparseFrames: number,
  shadows = 0,
  /** The forecast phase: traders on the lanes, the daemon's heatmap as given (forecastBench.ts). */
  heatmap?: { forecast: { enabled: boolean; intervalS: number } },
): Promise<{
  daemon: TickResult;
  floor: TickResult;
  tick: TickOptions;
  shadowCost: ShadowCost;
  forecastPolls: number;
  positions: number;
  sparse?: { daemon: TickResult; floor: TickResult; tick: TickOptions; daemonClaimConnections: DaemonScrape["claimConnections"] };
}> {
  const { client: venue, lanes } = await startVenue({
    ...(heatmap !== undefined ? { population: true } : {}),
    lanes: 2,
    seed: 11,
    claimsPerSecond: 10_000,
    collateral: 1e9,
    liquidationTtlMs: 60_000,
  });
  const tick: TickOptions = { warmup, count: frames, gapMs: 4, gapJitterMs: 4, claimTimeoutMs: 2_000, seed: 5 };
  const timeout = 2 * (warmup + frames) * (tick.gapMs + tick.gapJitterMs + 50) + 30_000;
  let floor: ChildProcess | undefined;
  try {
    const daemon = await startDaemon(
      group,
      {
        cli: CLI,
        venue: lanes[0]!,
        workDir: work,
        claimsPerSecond: 1_000,
        nodeArgs: daemonNodeArgs,
        capture: args.capture,
        shadows,
        ...rehearsal,
        ...(heatmap !== undefined ? { forecast: heatmap.forecast } : {}),
      },
      `latency-${shadows}${heatmap === undefined ? "" : `-heatmap-${heatmap.forecast.enabled}`}`,
    );
    floor = await startFloor(group, join(here, "floorClient.js"), clientNodeArgs, lanes[1]!);
    log(`latency: daemon (pid ${daemon.child.pid}) and floor (pid ${floor.pid}) ready; ${warmup} + ${frames} frames each, alternating`);
    const [d, f] = await venue.request<TickResult[]>({ cmd: "tick", options: tick }, timeout);
    let sparse:
      | { daemon: TickResult; floor: TickResult; tick: TickOptions; daemonClaimConnections: DaemonScrape["claimConnections"] }
      | undefined;
    if (sparseFrames > 0) {
      // Each client gets a frame every ~8 s: longer than the simulator's keep-alive of 5 s, so a
      // client that lets its claim connection go idle pays a new one for each claim.
      const before = (await daemon.scrape()).claimConnections;
      const st: TickOptions = { warmup: 1, count: sparseFrames, gapMs: 3_500, gapJitterMs: 1_000, claimTimeoutMs: 2_000, seed: 9 };
      log(`latency: ${sparseFrames} sparse frames each, ~8 s apart`);
      const [sd, sf] = await venue.request<TickResult[]>({ cmd: "tick", options: st }, 2 * (sparseFrames + 1) * 7_000 + 30_000);
      const after = (await daemon.scrape()).claimConnections;
      const daemonClaimConnections = { warm: after.warm - before.warm, fresh: after.fresh - before.fresh, pool: after.pool - before.pool };
      sparse = { daemon: sd!, floor: sf!, tick: st, daemonClaimConnections };
    }
    const { shadow: shadowCost, forecastPolls } = await daemon.scrape();
    const positions = heatmap === undefined ? 0 : await platformPositionCount(lanes[0]!.baseUrl);
    await daemon.stop();
    return { daemon: d!, floor: f!, tick, shadowCost, forecastPolls, positions, ...(sparse !== undefined ? { sparse } : {}) };
  } finally {
    if (floor !== undefined) await stopChild(floor, 2_000);
    await stopVenue(venue);
  }
}

async function cascadePhase(total: number, run = 0, shadows = 0): Promise<CascadeResult & { shadowCost?: ShadowCost }> {
  const claimsPerSecond = 5; // docs/protocol.md §4
  const { client: venue, lanes } = await startVenue({ lanes: 1, seed: 23, claimsPerSecond, collateral: 1e9, liquidationTtlMs: 120_000 });
  const info = lanes[0]!;
  try {
    // A state dir per run: each run is a new venue, whose journal a daemon must not share.
    const daemon = await startDaemon(
      group,
      { cli: CLI, venue: info, workDir: work, claimsPerSecond, nodeArgs: daemonNodeArgs, shadows, ...rehearsal },
      `cascade-${run}-${shadows}`,
    );
    await sleep(1_500); // first reconcile and rewards poll out of the way
    const opts = { total, pushes: 10, spanMs: 1_000, notional: [200, 50_000] as const, warmupLiquidations: 5_000, warmupLeadMs: 3_000 };
    // The venue pushes the warm-up liquidations, waits warmupLeadMs, then the cascade: the
    // measurement window opens shortly before the cascade's first push.
    const cascade = venue.request<CascadeStarted>({ cmd: "cascade", options: opts });
    await sleep(opts.warmupLeadMs - 500);
    const before = await daemon.scrape(); // also resets the event-loop histogram
    let rssMax = 0;
    const sampler = setInterval(() => (rssMax = Math.max(rssMax, daemon.rssBytes() || 0)), 50);
    const t0 = performance.now();
    const started = await cascade;
    log(
      `cascade: ${started.ids} liquidations pushed in ${opts.pushes} frames over ${Math.round(started.lastPushAt - started.firstPushAt)} ms`,
    );
    await poll("20 claims", async () => ((await venue.request<number>({ cmd: "claimCount" })) >= 20 ? true : undefined), 30_000, 100);
    const during = await daemon.scrape();
    const duringWindowMs = performance.now() - t0;
    clearInterval(sampler);
    await sleep(3_000);
    await daemon.scrape(); // reset: the after window starts here
    const t1 = performance.now();
    await sleep(5_000);
    const after = await daemon.scrape();
    const afterWindowMs = performance.now() - t1;
    const rssAfter = daemon.rssBytes() || after.rssBytes;
    const report = await venue.request<CascadeReport>({ cmd: "cascadeReport" });
    await daemon.stop();
    const v = valueRatio({ fees: report.fees, claims: report.claims, first: 20 });
    const value = {
      ...v,
      ratio: round4(v.ratio),
      ratioOnline: round4(v.ratioOnline),
      captured: round2(v.captured),
      best: round2(v.best),
      bestOnline: round2(v.bestOnline),
    };
    const refusedByCode: Record<string, number> = {};
    for (const c of report.claims) if (c.code !== 0) refusedByCode[String(c.code)] = (refusedByCode[String(c.code)] ?? 0) + 1;
    const mb = (b: number): number => Math.round((b / 1024 / 1024) * 10) / 10;
    return {
      ...value,
      liquidations: started.ids,
      pushes: opts.pushes,
      spanMs: opts.spanMs,
      claimsPerSecond,
      claimsCounted: 20,
      rateLimited: refusedByCode[String(RATE_LIMITED_CODE)] ?? 0,
      claimsReceived: report.claims.length,
      venueConnections: report.connections,
      // Every claim, in arrival order: ms after the first push (venue clock) and the venue's code.
      claims: report.claims.map((c) => [round1(c.receivedAt - started.firstPushAt), c.code] as [number, number]),
      refusedByCode,
      // monitorEventLoopDelay records the time between its timer ticks, resolution included: an
      // idle loop reads ~10.2 ms at a 10 ms resolution (nodejs/node#34661). Delay = reading − resolution.
      eventLoopP99MsDuring: delayMs(during.eventLoopP99Seconds),
      eventLoopP99MsAfter: delayMs(after.eventLoopP99Seconds),
      eventLoopRawP99MsDuring: round1(during.eventLoopP99Seconds * 1000),
      eventLoopRawP99MsAfter: round1(after.eventLoopP99Seconds * 1000),
      eventLoopResolutionMs: EVENT_LOOP_RESOLUTION_MS,
      rssMbBefore: mb(before.rssBytes),
      rssMbDuringMax: mb(Math.max(rssMax, during.rssBytes)),
      rssMbAfter: mb(rssAfter),
      duringWindowMs: Math.round(duringWindowMs),
      afterWindowMs: Math.round(afterWindowMs),
      ...(shadows > 0 ? { shadowCost: after.shadow } : {}),
    };
  } finally {
    await stopVenue(venue);
  }
}

function log(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

async function main(): Promise<void> {
  const frames = Number(args.frames);
  const warmup = Number(args.warmup);
  const total = Number(args.cascade);
  const sparseFrames = Number(args.sparse);
  if (![frames, warmup, total, sparseFrames].every((n) => Number.isInteger(n) && n >= 0))
    throw new Error("--frames, --warmup, --cascade and --sparse take non-negative integers");
  const cpu = cpus();
  const partial: Omit<BenchResults, "targets"> = {
    date: new Date().toISOString(),
    command: "npm run bench",
    machine: {
      cpu: cpu[0]?.model ?? "unknown",
      cores: cpu.length,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      os: `${type()} ${release()}`,
    },
    settings: {
      frames,
      warmup,
      cascadeLiquidations: total,
      phases: [...phases],
      daemon: relative(process.cwd(), CLI),
      daemonNodeArgs,
      claimRehearsalMs: args["rehearsal-ms"] ?? "default",
    },
  };
  let svg: string | undefined;
  if (phases.has("latency")) {
    const r = await latencyPhase(frames, warmup, sparseFrames);
    const daemon = clientLatency(r.daemon);
    const floor = clientLatency(r.floor);
    partial.tickToClaim = {
      daemon,
      floor,
      ratioP50: round2(daemon.p50Us / floor.p50Us),
      ratioP99: round2(daemon.p99Us / floor.p99Us),
      paired: paired(r.daemon.samplesMs, r.floor.samplesMs),
    };
    if (r.sparse !== undefined) {
      partial.tickToClaim.sparse = {
        daemon: clientLatency(r.sparse.daemon),
        floor: clientLatency(r.sparse.floor),
        paired: paired(r.sparse.daemon.samplesMs, r.sparse.floor.samplesMs),
        daemonClaimConnections: r.sparse.daemonClaimConnections,
        connectionsOpened: { daemon: r.sparse.daemon.connectionsOpened, floor: r.sparse.floor.connectionsOpened },
      };
      partial.settings.sparseTick = r.sparse.tick;
    }
    partial.settings.tick = { ...r.tick, interleaved: true, venueClaimsPerSecond: 10_000, daemonClaimsPerSecond: 1_000 };
    svg = latencySvg(
      [
        { label: "daemon", color: "#c0392b", samplesMs: r.daemon.samplesMs },
        { label: "floor", color: "#2c6fbb", samplesMs: r.floor.samplesMs },
      ],
      `Tick-to-claim on loopback, ${frames} frames each (${cpu.length} cores)`,
    );
  }
  if (phases.has("cascade")) {
    const runs = Number(args["cascade-runs"]);
    if (!(Number.isInteger(runs) && runs >= 1)) throw new Error("--cascade-runs takes a positive integer");
    const results: CascadeResult[] = [];
    for (let i = 0; i < runs; i++) {
      results.push(await cascadePhase(total, i));
      log(`cascade run ${i + 1}/${runs}: event-loop delay p99 ${results[i]?.eventLoopP99MsDuring} ms during`);
    }
    partial.cascade = {
      ...(results[0] as CascadeResult),
      runs: results.map((r) => ({ eventLoopP99MsDuring: r.eventLoopP99MsDuring, ratio: r.ratio, rateLimited: r.rateLimited })),
    };
  }
  if (phases.has("margin")) partial.marginCascade = await measureMarginCascade(group, CLI, work);
  if (phases.has("leverage")) partial.leverageCascade = await measureMarginCascade(group, CLI, work, LEVERAGE_CASCADE, "leverage");
  if (phases.has("throughput")) partial.throughput = measureThroughput();
  if (phases.has("lab")) partial.lab = await measureLab(work, Number(args["lab-hours"]), Number(args["lab-sweep-hours"]));
  if (phases.has("reconcile")) partial.reconcile = await measureReconcile();
  if (phases.has("forecast")) {
    partial.forecast = await measureForecast((on) =>
      latencyPhase(frames, warmup, sparseFrames, 0, { forecast: { enabled: on, intervalS: BENCH_FORECAST_INTERVAL_S } }),
    );
    log(`forecast: ${JSON.stringify(partial.forecast)}`);
  }
  if (phases.has("shadow")) {
    const none = { cpuSeconds: 0, events: 0 };
    partial.shadow = await measureShadows(
      {
        latency: async (n) => {
          const r = await latencyPhase(frames, warmup, 0, n);
          const d = summarize(r.daemon.samplesMs);
          const f = summarize(r.floor.samplesMs);
          return { ratioP50: round2(d.p50Us / f.p50Us), ratioP99: round2(d.p99Us / f.p99Us), cost: r.shadowCost };
        },
        cascade: async (n) => {
          const r = await cascadePhase(total, 0, n);
          return { eventLoopP99MsDuring: r.eventLoopP99MsDuring, ratio: r.ratio, cost: r.shadowCost ?? none };
        },
      },
      Number(args.shadows),
    );
    log(`shadow: ${JSON.stringify(partial.shadow)}`);
  }
  const results: BenchResults = { ...partial, targets: checkTargets(partial) };

  mkdirSync(args.out, { recursive: true });
  const file = join(args.out, `${results.date.slice(0, 10)}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  if (svg !== undefined) writeFileSync(join(args.out, "latency.svg"), svg);
  process.stdout.write(`\n${benchTable(results)}\n\nresults: ${file}${svg !== undefined ? `, ${join(args.out, "latency.svg")}` : ""}\n`);
}

function delayMs(p99Seconds: number): number {
  return round1(Math.max(0, p99Seconds * 1000 - EVENT_LOOP_RESOLUTION_MS));
}

try {
  await main();
} catch (err) {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
} finally {
  clearTimeout(deadline);
  group.killAll();
  rmSync(work, { recursive: true, force: true });
}
