/**
 * Never blind: claiming goes on through stream outages while REST answers. The daemon runs with its
 * default timing (5 s reconcile interval, 500 ms .. 30 s backoff capped at 5 s while REST answers):
 * what makes these liquidations claimed in time is the reconnect policy and degraded mode, not a
 * test setting.
 */
import { expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import {
  claimsBy,
  countById,
  ethLong,
  metric,
  metricValue,
  readyz,
  reconcileRounds,
  requestsFrom,
  scrape,
  sleep,
  untilReady,
  waitFor,
} from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

/** The daemon's own defaults (the harness otherwise shortens them). */
const DEFAULT_TIMING = { reconcileIntervalMs: 5_000, backoff: { initialMs: 500, maxMs: 30_000 } };
const CLAIM_WITHIN_MS = 3_000;

/** Venue time from a liquidation's first push (its creation) to our claim's arrival, per id. */
function claimDelays(s: SimulatorHandle, ids: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const id of ids) {
    const claim = claimsBy(s).find((c) => c.liquidationId === id);
    const created = s.core.liquidationEmittedAt(id);
    if (claim !== undefined && created !== undefined) out.set(id, claim.receivedAt - created);
  }
  return out;
}

test("five drops 10 s apart, reconnects refused 1.5 s each: liquidations created during each are claimed within 3 s, once", async ({
  rig,
}) => {
  const sim = await rig.sim();
  const dir = await rig.dir("outage-drops");
  const daemon = await rig.daemon({ sim, stateDir: dir, timing: DEFAULT_TIMING, until: "ready" });

  const ids: number[] = [];
  for (let drop = 0; drop < 5; drop++) {
    sim.faults.streams.refuseConnections(true);
    expect(sim.faults.streams.dropAll()).toBe(2);
    // Created while every socket is down: their pushes reach nobody; only REST lists them. The sleeps
    // place them early and late in the 1.5 s of refused reconnects (the scenario, not a wait for an event).
    await sleep(200); // early in the refused reconnects (the scenario)
    ids.push(sim.core.addLiquidation(ethLong(0.1 + drop / 50)));
    await sleep(700); // late in them
    ids.push(sim.core.addLiquidation({ positions: [{ symbol: "PERP_SOL_USDC", position_qty: -(5 + drop) }] }));
    await sleep(600); // until the 1.5 s of refusals are over
    sim.faults.streams.refuseConnections(false);
    await waitFor(() => ids.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)), `claims of drop ${drop + 1}`, 10_000);
    if (drop < 4) await sleep(10_000 - 1_500); // the scenario: drops 10 s apart
  }
  const delays = claimDelays(sim, ids);
  expect(delays.size).toBe(ids.length);
  const late = [...delays].filter(([, ms]) => ms > CLAIM_WITHIN_MS);
  expect(late, "claimed more than 3 s after creation").toEqual([]);
  await reconcileRounds(daemon.metricsUrl, 1, 15_000); // it offers every claimed id again: a resend would show now
  expect([...countById(requestsFrom(sim))].filter(([, n]) => n !== 1)).toEqual([]);
}, 120_000);

test("public stream refused 60 s (private 30 s of it) while REST works: claims go on from REST data, no 429, degraded mode shown and left", async ({
  rig,
}) => {
  // Marks move (the REST marks must be fresh for the limit prices to hold), nothing else happens.
  const sim = await rig.sim({ scenario: { volatilityScale: 1 } });
  const dir = await rig.dir("outage-refused");
  const daemon = await rig.daemon({ sim, stateDir: dir, timing: DEFAULT_TIMING, until: "ready" });

  sim.faults.streams.refuseConnections(true, "public");
  sim.faults.streams.dropAll("public");
  await waitFor(async () => (await readyz(daemon.metricsUrl)).reasons.includes("degraded:public"), "degraded:public on /readyz", 5_000);
  expect(await metric(daemon.metricsUrl, "liquidator_degraded", { stream: "public" })).toBe(1);
  const positionsReadsBefore = await metric(daemon.metricsUrl, "liquidator_http_requests_total", { endpoint: "/v1/positions" });

  // 60 s of outage: a liquidation every 500 ms (the claim limit is 5/s: the venue's pace binds only
  // in bursts), alternating long and short so both limit sides are exercised.
  const ids: number[] = [];
  const started = Date.now();
  let privateDown = false;
  let privateBack = false;
  while (Date.now() - started < 60_000) {
    const i = ids.length;
    ids.push(
      sim.core.addLiquidation(
        i % 2 === 0 ? ethLong(0.05 + (i % 7) / 100) : { positions: [{ symbol: "PERP_SOL_USDC", position_qty: -(2 + (i % 5)) }] },
      ),
    );
    const elapsed = Date.now() - started;
    if (!privateDown && elapsed >= 15_000) {
      privateDown = true;
      sim.faults.streams.refuseConnections(true, "private");
      sim.faults.streams.dropAll("private");
    }
    if (!privateBack && elapsed >= 45_000) {
      privateBack = true;
      expect(await metric(daemon.metricsUrl, "liquidator_degraded", { stream: "private" })).toBe(1);
      sim.faults.streams.refuseConnections(false, "private");
    }
    await sleep(500); // paces the load: a liquidation every 500 ms for 60 s
  }
  await waitFor(() => ids.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)), "every liquidation claimed", 10_000);
  const delays = claimDelays(sim, ids);
  const late = [...delays].filter(([, ms]) => ms > CLAIM_WITHIN_MS);
  expect(late, "claimed more than 3 s after creation").toEqual([]);
  // Every claim accepted: the limit prices, from REST marks, held on the protecting side.
  expect(requestsFrom(sim).every((r) => r.code === 0)).toBe(true);
  expect(await metric(daemon.metricsUrl, "liquidator_claims_result_total", { result: "success" })).toBe(ids.length);

  const text = await scrape(daemon.metricsUrl);
  // Public reads stayed inside the budget: not one 429 from the venue.
  for (const endpoint of ["/v1/public/liquidation", "/v1/public/futures", "/v1/public/info"]) {
    expect(metricValue(text, "liquidator_http_requests_total", { endpoint, status: "429" }), endpoint).toBe(0);
  }
  expect(metricValue(text, "liquidator_http_requests_total", { endpoint: "/v1/public/futures", status: "200" })).toBeGreaterThan(30);
  // Positions were read every few seconds while the private stream was down (30 s: ≥ 6 reads).
  expect(metricValue(text, "liquidator_http_requests_total", { endpoint: "/v1/positions" }) - positionsReadsBefore).toBeGreaterThanOrEqual(
    6,
  );

  sim.faults.streams.refuseConnections(false, "public");
  await untilReady(daemon.metricsUrl, "ready: degraded mode left", 15_000);
  expect(await metric(daemon.metricsUrl, "liquidator_degraded", { stream: "public" })).toBe(0);
  expect(await metric(daemon.metricsUrl, "liquidator_degraded", { stream: "private" })).toBe(0);
  const after = sim.core.addLiquidation(ethLong(0.3));
  await waitFor(() => claimsBy(sim).some((c) => c.liquidationId === after), "a claim over the stream again");
  expect([...countById(requestsFrom(sim))].filter(([, n]) => n !== 1)).toEqual([]);
}, 150_000);
