/**
 * Margin modes (docs/protocol.md §9), daemon against the simulated venue over real sockets: claims
 * that the venue lands in an isolated position and claims it lands in the cross one, on the same
 * symbol, held side by side while the book is empty; once it refills, the daemon closes both flat,
 * each with reduce-only orders carrying that position's `margin_mode` (checked at the venue).
 */
import { describe, expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { DEFAULT_SYMBOLS, roundToStep, type SymbolSpec } from "../../src/sim/symbols.js";
import { claimsBy, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";
import { openQty, venueOrders } from "../support/unwindProbe.js";

const ETH = "PERP_ETH_USDC";
const DEEP = { spreadBps: 2, levels: 20, stepBps: 2, levelNotional: 200_000, refillPerSec: 1 };

function open(s: SimulatorHandle, notional: number, sign: 1 | -1): number {
  const spec = s.core.symbols.get(ETH) as SymbolSpec;
  const qty = roundToStep(notional / (s.core.mark(ETH) as number), spec.qtyStep);
  return s.core.addLiquidation({ positions: [{ symbol: ETH, position_qty: sign * qty }] });
}

/** The account's isolated position in ETH at the venue (dust below the step is flat). */
function isolatedQty(s: SimulatorHandle): number {
  const qty = s.core.trading.booksOf(s.accountId, "ISOLATED").get(ETH)?.qty ?? 0;
  return Math.abs(qty) < (s.core.symbols.get(ETH)?.qtyStep ?? 0) ? 0 : qty;
}

describe("margin modes against the simulated venue", () => {
  test("an isolated and a cross position on one symbol: both unwound flat, each order in its position's margin mode", async ({ rig }) => {
    const sim = await rig.sim({ symbols: DEFAULT_SYMBOLS.map((x) => (x.symbol === ETH ? { ...x, book: DEEP } : x)) });
    const d = await rig.daemon({ sim, stateDir: await rig.dir("margin-mode") });
    await waitFor(() => d.logs.has("positions read from the venue; claiming may start"), "the daemon ready to claim");
    // No liquidity for a while: what the claims assign is held side by side until the book refills.
    sim.core.trading.faults.emptyBook(ETH, 60_000);
    open(sim, 3_000, 1);
    await waitFor(() => claimsBy(sim).length === 1, "the cross claim");
    sim.core.trading.faults.assignIsolated(2);
    open(sim, 2_000, -1);
    await waitFor(() => claimsBy(sim).length === 2, "the first isolated claim");
    open(sim, 1_000, -1);
    await waitFor(() => claimsBy(sim).length === 3, "the second isolated claim");
    expect(openQty(sim, ETH)).toBeGreaterThan(0);
    expect(isolatedQty(sim)).toBeLessThan(0);
    // A cross claim again after the isolated ones.
    open(sim, 1_000, 1);
    await waitFor(() => claimsBy(sim).length === 4, "the second cross claim");
    // Tried while the book was empty: never netted across modes (a cross SELL never meets the isolated short).
    await waitFor(() => venueOrders(sim).some((o) => o.margin_mode === "ISOLATED"), "an isolated unwind order tried");
    sim.core.trading.faults.clear();
    await waitFor(() => openQty(sim, ETH) === 0 && isolatedQty(sim) === 0, "both positions flat", 60_000);
    const orders = venueOrders(sim);
    expect(orders.filter((o) => !o.reduce_only || o.type !== "IOC")).toEqual([]);
    // The long sits in cross and is sold there; the short sits in isolated and is bought back there.
    expect(orders.filter((o) => o.margin_mode === "CROSS" && o.side !== "SELL")).toEqual([]);
    expect(orders.filter((o) => o.margin_mode === "ISOLATED" && o.side !== "BUY")).toEqual([]);
    const traded = (mode: string) => orders.filter((o) => o.margin_mode === mode).reduce((a, o) => a + o.total_executed_quantity, 0);
    expect(traded("CROSS")).toBeGreaterThan(0);
    expect(traded("ISOLATED")).toBeGreaterThan(0);
    // No reduce-only order was refused for being on the wrong position.
    expect(d.logs.lines.filter((l) => l.code === -1106)).toEqual([]);
  }, 120_000);
});
