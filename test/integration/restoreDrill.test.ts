/**
 * The restore drill of docs/operations.md, for both stores: a backup taken while the daemon runs
 * (a copy of the file journal; `pg_dump` of PostgreSQL), restored onto a fresh volume or a fresh
 * cluster, and a daemon started on it. Claims are cut by `max_claim_notional`, so every claimed
 * liquidation stays open at the venue with its rest: a daemon that forgot a claim would claim it
 * again. Nothing is claimed twice, and the positions claimed before the backup are still owed (the
 * file daemon unwinds them; the database holds their fills).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { JOURNAL_FILE } from "../../src/store/fileJournal.js";
import { PgStore } from "../../src/store/postgres/pgStore.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import {
  claimsBy,
  countById,
  daemonEnv,
  ethLong,
  OPEN_POLICY,
  reconcileRounds,
  waitFor,
  writePolicyFile,
} from "../support/daemonHarness.js";
import { readyzOf } from "../support/haRig.js";
import { pgBinDir, pgUnavailableReason, startPgCluster } from "../support/pgCluster.js";
import { test } from "../support/rig.js";
import { openQty } from "../support/unwindProbe.js";

const ETH = "PERP_ETH_USDC";
/**
 * Three ETH are about 11,550 of notional, claimed per symbol (a symbol of 5,000 or more may be cut):
 * each claim takes about half, the rest stays open.
 */
const CUT = { max_claim_notional: 6_000 };

test("file journal: copied mid-run, restored on a fresh volume: no id claimed twice, the claimed positions still unwound", async ({
  rig,
}) => {
  const sim = await rig.sim();
  const first = await rig.dir("drill-file-a");
  const a = await rig.daemon({ sim, stateDir: first, policy: CUT, env: { LIQUIDATOR_UNWIND_MODE: "off" } });
  const ids = [1, 2, 3].map(() => sim.core.addLiquidation(ethLong(3)));
  await waitFor(() => ids.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)), "three partial claims", 30_000);
  // The outcomes journaled too (the venue logs a claim before its answer reaches the daemon).
  const outcomes = () => readFileSync(join(first, JOURNAL_FILE), "utf8").split('"t":"outcome"').length - 1;
  await waitFor(() => outcomes() === ids.length, "three outcomes in the journal");
  expect(openQty(sim, ETH)).toBeGreaterThan(0);
  // The backup: a copy of the journal while the daemon runs (append-only; a torn last line is repaired at open).
  const backup = join(await rig.dir("drill-file-backup"), JOURNAL_FILE);
  await copyFile(join(first, JOURNAL_FILE), backup);
  await a.stop();

  const fresh = await rig.dir("drill-file-b");
  await copyFile(backup, join(fresh, JOURNAL_FILE));
  const b = await rig.daemon({ sim, stateDir: fresh, policy: CUT });
  // The rests are still offered: the restored daemon reads them and leaves them alone.
  await reconcileRounds(b.metricsUrl, 3, 30_000);
  for (const id of ids) expect(countById(claimsBy(sim)).get(id), `id ${id}`).toBe(1);
  await waitFor(() => openQty(sim, ETH) === 0, "the positions claimed before the backup unwound from the restored journal", 30_000);
}, 120_000);

test.skipIf(pgUnavailableReason() !== undefined)(
  "PostgreSQL: pg_dump mid-run, pg_restore into a fresh cluster: no id claimed twice, the claims' fills still there",
  async ({ rig, build }) => {
    const sim = await rig.sim();
    // pg_dump and pg_restore beside the initdb the throwaway clusters use (the same server version).
    const bin = dirname(realpathSync(join(pgBinDir() as string, "initdb")));
    const source = await startPgCluster();
    rig.defer(() => source.destroy());
    const target = await startPgCluster();
    rig.defer(() => target.destroy());
    const dbUrl = await source.createDatabase("drill");

    const replica = async (url: string, name: string) => {
      const key = generateKeyPair();
      sim.core.accounts.registerKey(sim.accountId, key.publicKey);
      const dir = await rig.dir(`drill-pg-${name}`);
      const config = await writePolicyFile(dir, { ...OPEN_POLICY, ...CUT });
      const env = daemonEnv(sim, dir, {
        LIQUIDATOR_CONFIG: config,
        LIQUIDATOR_SECRET: key.secret,
        LIQUIDATOR_STATE_BACKEND: "postgres",
        LIQUIDATOR_POSTGRES_URL: url,
        LIQUIDATOR_UNWIND_MODE: "off",
      });
      const proc = rig.spawn(build.cli, [], env, dir);
      return { proc, url: await proc.metricsUrl() };
    };

    const a = await replica(dbUrl, "a");
    const ids = [1, 2, 3].map(() => sim.core.addLiquidation(ethLong(3)));
    await waitFor(() => ids.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)), "three partial claims", 30_000);
    // The leader journals the outcome right after the answer: wait until the database has all three.
    const accepted = async (url: string) => {
      const store = await PgStore.open({ url, accountId: sim.accountId });
      try {
        const replay = await store.replay();
        return ids.filter((id) => replay.outcomes.get(id)?.some((o) => o.result === "accepted" && (o.fills?.length ?? 0) > 0)).length;
      } finally {
        await store.close({ release: false });
      }
    };
    await waitFor(async () => (await accepted(dbUrl)) === ids.length, "three accepted outcomes in the database", 15_000);

    // The backup while the leader runs: pg_dump's snapshot is consistent without stopping it.
    const dump = join(await rig.dir("drill-pg-backup"), "liquidator.dump");
    const dumped = spawnSync(join(bin, "pg_dump"), ["--format=custom", `--file=${dump}`, dbUrl], { encoding: "utf8" });
    expect(dumped.status, `${dumped.stderr} ${dumped.error}`).toBe(0);
    a.proc.child.kill("SIGTERM");
    expect((await a.proc.exit).code).toBe(0);

    const restoredUrl = await target.createDatabase("drill");
    const restored = spawnSync(join(bin, "pg_restore"), ["--no-owner", `--dbname=${restoredUrl}`, dump], { encoding: "utf8" });
    expect(restored.status, `${restored.stderr} ${restored.error}`).toBe(0);
    expect(await accepted(restoredUrl)).toBe(ids.length);

    const b = await replica(restoredUrl, "b");
    await waitFor(async () => (await readyzOf(b.url))?.body.role === "leader", "b leads", 30_000);
    await reconcileRounds(b.url, 3, 30_000);
    for (const id of ids) expect(countById(claimsBy(sim)).get(id), `id ${id}`).toBe(1);
    // The restored database still owes the positions: they are held at the venue, and it has their fills.
    expect(openQty(sim, ETH)).toBeGreaterThan(0);
  },
  180_000,
);
