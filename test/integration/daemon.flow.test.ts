/**
 * Claims flow end to end: liquidations appear on the simulated venue, the daemon (in process, live
 * mode over loopback) claims each one exactly once, journals intent + accepted outcome with the
 * fills the venue reported, and exposes it on /metrics; /readyz is 200 while streams and marks are fresh.
 */
import { describe, expect } from "vitest";
import {
  claimsBy,
  countById,
  ethLong,
  journalLines,
  metric,
  metricValue,
  readJournal,
  requestsFrom,
  scrape,
  waitFor,
} from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

describe("daemon against the simulated venue", () => {
  test("claims flow end to end: claimed once each, journaled with fills, counted in /metrics, ready", async ({ rig }) => {
    const sim = await rig.sim();
    const dir = await rig.dir("flow");
    const daemon = await rig.daemon({ sim, stateDir: dir, until: "ready" });

    const ids = [
      sim.core.addLiquidation(ethLong(1)),
      sim.core.addLiquidation({ positions: [{ symbol: "PERP_SOL_USDC", position_qty: -20 }] }),
      sim.core.addLiquidation({
        positions: [
          { symbol: "PERP_DOGE_USDC", position_qty: 10_000 },
          { symbol: "PERP_WIF_USDC", position_qty: 500 },
        ],
      }),
    ];
    await waitFor(() => ids.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)), "every liquidation claimed");
    // Outcomes are journaled right after the response; give the daemon a moment to write them.
    await waitFor(() => ids.every((id) => readJournal(daemon.stateDir).outcomes.has(id)), "every outcome journaled");

    // Venue truth: one request per id, each accepted.
    const perId = countById(requestsFrom(sim));
    for (const id of ids) expect(perId.get(id)).toBe(1);
    expect(requestsFrom(sim).every((r) => r.code === 0)).toBe(true);

    // The journal tells the truth: intent before outcome, fills equal to what the venue transferred.
    const lines = journalLines(dir);
    for (const id of ids) {
      const intentAt = lines.findIndex((l) => l.t === "intent" && l.id === id);
      const outcomeAt = lines.findIndex((l) => l.t === "outcome" && l.id === id);
      expect(intentAt).toBeGreaterThanOrEqual(0);
      expect(outcomeAt).toBeGreaterThan(intentAt);
      const outcome = readJournal(dir).outcomes.get(id)?.[0];
      expect(outcome?.result).toBe("accepted");
      const venue = claimsBy(sim).find((c) => c.liquidationId === id);
      const fills = (outcome?.fills ?? []).map((f) => ({ symbol: f.symbol, qty: f.qty }));
      expect(fills).toEqual(venue?.transfers.map((t) => ({ symbol: t.symbol, qty: t.positionQty })));
    }

    const text = await scrape(daemon.metricsUrl);
    expect(metricValue(text, "liquidator_claims_submitted_total")).toBe(3);
    expect(metricValue(text, "liquidator_claims_result_total", { result: "success" })).toBe(3);
    const venueFees = claimsBy(sim).reduce((a, c) => a + c.transfers.reduce((b, t) => b + t.absLiquidatorFee, 0), 0);
    expect(metricValue(text, "liquidator_fee_earned_total")).toBeCloseTo(venueFees, 6);
    expect(metricValue(text, "liquidator_liquidations_seen_total")).toBe(3);
    expect(metricValue(text, "liquidator_ws_connected", { stream: "public" })).toBe(1);
    expect(metricValue(text, "liquidator_ws_connected", { stream: "private" })).toBe(1);
    expect((await fetch(`${daemon.metricsUrl}/readyz`)).status).toBe(200);
    expect(await metric(daemon.metricsUrl, "liquidator_claims_result_total", { result: "rejected" })).toBe(0);
  });

  test("the claim rehearsal runs between liquidations and sends, journals and counts nothing", async ({ rig }) => {
    const sim = await rig.sim();
    const dir = await rig.dir("rehearsal");
    // Streams up (ready): the liquidation comes as a push, which is what the rehearsal samples.
    const daemon = await rig.daemon({ sim, stateDir: dir, sections: { venue: { claim_rehearsal_ms: 1 } }, until: "ready" });
    const id = sim.core.addLiquidation(ethLong(1));
    await waitFor(() => readJournal(daemon.stateDir).outcomes.has(id), "claimed and journaled");
    const before = await metric(daemon.metricsUrl, "liquidator_claim_rehearsals_total");
    const intents = (): unknown[] => journalLines(dir).filter((l) => l.t === "intent");
    expect(intents()).toHaveLength(1);
    // Quiet: the last liquidation seen is rehearsed over and over.
    await waitFor(async () => (await metric(daemon.metricsUrl, "liquidator_claim_rehearsals_total")) > before + 100, "100 rehearsals");
    expect(countById(requestsFrom(sim)).get(id)).toBe(1);
    expect(requestsFrom(sim)).toHaveLength(1);
    expect(intents()).toHaveLength(1);
    const text = await scrape(daemon.metricsUrl);
    expect(metricValue(text, "liquidator_claims_submitted_total")).toBe(1);
    expect(metricValue(text, "liquidator_claims_skipped_total")).toBe(0);
    // And the next liquidation is claimed as ever.
    const next = sim.core.addLiquidation(ethLong(2));
    await waitFor(() => readJournal(daemon.stateDir).outcomes.has(next), "the next claimed");
    expect(countById(requestsFrom(sim)).get(next)).toBe(1);
  });
});
