/**
 * 1,000 malformed frames on each stream (bad JSON, wrong shapes, unknown topics, wrong types, NaN
 * and Infinity): the daemon keeps running, counts every one in ws_bad_messages_total, sends no claim
 * for the fake ids some of them carry, and still claims a real liquidation afterwards.
 */
import { expect } from "vitest";
import { claimsBy, ethLong, metric, readJournal, requestsFrom, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

test("1,000 malformed frames per stream: counted, no crash, no claim; a real liquidation is still claimed", async ({ rig }) => {
  const sim = await rig.sim();
  const dir = await rig.dir("malformed");
  const daemon = await rig.daemon({ sim, stateDir: dir, until: "ready" });
  const accepted = sim.streams.stats().connectionsAccepted;

  const written = sim.faults.streams.sendMalformed(1000);
  expect(written).toBe(2000); // 1,000 to the public socket, 1,000 to the private one
  const bad = async (): Promise<number> => metric(daemon.metricsUrl, "liquidator_ws_bad_messages_total");
  await waitFor(async () => (await bad()) >= written, "every bad frame counted", 20_000);
  // A real liquidation pushed after the bad frames on the same socket: once it is claimed, every
  // frame before it has been read, so what the bad frames did (or did not do) is all in view.
  const real = sim.core.addLiquidation(ethLong(0.5));
  await waitFor(() => claimsBy(sim).some((c) => c.liquidationId === real), "the real liquidation claimed");
  // Each frame counted once, on its own stream; none closed a socket or led to a claim.
  expect(await metric(daemon.metricsUrl, "liquidator_ws_bad_messages_total", { stream: "public" })).toBe(1000);
  expect(await metric(daemon.metricsUrl, "liquidator_ws_bad_messages_total", { stream: "private" })).toBe(1000);
  expect(sim.streams.stats().connectionsAccepted).toBe(accepted);
  expect(requestsFrom(sim).map((r) => r.liquidationId)).toEqual([real]);
  expect([...readJournal(dir).intents.keys()]).toEqual([real]);
  expect(await metric(daemon.metricsUrl, "liquidator_liquidations_seen_total")).toBe(1);
  expect((await fetch(`${daemon.metricsUrl}/healthz`)).status).toBe(200);
  expect((await fetch(`${daemon.metricsUrl}/readyz`)).status).toBe(200);
}, 60_000);
