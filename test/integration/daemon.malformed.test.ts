/**
 * 1,000 malformed frames on each stream (bad JSON, wrong shapes, unknown topics, wrong types, NaN
 * and Infinity): the daemon keeps running, counts every one in ws_bad_messages_total, sends no claim
 * for the fake ids some of them carry, and still claims a real liquidation afterwards.
 */
import { expect } from "vitest";
import { claimsBy, ethLong, metric, readJournal, requestsFrom, sleep, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

test("1,000 malformed frames per stream: counted, no crash, no claim; a real liquidation is still claimed", async ({ rig }) => {
  const sim = await rig.sim();
  const dir = await rig.dir("malformed");
  const daemon = await rig.daemon({ sim, stateDir: dir });
  const s = sim;
  const d = daemon;
  await waitFor(async () => (await fetch(`${d.metricsUrl}/readyz`)).status === 200, "ready");
  const accepted = s.streams.stats().connectionsAccepted;

  const written = s.faults.streams.sendMalformed(1000);
  expect(written).toBe(2000); // 1,000 to the public socket, 1,000 to the private one
  const bad = async (): Promise<number> => metric(d.metricsUrl, "liquidator_ws_bad_messages_total");
  await waitFor(async () => (await bad()) >= written, "every bad frame counted", 20_000);
  await sleep(300);
  // Each frame counted once, on its own stream; none closed a socket.
  expect(await metric(d.metricsUrl, "liquidator_ws_bad_messages_total", { stream: "public" })).toBe(1000);
  expect(await metric(d.metricsUrl, "liquidator_ws_bad_messages_total", { stream: "private" })).toBe(1000);
  expect(s.streams.stats().connectionsAccepted).toBe(accepted);
  expect(requestsFrom(s)).toEqual([]);
  expect(readJournal(dir).records).toBe(1); // only the record naming the venue
  expect(await metric(d.metricsUrl, "liquidator_liquidations_seen_total")).toBe(0);
  expect((await fetch(`${d.metricsUrl}/healthz`)).status).toBe(200);

  const real = s.core.addLiquidation(ethLong(0.5));
  await waitFor(() => claimsBy(s).some((c) => c.liquidationId === real), "the real liquidation claimed");
  expect(requestsFrom(s).map((r) => r.liquidationId)).toEqual([real]);
  expect((await fetch(`${d.metricsUrl}/readyz`)).status).toBe(200);
}, 60_000);
