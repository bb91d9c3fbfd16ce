/**
 * `/readyz` and `/healthz` of the daemon running against the simulated venue: readiness follows the
 * streams and the freshness of the marks (docs/operations.md "HTTP endpoints and metrics", docs/architecture.md rule 8), liveness does not
 * (a stream that is down reconnects by itself; restarting the container would not help).
 */
import { describe, expect } from "vitest";
import { metricValue } from "../../src/observe/promText.js";
import type { StartSimulatorOptions } from "../../src/sim/startSimulator.js";
import { type Readyz, readyz, scrape, waitFor } from "../support/daemonHarness.js";
import { FAST_TIMING, type InProcessDaemonOptions } from "../support/inProcessDaemon.js";
import { test as it, type Rig } from "../support/rig.js";

/** A flat account claiming as usual: trading state active, no position unexplained. */
const READY = { ready: true, role: "single", degraded: [], venue: "live", trading_state: "active", unexplained_positions: [] };

/** The simulated venue and the daemon under the built-in policy, with fast stream timings unless told otherwise. */
async function start(rig: Rig, o: { sim?: StartSimulatorOptions } & Pick<InProcessDaemonOptions, "policy" | "timing"> = {}) {
  const sim = await rig.sim(o.sim);
  const daemon = await rig.daemon({
    sim,
    stateDir: await rig.dir("readiness"),
    policyBase: "built-in",
    ...(o.policy ? { policy: o.policy } : {}),
    timing: o.timing ?? FAST_TIMING,
  });
  return { sim, url: daemon.metricsUrl };
}

async function expectHealthy(url: string): Promise<void> {
  const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(JSON.parse(text)).toEqual({ status: "ok" });
}

/** Polls /readyz until `match` accepts it; returns that answer. */
function waitForReadyz(url: string, what: string, match: (r: Readyz) => boolean): Promise<Readyz> {
  return waitFor(async () => {
    const r = await readyz(url);
    return match(r) ? r : undefined;
  }, what);
}

describe("/readyz follows the streams", () => {
  it("is 200 when both streams are up, 503 naming both streams while the venue refuses them, 200 again after the reconnect", async ({
    rig,
  }) => {
    const { sim, url } = await start(rig);
    const up = await waitForReadyz(url, "ready", (r) => r.status === 200);
    expect(up.body).toEqual(READY);
    await expectHealthy(url);

    sim.faults.streams.refuseConnections(true);
    expect(sim.faults.streams.dropAll()).toBe(2);
    const down = await waitForReadyz(
      url,
      "503 naming both streams",
      (r) =>
        r.status === 503 &&
        (r.body.reasons ?? []).some((x) => x.startsWith("public_stream_")) &&
        (r.body.reasons ?? []).some((x) => x.startsWith("private_stream_")),
    );
    expect(down.body.ready).toBe(false);
    // Only the streams are wrong, and their data comes from REST meanwhile: marks are still fresh,
    // symbols loaded, claiming not paused.
    for (const reason of down.body.reasons ?? []) expect(reason).toMatch(/^((public|private)_stream_|degraded:(public|private)$)/);
    await waitForReadyz(url, "degraded mode named", (r) => (r.body.degraded ?? []).length === 2);
    await expectHealthy(url);
    // While refused, the reconnect attempts keep failing: still 503, and the gauge agrees.
    await waitFor(
      async () => metricValue(await scrape(url), "liquidator_ws_reconnects_total", { stream: "public" }) >= 2,
      "a refused reconnect attempt",
    );
    expect((await readyz(url)).status).toBe(503);
    const metrics = await scrape(url);
    expect(metricValue(metrics, "liquidator_ws_connected", { stream: "public" })).toBe(0);
    expect(metricValue(metrics, "liquidator_ws_connected", { stream: "private" })).toBe(0);

    sim.faults.streams.refuseConnections(false);
    const back = await waitForReadyz(url, "200 after the reconnect", (r) => r.status === 200);
    expect(back.body).toEqual(READY);
    await expectHealthy(url);
  });

  it("names only the private stream when only its auth is refused", async ({ rig }) => {
    const { sim, url } = await start(rig);
    await waitForReadyz(url, "ready", (r) => r.status === 200);
    sim.faults.streams.failAuth(true);
    expect(sim.faults.streams.dropAll("private")).toBe(1);
    const down = await waitForReadyz(
      url,
      "503 naming the private stream",
      (r) => r.status === 503 && (r.body.reasons ?? []).some((x) => x.startsWith("private_stream_")),
    );
    expect((down.body.reasons ?? []).filter((x) => x.startsWith("public_stream_"))).toEqual([]);
    await expectHealthy(url);
    sim.faults.streams.failAuth(false);
    await waitForReadyz(url, "200 after the private reconnect", (r) => r.status === 200);
    await expectHealthy(url);
  });

  it("names the public stream when the venue goes silent on it (stalled socket), and recovers when it speaks again", async ({ rig }) => {
    const { sim, url } = await start(rig, { timing: { ...FAST_TIMING, pingIntervalMs: 300, deadAfterMs: 1_500 } });
    await waitForReadyz(url, "ready", (r) => r.status === 200);
    sim.faults.streams.stall("public", true);
    const down = await waitForReadyz(
      url,
      "503 naming the public stream",
      (r) => r.status === 503 && (r.body.reasons ?? []).some((x) => x.startsWith("public_stream_")),
    );
    expect((down.body.reasons ?? []).filter((x) => x.startsWith("private_stream_"))).toEqual([]);
    await expectHealthy(url);
    sim.faults.streams.stall("public", false);
    await waitForReadyz(url, "200 once the public stream speaks again", (r) => r.status === 200);
    await expectHealthy(url);
  });
});

describe("/readyz follows the marks", () => {
  it("goes 503 marks_stale while neither the stream nor REST has fresh marks, with the streams still up, and 200 once marks flow again", async ({
    rig,
  }) => {
    const maxMarkAgeMs = 1_500;
    // No scripted mark pushes: this test pushes marks itself, then stops.
    const { sim, url } = await start(rig, { sim: { scenario: { markIntervalMs: 0 } }, policy: { max_mark_age_ms: maxMarkAgeMs } });
    const core = sim.core;
    let pushing = true;
    const pusher = setInterval(() => {
      if (pushing) core.publishMarks();
    }, 200);
    try {
      const up = await waitForReadyz(url, "ready with marks pushed", (r) => r.status === 200);
      expect(up.body).toEqual(READY);
      await expectHealthy(url);

      // No mark pushes and no REST marks: the silent public stream is degraded, and the REST
      // fallback cannot refresh the marks either.
      const restMarksDown = sim.faults.rest.serverError(503, { path: "/v1/public/futures" });
      pushing = false;
      const stale = await waitForReadyz(
        url,
        "503 marks_stale in degraded mode",
        (r) => (r.body.reasons ?? []).includes("marks_stale") && (r.body.degraded ?? []).includes("public"),
      );
      // The marks, and the public stream read from REST; both streams are still authenticated and subscribed.
      expect(stale.body).toEqual({
        ready: false,
        reasons: ["marks_stale", "degraded:public"],
        role: "single",
        degraded: ["public"],
        venue: "live",
        trading_state: "active",
        unexplained_positions: [],
      });
      const metrics = await scrape(url);
      expect(metricValue(metrics, "liquidator_mark_price_age_seconds", { symbol: "PERP_BTC_USDC" })).toBeGreaterThan(maxMarkAgeMs / 1000);
      expect(metricValue(metrics, "liquidator_ws_connected", { stream: "public" })).toBe(1);
      await expectHealthy(url);

      restMarksDown();
      pushing = true;
      const fresh = await waitForReadyz(url, "200 once marks flow", (r) => r.status === 200);
      expect(fresh.body).toEqual(READY);
      await expectHealthy(url);
    } finally {
      clearInterval(pusher);
    }
  });
});
