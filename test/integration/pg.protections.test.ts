/**
 * Protections across a takeover (state.backend: postgres): the leader halts on the daily loss limit
 * in a market that runs against each assignment, is killed (-9), and the standby that takes over is
 * halted from the journal's protection record: it claims nothing new until `liquidator rearm` re-arms
 * it (a SIGHUP that leaves the protections section as it was does not).
 */
import { expect } from "vitest";
import { generateKeyPair } from "../../src/venue/signer.js";
import { runCli } from "../support/captures.js";
import {
  addLong,
  claimsBy,
  daemonEnv,
  metric,
  nothingHappens,
  OPEN_POLICY,
  reconcileReads,
  reconcileRounds,
  requestsFrom,
  sleep,
  waitFor,
  writePolicyFile,
} from "../support/daemonHarness.js";
import type { DaemonProcess } from "../support/daemonProcess.js";
import { readyzOf } from "../support/haRig.js";
import { describeWithPostgres, type PgCluster, pgClusterFixture } from "../support/pgCluster.js";
import { test as rigTest } from "../support/rig.js";

const test = rigTest.extend<{ pgc: PgCluster }>({
  pgc: pgClusterFixture,
});

interface Replica {
  proc: DaemonProcess;
  url: string;
  config: string;
  env: NodeJS.ProcessEnv;
}

const ETH = "PERP_ETH_USDC";

describeWithPostgres("protections across a takeover", () => {
  test("the leader halts on the daily loss; after its kill -9 the new leader is halted too, until liquidator rearm", async ({
    rig,
    build,
    pgc,
  }) => {
    // Marks move 5 % against each claim at once; positions are kept, so each claim adds about 420
    // of loss at mark: the second crosses 1,000.
    const sim = await rig.sim({ scenario: { adverseMoveBps: 500 } });
    const dbUrl = await pgc.createDatabase("protect_takeover");
    const start = async (name: string): Promise<Replica> => {
      const key = generateKeyPair();
      sim.core.accounts.registerKey(sim.accountId, key.publicKey);
      const dir = await rig.dir(`protect-${name}`);
      const config = await writePolicyFile(dir, OPEN_POLICY, "config.yaml", { protections: { daily_loss_limit: 1_000 } });
      const env = daemonEnv(sim, dir, {
        LIQUIDATOR_CONFIG: config,
        LIQUIDATOR_SECRET: key.secret,
        LIQUIDATOR_STATE_BACKEND: "postgres",
        LIQUIDATOR_POSTGRES_URL: dbUrl,
        LIQUIDATOR_UNWIND_MODE: "off",
      });
      const proc = rig.spawn(build.cli, [], env, dir);
      return { proc, url: await proc.metricsUrl(), config, env };
    };
    const replicas = await Promise.all([start("a"), start("b")]);
    const role = async (r: Replica) =>
      r.proc.exited() ? undefined : ((await readyzOf(r.url))?.body as { role?: string; trading_state?: string } | undefined);
    const leader = await waitFor(
      async () => {
        for (const r of replicas) if ((await role(r))?.role === "leader") return r;
        return undefined;
      },
      "a leader",
      30_000,
    );
    const standby = replicas.find((r) => r !== leader) as Replica;

    for (let k = 1; k <= 5 && (await role(leader))?.trading_state !== "halted"; k++) {
      const id = addLong(sim, ETH, 10_000);
      await waitFor(() => claimsBy(sim).some((c) => c.liquidationId === id), `claim ${k}`, 20_000);
      await sleep(1_500); // the adverse mark arrived and the leader observed it
    }
    await waitFor(async () => (await role(leader))?.trading_state === "halted", "the leader halted", 10_000);
    // The loss crosses the limit at the 2nd claim; the guard looks every second, so on a loaded
    // machine a 3rd may leave before it does: halted within one claim (the daemon test pins the 2nd).
    const claimed = claimsBy(sim).length;
    expect(claimed).toBeGreaterThanOrEqual(2);
    expect(claimed).toBeLessThanOrEqual(3);

    leader.proc.child.kill("SIGKILL");
    await leader.proc.exit;
    await waitFor(async () => (await role(standby))?.role === "leader", "the standby took over", 30_000);
    await waitFor(async () => (await role(standby))?.trading_state === "halted", "the new leader halted from the journal", 10_000);
    const held = addLong(sim, ETH, 10_000);
    await waitFor(
      async () => (await metric(standby.url, "liquidator_claims_skipped_total", { reason: "protection" })) >= 1,
      "skipped: protection",
    );
    await reconcileRounds(standby.url, 2, 15_000);
    expect(requestsFrom(sim).some((r) => r.liquidationId === held)).toBe(false);

    // A SIGHUP that changes nothing in `protections` leaves it halted; `liquidator rearm` reaches the
    // new leader through PostgreSQL's operator_requests.
    standby.proc.child.kill("SIGHUP");
    await waitFor(() => standby.proc.logs.has("policy reloaded"), "reloaded");
    // Reconcile rounds of 5 s span several of the guard's once-a-second observations: none re-arms.
    await nothingHappens(
      async () => (await role(standby))?.trading_state !== "halted" && "re-armed by a reload",
      reconcileReads(standby.url),
      2,
    );
    const rearmed = await runCli(["rearm", "--config", standby.config], standby.env);
    expect(rearmed.code).toBe(0);
    expect(rearmed.stdout).toMatch(/taken by /);
    // Re-armed from the current net, the new leader claims what the gate held back. Not polled as
    // `trading_state: active`: that claim's own adverse move (5 % on everything held, now about 8 ETH)
    // can cross the limit again within milliseconds, which is the protection working, not a failure.
    await waitFor(
      () => standby.proc.logs.lines.some((l) => l.msg === "protections re-armed" && l.by === "liquidator rearm"),
      "re-armed by liquidator rearm",
      30_000,
    );
    await waitFor(() => claimsBy(sim).some((c) => c.liquidationId === held), "claimed after the re-arm", 20_000);
  }, 180_000);
});
