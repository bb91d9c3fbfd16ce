/**
 * Exposure across a restart tells the venue's truth, not the journal's whole history: positions the
 * account closed since (the venue's `position` push said so) must not come back on restart as if
 * still held — that would block every claim under max_total_exposure until some claim happened,
 * which it never would. And a burst cannot pass the cap: exposure counts queued and in-flight claims.
 */
import { expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { claimsBy, ethLong, metric, reconcileRounds, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

// One ETH is 3,850 of notional at the simulator's (still) mark.
const policy = { max_total_exposure: 10_000 };

/** Positions stay held (the venue closes them when the test says): this test is about the cap. */
const OFF = { LIQUIDATOR_UNWIND_MODE: "off" };

const claimed = (s: SimulatorHandle, id: number): boolean => claimsBy(s).some((c) => c.liquidationId === id);
const held = (s: SimulatorHandle): number => s.core.positionsOf(s.accountId).reduce((a, p) => a + Math.abs(p.qty) * p.markPrice, 0);

test("restart after positions were closed: exposure is the venue's, claims continue under the cap", async ({ rig }) => {
  const sim = await rig.sim();
  const dir = await rig.dir("exposure");
  let d = await rig.daemon({ sim, stateDir: dir, policy, env: OFF, until: "ready" });

  // A burst of three whole ETH: the cap (10,000) admits two (7,700), never three (11,550).
  const burst = [sim.core.addLiquidation(ethLong(1)), sim.core.addLiquidation(ethLong(1)), sim.core.addLiquidation(ethLong(1))];
  await waitFor(() => burst.filter((id) => claimed(sim, id)).length === 2, "two of the burst claimed");
  // The third was weighed and refused (counted), and reconcile rounds offering it again refused it too.
  await waitFor(
    async () => (await metric(d.metricsUrl, "liquidator_claims_skipped_total", { reason: "exposure_cap" })) >= 1,
    "exposure_cap counted",
  );
  await reconcileRounds(d.metricsUrl, 2);
  expect(burst.filter((id) => claimed(sim, id))).toHaveLength(2);
  expect(held(sim)).toBeLessThanOrEqual(10_000);

  // The account unwinds (the venue pushes the flat `position`); the daemon claims again.
  sim.core.closePositions(sim.accountId);
  await waitFor(() => claimed(sim, burst[2] as number), "the third claimed once the positions were closed");
  const more = sim.core.addLiquidation(ethLong(1));
  await waitFor(() => claimed(sim, more), "another claimed");
  expect(held(sim)).toBeCloseTo(7_700, 6);

  await d.stop();
  d = await rig.daemon({ sim, stateDir: dir, policy, env: OFF, until: "ready" });
  expect(d.logs.lines.some((l) => /^journal replayed/.test(l.msg))).toBe(true);

  // The venue holds 7,700; half an ETH more (1,925) fits under 10,000; a whole one (3,850) does not.
  const half = sim.core.addLiquidation(ethLong(0.5));
  await waitFor(() => claimed(sim, half), "a claim that fits is made after the restart", 15_000);
  const whole = sim.core.addLiquidation(ethLong(1));
  // Weighed and refused (counted by this process, which refused nothing before), then offered again and refused.
  await waitFor(
    async () => (await metric(d.metricsUrl, "liquidator_claims_skipped_total", { reason: "exposure_cap" })) >= 1,
    "the whole ETH refused at the cap",
  );
  await reconcileRounds(d.metricsUrl, 2);
  expect(claimed(sim, whole)).toBe(false);
  expect(held(sim)).toBeLessThanOrEqual(10_000);
}, 60_000);
