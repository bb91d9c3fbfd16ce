/**
 * Where a replay's time goes (docs/policy-lab.md): `node dist/bench/replayCost.js [--hours 24]
 * [--set KEY=V1,V2]… [--rounds N] [--against OTHER/dist]` writes the bench's synthetic market
 * (labMarket.ts) to a temporary file, times reading it (both passes of `backtest`, and the floor of
 * any reader: gunzip and JSON.parse alone), then replays the variants on events already in memory,
 * so the per-variant figure has no reading in it. Default variants: the lab phase's 12.
 * `--against` replays another build's code (a worktree of an older commit, built) in the same
 * process, alternating rounds: on a host whose speed wanders between runs, the per-round ratio of
 * the two is what a change can be judged by.
 */
import { constants } from "node:buffer";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import type { CaptureEvent } from "../daemon/records/captureTap.js";
import { readCaptureBatches } from "../lab/capture/captureReader.js";
import { DEFAULT_LAB_COLLATERAL } from "../lab/replay/labMargin.js";
import { ReplayMarket } from "../lab/replay/replayMarket.js";
import { buildVariants, type Variant } from "../lab/sweep/variants.js";
import { writeLabMarket } from "./labMarket.js";

const { values } = parseArgs({
  options: {
    hours: { type: "string", default: "24" },
    set: { type: "string", multiple: true },
    rounds: { type: "string", default: "2" },
    /** Another build's `dist` directory: its replay alternates with this one's, round by round. */
    against: { type: "string" },
  },
});
const sets = values.set ?? ["policy.min_fee=0,1,5,20", "policy.max_total_exposure=50000,200000,1000000"];
const dir = await mkdtemp(join(tmpdir(), "replay-cost-"));
try {
  const file = join(dir, "market.jsonl.gz");
  await writeLabMarket(file, Number(values.hours));
  const seconds = (t: number) => ((performance.now() - t) / 1000).toFixed(2);
  let t = performance.now();
  for await (const _ of readCaptureBatches(file, { only: ["claim", "assigned", "fill"] })) {
  }
  console.log(`first pass (own answers, assignments and trades only): ${seconds(t)} s`);
  t = performance.now();
  let read = 0;
  for await (const batch of readCaptureBatches(file)) read += batch.length;
  console.log(`second pass (every event, as the replay reads it): ${read} events in ${seconds(t)} s`);
  // What any reader of this format pays at least: the file gunzipped whole and every line parsed,
  // with no streaming, no checks and no events built.
  t = performance.now();
  const whole = gunzipSync(await readFile(file));
  if (whole.length > constants.MAX_STRING_LENGTH) {
    console.log("floor: not measured (the capture is longer than one string can be)");
  } else {
    const text = whole.toString("utf8");
    let lines = 0;
    for (let i = 0, j = text.indexOf("\n"); j >= 0; i = j + 1, j = text.indexOf("\n", i)) {
      if (JSON.parse(text.slice(i, j)) !== null) lines++;
    }
    console.log(`floor (gunzip whole, JSON.parse of each of ${lines} lines, nothing else): ${seconds(t)} s`);
  }
  // Held in memory for the replays below (the tool's own shortcut; backtest streams).
  const events: CaptureEvent[] = [];
  for await (const batch of readCaptureBatches(file)) for (const ev of batch) events.push(ev);
  const model = {
    latencyMs: 50,
    ownTakes: new Map<number, number>(),
    slippageBps: 5,
    takerFeeBps: 5,
    altSlippageBps: [2.5, 10],
    keepIds: false,
    collateral: DEFAULT_LAB_COLLATERAL,
  };
  const builds: Build[] = [{ name: "this build", Market: ReplayMarket, variants: await buildVariants([], sets) }];
  if (values.against !== undefined) builds.push(await otherBuild(values.against, sets));
  const times: number[][] = builds.map(() => []);
  for (let round = 1; round <= Number(values.rounds); round++) {
    // Each build goes first every other round: a host that speeds up or slows down favours neither.
    const order = round % 2 === 1 ? builds.keys() : [...builds.keys()].reverse();
    for (const b of order) {
      const { name, Market, variants } = builds[b] as Build;
      t = performance.now();
      const market = new Market(variants, model);
      for (const ev of events) market.step(ev);
      const claimed = market.results().reduce((n, v) => n + v.claimed, 0);
      const s = (performance.now() - t) / 1000;
      times[b]?.push(s / variants.length);
      console.log(
        `round ${round}${builds.length > 1 ? ` (${name})` : ""}: ${variants.length} variants in ${s.toFixed(2)} s, ` +
          `${(s / variants.length).toFixed(3)} s per variant, ${Math.round((events.length * variants.length) / s)} events/s per variant, ` +
          `${Math.round(claimed / variants.length)} claims per variant`,
      );
    }
  }
  if (builds.length > 1) {
    const ratios = (times[0] as number[]).map((x, i) => x / ((times[1] as number[])[i] as number)).sort((a, b) => a - b);
    const mid = ratios.length / 2;
    const median = Number.isInteger(mid)
      ? ((ratios[mid - 1] as number) + (ratios[mid] as number)) / 2
      : (ratios[Math.floor(mid)] as number);
    console.log(`this build / ${values.against}, per round: ${ratios.map((r) => r.toFixed(3)).join(" ")}; median ${median.toFixed(3)}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

interface Build {
  name: string;
  Market: typeof ReplayMarket;
  variants: Variant[];
}

/** The replay of another build (its own variants too: its config schema may differ). */
async function otherBuild(distDir: string, sets: string[]): Promise<Build> {
  const load = (path: string) => import(pathToFileURL(join(resolve(distDir), path)).href);
  const market = await load("lab/replay/replayMarket.js");
  const variants = await load("lab/sweep/variants.js");
  return { name: distDir, Market: market.ReplayMarket, variants: await variants.buildVariants([], sets) };
}
