/**
 * Fidelity of the policy lab: the daemon runs against the simulated venue with `state.capture` on;
 * replaying its capture with the same config must claim exactly the ids the daemon claimed (tolerance:
 * none, with no competitor on the venue). With a competitor taking some ids, the sets may differ only
 * on ids the competitor took.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { runCli } from "../support/captures.js";
import { claimsBy, OPEN_POLICY, sleep } from "../support/daemonHarness.js";
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

describe("policy lab fidelity", () => {
  test("no competitor: the replay claims exactly the ids the daemon claimed", async ({ rig }) => {
    const sim = await rig.sim({ scenario: { volatilityScale: 1 } });
    const stateDir = await rig.dir("fidelity");
    const daemon = await rig.daemon({ sim, stateDir, policy: POLICY, env: { LIQUIDATOR_CAPTURE: "1" }, until: "ready" });
    for (let round = 0; round < 3; round++) {
      for (const [symbol, qty] of SIZES) {
        sim.core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
        await sleep(120); // paces the load: one liquidation at a time, as a market brings them
      }
    }
    await sleep(2_500); // the last liquidations are seen, decided and claimed before the stop (which drains what is in flight)
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
    for (let round = 0; round < 2; round++) {
      for (const [i, [symbol, qty]] of SIZES.entries()) {
        const id = sim.core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
        if (i === 1 || i === 5) {
          await sim.core.competitorClaim(id);
          rival.add(id);
        }
        await sleep(120); // paces the load: one liquidation at a time, as a market brings them
      }
    }
    await sleep(2_500); // the last liquidations are seen, decided and claimed before the stop (which drains what is in flight)
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
