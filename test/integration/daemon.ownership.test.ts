/**
 * A journal belongs to one venue and one account, and held positions come from the venue, never from
 * the journal: a second `npm start` in the same checkout claims at once (its embedded venue is a new
 * one), a live daemon pointed at another account on the same state.dir starts a journal of its own
 * (and refuses, exit 78, a file of its name that names another pair), and
 * positions closed while the daemon was down are not believed held after the restart.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { expect } from "vitest";
import { JOURNAL_FILE } from "../../src/store/fileJournal.js";
import { pairJournalNameForTests } from "../../src/store/ownJournalFile.js";
import { claimsBy, daemonEnv, ethLong, journalText, metric, waitFor } from "../support/daemonHarness.js";
import type { DaemonProcess } from "../support/daemonProcess.js";
import { test } from "../support/rig.js";

/** Time of the first log line with `msg` (pino `time`, ms). */
const firstAt = (p: DaemonProcess, msg: string): number => Date.parse(String(p.logs.find(msg)[0]?.time));

test("two runs of the default config in one checkout: the second claims within seconds, with no exposure_cap skip", async ({
  rig,
  build,
}) => {
  const dir = await rig.dir("two-starts");
  // The default config (simulator mode, ./data as state dir); only the metrics port is freed, and
  // the generator market chosen: its steady arrivals make "claims within seconds" exact (the
  // position-driven default has quiet spells).
  const env = { LIQUIDATOR_METRICS_PORT: "0", LIQUIDATOR_METRICS_HOST: "127.0.0.1", LIQUIDATOR_SIM_MARKET: "generator" };
  const first = rig.spawn(build.cli, [], env, dir);
  await first.metricsUrl();
  await waitFor(() => first.logs.find("claim accepted").length >= 5, "five claims in the first run", 60_000);
  first.child.kill("SIGTERM");
  expect((await first.exit).code).toBe(0);

  const second = rig.spawn(build.cli, [], env, dir);
  const url = await second.metricsUrl();
  await waitFor(
    () => second.logs.has("simulated venue: a new venue on every run, so a fresh claims journal begins (the previous one was moved aside)"),
    "the first run's journal set aside",
  );
  // The new venue's account holds nothing, and that is what the daemon starts from.
  const positions = await waitFor(() => second.logs.find("positions read from the venue; claiming may start")[0], "positions read", 30_000);
  expect(positions.held).toBe(0);
  await waitFor(() => second.logs.find("claim accepted").length >= 3, "claims in the second run", 30_000);
  const started = firstAt(second, "liquidator running");
  const firstClaim = firstAt(second, "claim accepted");
  expect(firstClaim - started).toBeLessThan(15_000);
  expect(await metric(url, "liquidator_claims_skipped_total", { reason: "exposure_cap" })).toBe(0);
  // The embedded venue says so on /metrics (the "dry run left on in live mode" alert reads it).
  expect(await metric(url, "liquidator_venue_simulated")).toBe(1);
  // ...and so do /readyz and the log, at warn so it shows at every level (docs/operations.md "HTTP endpoints and metrics").
  const ready = (await (await fetch(new URL("/readyz", url))).json()) as { venue?: string };
  expect(ready.venue).toBe("simulator");
  expect(second.logs.lines.some((l) => l.level === "warn" && /SIMULATED venue/.test(l.msg))).toBe(true);
  expect(second.logs.lines.some((l) => /^journal replayed/.test(l.msg))).toBe(false);
}, 120_000);

test("live mode on a state.dir holding another account's journal: a journal of its own begins, the other is left alone", async ({
  rig,
  build,
}) => {
  const sim = await rig.sim();
  const dir = await rig.dir("other-account");
  const stateDir = join(dir, "state");
  await mkdir(stateDir);
  // Testnet's journal, say: another account, with an id this venue is about to offer.
  const other = `${JSON.stringify({ t: "venue", at: 1, baseUrl: sim.baseUrl, accountId: "0xsomeoneelse" })}\n`;
  await writeFile(join(stateDir, JOURNAL_FILE), other);
  const id = sim.core.addLiquidation(ethLong(0.5));
  const proc = rig.spawn(build.cli, [], daemonEnv(sim, stateDir), dir);
  await waitFor(() => claimsBy(sim).some((c) => c.liquidationId === id), "the claim, from a journal of its own", 30_000);
  proc.child.kill("SIGTERM");
  expect((await proc.exit).code).toBe(0);
  expect(await readFile(join(stateDir, JOURNAL_FILE), "utf8")).toBe(other);
  const own = journalText(stateDir, pairJournalNameForTests(sim));
  // After the format-2 guard (fileJournal.ts venueHeader), the venue record names this pair.
  const venue = own
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((r) => r.t === "venue" && r.guard !== true);
  expect(venue).toMatchObject({ t: "venue", baseUrl: sim.baseUrl, accountId: sim.accountId });
  expect(own).toContain(`"id":${id}`);
}, 60_000);

test("live mode with a journal file of another account under this account's name: exit 78 naming both pairs, the path and what to do", async ({
  rig,
  build,
}) => {
  const sim = await rig.sim();
  const dir = await rig.dir("copied-journal");
  const stateDir = join(dir, "state");
  await mkdir(stateDir);
  const path = join(stateDir, pairJournalNameForTests(sim));
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify({ t: "venue", at: 1, baseUrl: sim.baseUrl, accountId: "0xsomeoneelse" })}\n`);
  sim.core.addLiquidation(ethLong(0.5));
  const proc = rig.spawn(build.cli, [], daemonEnv(sim, stateDir), dir);
  const { code } = await proc.exit;
  expect(code).toBe(78);
  const stderr = proc.stderr();
  for (const part of [sim.baseUrl, "0xsomeoneelse", sim.accountId, path, "docs/runbook.md"]) expect(stderr).toContain(part);
  expect(sim.core.claimRequests()).toEqual([]);
}, 60_000);

test("positions closed at the venue while the daemon was down: after the restart exposure is the venue's, not the journal's", async ({
  rig,
}) => {
  const sim = await rig.sim();
  const dir = await rig.dir("closed-while-down");
  // One ETH is about 3,850 of notional: a cap of 10,000 admits two. Unwinding off: the positions
  // stay until the venue closes them while the daemon is down.
  const policy = { max_total_exposure: 10_000 };
  const env = { LIQUIDATOR_UNWIND_MODE: "off" };
  let d = await rig.daemon({ sim, stateDir: dir, policy, env });
  const held = [sim.core.addLiquidation(ethLong(1)), sim.core.addLiquidation(ethLong(1))];
  await waitFor(() => held.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)), "two ETH claimed");
  await waitFor(
    async () => (await metric(d.metricsUrl, "liquidator_exposure_notional", { symbol: "PERP_ETH_USDC" })) > 7_000,
    "exposure held",
  );
  await d.stop();

  expect(sim.core.closePositions(sim.accountId)).toBe(1);
  d = await rig.daemon({ sim, stateDir: dir, policy, env });
  await waitFor(() => d.logs.has("positions read from the venue; claiming may start"), "positions read at start");
  // No ETH held: the gauge reads 0 or has no series for it (NaN), never the journal's 7,700.
  expect(await metric(d.metricsUrl, "liquidator_exposure_notional", { symbol: "PERP_ETH_USDC" })).not.toBeGreaterThan(0);
  // Two more whole ETH fit again at once.
  const more = [sim.core.addLiquidation(ethLong(1)), sim.core.addLiquidation(ethLong(1))];
  await waitFor(() => more.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)), "two more claimed after the restart");
  expect(await metric(d.metricsUrl, "liquidator_claims_skipped_total", { reason: "exposure_cap" })).toBe(0);
}, 60_000);
