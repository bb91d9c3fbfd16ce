/**
 * The sweep grouped against every variant replayed in full, in one process so the ratios hold on a
 * shared host: `node dist/bench/sweepGroups.js [HOURS] [MODE…]`, MODE one of grouped1, grouped2,
 * plain1, plain2 (grouping on or off, threads). A `writeLabMarket` capture of HOURS (12) × the bench's
 * 48 variants; prints one JSON line per mode: wall and CPU seconds (the process's, worker threads
 * included), RSS after the run, distinct effects, the `--json`'s size (no id lists, as `backtest`
 * prints it unless `--ids`) and the start of its SHA-256, which must be the same in every mode.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backtestInJobs } from "../lab/replay/backtestJobs.js";
import { backtestJson } from "../lab/report/backtestJson.js";
import { buildVariants } from "../lab/sweep/variants.js";
import { SWEEP_SETS } from "./labBench.js";
import { writeLabMarket } from "./labMarket.js";

const hours = Number(process.argv[2] ?? 12);
const modes = process.argv.length > 3 ? process.argv.slice(3) : ["grouped1", "grouped2", "plain1", "plain2"];
const file = join(tmpdir(), `liquidator-sweep-${hours}h.jsonl.gz`);
if (!existsSync(file)) await writeLabMarket(file, hours);
const variants = await buildVariants([], SWEEP_SETS);
for (const mode of modes) {
  const m = /^(grouped|plain)(\d+)$/.exec(mode);
  if (m === null) throw new Error(`unknown mode ${mode}: grouped1, grouped2, plain1, plain2, …`);
  const t = performance.now();
  const cpu = process.cpuUsage();
  const report = await backtestInJobs(
    { files: [file], variants, defaultLatencyMs: 50, slippageBps: 5, takerFeeBps: 5, group: m[1] === "grouped" },
    Number(m[2]),
  );
  const wall = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  const json = backtestJson(report);
  console.log(
    JSON.stringify({
      hours,
      mode,
      events: report.events,
      wallSeconds: Math.round(wall * 100) / 100,
      cpuSeconds: Math.round((used.user + used.system) / 1e4) / 100,
      rssMb: Math.round(process.memoryUsage().rss / 1e6),
      distinct: report.variants.filter((v) => v.same_as === null).length,
      jsonMb: Math.round(Buffer.byteLength(json) / 1e4) / 100,
      sha256: createHash("sha256").update(json).digest("hex").slice(0, 16),
    }),
  );
}
