/**
 * Profit and loss against the venue's own books, and unwinding across a kill -9: over 100 claims on
 * six symbols, closed on the simulated books, the daemon's realized P&L (liquidator fees, trading,
 * fees) equals the simulator's accounting to 1e-6 of the notional claimed; a daemon killed in the
 * middle of closing a position on a thin book, restarted on its state dir, settles the order it had
 * in flight, sends no second order for it and gets flat.
 */
import { expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { DEFAULT_SYMBOLS, roundToStep, type SymbolSpec } from "../../src/sim/symbols.js";
import { claimsBy, daemonEnv, metric, OPEN_POLICY, sleep, waitFor, writePolicyFile } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";
import { openQty, venueOrders } from "../support/unwindProbe.js";

const SIX = ["PERP_BTC_USDC", "PERP_ETH_USDC", "PERP_SOL_USDC", "PERP_BNB_USDC", "PERP_DOGE_USDC", "PERP_WIF_USDC"];

function open(s: SimulatorHandle, symbol: string, notional: number, sign: 1 | -1): number {
  const spec = s.core.symbols.get(symbol) as SymbolSpec;
  const qty = roundToStep(notional / (s.core.mark(symbol) as number), spec.qtyStep);
  return s.core.addLiquidation({ positions: [{ symbol, position_qty: sign * qty }] });
}

test("over 100 claims the daemon's realized P&L equals the simulator's accounting (1e-6 of the notional)", async ({ rig }) => {
  const sim = await rig.sim();
  const dir = await rig.dir("pnl");
  const daemon = await rig.daemon({ sim, stateDir: dir });
  await waitFor(() => daemon.logs.has("positions read from the venue; claiming may start"), "ready to claim");
  for (let i = 0; i < 102; i++) {
    open(sim, SIX[i % 6] as string, 1_000 + ((i * 7) % 9) * 900, i % 3 === 0 ? -1 : 1);
    // Marks move between claims, so closing trades at a different price than the claim.
    if (i % 10 === 9) for (const x of SIX) sim.core.setMark(x, (sim.core.mark(x) as number) * (1 + (i % 20 === 9 ? 0.002 : -0.0015)));
    await sleep(60); // paces the load: about 16 liquidations a second, not one burst
  }
  await waitFor(() => claimsBy(sim).length === 102, "102 claims", 60_000);
  await waitFor(() => SIX.every((x) => openQty(sim, x, true) === 0 || openQty(sim, x) === 0), "flat", 60_000);

  let fees = 0;
  let liquidatorFees = 0;
  let realized = 0;
  for (const b of sim.core.trading.booksOf(sim.accountId).values()) {
    fees += b.feesPaid;
    liquidatorFees += b.liquidatorFees;
    realized += b.realizedPnl;
  }
  const notional = claimsBy(sim).reduce((a, c) => a + c.transfers.reduce((x, t) => x + Math.abs(t.costPositionTransfer), 0), 0);
  const url = daemon.metricsUrl;
  const pnl = async () => ({
    liquidatorFee: await metric(url, "liquidator_pnl_quote", { component: "liquidator_fee" }),
    trading: await metric(url, "liquidator_pnl_quote", { component: "trading" }),
    fees: await metric(url, "liquidator_pnl_quote", { component: "fees" }),
    net: await metric(url, "liquidator_pnl_quote", { component: "net" }),
  });
  const tolerance = 1e-6 * notional;
  // The last fills reach the daemon's books just after the venue's: wait until its fees have caught up.
  await waitFor(async () => Math.abs((await pnl()).fees - fees) <= tolerance, "the daemon's fees caught up with the venue's", 20_000);
  const ours = await pnl();
  console.info(
    `P&L over ${notional.toFixed(0)} of notional: ours ${JSON.stringify(ours)}; venue fees ${fees}, credited ${liquidatorFees}, realized ${realized}`,
  );
  expect(Math.abs(ours.liquidatorFee - liquidatorFees)).toBeLessThanOrEqual(tolerance);
  expect(Math.abs(ours.fees - fees)).toBeLessThanOrEqual(tolerance);
  // The venue's realized P&L is net of the closing fees (every unwind fill closes).
  expect(Math.abs(ours.trading - (realized + fees))).toBeLessThanOrEqual(tolerance);
  expect(Math.abs(ours.net - (liquidatorFees + realized))).toBeLessThanOrEqual(tolerance);
  expect(fees).toBeGreaterThan(0);
}, 150_000);

test("kill -9 in the middle of an unwind: after the restart no order is sent twice and the position goes flat", async ({ rig, build }) => {
  const thin = { spreadBps: 4, levels: 3, stepBps: 5, levelNotional: 800, refillPerSec: 0.4 };
  const sim = await rig.sim({ symbols: DEFAULT_SYMBOLS.map((x) => (x.symbol === "PERP_SOL_USDC" ? { ...x, book: thin } : x)) });
  const dir = await rig.dir("unwind-kill");
  const config = await writePolicyFile(dir, OPEN_POLICY);
  const env = daemonEnv(sim, dir, { LIQUIDATOR_CONFIG: config });
  const first = rig.spawn(build.cli, [], env, dir);
  await first.metricsUrl();
  open(sim, "PERP_SOL_USDC", 6_000, -1);
  await waitFor(() => venueOrders(sim).length >= 2, "the unwind under way", 30_000);
  first.child.kill("SIGKILL");
  await first.exit;
  const before = venueOrders(sim).length;
  expect(openQty(sim, "PERP_SOL_USDC")).not.toBe(0);

  const second = rig.spawn(build.cli, [], env, dir);
  await second.metricsUrl();
  await waitFor(() => openQty(sim, "PERP_SOL_USDC") === 0, "flat after the restart", 30_000).catch((e) => {
    console.info(
      second.logs.lines
        .filter((l) => /unwind|order|position/.test(String(l.msg)))
        .slice(0, 30)
        .map((l) => JSON.stringify(l))
        .join("\n"),
    );
    console.info(openQty(sim, "PERP_SOL_USDC", true), JSON.stringify(venueOrders(sim).slice(-3)));
    throw e;
  });
  const orders = venueOrders(sim);
  expect(orders.length).toBeGreaterThan(before);
  const ids = orders.map((o) => o.client_order_id);
  expect(new Set(ids).size).toBe(ids.length);
  // The restarted daemon continued the journal's order numbers rather than reusing them.
  expect(orders.filter((o) => !o.reduce_only)).toEqual([]);
}, 150_000);
