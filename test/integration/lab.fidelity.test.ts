/**
 * Fidelity of the policy lab: the daemon runs against the simulated venue with `state.capture` on;
 * replaying its capture with the same config must claim exactly the ids the daemon claimed (tolerance:
 * none, with no competitor on the venue). With a competitor taking some ids, the sets may differ only
 * on ids the competitor took.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { runCli } from "../support/captures.js";
import { claimsBy, journalLines, OPEN_POLICY, requestsFrom, sleep, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

const POLICY = { ...OPEN_POLICY, min_fee: 20 };
const SIZES: [string, number][] = [
  ["PERP_ETH_USDC", 0.05],
  ["PERP_ETH_USDC", 2],
  ["PERP_SOL_USDC", -3],
  ["PERP_SOL_USDC", -80],
  ["PERP_BTC_USDC", 0.001],
  ["PERP_BTC_USDC", 0.2],
  ["PERP_ETH_USDC", -0.3],
  ["PERP_DOGE_USDC", 20_000],
];

async function backtestIds(stateDir: string): Promise<number[]> {
  const dir = join(stateDir, "capture");
  const files = (await readdir(dir)).filter((n) => n.endsWith(".jsonl.gz")).map((n) => join(dir, n));
  expect(files.length).toBeGreaterThan(0);
  const r = await runCli(["backtest", ...files, "--config", join(stateDir, "policy.yaml"), "--json", "--ids"]);
  expect(r.stderr.replace(/^liquidator backtest: wrote .*\n/gm, "")).toBe("");
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { model: { own_takes: number }; variants: { claimed_ids: number[] }[] };
  return out.variants[0]?.claimed_ids ?? [];
}

/**
 * Every id offered is decided: a claim of it reached the venue (answered: the stop drains what is in
 * flight), or the daemon journaled that it skipped it or that it left the open list. An id still
 * queued at the stop would be claimed by the replay and not by the daemon.
 */
function allDecided(sim: SimulatorHandle, stateDir: string, ids: readonly number[]): boolean {
  const requested = new Set(requestsFrom(sim).map((r) => r.liquidationId));
  const decided = new Set(
    journalLines(stateDir)
      .filter((l) => (l.t === "skip" && l.cut !== true) || l.t === "gone")
      .map((l) => l.id),
  );
  return ids.every((id) => requested.has(id) || decided.has(id));
}

describe("policy lab fidelity", () => {
  test("no competitor: the replay claims exactly the ids the daemon claimed", async ({ rig }) => {
    const sim = await rig.sim({ scenario: { volatilityScale: 1 } });
    const stateDir = await rig.dir("fidelity");
    const daemon = await rig.daemon({ sim, stateDir, policy: POLICY, env: { LIQUIDATOR_CAPTURE: "1" }, until: "ready" });
    const ids: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const [symbol, qty] of SIZES) {
        ids.push(sim.core.addLiquidation({ positions: [{ symbol, position_qty: qty }] }));
        await sleep(120); // paces the load: one liquidation at a time, as a market brings them
      }
    }
    await waitFor(() => allDecided(sim, stateDir, ids), "every liquidation decided before the stop", 30_000);
    await daemon.stop();
    const daemonIds = claimsBy(sim)
      .filter((c) => c.code === 0 && c.liquidationId !== undefined)
      .map((c) => c.liquidationId as number)
      .sort((a, b) => a - b);
    expect(daemonIds.length).toBeGreaterThan(5); // the policy claimed some …
    expect(daemonIds.length).toBeLessThan(3 * SIZES.length); // … and skipped some (min_fee)
    expect(await backtestIds(stateDir)).toEqual(daemonIds);
  });

  test("a competitor takes some first: the sets differ only on ids the competitor took", async ({ rig }) => {
    const sim = await rig.sim({ scenario: { volatilityScale: 1 } });
    const stateDir = await rig.dir("fidelity-rival");
    const daemon = await rig.daemon({ sim, stateDir, policy: POLICY, env: { LIQUIDATOR_CAPTURE: "1" }, until: "ready" });
    const rival = new Set<number>();
    const ids: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (const [i, [symbol, qty]] of SIZES.entries()) {
        const id = sim.core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
        ids.push(id);
        if (i === 1 || i === 5) {
          await sim.core.competitorClaim(id);
          rival.add(id);
        }
        await sleep(120); // paces the load: one liquidation at a time, as a market brings them
      }
    }
    await waitFor(() => allDecided(sim, stateDir, ids), "every liquidation decided before the stop", 30_000);
    await daemon.stop();
    const daemonIds = new Set(
      claimsBy(sim)
        .filter((c) => c.code === 0)
        .map((c) => c.liquidationId as number),
    );
    const replayIds = new Set(await backtestIds(stateDir));
    const differ = [...daemonIds].filter((id) => !replayIds.has(id)).concat([...replayIds].filter((id) => !daemonIds.has(id)));
    for (const id of differ) expect(rival.has(id), `id ${id} differs but no competitor took it`).toBe(true);
    expect([...replayIds].filter((id) => !rival.has(id)).length).toBeGreaterThan(2);
  });
});
