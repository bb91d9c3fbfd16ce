/**
 * 20 stream drops with liquidations arriving while the streams are down (and while reconnects are
 * being refused): the REST reconcile after every reconnect (and on its interval) finds what the
 * pushes missed, and the claimer's one-state-per-id never claims an id twice. Venue truth: exactly
 * one claim applied per liquidation id from our account, and a second request for an id only after
 * the venue answered the first "not applied" (resendProblems: a -1003 is retried, per the protocol).
 */
import { expect } from "vitest";
import { claimsBy, countById, ethLong, metricValue, reconcileRounds, requestsFrom, scrape, waitFor } from "../support/daemonHarness.js";
import { resendProblems } from "../support/reliability.js";
import { test } from "../support/rig.js";

const DROPS = 20;

test("20 stream drops, liquidations added while down: every one claimed exactly once", async ({ rig }) => {
  // Each claim is held 250 ms at the venue: drops and reconcile rounds land while claims are in
  // flight or just settled, when the open list still shows them.
  const sim = await rig.sim({ claimProcessingDelayMs: 250 });
  const dir = await rig.dir("drops");
  const daemon = await rig.daemon({
    sim,
    stateDir: dir,
    // Some liquidations are bigger than one claim may take: they stay open with the remainder, and
    // every later push and reconcile offers them again; they must still be claimed only once.
    policy: { max_claim_notional: 20_000 },
    timing: { reconcileIntervalMs: 400, backoff: { initialMs: 20, maxMs: 200 } },
  });
  // Ready again after a drop: two new sockets accepted since `accepted` (public + private), the
  // old ones gone, and the daemon itself reports both streams subscribed.
  const ready = async (accepted: number): Promise<boolean> => {
    const st = sim.streams.stats();
    if (st.connectionsAccepted < accepted + 2 || st.publicSockets !== 1 || st.privateSockets !== 1 || st.authenticatedSockets !== 1)
      return false;
    const text = await scrape(daemon.metricsUrl);
    return (["public", "private"] as const).every((stream) => metricValue(text, "liquidator_ws_connected", { stream }) === 1);
  };
  await waitFor(() => ready(0), "both streams ready");

  const ids: number[] = [];
  // One before the first drop, claimed over the streams.
  ids.push(sim.core.addLiquidation(ethLong(0.5)));
  for (let i = 1; i <= DROPS; i++) {
    const refuse = i % 3 === 0;
    const { connectionsAccepted: accepted, upgradesRefused } = sim.streams.stats();
    if (refuse) sim.faults.streams.refuseConnections(true);
    expect(sim.faults.streams.dropAll()).toBe(2);
    // Down: these pushes go nowhere (or to sockets being torn down).
    ids.push(sim.core.addLiquidation(ethLong(0.1 + i / 100)));
    if (i % 2 === 0) ids.push(sim.core.addLiquidation({ positions: [{ symbol: "PERP_SOL_USDC", position_qty: -(5 + i) }] }));
    if (i % 5 === 1) ids.push(sim.core.addLiquidation({ positions: [{ symbol: "PERP_BTC_USDC", position_qty: 0.5 }] })); // 52,000: partly claimed
    if (refuse) {
      // Reconnecting: an attempt has been refused, and more liquidations arrive meanwhile.
      await waitFor(() => sim.streams.stats().upgradesRefused > upgradesRefused, `a reconnect refused after drop ${i}`, 10_000, 10);
      ids.push(sim.core.addLiquidation({ positions: [{ symbol: "PERP_BNB_USDC", position_qty: 1 + i / 10 }] }));
      sim.faults.streams.refuseConnections(false);
    }
    await waitFor(() => ready(accepted), `streams back after drop ${i}`);
  }

  await waitFor(() => ids.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)), "every liquidation claimed", 30_000);
  // Reconcile rounds offer every id again: a stray duplicate would have been sent by now.
  await reconcileRounds(daemon.metricsUrl);
  const applied = countById(claimsBy(sim));
  expect([...applied].filter(([, n]) => n !== 1)).toEqual([]);
  expect([...applied.keys()].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  expect(resendProblems(requestsFrom(sim))).toEqual([]);
  // Nothing refused but by the claim limit (5/s), which a loaded machine's jitter may still hit.
  expect(requestsFrom(sim).filter((r) => r.code !== 0 && r.code !== -1003)).toEqual([]);

  const text = await scrape(daemon.metricsUrl);
  expect(metricValue(text, "liquidator_ws_reconnects_total", { stream: "public" })).toBeGreaterThanOrEqual(DROPS);
  expect(metricValue(text, "liquidator_ws_reconnects_total", { stream: "private" })).toBeGreaterThanOrEqual(DROPS);
  expect(metricValue(text, "liquidator_claims_result_total", { result: "success" })).toBe(ids.length);
}, 90_000);
