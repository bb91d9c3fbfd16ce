/**
 * Shadow variants on the live feed, against the simulated venue: a shadow with the live policy's
 * settings claims (virtually) exactly the ids the daemon claims; one with a higher min_fee claims a
 * subset; the venue's claim log holds the daemon's claims only (a shadow sends nothing); a SIGHUP with
 * a changed `shadow.variants` list takes effect.
 */
import { describe, expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { claimsBy, countById, metric, nothingHappens, scrape, sleep, waitFor, writePolicyFile } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";
import { liveIds, SHADOW_POLICY, SHADOW_SIZES, shadowIds } from "../support/shadowProbe.js";

const variants = (list: { name: string; set: Record<string, unknown> }[]) => ({ shadow: { variants: list } });

async function offerRounds(sim: SimulatorHandle, rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const [symbol, qty] of SHADOW_SIZES) {
      sim.core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
      await sleep(120); // paces the load: one liquidation at a time, as a market brings them
    }
  }
}

describe("shadow variants on the live feed", () => {
  test("same settings: the live ids exactly; higher min_fee: a subset; nothing sent for a shadow", async ({ rig }) => {
    const sim = await rig.sim({ scenario: { volatilityScale: 1 } });
    const daemon = await rig.daemon({
      sim,
      policy: SHADOW_POLICY,
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
        liveIds(sim).length > 5 &&
        (await metric(daemon.metricsUrl, "liquidator_shadow_claims_total", { variant: "same" })) === liveIds(sim).length,
      "the shadow caught up with the daemon",
    );
    const live = liveIds(sim);
    expect(live.length).toBeLessThan(2 * SHADOW_SIZES.length); // the policy skipped some (min_fee)
    expect(shadowIds(daemon.logs, "same")).toEqual(live);
    const fee100 = shadowIds(daemon.logs, "fee100");
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
      policy: SHADOW_POLICY,
      sections: variants([{ name: "fee1000", set: { "policy.min_fee": 1_000 } }]),
      env: { LIQUIDATOR_LOG_LEVEL: "debug" },
      until: "ready",
    });
    await offerRounds(sim, 1);
    await waitFor(() => liveIds(sim).length > 2, "the daemon claims");
    // A shadow claim lands at the first live event past its modelled latency (hundreds of ms): three
    // more events replayed by the shadows (marks come every second) and any would have landed.
    await nothingHappens(
      () => shadowIds(daemon.logs, "fee1000").length > 0 && "the fee1000 shadow claimed",
      { what: "live events replayed by the shadows", count: () => metric(daemon.metricsUrl, "liquidator_shadow_events_total") },
      3,
    );
    expect(await scrape(daemon.metricsUrl)).toMatch(/liquidator_shadow_claims_total\{variant="fee1000"\} 0/);

    await writePolicyFile(stateDir, SHADOW_POLICY, "policy.yaml", variants([{ name: "fee0", set: { "policy.min_fee": 0 } }]));
    const reloads = daemon.logs.find("policy reloaded").length;
    process.kill(process.pid, "SIGHUP");
    await waitFor(() => daemon.logs.find("policy reloaded").length > reloads, "policy reloaded");
    await offerRounds(sim, 1);
    await waitFor(() => shadowIds(daemon.logs, "fee0").length >= SHADOW_SIZES.length, "the new variant claims every new liquidation");
    const text = await scrape(daemon.metricsUrl);
    expect(text).not.toContain('variant="fee1000"');
    expect(text).toMatch(/liquidator_shadow_claims_total\{variant="fee0"\} [1-9]/);
  });
});
