/**
 * Reads the daemon's `/metrics` (Prometheus text format) for the series the soak reports: memory,
 * event-loop delay, claim outcomes, bad frames, reconnects (parsed by observe/promText.ts).
 */

import { parsePrometheus, type Sample } from "../observe/promText.js";
import { type UnwindSample, unwindSample } from "./soakUnwind.js";

/** One scrape, reduced to what the report shows. */
export interface DaemonSample {
  at: number;
  rssBytes: number | undefined;
  heapUsedBytes: number | undefined;
  /** prom-client resets its event-loop histogram at each scrape: these cover the time since the last one. */
  eventLoopP99Ms: number | undefined;
  eventLoopMaxMs: number | undefined;
  ready: boolean;
  /** `result/code` → count (this process only). */
  claimResults: Record<string, number>;
  /** `stream/reason` → count. */
  badMessages: Record<string, number>;
  /** `reason` → count. */
  skipped: Record<string, number>;
  reconnects: number;
  liquidationsSeen: number;
  unwind: UnwindSample;
}

function one(samples: Sample[], name: string): number | undefined {
  return samples.find((s) => s.name === name)?.value;
}

function byLabels(samples: Sample[], name: string, keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) {
    if (s.name !== name || s.value === 0) continue;
    const k = keys.map((key) => s.labels[key] ?? "").join("/");
    out[k] = (out[k] ?? 0) + s.value;
  }
  return out;
}

/** Scrapes `/metrics` and `/readyz` of the daemon; undefined when it does not answer in time. */
export async function scrapeDaemon(metricsUrl: string, timeoutMs = 3_000): Promise<DaemonSample | undefined> {
  const base = metricsUrl.replace(/\/+$/, "");
  try {
    const [metrics, ready] = await Promise.all([
      fetch(`${base}/metrics`, { signal: AbortSignal.timeout(timeoutMs) }).then((r) => r.text()),
      fetch(`${base}/readyz`, { signal: AbortSignal.timeout(timeoutMs) }).then(async (r) => {
        await r.arrayBuffer();
        return r.status === 200;
      }),
    ]);
    const s = parsePrometheus(metrics);
    const p = "liquidator_";
    const ms = (v: number | undefined): number | undefined => (v === undefined ? undefined : v * 1000);
    return {
      at: Date.now(),
      rssBytes: one(s, `${p}process_resident_memory_bytes`),
      heapUsedBytes: one(s, `${p}nodejs_heap_size_used_bytes`),
      eventLoopP99Ms: ms(one(s, `${p}nodejs_eventloop_lag_p99_seconds`)),
      eventLoopMaxMs: ms(one(s, `${p}nodejs_eventloop_lag_max_seconds`)),
      ready,
      claimResults: byLabels(s, `${p}claims_result_total`, ["result", "code"]),
      badMessages: byLabels(s, `${p}ws_bad_messages_total`, ["stream", "reason"]),
      skipped: byLabels(s, `${p}claims_skipped_total`, ["reason"]),
      reconnects: Object.values(byLabels(s, `${p}ws_reconnects_total`, ["stream"])).reduce((a, b) => a + b, 0),
      liquidationsSeen: one(s, `${p}liquidations_seen_total`) ?? 0,
      unwind: unwindSample(s),
    };
  } catch {
    return undefined;
  }
}

/** `/readyz` answered 200 within the timeout (false for anything else, a dead process included). */
export async function probeReady(metricsUrl: string | undefined, timeoutMs = 1_000): Promise<boolean> {
  if (metricsUrl === undefined) return false;
  try {
    const r = await fetch(`${metricsUrl.replace(/\/+$/, "")}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
    await r.arrayBuffer();
    return r.status === 200;
  } catch {
    return false;
  }
}

/** Adds counter maps (the totals of several daemon processes: counters restart at 0 with each). */
export function addCounts(into: Record<string, number>, from: Record<string, number>): Record<string, number> {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
  return into;
}
