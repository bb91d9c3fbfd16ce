/**
 * Shadow variants in the compiled daemon (child process), where their replay runs in a worker
 * thread: a shadow with the live policy's settings claims (virtually) exactly the ids the daemon
 * claims, told of the live claims across the thread in their order among the events; nothing is
 * sent for it (the venue's claim log); SIGTERM ends the worker with the daemon, which exits 0.
 */
import { describe, expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { claimsBy, countById, daemonEnv, metric, OPEN_POLICY, sleep, waitFor, writePolicyFile } from "../support/daemonHarness.js";
import type { LogCollector } from "../support/logCollector.js";
import { test } from "../support/rig.js";

const POLICY = { ...OPEN_POLICY, min_fee: 20 };
const SIZES: [string, number][] = [
  ["PERP_ETH_USDC", 0.05],
  ["PERP_ETH_USDC", 2],
  ["PERP_ETH_USDC", 10],
  ["PERP_SOL_USDC", -3],
  ["PERP_SOL_USDC", -80],
  ["PERP_BTC_USDC", 0.001],
  ["PERP_BTC_USDC", 0.2],
  ["PERP_ETH_USDC", -0.3],
  ["PERP_DOGE_USDC", 20_000],
];

function shadowIds(logs: LogCollector, variant: string): number[] {
  return logs
    .find("shadow claim")
    .filter((l) => l.variant === variant)
    .map((l) => l.id as number)
    .sort((a, b) => a - b);
}

function daemonIds(sim: SimulatorHandle): number[] {
  return claimsBy(sim)
    .filter((c) => c.code === 0 && c.liquidationId !== undefined)
    .map((c) => c.liquidationId as number)
    .sort((a, b) => a - b);
}

describe("shadow variants in the compiled daemon", () => {
  test("the worker's shadow with the live settings claims the live ids, sends nothing, and ends with the daemon", async ({
    rig,
    build,
  }) => {
    const sim = await rig.sim({ scenario: { volatilityScale: 1 } });
    const dir = await rig.dir("shadow-worker");
    const config = await writePolicyFile(dir, POLICY, "config.yaml", {
      shadow: { variants: [{ name: "same", set: { "policy.min_fee": 20 } }] },
    });
    const p = rig.spawn(build.cli, [], daemonEnv(sim, `${dir}/state`, { LIQUIDATOR_CONFIG: config, LIQUIDATOR_LOG_LEVEL: "debug" }), dir);
    const url = await p.metricsUrl();
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, "daemon ready", 30_000);
    expect(p.logs.find("shadow variants running (nothing is sent for them)")[0]?.thread).toBe("worker");

    for (let round = 0; round < 2; round++) {
      for (const [symbol, qty] of SIZES) {
        sim.core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
        await sleep(120);
      }
    }
    // Every claim answered and every shadow claim landed (the next mark frame runs what is due).
    await waitFor(
      async () =>
        daemonIds(sim).length > 5 && (await metric(url, "liquidator_shadow_claims_total", { variant: "same" })) === daemonIds(sim).length,
      "the shadow caught up with the daemon",
      30_000,
    );
    const live = daemonIds(sim);
    expect(live.length).toBeLessThan(2 * SIZES.length); // the policy skipped some (min_fee)
    expect(shadowIds(p.logs, "same")).toEqual(live);
    expect(await metric(url, "liquidator_shadow_events_total")).toBeGreaterThan(0);
    expect(await metric(url, "liquidator_shadow_cpu_seconds_total")).toBeGreaterThan(0);
    expect(p.logs.has("the shadow variants failed and stopped (claims are not affected); a SIGHUP starts them anew")).toBe(false);

    // Venue side: every claim request the simulator saw is one of the daemon's, each id once.
    const requests = claimsBy(sim);
    expect(requests.length).toBe(await metric(url, "liquidator_claims_submitted_total"));
    expect([...countById(requests).values()].every((n) => n === 1)).toBe(true);
    expect(sim.core.claims().every((c) => c.accountId === sim.accountId)).toBe(true);

    // The worker does not keep the daemon alive: SIGTERM drains and exits 0 by itself, not by the
    // shutdown deadline's forced exit (which says so on stderr).
    p.child.kill("SIGTERM");
    expect((await p.exit).code).toBe(0);
    expect(p.logs.has("shutting down: claims drained")).toBe(true);
    expect(p.stderr()).not.toContain("shutdown took longer");
  });
});
