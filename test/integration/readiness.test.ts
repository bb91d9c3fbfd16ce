/**
 * `/readyz` and `/healthz` of the daemon running against the simulated venue: readiness follows the
 * streams and the freshness of the marks (docs/operations.md "HTTP endpoints and metrics", docs/architecture.md rule 8), liveness does not
 * (a stream that is down reconnects by itself; restarting the container would not help).
 */
import { afterEach, describe, expect, it } from "vitest";
import { FAST_TIMING, type ObserveHarness, sampleValue, startObserveHarness, waitFor } from "../support/observeHarness.js";

interface Readiness {
  status: number;
  body: { ready: boolean; reasons?: string[]; role?: string; degraded?: string[] };
}

const READY = { ready: true, role: "single", degraded: [] };

let h: ObserveHarness | undefined;

afterEach(async () => {
  await h?.stop();
  h = undefined;
});

async function readyz(harness: ObserveHarness): Promise<Readiness> {
  const r = await harness.get("/readyz");
  return { status: r.status, body: JSON.parse(r.text) as Readiness["body"] };
}

async function expectHealthy(harness: ObserveHarness): Promise<void> {
  const r = await harness.get("/healthz");
  expect(r.status, r.text).toBe(200);
  expect(JSON.parse(r.text)).toEqual({ status: "ok" });
}

/** Polls /readyz until `match` accepts it; returns that answer. */
function waitForReadyz(harness: ObserveHarness, what: string, match: (r: Readiness) => boolean): Promise<Readiness> {
  return waitFor(async () => {
    const r = await readyz(harness);
    return match(r) ? r : undefined;
  }, what);
}

describe("/readyz follows the streams", () => {
  it("is 200 when both streams are up, 503 naming both streams while the venue refuses them, 200 again after the reconnect", async () => {
    h = await startObserveHarness();
    const harness = h;
    const up = await waitForReadyz(harness, "ready", (r) => r.status === 200);
    expect(up.body).toEqual(READY);
    await expectHealthy(harness);

    harness.sim.faults.streams.refuseConnections(true);
    expect(harness.sim.faults.streams.dropAll()).toBe(2);
    const down = await waitForReadyz(
      harness,
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
    await waitForReadyz(harness, "degraded mode named", (r) => (r.body.degraded ?? []).length === 2);
    await expectHealthy(harness);
    // While refused, the reconnect attempts keep failing: still 503, and the gauge agrees.
    await waitFor(
      async () => (sampleValue((await harness.get("/metrics")).text, "liquidator_ws_reconnects_total", 'stream="public"') ?? 0) >= 2,
      "a refused reconnect attempt",
    );
    expect((await readyz(harness)).status).toBe(503);
    const metrics = (await harness.get("/metrics")).text;
    expect(sampleValue(metrics, "liquidator_ws_connected", 'stream="public"')).toBe(0);
    expect(sampleValue(metrics, "liquidator_ws_connected", 'stream="private"')).toBe(0);

    harness.sim.faults.streams.refuseConnections(false);
    const back = await waitForReadyz(harness, "200 after the reconnect", (r) => r.status === 200);
    expect(back.body).toEqual(READY);
    await expectHealthy(harness);
  });

  it("names only the private stream when only its auth is refused", async () => {
    h = await startObserveHarness();
    const harness = h;
    await waitForReadyz(harness, "ready", (r) => r.status === 200);
    harness.sim.faults.streams.failAuth(true);
    expect(harness.sim.faults.streams.dropAll("private")).toBe(1);
    const down = await waitForReadyz(
      harness,
      "503 naming the private stream",
      (r) => r.status === 503 && (r.body.reasons ?? []).some((x) => x.startsWith("private_stream_")),
    );
    expect((down.body.reasons ?? []).filter((x) => x.startsWith("public_stream_"))).toEqual([]);
    await expectHealthy(harness);
    harness.sim.faults.streams.failAuth(false);
    await waitForReadyz(harness, "200 after the private reconnect", (r) => r.status === 200);
    await expectHealthy(harness);
  });

  it("names the public stream when the venue goes silent on it (stalled socket), and recovers when it speaks again", async () => {
    h = await startObserveHarness({ timing: { ...FAST_TIMING, pingIntervalMs: 300, deadAfterMs: 1_500 } });
    const harness = h;
    await waitForReadyz(harness, "ready", (r) => r.status === 200);
    harness.sim.faults.streams.stall("public", true);
    const down = await waitForReadyz(
      harness,
      "503 naming the public stream",
      (r) => r.status === 503 && (r.body.reasons ?? []).some((x) => x.startsWith("public_stream_")),
    );
    expect((down.body.reasons ?? []).filter((x) => x.startsWith("private_stream_"))).toEqual([]);
    await expectHealthy(harness);
    harness.sim.faults.streams.stall("public", false);
    await waitForReadyz(harness, "200 once the public stream speaks again", (r) => r.status === 200);
    await expectHealthy(harness);
  });
});

describe("/readyz follows the marks", () => {
  it("goes 503 marks_stale while neither the stream nor REST has fresh marks, with the streams still up, and 200 once marks flow again", async () => {
    const maxMarkAgeMs = 1_500;
    // No scripted mark pushes: this test pushes marks itself, then stops.
    h = await startObserveHarness({
      sim: { scenario: { markIntervalMs: 0 } },
      config: () => ({ policy: { max_mark_age_ms: maxMarkAgeMs } }),
    });
    const harness = h;
    const core = harness.sim.core;
    let pushing = true;
    const pusher = setInterval(() => {
      if (pushing) core.publishMarks();
    }, 200);
    try {
      const up = await waitForReadyz(harness, "ready with marks pushed", (r) => r.status === 200);
      expect(up.body).toEqual(READY);
      await expectHealthy(harness);

      // No mark pushes and no REST marks: the silent public stream is degraded, and the REST
      // fallback cannot refresh the marks either.
      const restMarksDown = harness.sim.faults.rest.serverError(503, { path: "/v1/public/futures" });
      pushing = false;
      const stale = await waitForReadyz(
        harness,
        "503 marks_stale in degraded mode",
        (r) => (r.body.reasons ?? []).includes("marks_stale") && (r.body.degraded ?? []).includes("public"),
      );
      // The marks, and the public stream read from REST; both streams are still authenticated and subscribed.
      expect(stale.body).toEqual({ ready: false, reasons: ["marks_stale", "degraded:public"], role: "single", degraded: ["public"] });
      const metrics = (await harness.get("/metrics")).text;
      expect(sampleValue(metrics, "liquidator_mark_price_age_seconds", 'symbol="PERP_BTC_USDC"')).toBeGreaterThan(maxMarkAgeMs / 1000);
      expect(sampleValue(metrics, "liquidator_ws_connected", 'stream="public"')).toBe(1);
      await expectHealthy(harness);

      restMarksDown();
      pushing = true;
      const fresh = await waitForReadyz(harness, "200 once marks flow", (r) => r.status === 200);
      expect(fresh.body).toEqual(READY);
      await expectHealthy(harness);
    } finally {
      clearInterval(pusher);
    }
  });
});
