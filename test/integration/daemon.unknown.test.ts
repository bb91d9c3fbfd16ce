/**
 * Unknown outcome at the venue: the claim is applied, then the connection is dropped before the
 * answer (the simulator's "reset after" fault). The daemon must never resend it, and must settle it
 * from the private `liquidatorliquidations` push as confirmed, with the venue's fills, whichever of
 * the push and the transport error reaches it first.
 */
import { expect } from "vitest";
import { claimsBy, countById, ethLong, metric, readJournal, reconcileRounds, requestsFrom, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

test("claim applied but the answer lost: never resent, confirmed by the private push with the venue's fills", async ({ rig }) => {
  const sim = await rig.sim();
  const dir = await rig.dir("unknown");
  const daemon = await rig.daemon({ sim, stateDir: dir, timing: { reconcileIntervalMs: 300 }, until: "ready" });

  const ids: number[] = [];
  for (let i = 0; i < 3; i++) {
    sim.faults.rest.reset({ path: "/v1/liquidation", method: "POST", phase: "after", times: 1 });
    const id = sim.core.addLiquidation(ethLong(0.2 + i / 10));
    ids.push(id);
    await waitFor(() => claimsBy(sim).some((c) => c.liquidationId === id), `claim ${id} applied at the venue`);
    await waitFor(
      () =>
        readJournal(daemon.stateDir)
          .outcomes.get(id)
          ?.some((o) => o.result === "confirmed"),
      `claim ${id} confirmed in the journal`,
      10_000,
    );
  }
  await reconcileRounds(daemon.metricsUrl); // each offers the settled ids again: nothing is resent
  expect([...countById(requestsFrom(sim))].filter(([, n]) => n !== 1)).toEqual([]);
  const journal = readJournal(dir);
  for (const id of ids) {
    const results = journal.outcomes.get(id)?.map((o) => o.result);
    expect(results).toEqual(["unknown", "confirmed"]);
    const confirmed = journal.outcomes.get(id)?.[1];
    const venue = claimsBy(sim).find((c) => c.liquidationId === id);
    expect(confirmed?.fills?.map((f) => [f.symbol, f.qty])).toEqual(venue?.transfers.map((t) => [t.symbol, t.positionQty]));
  }
  expect(await metric(daemon.metricsUrl, "liquidator_claims_result_total", { result: "confirmed" })).toBe(ids.length);
}, 60_000);
