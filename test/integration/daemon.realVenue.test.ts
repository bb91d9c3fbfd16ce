/**
 * The daemon against the simulated venue in each flavor (src/sim/flavor.ts): `spec` answers as
 * docs/protocol.md writes it, `real` the way the real venue may (docs/protocol.md §9: tier and envelope
 * timestamp as strings, `reduce_only: null`, -1000 / HTTP 500 for an order it does not know, lean
 * claim answers, the `*_order` rewards names, an unknown code for a claim refused by its limit
 * price). The same tests run against both, configured as for the real venue (an `orderly-*` preset,
 * its header prefix): claims on every symbol; unwinding flat after lost order answers, looked up
 * (an order that never arrived is -1000 on the real flavor); a claim refused with a code the daemon
 * does not know re-decided and claimed once the price fits; never a claim or an order twice (the
 * venue's own record); the epochs and campaign commands and the rewards metrics.
 */
import { PassThrough } from "node:stream";
import { describe, expect } from "vitest";
import { main } from "../../src/commands/dispatch.js";
import type { SimFlavor } from "../../src/sim/flavor.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { DEFAULT_SYMBOLS, roundToStep, type SymbolSpec } from "../../src/sim/symbols.js";
import { claimsBy, countById, daemonEnv, metric, requestsFrom, waitFor } from "../support/daemonHarness.js";
import { type Rig, test } from "../support/rig.js";
import { openQty, venueOrders } from "../support/unwindProbe.js";

const DEEP = { spreadBps: 2, levels: 20, stepBps: 2, levelNotional: 200_000, refillPerSec: 1 };
const ALL_DEEP: SymbolSpec[] = DEFAULT_SYMBOLS.map((s) => ({ ...s, book: DEEP }));
const PRESET = { LIQUIDATOR_VENUE_PRESET: "orderly-testnet" };
/** The simulator's running campaign (src/sim/population.ts). */
const CAMPAIGN_ID = 2;

const FLAVORS: SimFlavor[] = ["spec", "real"];

/** A liquidation of about `notional` quote of `symbol`, long or short. */
function open(s: SimulatorHandle, symbol: string, notional: number, sign: 1 | -1): number {
  const spec = s.core.symbols.get(symbol) as SymbolSpec;
  const qty = roundToStep(notional / (s.core.mark(symbol) as number), spec.qtyStep);
  return s.core.addLiquidation({ positions: [{ symbol, position_qty: sign * qty }] });
}

interface StartOptions {
  symbols?: SymbolSpec[];
  scenario?: { markIntervalMs: number };
  policy?: Record<string, unknown>;
  sections?: (s: SimulatorHandle) => Record<string, unknown>;
}

/** The venue in `flavor` with the real venue's header prefix, and the daemon configured with its preset, ready to claim. */
async function start(rig: Rig, flavor: SimFlavor, o: StartOptions = {}) {
  const s = await rig.sim({
    flavor,
    headerPrefix: "orderly",
    ...(o.symbols ? { symbols: o.symbols } : {}),
    ...(o.scenario ? { scenario: o.scenario } : {}),
  });
  const d = await rig.daemon({
    sim: s,
    env: PRESET,
    ...(o.policy ? { policy: o.policy } : {}),
    ...(o.sections ? { sections: o.sections(s) } : {}),
    until: "ready",
  });
  return { s, d };
}

/** Never a claim twice: each liquidation id taken at most once, by the venue's claim log. */
function expectNoDuplicateClaim(s: SimulatorHandle): void {
  for (const [id, n] of countById(claimsBy(s))) expect(n, `claims of ${id}`).toBe(1);
}

/** Never an order twice, and none that could grow a position: the venue's own orders. */
function expectNoDuplicateOrder(s: SimulatorHandle): void {
  const orders = venueOrders(s);
  const ids = orders.map((o) => o.client_order_id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(orders.filter((o) => !o.reduce_only)).toEqual([]);
}

/** A CLI command run in this process; its exit status and stdout. */
async function cli(argv: string[], env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: string[] = [];
  const err: string[] = [];
  stdout.on("data", (c: Buffer) => out.push(c.toString()));
  stderr.on("data", (c: Buffer) => err.push(c.toString()));
  const status = await main(argv, { stdout, stderr, env, signal: new AbortController().signal });
  return { status, stdout: out.join(""), stderr: err.join("") };
}

for (const flavor of FLAVORS) {
  describe(`the daemon against the simulated venue, ${flavor} flavor`, () => {
    test("claims on every symbol, each id once, and every position back to flat", async ({ rig }) => {
      const { s, d } = await start(rig, flavor, { symbols: ALL_DEEP });
      const names = s.core.symbols.names();
      const ids = names.map((symbol, i) => open(s, symbol, 3_000, i % 2 === 0 ? 1 : -1));
      await waitFor(() => claimsBy(s).length === ids.length, `a claim on each of the ${names.length} symbols`, 40_000);
      expect(new Set(claimsBy(s).flatMap((c) => c.transfers.map((t) => t.symbol)))).toEqual(new Set(names));
      // Each answer read as an answer (an unreadable one counts as an error, its claim then learnt from the stream).
      await waitFor(
        async () => (await metric(d.metricsUrl, "liquidator_claims_result_total", { result: "success" })) === ids.length,
        "every claim's answer read",
      );
      expect(await metric(d.metricsUrl, "liquidator_claims_result_total", { result: "error" })).toBe(0);
      await waitFor(() => names.every((x) => openQty(s, x) === 0), "every position flat", 60_000);
      expectNoDuplicateClaim(s);
      expectNoDuplicateOrder(s);
    }, 120_000);

    test("order answers lost, before and after the venue got the order: looked up, settled, flat, nothing twice", async ({ rig }) => {
      const { s, d } = await start(rig, flavor, { symbols: ALL_DEEP });
      // The first order never reaches the venue (a lookup finds nothing: -1006, or -1000 / HTTP 500 on
      // the real venue), the next one is applied but its answer is lost (a lookup finds it).
      // The private stream says nothing meanwhile, so no fill report settles an order before its lookup.
      s.faults.rest.reset({ path: "/v1/order", method: "POST", times: 1, phase: "before" });
      s.core.trading.faults.loseAnswers(1);
      s.faults.streams.stall("private", true);
      open(s, "PERP_ETH_USDC", 3_000, 1);
      await waitFor(() => claimsBy(s).length === 1, "the claim");
      await waitFor(() => openQty(s, "PERP_ETH_USDC") === 0, "flat", 60_000);
      s.faults.streams.stall("private", false);
      expect(s.faults.rest.injected).toBe(1);
      expect(s.core.trading.faults.takeLostAnswer()).toBe(false); // the lost answer was used
      // At least the order that never arrived was looked up (the lost answer may be settled first by a positions read).
      expect(d.logs.find("unwind order outcome unknown; looking it up").length).toBeGreaterThanOrEqual(1);
      expectNoDuplicateClaim(s);
      expectNoDuplicateOrder(s);
      // Flat and staying flat: once the daemon itself sees the position flat (and has timed it) it
      // sends nothing more, so anything it sent has been weighed by now; nothing sold past zero.
      await waitFor(
        async () =>
          (await metric(d.metricsUrl, "liquidator_position", { symbol: "PERP_ETH_USDC" })) === 0 &&
          (await metric(d.metricsUrl, "liquidator_time_to_flat_seconds_count")) >= 1,
        "the daemon's own view flat",
      );
      expect(openQty(s, "PERP_ETH_USDC", true)).toBeCloseTo(0, 9);
      expect(await metric(d.metricsUrl, "liquidator_orders_total", { result: "sent" })).toBeGreaterThanOrEqual(venueOrders(s).length);
    }, 90_000);

    test("a claim refused by its limit price (a code the daemon may not know) is re-decided and claimed once the price fits", async ({
      rig,
    }) => {
      // No scripted mark pushes: the daemon's view of the mark moves only when the test pushes one.
      const { s } = await start(rig, flavor, { scenario: { markIntervalMs: 0 }, policy: { max_mark_age_ms: 3_600_000 } });
      const symbol = "PERP_SOL_USDC";
      const before = s.core.mark(symbol) as number;
      const id = open(s, symbol, 3_000, 1);
      // Unannounced, the venue's mark is 2 % above the daemon's: a buyer's limit 50 bps over its mark is passed.
      s.core.market.set(symbol, before * 1.02, s.core.now());
      await waitFor(() => requestsFrom(s).some((e) => e.liquidationId === id && e.code === -1203), "the claim refused by its limit price");
      expect(claimsBy(s)).toEqual([]);
      // The mark is announced: the daemon's price fits the venue's again.
      s.core.setMark(symbol, before * 1.02);
      await waitFor(() => claimsBy(s).some((c) => c.liquidationId === id), "the claim taken once the price fits", 30_000);
      expectNoDuplicateClaim(s);
      const refused = requestsFrom(s).filter((e) => e.liquidationId === id && e.code !== 0);
      expect(refused.every((e) => e.code === -1203)).toBe(true);
    }, 60_000);

    test("rewards and campaign metrics, and the epochs and campaign commands, read the venue's rewards fields", async ({ rig }) => {
      const { s, d } = await start(rig, flavor, {
        sections: (sim) => ({ rewards: { poll_interval_ms: 1000, campaign: { campaign_id: CAMPAIGN_ID, account_id: sim.accountId } } }),
      });
      const epochData = s.core.rewards.epochData();
      await waitFor(
        async () => (await metric(d.metricsUrl, "liquidator_rewards_released", { kind: "native" })) > 0,
        "the rewards released gauge",
      );
      expect(await metric(d.metricsUrl, "liquidator_rewards_released", { kind: "native" })).toBeCloseTo(
        epochData.total_released_trading_rewards_native,
        6,
      );
      const campaign = { campaign_id: String(CAMPAIGN_ID) };
      const { staked } = await waitFor(async () => {
        const v = await metric(d.metricsUrl, "liquidator_campaign_staked_native", campaign);
        return Number.isNaN(v) ? undefined : { staked: v };
      }, "the campaign staked gauge");
      const venueStats = await fetch(`${s.baseUrl}/v1/public/campaign/user?campaign_id=${CAMPAIGN_ID}&account_id=${s.accountId}`).then(
        async (r) => ((await r.json()) as { data: Record<string, number> }).data,
      );
      expect(staked).toBe(venueStats.total_staked_native ?? venueStats.total_staked_order);
      expect(await metric(d.metricsUrl, "liquidator_campaign_end_account_value", campaign)).toBe(venueStats.end_account_value);

      expect(d.logs.find("rewards poll failed")).toEqual([]);

      const env = daemonEnv(s, await rig.dir("commands"), PRESET);
      const epochs = await cli(["epochs", "--json"], env);
      expect(epochs.status).toBe(0);
      const rows = JSON.parse(epochs.stdout) as { epoch_id: number }[];
      expect(rows.map((r) => r.epoch_id)).toEqual(epochData.rows.map((r) => r.epoch_id));
      const text = await cli(["epochs"], env);
      expect(text.status).toBe(0);
      expect(text.stdout).toContain(String(epochData.total_released_trading_rewards_native));

      const user = await cli(["campaign", "--campaign-id", String(CAMPAIGN_ID), "--account-id", s.accountId, "--json"], env);
      expect(user.status).toBe(0);
      const shown = JSON.parse(user.stdout) as Record<string, number>;
      expect(shown.volume).toBe(venueStats.volume);
      expect(shown.end_account_value).toBe(venueStats.end_account_value);
    }, 60_000);
  });
}
