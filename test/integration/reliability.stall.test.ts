/**
 * Reliability, a stream that stays open but goes silent (the item 1), with the DEFAULT
 * timing of docs/protocol.md §5: server pings every 10 s, a socket silent for 30 s is dead. The venue
 * stalls the public socket (open, nothing sent, nothing read) and, so that the replacement is seen
 * at the venue and not silently stalled in turn, refuses new public sockets meanwhile: the first
 * refused upgrade is the daemon's replacement attempt. It must come within 30 s (+ margin) of the
 * stall. Long before that the silence puts the public stream in degraded mode: a liquidation added
 * during the stall is claimed from REST data (the open list and REST marks) within seconds.
 * (daemon.stall.test.ts is the private stream, where only the watchdog catches a stall.)
 */
import { expect } from "vitest";
import { claimsBy, ethLong, readyz, requestsFrom, untilReady, waitFor } from "../support/daemonHarness.js";
import { requestsPerId } from "../support/reliability.js";
import { test } from "../support/rig.js";

/** docs/protocol.md §5: "A silent socket is dead after 30 s (client side)". */
const DEAD_AFTER_MS = 30_000;
/** Room for the reconnect backoff, timers and a busy machine. */
const MARGIN_MS = 5_000;

test("a silent public stream is detected and replaced within 30 s (default timing); a liquidation added during the stall is claimed after", async ({
  rig,
}) => {
  const sim = await rig.sim();
  // Only the reconnect backoff and the reconcile interval are shortened/lengthened; pingIntervalMs
  // and deadAfterMs are the daemon's defaults.
  const daemon = await rig.daemon({
    sim,
    timing: { reconcileIntervalMs: 2_000, backoff: { initialMs: 50, maxMs: 500 } },
    until: "ready",
  });
  const warm = sim.core.addLiquidation(ethLong(0.2));
  await waitFor(() => claimsBy(sim).some((c) => c.liquidationId === warm), "warm-up claim");

  const refusedBefore = sim.streams.stats().upgradesRefused;
  sim.faults.streams.refuseConnections(true, "public");
  sim.faults.streams.stall("public", true);
  const stalledAt = Date.now();
  // No push gets through: within a few seconds of silence the daemon reads marks and the open list from REST.
  await waitFor(
    async () => (await readyz(daemon.metricsUrl)).reasons.includes("degraded:public"),
    "degraded mode during the stall",
    15_000,
  );
  const lost = sim.core.addLiquidation(ethLong(0.3)); // its push is swallowed
  const lostAt = Date.now();
  await waitFor(
    () => claimsBy(sim).some((c) => c.liquidationId === lost),
    "the liquidation pushed into the stall claimed from REST",
    10_000,
  );
  expect(Date.now() - lostAt).toBeLessThan(3_000 + 1_000);

  await waitFor(
    () => sim.streams.stats().upgradesRefused > refusedBefore,
    "the daemon's replacement connection at the venue",
    DEAD_AFTER_MS + 15_000,
    20,
  );
  const replacedAfterMs = Date.now() - stalledAt;
  expect(replacedAfterMs).toBeLessThanOrEqual(DEAD_AFTER_MS + MARGIN_MS);
  expect(daemon.logs.has("stream silent, replacing the connection")).toBe(true);
  expect(sim.streams.stats().publicSockets).toBe(0); // the silent socket was closed by the daemon
  expect((await readyz(daemon.metricsUrl)).status).toBe(503);

  // The venue speaks again: the next attempt connects, marks are fresh, the liquidation is claimed.
  sim.faults.streams.stall("public", false);
  sim.faults.streams.refuseConnections(false, "public");
  await untilReady(daemon.metricsUrl, "ready again, degraded mode left", 20_000);
  expect([...requestsPerId(requestsFrom(sim)).values()].every((list) => list.length === 1)).toBe(true);
}, 90_000);
