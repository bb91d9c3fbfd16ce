/**
 * kill -9 in the middle of a burst, then a restart on the same state dir: the journal is replayed
 * ("journal replayed" in the log), no liquidation id is ever claimed twice by our account (venue
 * truth: at most one claim request per id), and the ones the first process never got to are claimed
 * by the second. The daemon is the compiled CLI in a child process; the venue runs in this process.
 */
import { expect } from "vitest";
import {
  claimsBy,
  countById,
  daemonEnv,
  OPEN_POLICY,
  readJournal,
  reconcileRounds,
  requestsFrom,
  untilReady,
  waitFor,
  writePolicyFile,
} from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

const BURST = 30;

test("restart after kill -9 mid-burst: no id claimed twice, the rest claimed after the restart", async ({ rig, build }) => {
  // Each claim is held 150 ms at the venue, so the kill very likely lands with one in flight.
  const sim = await rig.sim({ claimProcessingDelayMs: 150 });
  const dir = await rig.dir("restart");
  const config = await writePolicyFile(dir, OPEN_POLICY);
  const stateDir = `${dir}/state`;
  const env = daemonEnv(sim, stateDir, { LIQUIDATOR_CONFIG: config });

  const first = rig.spawn(build.cli, [], env, dir);
  const url1 = await first.metricsUrl();
  await untilReady(url1, "first daemon ready", 30_000);

  const ids: number[] = [];
  for (let i = 0; i < BURST; i++)
    ids.push(sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 0.1 + i / 100 }] }));
  await waitFor(() => requestsFrom(sim).length >= 4, "the first few claims", 30_000);
  first.child.kill("SIGKILL");
  const end = await first.exit;
  expect(end.signal).toBe("SIGKILL");

  const beforeRestart = readJournal(stateDir);
  const intended = [...beforeRestart.intents.keys()];
  expect(intended.length).toBeGreaterThanOrEqual(4);
  expect(intended.length).toBeLessThan(BURST); // killed mid-burst, not after it
  // Told apart by when the venue received them: a request the kill left in flight may still be
  // logged later, but it was received before the restart.
  const restartAt = sim.core.now();

  const second = rig.spawn(build.cli, [], env, dir);
  const url2 = await second.metricsUrl();
  const replayed = await waitFor(() => second.logs.lines.find((l) => /^journal replayed/.test(l.msg)), "journal replayed log line", 30_000);
  expect(replayed.ids).toBe(intended.length);

  // Every id the first process never wrote an intent for is claimed by the second.
  const rest = ids.filter((id) => !beforeRestart.intents.has(id));
  await waitFor(() => rest.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)), "the remaining liquidations claimed", 30_000);
  await untilReady(url2, "second daemon ready");
  await reconcileRounds(url2, 1, 15_000); // it offers every open id again: any duplicate would show now
  const claimedByFirst = new Set(
    claimsBy(sim)
      .filter((c) => c.receivedAt < restartAt)
      .map((c) => c.liquidationId),
  );

  const perId = countById(requestsFrom(sim));
  expect([...perId].filter(([, n]) => n > 1)).toEqual([]);
  // The second process sent nothing for an id the first one had an intent for.
  const secondIds = requestsFrom(sim)
    .filter((r) => r.receivedAt >= restartAt)
    .map((r) => r.liquidationId);
  expect(secondIds.length).toBeGreaterThanOrEqual(rest.length);
  expect(secondIds.filter((id) => beforeRestart.intents.has(id as number))).toEqual([]);
  for (const id of claimedByFirst) expect(beforeRestart.intents.has(id as number)).toBe(true);

  // The journal holds both runs and tells the truth: each accepted outcome matches a venue claim.
  const journal = readJournal(stateDir);
  for (const [id, outcomes] of journal.outcomes) {
    if (outcomes.some((o) => o.result === "accepted")) expect(claimsBy(sim).some((c) => c.liquidationId === id)).toBe(true);
  }
  second.child.kill("SIGTERM");
  expect((await second.exit).code).toBe(0);
}, 90_000);
