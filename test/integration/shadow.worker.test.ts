/**
 * Shadow variants in the compiled daemon (child process), where their replay runs in a worker
 * thread: a shadow with the live policy's settings claims (virtually) exactly the ids the daemon
 * claims, told of the live claims across the thread in their order among the events; nothing is
 * sent for it (the venue's claim log); SIGTERM ends the worker with the daemon, which exits 0. And
 * the compiled feed on its own: the live account's sends and refusals reach the worker in their place
 * among the events; a replay that throws there stops the shadows, not the caller, and the next variant
 * list starts a new one.
 */
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { CaptureEvent } from "../../src/daemon/records/captureTap.js";
import type * as ShadowFeedModule from "../../src/lab/shadow/shadowFeed.js";
import { buildVariants } from "../../src/lab/sweep/variants.js";
import { liquidationEvent, market, T0 } from "../support/captures.js";
import { claimsBy, countById, daemonEnv, metric, sleep, waitFor, writePolicyFile } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";
import { liveIds, SHADOW_POLICY, SHADOW_SIZES, shadowIds } from "../support/shadowProbe.js";

describe("shadow variants in the compiled daemon", () => {
  test("the worker's shadow with the live settings claims the live ids, sends nothing, and ends with the daemon", async ({
    rig,
    build,
  }) => {
    const sim = await rig.sim({ scenario: { volatilityScale: 1 } });
    const dir = await rig.dir("shadow-worker");
    const config = await writePolicyFile(dir, SHADOW_POLICY, "config.yaml", {
      shadow: { variants: [{ name: "same", set: { "policy.min_fee": 20 } }] },
    });
    const p = rig.spawn(build.cli, [], daemonEnv(sim, `${dir}/state`, { LIQUIDATOR_CONFIG: config, LIQUIDATOR_LOG_LEVEL: "debug" }), dir);
    const url = await p.metricsUrl();
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, "daemon ready", 30_000);
    expect(p.logs.find("shadow variants running (nothing is sent for them)")[0]?.thread).toBe("worker");

    for (let round = 0; round < 2; round++) {
      for (const [symbol, qty] of SHADOW_SIZES) {
        sim.core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
        await sleep(120); // paces the load: one liquidation at a time, as a market brings them
      }
    }
    // Every claim answered and every shadow claim landed (the next mark frame runs what is due).
    await waitFor(
      async () =>
        liveIds(sim).length > 5 && (await metric(url, "liquidator_shadow_claims_total", { variant: "same" })) === liveIds(sim).length,
      "the shadow caught up with the daemon",
      30_000,
    );
    const live = liveIds(sim);
    expect(live.length).toBeLessThan(2 * SHADOW_SIZES.length); // the policy skipped some (min_fee)
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

describe("the compiled shadow feed's worker", () => {
  const ETH = "PERP_ETH_USDC";
  const t = T0 + 2_500;

  test("sends and refusals in their place among the events; a throwing replay stops, the next list starts anew", async ({ build }) => {
    const { ShadowFeed } = (await import(join(build.dir, "lab/shadow/shadowFeed.js"))) as typeof ShadowFeedModule;
    const variants = await buildVariants([], ["policy.min_fee=0"]);
    const ids: number[] = [];
    const errors: unknown[] = [];
    const feed = new ShadowFeed({
      model: { latencyMs: 50, slippageBps: 5, takerFeeBps: 5 },
      claimed: (_v, id) => ids.push(id),
      failed: (err) => errors.push(err),
      schedule: () => undefined, // posted by flush: one batch
    });
    try {
      feed.setVariants(variants);
      expect(feed.thread).toBe("worker");
      // Sent at t+1, taken at t+20, refused at t+30: it was the account's own when it left; refused at t+10: a rival's take.
      const run = async (id: number, refusedAt: number): Promise<void> => {
        const events = [liquidationEvent(t + id * 100, id, { [ETH]: 3 }), liquidationEvent(t + id * 100 + 20, id, {})];
        feed.record(events[0] as CaptureEvent);
        feed.ownSent(id, t + id * 100 + 1);
        if (refusedAt < 20) feed.ownRefused(id);
        feed.record(events[1] as CaptureEvent);
        if (refusedAt >= 20) feed.ownRefused(id);
      };
      for (const ev of market(12, []).slice(0, 3)) feed.record(ev);
      await run(4, 30);
      await run(5, 10);
      for (const ev of market(12, []).slice(3)) feed.record(ev);
      await feed.flush();
      expect(feed.queued).toBe(0);
      expect(ids).toEqual([4]);
      expect(errors).toEqual([]);
      expect(feed.cost().cpuSeconds).toBeGreaterThan(0);

      feed.record({ k: "liquidation", at: t + 5_000, data: null } as unknown as CaptureEvent);
      await feed.flush();
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(Error);
      expect(feed.frames).toBe(false);
      expect(feed.queued).toBe(0);
      feed.setVariants(variants); // the same list, after a failure: started anew
      expect(feed.frames).toBe(true);
      feed.record(liquidationEvent(t + 6_000, 7, { [ETH]: 3 }));
      feed.record(market(20, []).at(-1) as CaptureEvent);
      await feed.flush();
      expect(errors).toHaveLength(1);
      expect(ids).toEqual([4, 7]);
    } finally {
      await feed.close();
    }
  });
});
