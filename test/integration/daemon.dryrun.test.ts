/**
 * Dry run (LIQUIDATOR_DRY_RUN=1): every decision runs as in a live run — ranking, limiter, journal
 * intent — but nothing reaches the venue: zero claim requests at the simulator, intents marked
 * dryRun with dry_run outcomes in the journal, claims_result_total{result="dry_run"} per claim.
 * (`run --dry-run` is covered by the child-process test in daemon.signals.test.ts.)
 */
import { expect } from "vitest";
import { ethLong, journalLines, metric, readJournal, reconcileRounds, requestsFrom, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

test("LIQUIDATOR_DRY_RUN=1: decided and journaled, nothing sent", async ({ rig }) => {
  const sim = await rig.sim();
  const dir = await rig.dir("dryrun");
  const daemon = await rig.daemon({ sim, stateDir: dir, env: { LIQUIDATOR_DRY_RUN: "1" }, until: "ready" });
  expect(await metric(daemon.metricsUrl, "liquidator_dry_run")).toBe(1);

  const ids = [
    sim.core.addLiquidation(ethLong(1)),
    sim.core.addLiquidation({ positions: [{ symbol: "PERP_SOL_USDC", position_qty: -10 }] }),
    sim.core.addLiquidation(ethLong(2)),
  ];
  await waitFor(() => ids.every((id) => readJournal(daemon.stateDir).outcomes.has(id)), "every decision journaled");
  // Reconcile rounds offer the still-open ids again: a dry-run id is decided once, not re-sent every round.
  await reconcileRounds(daemon.metricsUrl);

  expect(requestsFrom(sim)).toEqual([]);
  expect(sim.core.claimRequests()).toEqual([]);
  const journal = readJournal(dir);
  for (const id of ids) {
    expect(journal.intents.get(id)?.dryRun).toBe(true);
    expect(journal.outcomes.get(id)?.map((o) => o.result)).toEqual(["dry_run"]);
  }
  // Per id: the intent, its outcome and the opportunity ledger's first push; besides them only the
  // venue record (with its format-2 guard) and the protections' state (once a day, and on a change).
  const kinds = () => journalLines(dir).map((r) => r.t as string);
  await waitFor(() => kinds().filter((k) => k === "seen").length === ids.length, "the ledger's records flushed");
  const count = (k: string) => kinds().filter((x) => x === k).length;
  expect([count("intent"), count("outcome"), count("seen"), count("venue")]).toEqual([ids.length, ids.length, ids.length, 2]);
  const allowed = new Set(["venue", "intent", "outcome", "seen", "protection"]);
  expect(kinds().filter((k) => !allowed.has(k))).toEqual([]);
  expect(await metric(daemon.metricsUrl, "liquidator_claims_result_total", { result: "dry_run" })).toBe(ids.length);
  expect(await metric(daemon.metricsUrl, "liquidator_claims_submitted_total")).toBe(0);
  expect(await metric(daemon.metricsUrl, "liquidator_fee_earned_total")).toBe(0);
  // The liquidations are still open at the venue: nothing was taken.
  expect(
    sim.core
      .openLiquidations()
      .map((l) => l.liquidationId)
      .sort(),
  ).toEqual([...ids].sort());
}, 60_000);
