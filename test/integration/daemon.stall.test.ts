/**
 * A stalled private socket (open, but the venue sends nothing: no pongs, no pushes) is caught only by
 * the client's silence watchdog. Degraded mode cannot catch it alone: a private stream is degraded
 * when it is not ready, and a silent socket still counts as ready. So the `position` push that says
 * the account was closed is lost in the stall, the reconcile interval is set far beyond the test,
 * and the exposure falls back to 0 only because the watchdog replaced the socket (the replacement,
 * stalled in turn, never gets ready), which puts the private stream in degraded mode, whose REST
 * reads of the positions tell the truth. Without the watchdog the exposure would stay held.
 * (A stalled public socket, which degraded mode covers by itself, is reliability.stall.test.ts.)
 */
import { expect } from "vitest";
import { claimsBy, ethLong, metric, untilReady, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

const ETH = { symbol: "PERP_ETH_USDC" };

test("a stalled private socket is detected and replaced; positions closed during the stall are read from REST", async ({ rig }) => {
  const sim = await rig.sim();
  const daemon = await rig.daemon({
    sim,
    env: { LIQUIDATOR_UNWIND_MODE: "off" }, // the position stays until the venue closes it
    // A healthy socket answers the client's pings (every second), so 1.5 s of silence is a stall.
    timing: { reconcileIntervalMs: 120_000, pingIntervalMs: 1_000, deadAfterMs: 1_500, backoff: { initialMs: 20, maxMs: 200 } },
    until: "ready",
  });
  const held = sim.core.addLiquidation(ethLong(1));
  await waitFor(() => claimsBy(sim).some((c) => c.liquidationId === held), "one ETH claimed");
  await waitFor(async () => (await metric(daemon.metricsUrl, "liquidator_exposure_notional", ETH)) > 3_000, "exposure held");
  const before = await metric(daemon.metricsUrl, "liquidator_ws_reconnects_total", { stream: "private" });

  sim.faults.streams.stall("private", true);
  expect(sim.core.closePositions(sim.accountId)).toBe(1); // its `position` push is swallowed by the stall

  await waitFor(
    async () => (await metric(daemon.metricsUrl, "liquidator_exposure_notional", ETH)) === 0,
    "the exposure read back to 0 from REST during the stall",
    20_000,
  );
  expect(await metric(daemon.metricsUrl, "liquidator_ws_reconnects_total", { stream: "private" })).toBeGreaterThan(before);
  expect(daemon.logs.has("stream silent, replacing the connection")).toBe(true);
  expect(await metric(daemon.metricsUrl, "liquidator_degraded", { stream: "private" })).toBe(1);

  sim.faults.streams.stall("private", false);
  await untilReady(daemon.metricsUrl, "ready again once the stall lifts");
  await waitFor(async () => (await metric(daemon.metricsUrl, "liquidator_degraded", { stream: "private" })) === 0, "degraded mode left");
}, 60_000);
