/**
 * The daemon as an operator runs it (compiled CLI, child process) against the simulated venue in
 * this process: SIGHUP applies a new valid policy without reconnecting and ignores an invalid one;
 * SIGTERM with a claim in flight drains it (outcome journaled), closes the sockets and exits 0;
 * `run --dry-run` sends nothing.
 */
import { writeFile } from "node:fs/promises";
import { describe, expect } from "vitest";
import type { Build } from "../support/buildOnce.js";
import {
  claimsBy,
  daemonEnv,
  ethLong,
  metric,
  nothingHappens,
  OPEN_POLICY,
  readJournal,
  reconcileReads,
  requestsFrom,
  type startQuietSim,
  waitFor,
  writePolicyFile,
} from "../support/daemonHarness.js";
import { type Rig, test } from "../support/rig.js";

async function start(
  { rig, build }: { rig: Rig; build: Build },
  simOptions: Parameters<typeof startQuietSim>[0],
  args: string[] = [],
  extraEnv: Record<string, string> = {},
) {
  const sim = await rig.sim(simOptions);
  const dir = await rig.dir("signals");
  const config = await writePolicyFile(dir, OPEN_POLICY);
  const stateDir = `${dir}/state`;
  const p = rig.spawn(build.cli, args, daemonEnv(sim, stateDir, { LIQUIDATOR_CONFIG: config, ...extraEnv }), dir);
  const url = await p.metricsUrl();
  await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, "daemon ready", 30_000);
  return { sim, p, url, config, stateDir, dir };
}

const sol = (qty: number) => ({ positions: [{ symbol: "PERP_SOL_USDC", position_qty: qty }] });

describe("daemon child process", () => {
  test("SIGHUP: a valid new policy applies without reconnecting; an invalid one is logged and ignored", async ({ rig, build }) => {
    const { sim: s, p, url, config, dir } = await start({ rig, build }, {});
    const warm = s.core.addLiquidation(ethLong(0.2));
    await waitFor(() => claimsBy(s).some((c) => c.liquidationId === warm), "ETH claimed under the first policy");
    const accepted = s.streams.stats().connectionsAccepted;
    const reconnects = await metric(url, "liquidator_ws_reconnects_total");
    // The cap the exposure alert compares with, and a live (not embedded) venue, as configured.
    expect(await metric(url, "liquidator_exposure_cap_quote")).toBe(OPEN_POLICY.max_total_exposure);
    expect(await metric(url, "liquidator_venue_simulated")).toBe(0);

    await writePolicyFile(dir as string, { ...OPEN_POLICY, max_total_exposure: 70_000_000, symbols: { deny: ["PERP_ETH_USDC"] } });
    p.child.kill("SIGHUP");
    await waitFor(() => p.logs.has("policy reloaded"), "policy reloaded");
    // Each changed key old → new; a policy change does not touch the protections.
    expect(p.logs.find("config key changed").map((l) => [l.key, l.from, l.to])).toEqual([
      ["policy.max_total_exposure", OPEN_POLICY.max_total_exposure, 70_000_000],
      ["policy.symbols.deny", [], ["PERP_ETH_USDC"]],
    ]);
    expect(p.logs.has("protections re-armed")).toBe(false);
    expect(await metric(url, "liquidator_exposure_cap_quote")).toBe(70_000_000);
    const denied = s.core.addLiquidation(ethLong(0.3));
    const allowed = s.core.addLiquidation(sol(-5));
    await waitFor(() => claimsBy(s).some((c) => c.liquidationId === allowed), "SOL still claimed");
    await waitFor(
      async () => (await metric(url, "liquidator_claims_skipped_total", { reason: "symbol_denied" })) >= 1,
      "symbol_denied counted",
    );
    // Reconcile rounds re-decide the open ETH liquidation: still denied.
    await nothingHappens(
      () => requestsFrom(s).some((r) => r.liquidationId === denied) && "the denied ETH was claimed",
      reconcileReads(url),
      2,
    );
    expect(s.streams.stats().connectionsAccepted).toBe(accepted);
    expect(await metric(url, "liquidator_ws_reconnects_total")).toBe(reconnects);

    // Invalid: logged, ignored, the running (deny ETH) policy stays.
    await writeFile(config, "policy:\n  min_fee: -5\n  no_such_key: 1\n");
    p.child.kill("SIGHUP");
    await waitFor(() => p.logs.has("config reload refused; keeping the running policy"), "reload refused");
    const refusedLine = p.logs.find("config reload refused; keeping the running policy")[0];
    expect(String(refusedLine?.key)).toMatch(/policy/);
    expect(await metric(url, "liquidator_config_reloads_total", { result: "refused" })).toBe(1);
    expect(await metric(url, "liquidator_config_reloads_total", { result: "applied" })).toBe(1);
    const denied2 = s.core.addLiquidation(ethLong(0.4));
    const allowed2 = s.core.addLiquidation(sol(-6));
    await waitFor(() => claimsBy(s).some((c) => c.liquidationId === allowed2), "SOL claimed after the refused reload");
    await nothingHappens(
      () => requestsFrom(s).some((r) => r.liquidationId === denied || r.liquidationId === denied2) && "a denied ETH was claimed",
      reconcileReads(url),
      2,
    );
    expect(p.exited()).toBe(false);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(s.streams.stats().connectionsAccepted).toBe(accepted);

    // A changed protections section is applied and re-arms.
    await writePolicyFile(
      dir as string,
      { ...OPEN_POLICY, max_total_exposure: 70_000_000, symbols: { deny: ["PERP_ETH_USDC"] } },
      "config.yaml",
      {
        protections: { daily_loss_limit: 5_000 },
      },
    );
    p.child.kill("SIGHUP");
    await waitFor(() => p.logs.has("protections re-armed"), "re-armed by the changed section");
    expect(p.logs.find("protections re-armed")[0]?.by).toBe("SIGHUP: the protections section changed");

    p.child.kill("SIGTERM");
    expect((await p.exit).code).toBe(0);
  }, 120_000);

  test("SIGTERM with a claim in flight: outcome journaled, sockets closed, exit 0", async ({ rig, build }) => {
    const { sim: s, p, stateDir } = await start({ rig, build }, { claimProcessingDelayMs: 1_500 });
    const id = s.core.addLiquidation(ethLong(0.5));
    // The intent is journaled before the request leaves; the venue then holds it 1.5 s.
    await waitFor(() => readJournal(stateDir).intents.has(id), "the claim's intent");
    expect(readJournal(stateDir).outcomes.has(id)).toBe(false);
    const t0 = Date.now();
    p.child.kill("SIGTERM");
    const end = await p.exit;
    const tookMs = Date.now() - t0;
    expect(end.code).toBe(0);
    // It drained by itself, not by run's 4.5 s last-resort deadline.
    expect(p.stderr()).not.toMatch(/shutdown took longer/);
    expect(tookMs).toBeLessThan(5_000);
    expect(p.logs.has("shutting down: claims drained")).toBe(true);
    expect(
      readJournal(stateDir)
        .outcomes.get(id)
        ?.map((o) => o.result),
    ).toEqual(["accepted"]);
    expect(claimsBy(s).map((c) => c.liquidationId)).toEqual([id]);
    await waitFor(() => {
      const st = s.streams.stats();
      return st.publicSockets === 0 && st.privateSockets === 0;
    }, "the venue sees no socket left");
  }, 60_000);

  test("run --dry-run: decisions journaled, no claim request reaches the venue", async ({ rig, build }) => {
    const { sim: s, p, url, stateDir } = await start({ rig, build }, {}, ["--dry-run"]);
    const ids = [s.core.addLiquidation(ethLong(1)), s.core.addLiquidation(sol(-8))];
    await waitFor(() => ids.every((id) => readJournal(stateDir).outcomes.get(id)?.[0]?.result === "dry_run"), "dry-run outcomes");
    expect(ids.every((id) => readJournal(stateDir).intents.get(id)?.dryRun === true)).toBe(true);
    expect(await metric(url, "liquidator_claims_result_total", { result: "dry_run" })).toBe(2);
    expect(await metric(url, "liquidator_dry_run")).toBe(1);
    expect(s.core.claimRequests()).toEqual([]);

    // A SIGHUP reload (the file says nothing about dry_run) must not turn a `--dry-run` daemon live.
    p.child.kill("SIGHUP");
    await waitFor(() => p.logs.has("policy reloaded"), "policy reloaded");
    expect(p.logs.find("policy reloaded")[0]?.dryRun).toBe(true);
    const later = s.core.addLiquidation(ethLong(0.7));
    await waitFor(() => readJournal(stateDir).outcomes.get(later)?.[0]?.result === "dry_run", "dry-run outcome after the reload");
    expect(await metric(url, "liquidator_dry_run")).toBe(1);
    p.child.kill("SIGTERM");
    expect((await p.exit).code).toBe(0);
    expect(s.core.claimRequests()).toEqual([]);
  }, 60_000);
});
