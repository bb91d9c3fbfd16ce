/**
 * Reliability, the claims journal's disk (the item 3): a claim is never sent without its
 * intent journaled, so when the journal cannot be written the daemon stops claiming, says why on
 * /readyz, stays up, and resumes by itself once the disk is fixed.
 *
 * - Unwritable state dir at start (its path runs through a regular file: ENOTDIR, even for root):
 *   /readyz 503 `journal_error:...`, no claim reaches the venue; once the folder exists, holding a
 *   journal, it opens, replays (that journal's id is never claimed) and claims.
 * - A real file system, when the test may mount one (root in the test container; skipped with the
 *   reason otherwise): a tiny tmpfs, read-only at start (EROFS) and then made writable; later filled
 *   up mid-run (ENOSPC): `claiming_paused:journal`, nothing sent while it lasts; freed → resumes.
 * - File size limit (RLIMIT_FSIZE set on the running child with prlimit: EFBIG, no mount needed):
 *   the same stop and resume; runs when the tmpfs test cannot, or with RELIABILITY_DISK=all.
 */

import { statSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { JOURNAL_FILE } from "../../src/store/fileJournal.js";
import {
  claimsBy,
  daemonEnv,
  ethLong,
  metric,
  OPEN_POLICY,
  type Readyz,
  readJournal,
  readyz,
  reconcileRounds,
  removeDir,
  tempDir,
  untilReady,
  waitFor,
  writePolicyFile,
} from "../support/daemonHarness.js";
import {
  fillDisk,
  freeDisk,
  journalProblems,
  mountTmpfs,
  remount,
  requestsPerId,
  setFileSizeLimit,
  unmount,
  venueClaimRequests,
} from "../support/reliability.js";
import { type Rig, test } from "../support/rig.js";

/** A valid intent record for `id` (what an earlier run would have written before claiming it). */
function intentLine(id: number): string {
  return `${JSON.stringify({ t: "intent", id, at: Date.now() - 1_000, ratio: 1, limitPrice: { PERP_ETH_USDC: 3_900 }, expectedFee: 6, perSymbolQty: { PERP_ETH_USDC: 0.2 } })}\n`;
}

const claimed = (s: SimulatorHandle, id: number): boolean => claimsBy(s).some((c) => c.liquidationId === id);

/**
 * Can this test mount a tmpfs? Probed once, while the file is collected, so that the EFBIG test is
 * skipped before the rig compiles the CLI for it; the reason is kept for the skip message.
 */
const tmpfs = await (async () => {
  const probeDir = await tempDir("rel-mount-probe");
  const probe = await mountTmpfs(join(probeDir, "m"), 64 * 1024);
  if (probe.ok) unmount(join(probeDir, "m"));
  await removeDir(probeDir);
  return probe;
})();

/** The daemon in this process, its config outside `stateDir`, up once it listens (a journal that cannot open stops it there). */
const startDaemon = (rig: Rig, sim: SimulatorHandle, dir: string, stateDir: string) =>
  rig.daemon({ sim, configDir: dir, stateDir, timing: { reconcileIntervalMs: 500, journalRetryMs: 300 }, until: "listening" });

test("state dir unwritable at start: stays up, /readyz says why, sends nothing; fixed → opens, replays, claims", async ({ rig }) => {
  const s = await rig.sim();
  const dir = await rig.dir("rel-nodir");
  const blocker = join(dir, "blocker");
  await writeFile(blocker, "a regular file where the state dir's parent should be\n");
  const stateDir = join(blocker, "state");
  const before = s.core.addLiquidation(ethLong(0.2)); // open all along
  const d = await startDaemon(rig, s, dir, stateDir);

  const reasons = await waitFor(async () => {
    const r = await readyz(d.metricsUrl);
    return r.status === 503 && r.reasons.some((x) => x.startsWith("journal_error:")) ? r.reasons : undefined;
  }, "/readyz naming the journal error");
  expect(reasons.join()).toMatch(/ENOTDIR/);
  expect(d.logs.has("claims journal unavailable; not claiming until it opens")).toBe(true);
  // Alive, just not claiming: nothing that claims is built until the journal opens (that it kept
  // retrying shows below, when it opens without a restart).
  expect((await fetch(`${d.metricsUrl}/healthz`)).status).toBe(200);
  expect(venueClaimRequests(s)).toEqual([]);

  // Repaired: the folder now exists and holds a journal from an earlier run that claimed `replayed`.
  const replayed = s.core.addLiquidation(ethLong(0.3));
  await rm(blocker);
  await mkdir(stateDir, { recursive: true });
  await writeFile(join(stateDir, JOURNAL_FILE), intentLine(replayed));
  await waitFor(() => d.logs.lines.find((l) => /^journal replayed/.test(l.msg) && l.ids === 1), "journal opened and replayed", 15_000);
  await waitFor(() => claimed(s, before), "the liquidation open all along claimed");
  const after = s.core.addLiquidation(ethLong(0.4));
  await waitFor(() => claimed(s, after), "a new liquidation claimed");
  await untilReady(d.metricsUrl, "ready");
  await reconcileRounds(d.metricsUrl); // they offer `replayed` again and again
  expect(requestsPerId(venueClaimRequests(s)).has(replayed)).toBe(false);
  expect(journalProblems(stateDir, s)).toEqual([]);
}, 60_000);

test("tmpfs: read-only at start, then full mid-run: claiming stops and says why, nothing sent unjournaled, resumes when fixed", async ({
  rig,
  skip,
}) => {
  if (!tmpfs.ok) return skip(`cannot mount a tmpfs here (${tmpfs.reason}); the prlimit test covers a failing write`);
  const s = await rig.sim();
  const dir = await rig.dir("rel-tmpfs");
  const stateDir = join(dir, "state");
  const mount = await mountTmpfs(stateDir, 512 * 1024);
  if (!mount.ok) throw new Error(mount.reason);
  rig.defer(() => unmount(stateDir));
  const replayed = s.core.addLiquidation(ethLong(0.2));
  await writeFile(join(stateDir, JOURNAL_FILE), intentLine(replayed));
  remount(stateDir, true);

  // (a) Read-only file system: the journal cannot open (EROFS).
  const d = await startDaemon(rig, s, dir, stateDir);
  await waitFor(
    async () => (await readyz(d.metricsUrl)).reasons.some((x) => x.startsWith("journal_error:") && x.includes("EROFS")),
    "/readyz: journal_error EROFS",
  );
  // Nothing that claims is built until the journal opens; `early` is claimed once it does.
  const early = s.core.addLiquidation(ethLong(0.25));
  expect(venueClaimRequests(s)).toEqual([]);
  remount(stateDir, false);
  await waitFor(() => d.logs.lines.find((l) => /^journal replayed/.test(l.msg) && l.ids === 1), "journal opened and replayed", 15_000);
  await waitFor(() => claimed(s, early), "claims after the remount");
  await untilReady(d.metricsUrl, "ready");

  // (b) Disk full mid-run: liquidations keep coming; the slack of the journal's last page takes a
  // few more intents, then an append fails and claiming stops.
  const filler = await fillDisk(stateDir);
  const during: number[] = [];
  // The answer that shows the pause is the one checked: every retry (300 ms here) clears the failure
  // until the next append fails again, so a second request may land in that window.
  let paused: Readyz | undefined;
  await waitFor(
    async () => {
      during.push(s.core.addLiquidation(ethLong(0.05 + during.length / 100)));
      const r = await readyz(d.metricsUrl);
      if (r.reasons.includes("claiming_paused:journal")) paused = r;
      return paused !== undefined;
    },
    "claiming_paused:journal on /readyz",
    30_000,
    150,
  );
  expect(paused?.status).toBe(503);
  expect(paused?.reasons.some((x) => x.startsWith("journal_error:") && /ENOSPC|short write/.test(x))).toBe(true);
  // `stuck` is seen by the daemon and offered again by reconcile rounds while the journal is
  // retried every 300 ms: each probe fails, so it is never sent.
  const seen = await metric(d.metricsUrl, "liquidator_liquidations_seen_total");
  const stuck = s.core.addLiquidation(ethLong(0.45));
  await waitFor(async () => (await metric(d.metricsUrl, "liquidator_liquidations_seen_total")) > seen, "the daemon sees `stuck`");
  await reconcileRounds(d.metricsUrl);
  expect(requestsPerId(venueClaimRequests(s)).has(stuck), "a claim sent while the journal could not be written").toBe(false);
  expect(claimed(s, stuck)).toBe(false);
  expect(journalProblems(stateDir, s)).toEqual([]); // every claim the venue applied was journaled first

  // Space freed: the next retry writes, claiming resumes, each waiting liquidation claimed once.
  await freeDisk(filler);
  await waitFor(() => [stuck, ...during].every((id) => claimed(s, id)), "claims resume after space is freed", 20_000);
  await untilReady(d.metricsUrl, "ready again");
  await reconcileRounds(d.metricsUrl); // they offer every id again: a duplicate would show now
  expect([...requestsPerId(venueClaimRequests(s))].filter(([, l]) => l.length !== 1).map(([id]) => id)).toEqual([]);
  expect(requestsPerId(venueClaimRequests(s)).has(replayed)).toBe(false);
  expect(journalProblems(stateDir, s)).toEqual([]);
}, 90_000);

// Skipped where the tmpfs test covers a failing write (RELIABILITY_DISK=all runs this too).
test.skipIf(tmpfs.ok && process.env.RELIABILITY_DISK !== "all")(
  "file size limit (EFBIG) mid-run on the child process: claiming stops and says why, resumes when lifted",
  async ({ rig, build, skip }) => {
    const s = await rig.sim();
    const dir = await rig.dir("rel-efbig");
    const stateDir = join(dir, "state");
    const config = await writePolicyFile(dir, OPEN_POLICY);
    const p = rig.spawn(build.cli, [], daemonEnv(s, stateDir, { LIQUIDATOR_CONFIG: config }), dir);
    const url = await p.metricsUrl();
    await untilReady(url, "ready", 30_000);
    const warm = s.core.addLiquidation(ethLong(0.2));
    await waitFor(() => claimed(s, warm), "warm-up claim");
    await waitFor(() => readJournal(stateDir).outcomes.has(warm), "the warm-up's outcome written");

    // No byte more in any file: the next journal append fails with EFBIG (SIGXFSZ is ignored by node).
    const limit = setFileSizeLimit(p.child.pid as number, statSync(join(stateDir, JOURNAL_FILE)).size);
    if (!limit.ok) return skip(limit.reason);
    const sentBefore = venueClaimRequests(s).length;
    const stuck = s.core.addLiquidation(ethLong(0.3));
    await waitFor(async () => (await readyz(url)).reasons.includes("claiming_paused:journal"), "claiming_paused:journal", 15_000);
    expect((await readyz(url)).reasons.some((x) => x.startsWith("journal_error:") && x.includes("EFBIG"))).toBe(true);
    await reconcileRounds(url, 1, 15_000); // it offers `stuck` again: still nothing sent
    expect(venueClaimRequests(s).length, "claims sent while the journal could not be written").toBe(sentBefore);
    expect(p.exited()).toBe(false);

    // Lifted: the journal is retried on its default interval (10 s), then the claim goes out once.
    expect(setFileSizeLimit(p.child.pid as number, "unlimited").ok).toBe(true);
    await waitFor(() => claimed(s, stuck), "the claim after the limit is lifted", 30_000);
    await untilReady(url, "ready again", 15_000);
    expect(requestsPerId(venueClaimRequests(s)).get(stuck)?.length).toBe(1);
    expect(journalProblems(stateDir, s)).toEqual([]);
  },
  90_000,
);
