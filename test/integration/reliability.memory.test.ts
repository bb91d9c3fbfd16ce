/**
 * Reliability, memory under REST faults (the issue's item 2): the daemon as an operator runs it (the
 * compiled CLI in a child process, so the numbers are its own) claims through 400 faulted claim
 * requests — 5xx, connections cut before and after processing, timeouts, -1011 — and its heap and
 * resident memory, read from its own /metrics, stay flat between the end of a warm-up and the end.
 * The bound is generous (GC timing makes heap readings move by megabytes): it catches a leak per
 * faulted request (a kept body, socket or timer), not a few kilobytes of bookkeeping per id.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { stringify } from "yaml";
import {
  daemonEnv,
  ethLong,
  metric,
  metricValue,
  OPEN_POLICY,
  readyz,
  requestsFrom,
  scrape,
  sleep,
  untilReady,
  waitFor,
} from "../support/daemonHarness.js";
import { requestsPerId, venueClaimRequests } from "../support/reliability.js";
import { test } from "../support/rig.js";

const BATCH = 50;
const WARMUP_BATCHES = 2;
const BATCHES = 8;

/** The lowest of a few readings: closest to the live heap between two collections. */
async function memory(url: string): Promise<{ heap: number; rss: number }> {
  let heap = Number.POSITIVE_INFINITY;
  let rss = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const text = await scrape(url);
    heap = Math.min(heap, metricValue(text, "liquidator_nodejs_heap_size_used_bytes"));
    rss = Math.min(rss, metricValue(text, "liquidator_process_resident_memory_bytes"));
    await sleep(200); // readings spread over time, so one of them falls between two collections
  }
  return { heap, rss };
}

test("400 faulted claim requests: heap and RSS flat after warm-up, every request answered once", async ({ rig, build }) => {
  // No venue rate limits and a fast claim limiter, so hundreds of faulted requests take seconds.
  const sim = await rig.sim({ rateLimits: false });
  const dir = await rig.dir("rel-memory");
  const configPath = join(dir, "config.yaml");
  await writeFile(
    configPath,
    stringify({
      venue: { request_timeout_ms: 300, limits: { claims_per_second: 100, public_per_second: 50 } },
      policy: OPEN_POLICY,
    }),
  );
  const proc = rig.spawn(build.cli, [], daemonEnv(sim, join(dir, "state"), { LIQUIDATOR_CONFIG: configPath }), dir);
  const url = await proc.metricsUrl();
  await untilReady(url, "daemon ready", 30_000);

  const CLAIM = { path: "/v1/liquidation", method: "POST", times: BATCH } as const;
  const faults = [
    () => sim.faults.rest.serverError(503, CLAIM),
    () => sim.faults.rest.reset({ ...CLAIM, phase: "before" }),
    () => sim.faults.rest.reset({ ...CLAIM, phase: "after" }),
    () => sim.faults.rest.delay(600, { ...CLAIM, phase: "after" }), // answered after the 300 ms timeout
    () => sim.faults.rest.venueError(-1011, CLAIM),
  ];
  // Every faulted request has its result counted by the daemon: nothing of it is still in flight.
  const settled = () =>
    waitFor(
      async () => (await metric(url, "liquidator_claims_result_total")) >= sim.faults.rest.injected,
      "a result counted for every faulted request",
      30_000,
    );
  const ids: number[] = [];
  let warm: { heap: number; rss: number } | undefined;
  for (let b = 0; b < BATCHES; b++) {
    const before = sim.faults.rest.injected;
    const disarm = (faults[b % faults.length] as () => () => void)();
    for (let i = 0; i < BATCH; i++) ids.push(sim.core.addLiquidation(ethLong(0.01 + (i % 10) / 1000)));
    await waitFor(() => sim.faults.rest.injected - before >= BATCH, `batch ${b}: ${BATCH} faulted requests`, 30_000);
    disarm();
    if (b === WARMUP_BATCHES - 1) {
      await settled(); // late answers of the warm-up
      warm = await memory(url);
    }
  }
  await settled();
  const end = await memory(url);
  expect(sim.faults.rest.injected).toBeGreaterThanOrEqual(BATCHES * BATCH);
  const w = warm as { heap: number; rss: number };
  const MB = 1024 * 1024;
  // 300 faulted requests after the warm-up: a leak of 100 KB each would add 30 MB.
  expect(end.heap, `heap ${(w.heap / MB).toFixed(1)} → ${(end.heap / MB).toFixed(1)} MB`).toBeLessThanOrEqual(w.heap + 16 * MB);
  expect(end.rss, `rss ${(w.rss / MB).toFixed(1)} → ${(end.rss / MB).toFixed(1)} MB`).toBeLessThanOrEqual(w.rss + 48 * MB);

  // The faults changed nothing about "never twice": a claim is sent again only after a definitive
  // "not processed" (-1011), never after an answer that may hide an applied claim; at most one applied.
  const perId = requestsPerId(venueClaimRequests(sim));
  for (const id of ids) {
    const list = perId.get(id) ?? [];
    expect(
      list.slice(0, -1).map((r) => r.code),
      `requests for ${id} before its last: ${list.map((r) => `${r.code} ${r.message}`).join(", ")}`,
    ).toEqual(list.slice(0, -1).map(() => -1011));
  }
  expect([...requestsPerId(requestsFrom(sim).filter((r) => r.code === 0))].filter(([, l]) => l.length > 1)).toEqual([]);
  expect((await readyz(url)).status).toBe(200);
}, 120_000);
