/**
 * Reliability, restarts (the item 3; the disk faults are in reliability.disk):
 *
 * - kill -9 at 10 random (seeded) points — during start-up, journal replay, connecting, or in the
 *   middle of a burst of claims — each followed by a restart on the same state dir: no process
 *   sends a claim for an id an earlier one had journaled unless the venue's record said that claim
 *   did not apply (journaled `not_accepted`), no id is accepted twice or claimed after
 *   our accepted claim (venue truth), the journal is consistent with the venue's record (every
 *   outcome after its intent, every applied claim journaled, fills as the venue recorded them), and
 *   every liquidation no process had journaled is claimed in the end.
 * - A journal with a corrupt line in the middle and a torn last line: the daemon starts, warns about
 *   both, never claims the ids whose intents are intact, and appends after a clean line.
 */
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import type { ClaimLogEntry } from "../../src/sim/claimLog.js";
import { Prng } from "../../src/sim/prng.js";
import { JOURNAL_FILE } from "../../src/store/fileJournal.js";
import { reclaimableAfterRefusal } from "../../src/venue/failureTable.js";
import {
  claimsBy,
  daemonEnv,
  ethLong,
  OPEN_POLICY,
  readJournal,
  readyz,
  reconcileRounds,
  sleep,
  untilReady,
  waitFor,
  writePolicyFile,
} from "../support/daemonHarness.js";
import { journalProblems, rawJournal, requestsPerId, venueClaimRequests } from "../support/reliability.js";
import { test } from "../support/rig.js";

const KILLS = 10;

/**
 * Ids with a (non dry-run) intent in the journal now whose claim may have applied: what a process
 * started now must never claim. An id whose last word is that the claim did not apply (the venue's
 * record or the open list: `not_accepted`; a refusal that leaves it claimable) may be claimed again.
 */
function journaledIds(stateDir: string): Set<number> {
  const journal = readJournal(stateDir);
  const claimable = (id: number): boolean => {
    const last = journal.outcomes.get(id)?.at(-1);
    return last !== undefined && (last.result === "not_accepted" || (last.result === "rejected" && reclaimableAfterRefusal(last.code)));
  };
  return new Set([...journal.intents.values()].filter((i) => i.dryRun !== true && !claimable(i.id)).map((i) => i.id));
}

test("kill -9 at 10 random points during bursts, restarting each time: never twice, journal consistent, nothing left", async ({
  rig,
  build,
}) => {
  const rng = new Prng(0xdead_0009);
  // Each claim is held 120 ms at the venue, so a kill often lands with one in flight.
  const sim = await rig.sim({ claimProcessingDelayMs: 120 });
  const dir = await rig.dir("rel-kills");
  // BTC liquidations are bigger than one claim may take: after our claim they stay open, so a
  // restarted process that forgot the journal would claim them again.
  const config = await writePolicyFile(dir, { ...OPEN_POLICY, max_claim_notional: 20_000 });
  const stateDir = join(dir, "state");
  const env = daemonEnv(sim, stateDir, { LIQUIDATOR_CONFIG: config });
  const ids: number[] = [];
  const burst = (n: number): void => {
    for (let i = 0; i < n; i++) {
      if (rng.chance(0.3))
        ids.push(sim.core.addLiquidation({ positions: [{ symbol: "PERP_BTC_USDC", position_qty: 0.3 + rng.int(0, 3) / 10 }] }));
      else ids.push(sim.core.addLiquidation(ethLong(0.05 + rng.int(0, 30) / 100)));
    }
  };
  /**
   * Per process: what the journal held when it started, and the venue times between which its
   * requests were received (after its spawn, up to its kill: a request the kill left in flight was
   * received before it, whenever the venue logs it).
   */
  const runs: { journaled: Set<number>; fromAt: number; toAt: number; killedAt: string }[] = [];
  const ofRun = (q: ClaimLogEntry, run: (typeof runs)[number]): boolean => q.receivedAt > run.fromAt && q.receivedAt <= run.toAt;

  for (let k = 0; k < KILLS; k++) {
    const journaled = journaledIds(stateDir);
    const fromAt = sim.core.now();
    const p = rig.spawn(build.cli, [], env, dir);
    burst(rng.int(1, 3)); // open before the process is up: found by its first reconcile
    let killedAt: string;
    // Every fifth kill lands early; the others while it runs, after a random time or claim count
    // (the sleeps pick the kill's moment: they are the scenario, not waits for an event).
    const point = k % 5 === 0 ? 0 : rng.int(1, 2);
    if (point === 0) {
      // Early: start-up, journal replay, connecting.
      const ms = rng.int(50, 700);
      await sleep(ms);
      killedAt = `${ms} ms after spawn`;
    } else {
      const url = await p.metricsUrl();
      burst(rng.int(1, 2)); // more arrive while it runs
      if (point === 1) {
        await waitFor(async () => (await readyz(url)).status === 200, `run ${k} ready`, 20_000, 20); // polled fast: the kill's moment is measured from it
        const ms = rng.int(0, 1_000);
        await sleep(ms);
        killedAt = `${ms} ms after ready`;
      } else {
        // After the n-th claim request of this process reached the venue (n random).
        const n = rng.int(1, 3);
        await waitFor(
          () => venueClaimRequests(sim).filter((r) => r.receivedAt > fromAt).length >= n,
          `run ${k}: ${n} claims sent`,
          20_000,
          5,
        );
        killedAt = `after its claim request ${n}`;
      }
    }
    p.child.kill("SIGKILL");
    const end = await p.exit;
    expect(end.signal, `run ${k} killed`).toBe("SIGKILL");
    runs.push({ journaled, fromAt, toAt: sim.core.now(), killedAt });
  }

  // The last restart runs to the end.
  const journaled = journaledIds(stateDir);
  const fromAt = sim.core.now();
  const last = rig.spawn(build.cli, [], env, dir);
  const url = await last.metricsUrl();
  const replayed = await waitFor(() => last.logs.lines.find((l) => /^journal replayed/.test(l.msg)), "journal replayed", 30_000);
  expect(replayed.ids).toBe(journaled.size); // every id journaled by the killed runs, replayed
  const leftover = ids.filter((id) => !journaled.has(id));
  await waitFor(
    () => leftover.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)),
    "every liquidation never journaled claimed by the last process",
    60_000,
  );
  await untilReady(url, "last process ready");
  await reconcileRounds(url, 1, 15_000); // it offers every open id again: a duplicate would show now
  runs.push({ journaled, fromAt, toAt: sim.core.now(), killedAt: "never (SIGTERM at the end)" });
  last.child.kill("SIGTERM");
  expect((await last.exit).code).toBe(0);

  // The kills did land in the middle of things: several runs sent claims, several were cut short.
  const requests = venueClaimRequests(sim);
  expect(runs.filter((r) => requests.some((q) => ofRun(q, r))).length).toBeGreaterThanOrEqual(5);
  expect(readJournal(stateDir).intents.size).toBeGreaterThan(0);

  // 1. No process claimed an id an earlier process had journaled, unless the venue's record (or the
  //    open list) said the earlier claim did not apply: the journal says so with `not_accepted`.
  const outcomes = readJournal(stateDir).outcomes;
  const notApplied = (id: number): boolean => (outcomes.get(id) ?? []).some((o) => o.result === "not_accepted");
  for (const [k, run] of runs.entries()) {
    const reclaimed = requests.filter(
      (q) => ofRun(q, run) && run.journaled.has(q.liquidationId as number) && !notApplied(q.liquidationId as number),
    );
    expect(
      reclaimed.map((q) => q.liquidationId),
      `run ${k} (killed ${run.killedAt}) re-claimed journaled ids the venue had not said were not applied`,
    ).toEqual([]);
  }
  // 2. Venue truth: at most one accepted claim per id, no request after our accepted one.
  for (const [id, list] of requestsPerId(requests)) {
    const accepted = list.filter((q) => q.code === 0);
    expect(accepted.length, `accepted claims of ${id}`).toBeLessThanOrEqual(1);
    if (accepted.length === 1)
      expect(
        list.filter((q) => q.seq > (accepted[0]?.seq ?? 0)).map((q) => q.code),
        `requests for ${id} after it was accepted`,
      ).toEqual([]);
  }
  // 3. The journal tells the truth, and kill -9 never tore a line (each record is one write).
  expect(journalProblems(stateDir, sim)).toEqual([]);
  const raw = rawJournal(stateDir);
  expect(raw.lines.filter((l) => !l.ok)).toEqual([]);
  expect(raw.tornTail).toBe(false);
}, 150_000);

test("a corrupt middle line and a torn last line: recovered with warnings, intact intents never claimed again", async ({ rig }) => {
  const sim = await rig.sim();
  const dir = await rig.dir("rel-torn");
  const intact = [sim.core.addLiquidation(ethLong(0.2)), sim.core.addLiquidation(ethLong(0.3))];
  const torn = sim.core.addLiquidation(ethLong(0.4));
  const intent = (id: number): string =>
    JSON.stringify({
      t: "intent",
      id,
      at: Date.now() - 1_000,
      ratio: 1,
      limitPrice: { PERP_ETH_USDC: 3_900 },
      expectedFee: 6,
      perSymbolQty: { PERP_ETH_USDC: 0.2 },
    });
  const stateDir = join(dir, "state");
  await mkdir(stateDir, { recursive: true });
  const path = join(stateDir, JOURNAL_FILE);
  // Intact intent, a line of garbage (a disk error), intact intent, then a write cut short.
  await writeFile(path, `${intent(intact[0] as number)}\n{"t":"outcome","id":\u0000\u0000garbage\n${intent(intact[1] as number)}\n`);
  await appendFile(path, intent(torn).slice(0, 40));

  const daemon = await rig.daemon({ sim, stateDir, timing: { reconcileIntervalMs: 300 }, until: "ready" });
  const warnings = daemon.logs.lines.filter((l) => l.level === "warn").map((l) => l.msg);
  expect(warnings).toContain("journal ended in a torn line; truncated it");
  expect(warnings).toContain("journal has corrupt lines; skipped them");
  const replayed = daemon.logs.lines.find((l) => /^journal replayed/.test(l.msg));
  expect(replayed?.ids).toBe(2);

  // The torn intent never completed: that id is claimable (once); a new one is claimed as usual.
  const fresh = sim.core.addLiquidation(ethLong(0.5));
  await waitFor(
    () => [torn, fresh].every((id) => claimsBy(sim).some((c) => c.liquidationId === id)),
    "the torn and the new liquidation claimed",
  );
  await reconcileRounds(daemon.metricsUrl); // they offer the intact ones again and again
  const perId = requestsPerId(venueClaimRequests(sim));
  for (const id of intact) expect(perId.has(id), `intact intent ${id} claimed again`).toBe(false);
  expect(perId.get(torn)?.length).toBe(1);

  // New records follow a clean line: the only bad line left is the old corrupt one.
  const raw = rawJournal(stateDir);
  expect(raw.tornTail).toBe(false);
  expect(raw.lines.filter((l) => !l.ok).length).toBe(1);
  expect(
    readJournal(stateDir)
      .outcomes.get(fresh)
      ?.map((o) => o.result),
  ).toEqual(["accepted"]);
}, 60_000);
