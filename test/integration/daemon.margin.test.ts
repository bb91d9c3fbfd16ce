/**
 * Margin against the simulated venue (docs/protocol.md §7), over real sockets: a cascade worth about three
 * times what the account's margin can carry is claimed by fee per unit of margin, each claim cut to
 * fit, without one -1101; the venue's initial margin never passes max_margin_usage; claims resume as
 * soon as getting flat frees margin; and a -1101 (injected) is followed by an account re-read and
 * the claim again, not by a minute of waiting.
 */
import { expect } from "vitest";
import { bestFeeThatFits, marginItems } from "../../src/bench/marginBest.js";
import { initialMarginOfHeld } from "../../src/sim/margin.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { claimsBy, ethLong, metric, reconcileRounds, requestsFrom, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

const COLLATERAL = 20_000;
const LEVERAGE = 10;
const USAGE = 0.9;
const BUDGET = USAGE * COLLATERAL;
const CASCADE = ["PERP_ETH_USDC", "PERP_SOL_USDC", "PERP_DOGE_USDC", "PERP_WIF_USDC", "PERP_EUR_USDC"];

/** Positions stay held until the test closes them: the first phase is about one budget. */
const OFF = { LIQUIDATOR_UNWIND_MODE: "off" };

const applied = (s: SimulatorHandle) => claimsBy(s).filter((c) => c.code === 0);
/** Claim requests the venue refused for margin (every request: `claimsBy` holds the applied ones only). */
const refusedForMargin = (s: SimulatorHandle) => requestsFrom(s).filter((c) => c.code === -1101).length;
const feeOf = (s: SimulatorHandle) => applied(s).reduce((sum, c) => sum + c.transfers.reduce((a, t) => a + t.absLiquidatorFee, 0), 0);
/**
 * The margin budget now: max_margin_usage of the venue's total collateral, which grows by each claim's
 * liquidator fee as the venue credits it (the daemon hears of it on the `balance` topic at once).
 */
const budgetNow = (s: SimulatorHandle) => USAGE * s.core.trading.totalCollateral(s.accountId);
/** The venue's initial margin of what the account holds. */
const venueIm = (s: SimulatorHandle) =>
  initialMarginOfHeld(
    s.core.positionsOf(s.accountId),
    (x) => s.core.symbols.get(x),
    (x) => s.core.mark(x),
    LEVERAGE,
  );

test("a cascade worth three budgets: no -1101, ≥ 90 % of the best that fits, claims resume as positions close", async ({ rig }) => {
  const sim = await rig.sim({ collateral: COLLATERAL, maxLeverage: LEVERAGE });
  const d = await rig.daemon({ sim, policy: { max_margin_usage: USAGE }, env: OFF, until: "ready" });
  await waitFor(() => d.logs.has("positions read from the venue; claiming may start"), "the daemon ready to claim");

  const ids = sim.core.cascade(14, { symbols: CASCADE, side: 1, notional: [15_000, 40_000] });
  // The venue's book as the cascade opened it (the push has not reached the daemon yet).
  // Liquidations as whole items: the daemon claims every eligible symbol of one (against the best
  // per symbol, where a poor symbol of a high-risk liquidation is left out, it reaches ~80 % here).
  const items = marginItems(sim.core, ids, LEVERAGE, false);
  const worth = items.reduce((s, i) => s + i.margin, 0);
  expect(worth).toBeGreaterThan(2.5 * BUDGET);
  // The venue credits each claim's fee to the holding (and says so on the balance push): the budget grows by 0.9 of it.
  const best = bestFeeThatFits(items, BUDGET, USAGE);

  await waitFor(
    async () => (await metric(d.metricsUrl, "liquidator_claims_skipped_total", { reason: "margin" })) >= 1,
    "claims skipped for margin",
  );
  await reconcileRounds(d.metricsUrl, 2); // every open id offered again: nothing more fits
  const first = applied(sim).length;
  expect(refusedForMargin(sim)).toBe(0);
  expect(venueIm(sim)).toBeLessThanOrEqual(budgetNow(sim) * (1 + 1e-9));
  expect(feeOf(sim)).toBeGreaterThanOrEqual(0.9 * best);

  // Getting flat frees the margin: claiming resumes at once on what is still open.
  sim.core.closePositions(sim.accountId);
  await waitFor(() => applied(sim).length > first, "claims after the positions closed");
  await reconcileRounds(d.metricsUrl, 2);
  expect(refusedForMargin(sim)).toBe(0);
  expect(venueIm(sim)).toBeLessThanOrEqual(budgetNow(sim) * (1 + 1e-9));
}, 90_000);

test("-1101: the account is re-read and the claim made again, not after a minute's pause", async ({ rig }) => {
  const sim = await rig.sim();
  const d = await rig.daemon({ sim, env: OFF, until: "ready" });
  await waitFor(() => d.logs.has("positions read from the venue; claiming may start"), "the daemon ready to claim");
  const reads = () => metric(d.metricsUrl, "liquidator_http_requests_total", { endpoint: "/v1/positions" });
  const before = await reads();
  sim.faults.rest.venueError(-1101, { path: "/v1/liquidation", method: "POST", times: 1 });
  const id = sim.core.addLiquidation(ethLong(1));
  await waitFor(
    async () => (await metric(d.metricsUrl, "liquidator_claims_result_total", { result: "rejected", code: "-1101" })) === 1,
    "the claim refused for margin",
  );
  // Well inside the 60 s the claimer used to sit out (and the 30 s between periodic positions reads).
  await waitFor(() => applied(sim).some((c) => c.liquidationId === id), "claimed after the re-read", 20_000);
  expect(await reads()).toBeGreaterThan(before);
}, 60_000);
