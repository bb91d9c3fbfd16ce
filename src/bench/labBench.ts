/**
 * The policy lab's bench phase (`npm run bench -- --phases lab`): what the capture tap costs the
 * daemon per event (mean ns of `record` with the real gzip writer behind it), and replay speed:
 * a synthetic capture of `hours` replayed with 12 variants, streamed, with peak RSS.
 */
import { join } from "node:path";
import type { CaptureEvent } from "../daemon/captureTap.js";
import { backtest } from "../lab/backtest.js";
import { CaptureFiles } from "../lab/captureFiles.js";
import { CaptureQueue } from "../lab/captureQueue.js";
import { buildVariants } from "../lab/variants.js";
import { writeLabMarket } from "./labMarket.js";

export interface LabResult {
  tapNsPerEvent: number;
  tapDropped: number;
  captureHours: number;
  captureEvents: number;
  variants: number;
  replaySeconds: number;
  /** Recorded events × variants per second of replay. */
  eventsPerSecondPerVariant: number;
  rssMbMax: number;
}

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

export async function measureLab(dir: string, hours: number): Promise<LabResult> {
  const tap = await tapCost(dir);
  const file = join(dir, "market.jsonl.gz");
  const captureEvents = await writeLabMarket(file, hours);
  const variants = await buildVariants([], ["policy.min_fee=0,1,5,20", "policy.max_total_exposure=50000,200000,1000000"]);
  let rss = 0;
  const sampler = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage().rss);
  }, 100);
  const t = performance.now();
  const report = await backtest({ files: [file], variants, defaultLatencyMs: 50, slippageBps: 5, takerFeeBps: 5 });
  const seconds = (performance.now() - t) / 1000;
  clearInterval(sampler);
  rss = Math.max(rss, process.memoryUsage().rss);
  return {
    tapNsPerEvent: Math.round(tap.ns),
    tapDropped: tap.dropped,
    captureHours: hours,
    captureEvents: report.events,
    variants: variants.length,
    replaySeconds: Math.round(seconds * 100) / 100,
    eventsPerSecondPerVariant: Math.round((captureEvents * variants.length) / seconds),
    rssMbMax: Math.round(rss / 1e6),
  };
}
