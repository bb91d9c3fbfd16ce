import { PassThrough } from "node:stream";
import { expect } from "vitest";
import { pnl } from "../../src/commands/pnl.js";
import { report } from "../../src/commands/report.js";
import type { MarkoutRecord } from "../../src/core/journalRecords.js";
import { markoutBps } from "../../src/engine/markouts.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { roundToStep, type SymbolSpec } from "../../src/sim/symbols.js";
import type { JournalReplay } from "../../src/store/journalReplay.js";
import { PgStore } from "../../src/store/postgres/pgStore.js";
import { claimsBy, daemonEnv, journalText, metric, waitFor } from "../support/daemonHarness.js";
import { describeWithPostgres, type PgCluster, startPgCluster } from "../support/pgCluster.js";
import { test } from "../support/rig.js";

const SYMBOL = "PERP_ETH_USDC";
/** 1s..30s pass while the first daemon runs; 60s and 300s are left for the one after it. */
const DELAYS = [200, 400, 600, 20_000, 24_000];
const timing = { markoutDelaysMs: DELAYS };

function liquidate(sim: SimulatorHandle): number {
  const spec = sim.core.symbols.get(SYMBOL) as SymbolSpec;
  const qty = roundToStep(5_000 / (sim.core.mark(SYMBOL) as number), spec.qtyStep);
  return sim.core.addLiquidation({ positions: [{ symbol: SYMBOL, position_qty: qty }] });
}

/** Every markout record of the file journal, in file order (duplicates kept: the test counts them). */
function fileMarkouts(dir: string): MarkoutRecord[] {
  const text = journalText(dir);
  return text
    .split("\n")
    .filter((l) => l.includes('"t":"markout"'))
    .map((l) => JSON.parse(l) as MarkoutRecord);
}

const horizons = (records: readonly MarkoutRecord[], id: number) =>
  records
    .filter((r) => r.id === id)
    .map((r) => r.horizon)
    .sort();

/** Moves the mark 2 % against the assignment of `first` (its side read off the record); returns the mark as the venue rounded it. */
function moveAgainst(sim: SimulatorHandle, first: MarkoutRecord): number {
  sim.core.setMark(SYMBOL, first.price * (1 - 0.02 * Math.sign(first.qty)));
  return sim.core.mark(SYMBOL) as number;
}

/**
 * The checks every run ends with: one record per horizon, each consistent with its mark; the next
 * daemon resumed between `resumedAfter` and `resumedBefore`.
 */
function expectComplete(records: readonly MarkoutRecord[], id: number, resumedAfter: number, resumedBefore: number, moved: number): void {
  const mine = records.filter((r) => r.id === id && r.symbol === SYMBOL);
  expect(mine.map((r) => r.horizon).sort()).toEqual(["1s", "300s", "30s", "5s", "60s"]);
  for (const r of mine) {
    if (r.bps !== undefined) expect(r.bps).toBeCloseTo(markoutBps(r.qty, r.price, r.mark as number), 9);
  }
  let sampledAfter = 0;
  for (const h of ["60s", "300s"] as const) {
    const r = mine.find((x) => x.horizon === h) as MarkoutRecord;
    const due = r.assignedAt + (DELAYS[h === "60s" ? 3 : 4] as number);
    // Due before the next daemon resumed: recorded missing; after it: sampled on the moved mark,
    // 2 % against us.
    if (due < resumedAfter) expect(r.missing).toBe("down"); // the first daemon had not sampled it (checked by the caller)
    if (due > resumedBefore) {
      expect(r.mark).toBeCloseTo(moved, 9);
      expect(r.bps).toBeGreaterThan(150);
      sampledAfter++;
    }
  }
  // The horizons are set far enough apart that the next daemon is up before the last one is due.
  expect(sampledAfter).toBeGreaterThan(0);
}

test("a claim yields markouts at every horizon, and a restart on the file journal continues them", async ({ rig }) => {
  const sim = await rig.sim();
  const dir = await rig.dir("markouts");
  const first = await rig.daemon({ sim, stateDir: dir, timing, until: "ready" });
  const id = liquidate(sim);
  await waitFor(() => claimsBy(sim).length === 1, "the claim", 30_000);
  // The scripted mark path: 2 % against the assignment once its first horizon is recorded.
  const moved = moveAgainst(sim, await waitFor(() => fileMarkouts(dir).find((r) => r.id === id), "the first markout", 30_000));
  await waitFor(() => horizons(fileMarkouts(dir), id).length >= 3, "markouts 1s, 5s, 30s", 30_000);
  expect(await metric(first.metricsUrl, "liquidator_markout_bps_count", { horizon: "1s" })).toBe(1);
  await first.stop();
  const before = fileMarkouts(dir);
  expect(horizons(before, id)).toEqual(["1s", "30s", "5s"]);

  const resumedAfter = Date.now();
  const second = await rig.daemon({ sim, stateDir: dir, timing });
  const resumedBefore = Date.now();
  await waitFor(() => horizons(fileMarkouts(dir), id).length >= 5, "markouts 60s and 300s after the restart", 60_000);
  const after = fileMarkouts(dir);
  // What the first daemon wrote is there once, unchanged; the second wrote only what was left.
  expect(after.slice(0, before.length)).toEqual(before);
  expectComplete(after, id, resumedAfter, resumedBefore, moved);
  const late = after.find((r) => r.id === id && r.horizon === "300s");
  expect(await metric(second.metricsUrl, "liquidator_markout_bps_count", { horizon: "300s" })).toBe(late?.bps === undefined ? 0 : 1);

  // `pnl --by claim` shows them beside the net's split.
  await second.stop();
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on("data", (c: Buffer) => chunks.push(c));
  const env = daemonEnv(sim, dir);
  const code = await pnl(["--by", "claim", "--json"], {
    stdout: out,
    stderr: new PassThrough(),
    env,
    signal: new AbortController().signal,
  });
  expect(code).toBe(0);
  const rows = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, number | string | null>[];
  const row = rows.find((r) => r.claim === String(id)) as Record<string, number>;
  expect(row.markout_1s_bps).toBeCloseTo(after.find((r) => r.id === id && r.horizon === "1s")?.bps as number, 9);
  expect((row.liquidator_fee as number) + (row.drift as number) - (row.unwind_cost as number)).toBeCloseTo(row.net as number, 9);

  // `report` shows them per symbol: the mean of this one claim at each horizon.
  const rout = new PassThrough();
  const rchunks: Buffer[] = [];
  rout.on("data", (c: Buffer) => rchunks.push(c));
  expect(await report(["--json"], { stdout: rout, stderr: new PassThrough(), env, signal: new AbortController().signal })).toBe(0);
  const ledger = JSON.parse(Buffer.concat(rchunks).toString("utf8")) as {
    markouts?: Record<string, Record<string, { mean_bps: number; count: number }>>;
  };
  const eth = ledger.markouts?.[SYMBOL];
  expect(eth?.["1s"]).toEqual({ mean_bps: after.find((r) => r.id === id && r.horizon === "1s")?.bps, count: 1 });
}, 150_000);

describeWithPostgres("markouts on PostgreSQL", () => {
  let cluster: PgCluster | undefined;

  test("a takeover continues the markouts the deposed leader had not reached", async ({ rig }) => {
    cluster = await startPgCluster();
    rig.defer(() => cluster?.destroy());
    const sim = await rig.sim();
    const env = { LIQUIDATOR_STATE_BACKEND: "postgres", LIQUIDATOR_POSTGRES_URL: cluster.url };
    const read = async (): Promise<JournalReplay> => {
      const store = await PgStore.open({ url: cluster?.url as string, accountId: sim.accountId });
      try {
        return await store.replay();
      } finally {
        await store.close({ release: false });
      }
    };
    const pgMarkouts = async () => [...(await read()).markouts.values()];

    const a = await rig.daemon({ sim, env, timing, until: "ready" });
    await waitFor(async () => (await metric(a.metricsUrl, "liquidator_leader")) === 1, "the first replica leads", 30_000);
    const b = await rig.daemon({ sim, env, timing, until: "ready" });
    expect(await metric(b.metricsUrl, "liquidator_leader")).toBe(0);

    const id = liquidate(sim);
    await waitFor(() => claimsBy(sim).length === 1, "the claim", 30_000);
    const first = await waitFor(async () => (await pgMarkouts()).find((r) => r.id === id), "the first markout", 30_000);
    const moved = moveAgainst(sim, first);
    await waitFor(async () => horizons(await pgMarkouts(), id).length >= 3, "markouts 1s, 5s, 30s", 30_000);
    await a.stop(); // gives the lease up: the standby takes over at once
    await waitFor(async () => (await metric(b.metricsUrl, "liquidator_leader")) === 1, "the standby leads", 30_000);
    const resumedBefore = Date.now();
    await waitFor(async () => horizons(await pgMarkouts(), id).length >= 5, "markouts 60s and 300s after the takeover", 60_000);
    // The leader ran until its stop: a horizon due before then is its to sample, not missing (0: no such check).
    expectComplete(await pgMarkouts(), id, 0, resumedBefore, moved);
  }, 150_000);
});
