/**
 * Where a replay's time goes (README "Policy lab"): `node dist/bench/replayCost.js [--hours 24]
 * [--set KEY=V1,V2]…` writes the bench's synthetic market (labMarket.ts) to a temporary file, times
 * reading it (both passes of `backtest`), then replays the variants on events already in memory, so
 * the per-variant figure has no reading in it. Default variants: the lab phase's 12.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { CaptureEvent } from "../daemon/captureTap.js";
import { readCaptureBatches } from "../lab/captureReader.js";
import { ReplayMarket } from "../lab/replayMarket.js";
import { buildVariants } from "../lab/variants.js";
import { writeLabMarket } from "./labMarket.js";

const { values } = parseArgs({
  options: {
    hours: { type: "string", default: "24" },
    set: { type: "string", multiple: true },
    rounds: { type: "string", default: "2" },
  },
});
const sets = values.set ?? ["policy.min_fee=0,1,5,20", "policy.max_total_exposure=50000,200000,1000000"];
const dir = await mkdtemp(join(tmpdir(), "replay-cost-"));
try {
  const file = join(dir, "market.jsonl.gz");
  await writeLabMarket(file, Number(values.hours));
  const seconds = (t: number) => ((performance.now() - t) / 1000).toFixed(2);
  let t = performance.now();
  for await (const _ of readCaptureBatches(file, { only: "claim" })) {
  }
  console.log(`first pass (claim answers only): ${seconds(t)} s`);
  t = performance.now();
  let read = 0;
  for await (const batch of readCaptureBatches(file)) read += batch.length;
  console.log(`second pass (every event, as the replay reads it): ${read} events in ${seconds(t)} s`);
  // Held in memory for the replays below (the tool's own shortcut; backtest streams).
  const events: CaptureEvent[] = [];
  for await (const batch of readCaptureBatches(file)) for (const ev of batch) events.push(ev);
  const variants = await buildVariants([], sets);
  const model = { latencyMs: 50, ownTakes: new Map<number, number>(), slippageBps: 5, takerFeeBps: 5 };
  for (let round = 1; round <= Number(values.rounds); round++) {
    t = performance.now();
    const market = new ReplayMarket(variants, model);
    for (const ev of events) market.step(ev);
    const claimed = market.results().reduce((n, v) => n + v.claimed, 0);
    const s = (performance.now() - t) / 1000;
    console.log(
      `round ${round}: ${variants.length} variants in ${s.toFixed(2)} s, ${(s / variants.length).toFixed(3)} s per variant, ` +
        `${Math.round((events.length * variants.length) / s)} events/s per variant, ${Math.round(claimed / variants.length)} claims per variant`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
