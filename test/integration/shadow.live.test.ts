/**
 * Shadow variants on the live feed, against the simulated venue: a shadow with the live policy's
 * settings claims (virtually) exactly the ids the daemon claims; one with a higher min_fee claims a
 * subset; the venue's claim log holds the daemon's claims only (a shadow sends nothing); a SIGHUP with
 * a changed `shadow.variants` list takes effect.
 */
import { describe, expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { claimsBy, countById, metric, OPEN_POLICY, scrape, sleep, waitFor, writePolicyFile } from "../support/daemonHarness.js";
import type { InProcessDaemon } from "../support/inProcessDaemon.js";
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

const variants = (list: { name: string; set: Record<string, unknown> }[]) => ({ shadow: { variants: list } });

/** Ids each shadow claimed, from the daemon's debug log. */
function shadowIds(daemon: InProcessDaemon, variant: string): number[] {
  return daemon.logs
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

async function offerRounds(sim: SimulatorHandle, rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const [symbol, qty] of SIZES) {
      sim.core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
      await sleep(120);
    }
  }
}

describe("shadow variants on the live feed", () => {
  test("same settings: the live ids exactly; higher min_fee: a subset; nothing sent for a shadow", async ({ rig }) => {
    const sim = await rig.sim({ scenario: { volatilityScale: 1 } });
    const daemon = await rig.daemon({
      sim,
      policy: POLICY,
      sections: variants([
        { name: "same", set: { "policy.min_fee": 20 } },
        { name: "fee100", set: { "policy.min_fee": 100 } },
      ]),
      env: { LIQUIDATOR_LOG_LEVEL: "debug" },
      until: "ready",
    });
    await offerRounds(sim, 2);
    await waitFor(
      async () => (await metric(daemon.metricsUrl, "liquidator_shadow_claims_total", { variant: "same" })) > 5,
      "shadow claims",
    );
    // Every claim answered and every shadow claim landed (the next mark frame runs what is due).
    await waitFor(
      async () =>
        daemonIds(sim).length > 5 &&
        (await metric(daemon.metricsUrl, "liquidator_shadow_claims_total", { variant: "same" })) === daemonIds(sim).length,
      "the shadow caught up with the daemon",
    );
    const live = daemonIds(sim);
    expect(live.length).toBeLessThan(2 * SIZES.length); // the policy skipped some (min_fee)
    expect(shadowIds(daemon, "same")).toEqual(live);
    const fee100 = shadowIds(daemon, "fee100");
    expect(fee100.length).toBeGreaterThan(0);
    expect(fee100.length).toBeLessThan(live.length);
    for (const id of fee100) expect(live).toContain(id);
    expect(await metric(daemon.metricsUrl, "liquidator_shadow_claims_total", { variant: "fee100" })).toBe(fee100.length);
    expect(await metric(daemon.metricsUrl, "liquidator_shadow_net_quote", { variant: "same" })).not.toBe(0);

    // Venue side: every claim request the simulator saw is one of the daemon's, each id once.
    const requests = claimsBy(sim);
    expect(requests.length).toBe(await metric(daemon.metricsUrl, "liquidator_claims_submitted_total"));
    expect([...countById(requests).values()].every((n) => n === 1)).toBe(true);
    expect(sim.core.claims().every((c) => c.accountId === sim.accountId)).toBe(true);
  });

  test("SIGHUP with a changed variant list takes effect", async ({ rig }) => {
    const sim = await rig.sim({ scenario: { volatilityScale: 1 } });
    const stateDir = await rig.dir("shadow-hup");
    const daemon = await rig.daemon({
      sim,
      stateDir,
      policy: POLICY,
      sections: variants([{ name: "fee1000", set: { "policy.min_fee": 1_000 } }]),
      env: { LIQUIDATOR_LOG_LEVEL: "debug" },
      until: "ready",
    });
    await offerRounds(sim, 1);
    await waitFor(() => daemonIds(sim).length > 2, "the daemon claims");
    await sleep(1_500); // any shadow claim would have landed
    expect(shadowIds(daemon, "fee1000")).toEqual([]);
    expect(await scrape(daemon.metricsUrl)).toMatch(/liquidator_shadow_claims_total\{variant="fee1000"\} 0/);

    await writePolicyFile(stateDir, POLICY, "policy.yaml", variants([{ name: "fee0", set: { "policy.min_fee": 0 } }]));
    const reloads = daemon.logs.find("policy reloaded").length;
    process.kill(process.pid, "SIGHUP");
    await waitFor(() => daemon.logs.find("policy reloaded").length > reloads, "policy reloaded");
    await offerRounds(sim, 1);
    await waitFor(() => shadowIds(daemon, "fee0").length >= SIZES.length, "the new variant claims every new liquidation");
    const text = await scrape(daemon.metricsUrl);
    expect(text).not.toContain('variant="fee1000"');
    expect(text).toMatch(/liquidator_shadow_claims_total\{variant="fee0"\} [1-9]/);
  });
});
