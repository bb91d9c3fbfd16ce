/**
 * `unwind.scope` and the safe stop, daemon against the simulated venue over real sockets, every
 * check made at the venue: an account that already holds the operator's own positions when the
 * daemon starts gets only the claimed quantity unwound (the operator's untouched, reported as no
 * claim's), across a restart in the middle too; with `unwind.scope: all` it is closed flat. SIGUSR2
 * stops claiming at once, unwinding goes on to flat, and the process exits 0.
 */
import { describe, expect } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { DEFAULT_SYMBOLS, roundToStep, type SymbolSpec } from "../../src/sim/symbols.js";
import {
  claimsBy,
  daemonEnv,
  metric,
  nothingHappens,
  OPEN_POLICY,
  type Readyz,
  readyz,
  reconcileReads,
  requestsFrom,
  waitFor,
  writePolicyFile,
} from "../support/daemonHarness.js";
import type { LogCollector } from "../support/logCollector.js";
import { test } from "../support/rig.js";
import { openQty, venueOrders } from "../support/unwindProbe.js";

const ETH = "PERP_ETH_USDC";
const SOL = "PERP_SOL_USDC";
const DEEP = { spreadBps: 2, levels: 20, stepBps: 2, levelNotional: 200_000, refillPerSec: 1 };
const deep = () => ({ symbols: DEFAULT_SYMBOLS.map((x) => (x.symbol === ETH || x.symbol === SOL ? { ...x, book: DEEP } : x)) });

/** The operator's own trade on the account (not the daemon's): a market order, not reduce-only. */
function operatorTrade(s: SimulatorHandle, symbol: string, side: "BUY" | "SELL", qty: number): void {
  const r = s.core.trading.place(s.accountId, {
    symbol,
    order_type: "MARKET",
    side,
    order_quantity: qty,
    client_order_id: `op-${(symbol.split("_")[1] as string).toLowerCase()}-${side.toLowerCase()}`,
  });
  if (!r.ok) throw new Error(`operator trade refused: ${r.refusal.message}`);
}

function liquidate(s: SimulatorHandle, symbol: string, notional: number, sign: 1 | -1): { id: number; qty: number } {
  const spec = s.core.symbols.get(symbol) as SymbolSpec;
  const qty = roundToStep(notional / (s.core.mark(symbol) as number), spec.qtyStep);
  return { id: s.core.addLiquidation({ positions: [{ symbol, position_qty: sign * qty }] }), qty };
}

/** What the daemon's unwind orders traded at the venue, signed (+ buy), per symbol. */
function unwound(s: SimulatorHandle, symbol: string): number {
  return venueOrders(s)
    .filter((o) => o.symbol === symbol && !String(o.client_order_id).startsWith("op-"))
    .reduce((a, o) => a + (o.side === "BUY" ? 1 : -1) * o.total_executed_quantity, 0);
}

/** The claim's transfer of `symbol` as the venue applied it (signed, what the account received). */
function assigned(s: SimulatorHandle, symbol: string): number {
  return claimsBy(s)
    .flatMap((c) => c.transfers)
    .filter((t) => t.symbol === symbol)
    .reduce((a, t) => a + t.positionQty, 0);
}

const close = (a: number, b: number, step: number) => Math.abs(a - b) < step;

/** An order of the daemon's (not the operator's) at the venue, described; undefined while there is none. */
const daemonOrder = (s: SimulatorHandle) => {
  const o = venueOrders(s).find((x) => !String(x.client_order_id).startsWith("op-"));
  return o === undefined ? undefined : `the daemon sent an order: ${o.side} ${o.symbol}`;
};

/** The unwinder found its own part of `symbol` closed (positionCloses.ts's line, after the last fill of it). */
const closedLine = (logs: LogCollector, symbol: string) => logs.find("position closed").some((l) => l.symbol === symbol);

describe("unwind.scope against the simulated venue", () => {
  test("claimed (default): only what the claims assigned is unwound; the operator's positions are untouched and reported", async ({
    rig,
  }) => {
    const sim = await rig.sim(deep());
    const step = (sim.core.symbols.get(ETH) as SymbolSpec).qtyStep;
    operatorTrade(sim, ETH, "BUY", 1);
    operatorTrade(sim, SOL, "SELL", 20);
    const ownEth = openQty(sim, ETH, true);
    const ownSol = openQty(sim, SOL, true);
    expect(ownEth).toBeGreaterThan(0);
    expect(ownSol).toBeLessThan(0);
    const d = await rig.daemon({ sim, stateDir: await rig.dir("scope-claimed") });
    await waitFor(() => d.logs.has("positions read from the venue; claiming may start"), "the daemon ready to claim");
    // Reported at start: a log line each, the gauge, /readyz (informational: still ready).
    await waitFor(
      () => d.logs.find("a position no claim explains: left alone (unwind.scope: claimed; use a dedicated account)").length === 2,
      "both reported",
    );
    // The unwinder was kicked on the positions read; reconcile rounds later an order it sent is at the venue.
    await nothingHappens(() => daemonOrder(sim), reconcileReads(d.metricsUrl), 2);
    expect(openQty(sim, ETH, true)).toBe(ownEth);
    expect(openQty(sim, SOL, true)).toBe(ownSol);
    expect(await metric(d.metricsUrl, "liquidator_positions_unexplained", { symbol: ETH })).toBeCloseTo(ownEth, 9);
    expect(await metric(d.metricsUrl, "liquidator_positions_unexplained", { symbol: SOL })).toBeCloseTo(ownSol, 9);
    const r = (await waitFor(async () => {
      const x = await readyz(d.metricsUrl);
      return x.status === 200 ? x : undefined;
    }, "ready")) as Readyz;
    const body = r.body as { venue?: string; trading_state?: string; unexplained_positions?: { symbol: string; qty: number }[] };
    expect(body.trading_state).toBe("active");
    expect(body.venue).toBe("live"); // docs/operations.md "HTTP endpoints and metrics": a live venue says so (the simulator's: daemon.ownership)
    expect(body.unexplained_positions?.map((p) => p.symbol).sort()).toEqual([ETH, SOL]);

    // Claims on both sides of ETH; each claimed quantity is closed, nothing of the operator's.
    liquidate(sim, ETH, 3_000, 1);
    await waitFor(() => claimsBy(sim).length === 1, "the first claim");
    await waitFor(() => close(unwound(sim, ETH), -assigned(sim, ETH), step), "the claimed long sold", 30_000);
    // It planned again after the last fill and found its part flat; closing the operator's too, it would not be.
    await waitFor(() => closedLine(d.logs, ETH), "the unwinder's 'position closed'", 30_000);
    expect(close(openQty(sim, ETH, true), ownEth, step)).toBe(true);
    expect(openQty(sim, SOL, true)).toBe(ownSol);
    const orders = venueOrders(sim).filter((o) => !String(o.client_order_id).startsWith("op-"));
    expect(orders.filter((o) => !o.reduce_only || o.type !== "IOC" || o.symbol !== ETH)).toEqual([]);
    // Never more than the claim: what was sold is at most what was assigned.
    expect(-unwound(sim, ETH)).toBeLessThanOrEqual(assigned(sim, ETH) + 1e-9);
    expect(await metric(d.metricsUrl, "liquidator_positions_unexplained", { symbol: ETH })).toBeCloseTo(openQty(sim, ETH, true), 9);
  }, 90_000);

  test("all: every position on the account is closed, the operator's included", async ({ rig }) => {
    const sim = await rig.sim(deep());
    operatorTrade(sim, ETH, "BUY", 1);
    operatorTrade(sim, SOL, "SELL", 20);
    const d = await rig.daemon({ sim, stateDir: await rig.dir("scope-all"), sections: { unwind: { scope: "all" } } });
    await waitFor(() => d.logs.find("a position no claim explains: closing it (unwind.scope: all)").length === 2, "both reported");
    await waitFor(() => openQty(sim, ETH) === 0 && openQty(sim, SOL) === 0, "the account flat", 30_000);
  }, 90_000);

  test("a restart in the middle keeps the claimed accounting: the claim is closed after it, the operator's position is not", async ({
    rig,
  }) => {
    const sim = await rig.sim(deep());
    const step = (sim.core.symbols.get(ETH) as SymbolSpec).qtyStep;
    operatorTrade(sim, ETH, "BUY", 1);
    const own = openQty(sim, ETH, true);
    const stateDir = await rig.dir("scope-restart");
    const first = await rig.daemon({ sim, stateDir });
    await waitFor(() => first.logs.has("positions read from the venue; claiming may start"), "the daemon ready to claim");
    // No liquidity: the claim is held until after the restart.
    sim.core.trading.faults.emptyBook(ETH, 120_000);
    liquidate(sim, ETH, 3_000, 1);
    await waitFor(() => claimsBy(sim).length === 1, "the claim");
    await waitFor(() => openQty(sim, ETH, true) > own + step, "the claim held");
    await first.stop();
    const second = await rig.daemon({ sim, stateDir });
    await waitFor(() => second.logs.has("positions read from the venue; claiming may start"), "restarted");
    // The claimed part is explained by the journal: only the operator's is reported.
    await waitFor(
      () => second.logs.has("a position no claim explains: left alone (unwind.scope: claimed; use a dedicated account)"),
      "reported",
    );
    const line = second.logs.find("a position no claim explains: left alone (unwind.scope: claimed; use a dedicated account)")[0];
    expect(close(Number(line?.qty), own, step)).toBe(true);
    sim.core.trading.faults.clear();
    await waitFor(() => close(unwound(sim, ETH), -assigned(sim, ETH), step), "the claim sold after the restart", 30_000);
    await waitFor(() => closedLine(second.logs, ETH), "the unwinder's 'position closed' after the restart", 30_000);
    expect(close(openQty(sim, ETH, true), own, step)).toBe(true);
  }, 120_000);
});

describe("stopping safely (SIGUSR2)", () => {
  test("claiming stops at once, unwinding goes on to flat, exit 0", async ({ rig, build }) => {
    const sim = await rig.sim(deep());
    const dir = await rig.dir("drain");
    const config = await writePolicyFile(dir, OPEN_POLICY);
    const p = rig.spawn(build.cli, [], daemonEnv(sim, `${dir}/state`, { LIQUIDATOR_CONFIG: config }), dir);
    const url = await p.metricsUrl();
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, "daemon ready", 30_000);
    expect(await metric(url, "liquidator_trading_state", { state: "active" })).toBe(1);
    // A claim held open (no liquidity) when the signal comes.
    sim.core.trading.faults.emptyBook(ETH, 120_000);
    liquidate(sim, ETH, 3_000, 1);
    await waitFor(() => claimsBy(sim).length === 1, "the claim");
    await waitFor(() => openQty(sim, ETH) > 0, "the claim held");
    p.child.kill("SIGUSR2");
    await waitFor(() => p.logs.has("trading state: reducing (no new claims; unwinding goes on)"), "reducing");
    expect(await metric(url, "liquidator_trading_state", { state: "reducing" })).toBe(1);
    expect(await metric(url, "liquidator_trading_state", { state: "active" })).toBe(0);
    expect(((await readyz(url)).body as { trading_state?: string }).trading_state).toBe("reducing");
    const requestsBefore = requestsFrom(sim).length;
    const seen = await metric(url, "liquidator_liquidations_seen_total");
    // New liquidations after the signal: seen, and none is claimed then or at the reconcile rounds that offer them again.
    liquidate(sim, SOL, 2_000, -1);
    liquidate(sim, ETH, 2_000, -1);
    await waitFor(async () => (await metric(url, "liquidator_liquidations_seen_total")) >= seen + 2, "both seen");
    await nothingHappens(() => requestsFrom(sim).length !== requestsBefore && "a claim request while reducing", reconcileReads(url), 2);
    expect(p.exited()).toBe(false); // a claimed position is still open: no exit yet
    sim.core.trading.faults.clear();
    const end = await p.exit;
    expect(end.code).toBe(0);
    expect(openQty(sim, ETH)).toBe(0);
    expect(requestsFrom(sim).length).toBe(requestsBefore);
    expect(p.logs.has("drain: done; every claimed position is flat")).toBe(true);
  }, 120_000);

  test("a claim the venue assigned off its quantity grid: closed down to its dust, the stop ends 'flat except dust', exit 0", async ({
    rig,
    build,
  }) => {
    const sim = await rig.sim(deep());
    const dir = await rig.dir("drain-dust");
    const config = await writePolicyFile(dir, OPEN_POLICY);
    const p = rig.spawn(build.cli, [], daemonEnv(sim, `${dir}/state`, { LIQUIDATOR_CONFIG: config }), dir);
    const url = await p.metricsUrl();
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, "daemon ready", 30_000);
    // A liquidated position off the 0.0001 grid, taken whole (ratio 1): 0.5227 is closable, 0.0000064 is not.
    sim.core.addLiquidation({ positions: [{ symbol: ETH, position_qty: 0.5227064 }] });
    await waitFor(() => claimsBy(sim).length === 1, "the claim");
    await waitFor(() => p.logs.has("position closed; dust left (below the venue's minimum order)"), "closed down to its dust");
    const closed = p.logs.find("position closed; dust left (below the venue's minimum order)")[0];
    expect(closed).toMatchObject({ component: "unwinder", symbol: ETH, qty: -0.5227, dustQty: 0.0000064 });
    expect(typeof closed?.avgPrice).toBe("number");
    expect(typeof closed?.slippageBps).toBe("number");
    expect(typeof closed?.timeToFlatS).toBe("number");
    expect(openQty(sim, ETH, true)).toBeCloseTo(0.0000064, 10);
    expect(await metric(url, "liquidator_dust_notional_quote", { symbol: ETH })).toBeGreaterThan(0);
    p.child.kill("SIGUSR2");
    const end = await p.exit;
    expect(end.code).toBe(0);
    expect(p.logs.has("drain: done; flat except dust")).toBe(true);
    const done = p.logs.find("drain: done; flat except dust")[0];
    expect(done?.dustQuote).toBeGreaterThan(0);
    expect(p.logs.has("drain: done; positions above dust stay open (not unwound by this daemon)")).toBe(false);
  }, 120_000);

  test("a drain stuck on the slippage cap: SIGHUP raises unwind.max_slippage_bps, the next slice fills, the stop ends flat", async ({
    rig,
    build,
  }) => {
    // A book whose best bid is 1 % under the mark: nothing fills within a 10 bps cap.
    const WIDE = { spreadBps: 200, levels: 20, stepBps: 2, levelNotional: 200_000, refillPerSec: 1 };
    const sim = await rig.sim({ symbols: DEFAULT_SYMBOLS.map((x) => (x.symbol === ETH ? { ...x, book: WIDE } : x)) });
    const dir = await rig.dir("drain-hup");
    const narrow = { unwind: { max_slippage_bps: 10 } };
    const config = await writePolicyFile(dir, OPEN_POLICY, "config.yaml", narrow);
    const p = rig.spawn(build.cli, [], daemonEnv(sim, `${dir}/state`, { LIQUIDATOR_CONFIG: config }), dir);
    const url = await p.metricsUrl();
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, "daemon ready", 30_000);
    liquidate(sim, ETH, 3_000, 1);
    await waitFor(() => claimsBy(sim).length === 1 && openQty(sim, ETH) > 0, "the claim held");
    p.child.kill("SIGUSR2");
    await waitFor(() => p.logs.has("drain: waiting"), "draining");
    // The drain checks every 250 ms; over two reconcile rounds of the same process it has looked often.
    await nothingHappens(() => p.exited() && "the drain exited with the position open", reconcileReads(url), 2);
    expect(openQty(sim, ETH)).toBeGreaterThan(0);
    await writePolicyFile(dir, OPEN_POLICY, "config.yaml", { unwind: { max_slippage_bps: 300 } });
    p.child.kill("SIGHUP");
    const end = await p.exit;
    expect(end.code).toBe(0);
    expect(openQty(sim, ETH)).toBe(0);
    expect(p.logs.find("config key changed")).toEqual([
      expect.objectContaining({ key: "unwind.max_slippage_bps", from: 10, to: 300, applies: "now" }),
    ]);
    expect(p.logs.has("config keys outside policy, unwind, protections and shadow changed; they apply after a restart")).toBe(false);
    expect(p.logs.has("drain: done; every claimed position is flat")).toBe(true);
  }, 120_000);

  test("a held symbol's claimed position is left open: the stop says so and exits 3", async ({ rig, build }) => {
    const sim = await rig.sim(deep());
    const dir = await rig.dir("drain-held");
    const config = await writePolicyFile(dir, OPEN_POLICY, "config.yaml", { unwind: { hold: [SOL] } });
    const p = rig.spawn(build.cli, [], daemonEnv(sim, `${dir}/state`, { LIQUIDATOR_CONFIG: config }), dir);
    const url = await p.metricsUrl();
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, "daemon ready", 30_000);
    liquidate(sim, SOL, 2_000, -1);
    await waitFor(() => claimsBy(sim).length === 1 && openQty(sim, SOL) !== 0, "the claim held");
    p.child.kill("SIGUSR2");
    const end = await p.exit;
    expect(end.code).toBe(3);
    const line = p.logs.find("drain: done; positions above dust stay open (not unwound by this daemon)")[0];
    expect(line?.positions).toEqual([expect.objectContaining({ symbol: SOL, reason: "held" })]);
  }, 120_000);

  test("SIGTERM (not a safe stop) says which claimed positions it leaves open, and exits 0", async ({ rig, build }) => {
    const sim = await rig.sim(deep());
    const dir = await rig.dir("term-held");
    const config = await writePolicyFile(dir, OPEN_POLICY, "config.yaml", { unwind: { hold: [SOL] } });
    const p = rig.spawn(build.cli, [], daemonEnv(sim, `${dir}/state`, { LIQUIDATOR_CONFIG: config }), dir);
    const url = await p.metricsUrl();
    await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, "daemon ready", 30_000);
    liquidate(sim, SOL, 2_000, -1);
    await waitFor(() => claimsBy(sim).length === 1 && openQty(sim, SOL) !== 0, "the claim held");
    p.child.kill("SIGTERM");
    expect((await p.exit).code).toBe(0);
    const line = p.logs.find("shutting down: these claimed positions stay open (SIGUSR2 stops safely: unwinds first)")[0];
    expect(line?.positions).toEqual([expect.objectContaining({ symbol: SOL, qty: openQty(sim, SOL), reason: "held" })]);
  }, 120_000);
});
