/**
 * A stalled public socket (open, but the venue sends nothing: no pings, no data) is detected by the
 * client's silence watchdog and replaced. The periodic reconcile is set far beyond the test, so a
 * liquidation whose push was lost in the stall is found only by the reconcile that follows a
 * reconnect: without stall detection the old socket would simply resume when the stall lifts, no
 * reconnect would happen, and that liquidation would never be claimed.
 */
import { expect } from "vitest";
import { claimsBy, countById, ethLong, metric, requestsFrom, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

test("a stalled public socket is detected and replaced; the liquidation pushed into the stall is claimed from REST meanwhile", async ({
  rig,
}) => {
  const sim = await rig.sim();
  const daemon = await rig.daemon({
    sim,
    // A healthy socket answers the client's pings (every second) and carries a mark push every
    // second, so 1.5 s of silence is a stall.
    timing: { reconcileIntervalMs: 120_000, pingIntervalMs: 1_000, deadAfterMs: 1_500, backoff: { initialMs: 20, maxMs: 200 } },
  });
  const s = sim;
  const d = daemon;
  await waitFor(async () => (await fetch(`${d.metricsUrl}/readyz`)).status === 200, "ready");
  const warm = s.core.addLiquidation(ethLong(0.2));
  await waitFor(() => claimsBy(s).some((c) => c.liquidationId === warm), "warm-up claim");
  // The two start-up reads of the open list (at start, and after the public stream got ready) are
  // done: from here on the list is only read after a reconnect (the interval is 120 s).
  await waitFor(
    async () => (await metric(d.metricsUrl, "liquidator_http_requests_total", { endpoint: "/v1/public/liquidation" })) >= 2,
    "start-up reconciles",
  );
  const before = await metric(d.metricsUrl, "liquidator_ws_reconnects_total", { stream: "public" });

  s.faults.streams.stall("public", true);

  const lost = s.core.addLiquidation(ethLong(0.3)); // its push is swallowed by the stall
  // Detected while the stall is still on: the silent socket is replaced (and its replacements too,
  // as the sim keeps stalling new sockets), and the daemon stops calling itself ready.
  await waitFor(
    async () => (await metric(d.metricsUrl, "liquidator_ws_reconnects_total", { stream: "public" })) > before,
    "a public reconnect during the stall",
    15_000,
  );
  expect(d.logs.has("stream silent, replacing the connection")).toBe(true);
  await waitFor(async () => (await fetch(`${d.metricsUrl}/readyz`)).status === 503, "/readyz 503 during the stall", 15_000);
  // Degraded mode: the open list is read from REST about once a second although its interval is 120 s.
  await waitFor(() => claimsBy(s).some((c) => c.liquidationId === lost), "the liquidation pushed into the stall claimed", 10_000);
  expect(await metric(d.metricsUrl, "liquidator_degraded", { stream: "public" })).toBe(1);

  s.faults.streams.stall("public", false);
  const after = s.core.addLiquidation(ethLong(0.4));
  await waitFor(() => claimsBy(s).some((c) => c.liquidationId === after), "a liquidation added after the stall claimed", 20_000);
  await waitFor(async () => (await fetch(`${d.metricsUrl}/readyz`)).status === 200, "ready again");
  const perId = countById(requestsFrom(s));
  expect([...perId.values()].every((n) => n === 1)).toBe(true);
}, 60_000);
