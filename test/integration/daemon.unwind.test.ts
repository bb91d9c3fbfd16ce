/**
 * Closing what we claim, daemon against the simulated venue over real sockets: every claimed
 * position back to flat within seconds on a deep book, flat in the end on a thin one, never an order
 * that could grow a position, lost order answers looked up rather than resent, nothing sent with
 * unwinding off, in dry run or for held symbols, and the exposure cap never blocking claims for
 * longer than getting flat takes.
 */
import { describe, expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { DEFAULT_SYMBOLS, roundToStep, type SymbolSpec } from "../../src/sim/symbols.js";
import { claimsBy, metric, reconcileRounds, requestsFrom, sleep, waitFor } from "../support/daemonHarness.js";
import { type Rig, test } from "../support/rig.js";
import { flatTimes, openQty, venueOrders } from "../support/unwindProbe.js";

const SIX = ["PERP_BTC_USDC", "PERP_ETH_USDC", "PERP_SOL_USDC", "PERP_BNB_USDC", "PERP_DOGE_USDC", "PERP_WIF_USDC"];
const DEEP = { spreadBps: 2, levels: 20, stepBps: 2, levelNotional: 200_000, refillPerSec: 1 };

/** The default symbols, with `book` for those named. */
const withBooks = (books: Record<string, SymbolSpec["book"]>): SymbolSpec[] =>
  DEFAULT_SYMBOLS.map((s) => (books[s.symbol] ? { ...s, book: books[s.symbol] } : s));

/** A liquidation of about `notional` quote of `symbol`, long or short. */
function open(s: SimulatorHandle, symbol: string, notional: number, sign: 1 | -1): number {
  const spec = s.core.symbols.get(symbol) as SymbolSpec;
  const qty = roundToStep(notional / (s.core.mark(symbol) as number), spec.qtyStep);
  return s.core.addLiquidation({ positions: [{ symbol, position_qty: sign * qty }] });
}

async function start(
  rig: Rig,
  o: { symbols?: SymbolSpec[]; policy?: Record<string, unknown>; sections?: Record<string, unknown>; env?: Record<string, string> } = {},
) {
  const sim = await rig.sim(o.symbols ? { symbols: o.symbols } : {});
  const daemon = await rig.daemon({
    sim,
    stateDir: await rig.dir("unwind"),
    ...(o.policy ? { policy: o.policy } : {}),
    ...(o.sections ? { sections: o.sections } : {}),
    ...(o.env ? { env: o.env } : {}),
  });
  await waitFor(() => daemon.logs.has("positions read from the venue; claiming may start"), "the daemon ready to claim");
  return { s: sim, d: daemon };
}

describe("unwinding against the simulated venue", () => {
  test("50 claims over 6 symbols on deep books: each position flat within 10 s of its assignment, only reduce-only orders", async ({
    rig,
  }) => {
    const { s } = await start(rig, { symbols: withBooks(Object.fromEntries(SIX.map((x) => [x, DEEP]))) });
    const probe = flatTimes(s);
    for (let i = 0; i < 50; i++) {
      open(s, SIX[i % 6] as string, 2_000 + (i % 5) * 1_500, i % 2 === 0 ? 1 : -1);
      await sleep(100); // paces the load: claims and unwinds overlap rather than come as one burst
    }
    await waitFor(() => claimsBy(s).length === 50, "50 claims", 30_000);
    await waitFor(() => SIX.every((x) => openQty(s, x) === 0), "every position flat", 30_000);
    await waitFor(() => probe.assignedToFlat(claimsBy(s)).every(Number.isFinite), "the probe sampled every symbol flat");
    probe.stop();
    const waits = probe.assignedToFlat(claimsBy(s));
    expect(waits).toHaveLength(50);
    console.info(`assignment → flat, ms: max ${Math.max(...waits)}, median ${waits.sort((a, b) => a - b)[25]}`);
    for (const ms of waits) expect(ms).toBeLessThanOrEqual(10_000);
    const orders = venueOrders(s);
    expect(orders.length).toBeGreaterThan(0);
    expect(orders.filter((o) => !o.reduce_only || o.type !== "IOC")).toEqual([]);
  }, 90_000);

  test("a thin book: filled in parts, flat in the end, no order larger than the position, no 429 on orders", async ({ rig }) => {
    const thin = { spreadBps: 4, levels: 4, stepBps: 5, levelNotional: 600, refillPerSec: 0.5 };
    const { s, d } = await start(rig, { symbols: withBooks({ PERP_WIF_USDC: thin }) });
    const sizes: { qty: number; position: number }[] = [];
    s.core.onPush((p) => {
      if (p.scope === "private" && p.topic === "executionreport") {
        const r = p.data as { status: string; quantity: number; symbol: string };
        if (r.status === "NEW") sizes.push({ qty: r.quantity, position: Math.abs(openQty(s, r.symbol, true)) });
      }
    });
    open(s, "PERP_WIF_USDC", 9_000, 1);
    await waitFor(() => claimsBy(s).length === 1, "the claim");
    await waitFor(() => openQty(s, "PERP_WIF_USDC") === 0, "flat on the thin book", 90_000);
    expect(sizes.length).toBeGreaterThan(3);
    for (const x of sizes) expect(x.qty).toBeLessThanOrEqual(x.position + 1e-9);
    expect(await metric(d.metricsUrl, "liquidator_orders_total", { result: "partial" })).toBeGreaterThan(0);
    expect(d.logs.lines.filter((l) => l.code === -1003)).toEqual([]);
  }, 120_000);

  test("order answers lost: each is looked up, never resent, and the position still goes flat", async ({ rig }) => {
    const { s, d } = await start(rig, { symbols: withBooks({ PERP_ETH_USDC: DEEP }) });
    s.core.trading.faults.loseAnswers(3);
    for (let i = 0; i < 3; i++) open(s, "PERP_ETH_USDC", 3_000, 1);
    await waitFor(() => claimsBy(s).length === 3, "3 claims");
    await waitFor(() => openQty(s, "PERP_ETH_USDC") === 0, "flat", 30_000);
    // Each order went out once: the venue saw as many orders as the daemon sent, no client id twice.
    const ids = venueOrders(s).map((o) => o.client_order_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await metric(d.metricsUrl, "liquidator_orders_total", { result: "sent" })).toBe(ids.length);
  }, 60_000);

  test("unwind.mode off and dry run send no order; a held symbol is kept while the others are closed", async ({ rig }) => {
    let h = await start(rig, { env: { LIQUIDATOR_UNWIND_MODE: "off" } });
    open(h.s, "PERP_ETH_USDC", 3_000, 1);
    await waitFor(() => claimsBy(h.s).length === 1, "the claim");
    // The daemon holds the position (the point at which an unwind would start), and a later claim
    // has been made and held too: the first position's unwind window has passed. No order.
    await waitFor(async () => (await metric(h.d.metricsUrl, "liquidator_position", { symbol: "PERP_ETH_USDC" })) > 0, "the position held");
    open(h.s, "PERP_SOL_USDC", 3_000, -1);
    await waitFor(
      async () => (await metric(h.d.metricsUrl, "liquidator_position", { symbol: "PERP_SOL_USDC" })) < 0,
      "a later position held",
    );
    expect(venueOrders(h.s)).toEqual([]);
    expect(await metric(h.d.metricsUrl, "liquidator_orders_total")).toBe(0);

    h = await start(rig, { env: { LIQUIDATOR_DRY_RUN: "1" } });
    open(h.s, "PERP_ETH_USDC", 3_000, 1);
    await waitFor(() => h.d.logs.has("dry run: claim decided, not sent"), "a dry-run decision");
    await reconcileRounds(h.d.metricsUrl, 2); // they offer the still-open id again: still nothing sent
    expect(requestsFrom(h.s)).toEqual([]);
    expect(venueOrders(h.s)).toEqual([]);

    h = await start(rig, {
      symbols: withBooks({ PERP_ETH_USDC: DEEP, PERP_SOL_USDC: DEEP }),
      sections: { unwind: { hold: ["PERP_ETH_USDC"] } },
    });
    // The held symbol first, the other once the daemon holds it: the other's whole unwind, to flat,
    // then happens after the held one reached the unwinder, which sent nothing for it meanwhile.
    open(h.s, "PERP_ETH_USDC", 3_000, 1);
    await waitFor(
      async () => (await metric(h.d.metricsUrl, "liquidator_position", { symbol: "PERP_ETH_USDC" })) > 0,
      "the held symbol held",
    );
    open(h.s, "PERP_SOL_USDC", 3_000, -1);
    await waitFor(() => claimsBy(h.s).length === 2, "two claims");
    await waitFor(() => openQty(h.s, "PERP_SOL_USDC") === 0, "the other symbol flat", 20_000);
    expect(openQty(h.s, "PERP_ETH_USDC")).toBeGreaterThan(0);
    expect(venueOrders(h.s).filter((o) => o.symbol === "PERP_ETH_USDC")).toEqual([]);
  }, 90_000);

  test("the exposure cap blocks claims only until the positions are flat again", async ({ rig }) => {
    // A book thin enough that getting flat takes seconds, so the cap is reached.
    const thin = { spreadBps: 4, levels: 3, stepBps: 5, levelNotional: 1_200, refillPerSec: 0.6 };
    const { s, d } = await start(rig, {
      symbols: withBooks({ PERP_ETH_USDC: thin }),
      policy: { max_total_exposure: 7_000, max_claim_notional: 1_000_000 },
    });
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push(open(s, "PERP_ETH_USDC", 3_000, 1));
    await waitFor(() => claimsBy(s).length === 6, "all 6 claimed as positions are closed", 90_000);
    expect(await metric(d.metricsUrl, "liquidator_claims_skipped_total", { reason: "exposure_cap" })).toBeGreaterThan(0);
    // Each claim after the first two waited for exposure freed by fills, never for anything else.
    const claimedAt = claimsBy(s).map((e) => e.receivedAt);
    console.info(
      `claims under the cap, s after the first: ${claimedAt.map((t) => ((t - (claimedAt[0] as number)) / 1000).toFixed(1)).join(", ")}`,
    );
    await waitFor(() => openQty(s, "PERP_ETH_USDC") === 0, "flat in the end", 60_000);
  }, 150_000);
});
