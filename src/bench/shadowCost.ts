/**
 * What shadow variants cost outside the daemon (docs/performance.md "Shadow variants"):
 * `node dist/bench/shadowCost.js [--hours 2] [--shadows 8] [--per-turn]` writes the bench's synthetic
 * market (labMarket.ts) to a temporary file, reads it into memory, and records its events into a
 * ShadowFeed of the shadow phase's variants (shadowBench.ts), compiled, so the replay runs in its
 * worker thread. All events in one batch, or with `--per-turn` one event per turn of the event loop
 * (a post each, as a quiet live feed sends them). Prints the worker's CPU time (per event per shadow),
 * this thread's CPU time spent recording and posting, and the wall time until all is replayed.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { CaptureEvent } from "../daemon/records/captureTap.js";
import { readCapture } from "../lab/capture/captureReader.js";
import { ShadowFeed } from "../lab/shadow/shadowFeed.js";
import { buildVariants, type Variant } from "../lab/sweep/variants.js";
import { writeLabMarket } from "./labMarket.js";
import { SHADOW_SETS } from "./shadowBench.js";

const { values } = parseArgs({
  options: {
    hours: { type: "string", default: "2" },
    shadows: { type: "string", default: "8" },
    "per-turn": { type: "boolean", default: false },
  },
});

/** This thread's CPU time (Linux), ms. */
function threadCpuMs(): number {
  const stat = readFileSync("/proc/thread-self/stat", "latin1");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

const dir = await mkdtemp(join(tmpdir(), "shadow-cost-"));
try {
  const file = join(dir, "market.jsonl.gz");
  await writeLabMarket(file, Number(values.hours));
  const events: CaptureEvent[] = [];
  for await (const ev of readCapture(file)) events.push(ev);
  // The shadow phase's variants (shadowBench.ts): s0, s1, … cycling through its settings.
  const variants: Variant[] = [];
  for (let i = 0; i < Number(values.shadows); i++) {
    const set = SHADOW_SETS[i % SHADOW_SETS.length] as Record<string, unknown>;
    const [v] = await buildVariants(
      [],
      Object.entries(set).map(([k, x]) => `${k}=${String(x)}`),
    );
    if (v !== undefined) variants.push({ ...v, name: `s${i}` });
  }
  const perTurn = values["per-turn"] === true;
  const feed = new ShadowFeed({
    model: { latencyMs: 50, slippageBps: 5, takerFeeBps: 5 },
    ...(perTurn ? {} : { schedule: () => undefined }),
  });
  feed.setVariants(variants);
  const cpu0 = threadCpuMs();
  const t0 = performance.now();
  for (const ev of events) {
    feed.record(ev);
    if (perTurn) await new Promise((r) => setImmediate(r));
  }
  const mainCpuMs = threadCpuMs() - cpu0;
  await feed.flush();
  const wallMs = performance.now() - t0;
  const cost = feed.cost();
  const r2 = (x: number): number => Math.round(x * 100) / 100;
  process.stdout.write(
    `${JSON.stringify({
      thread: feed.thread,
      perTurn,
      shadows: variants.length,
      events: events.length,
      replayed: cost.events,
      workerCpuSeconds: r2(cost.cpuSeconds),
      workerUsPerEventPerShadow: r2((cost.cpuSeconds * 1e6) / cost.events / variants.length),
      callerCpuMs: mainCpuMs,
      wallMs: Math.round(wallMs),
      claims: feed.scores().map((s) => s.claims),
    })}\n`,
  );
  await feed.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
