/**
 * The heatmap in the daemon against the position-driven simulated market, over real sockets: the
 * poller reads every platform position and `liquidator_forecast_notional_quote` holds what the
 * venue's own positions say (the heatmap computed here from the simulator's rows); the capture
 * records the polls; `liquidator_capacity_quote` follows the account's collateral, and the 2 % band
 * exceeding it is what the alert (LiquidatorForecastOverCapacity) reads.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { FORECAST_BANDS, FORECAST_SIDES, heatmapOf } from "../../src/engine/forecast.js";
import { readCapture } from "../../src/lab/capture/captureReader.js";
import type { SimAccount } from "../../src/sim/accounts.js";
import { platformPositionRows } from "../../src/sim/platformPositions.js";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { metric, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";

test("the daemon's heatmap is the venue's positions by band; capacity follows the collateral; the capture keeps the polls", async ({
  rig,
}) => {
  // The market still (marks not stepped): what the daemon polls is what the simulator holds now.
  const sim = await rig.sim({
    collateral: 200_000,
    scenario: { ...QUIET_SCENARIO, market: "positions", liquidationsPerSec: 0.1, markIntervalMs: 0 },
  });
  // ETH at 2× on the venue (10× elsewhere): its own capacity is a fifth of the others'.
  (sim.core.accounts.get(sim.accountId) as SimAccount).leverage.set("PERP_ETH_USDC", 2);
  const d = await rig.daemon({
    sim,
    sections: { forecast: { interval_s: 5 }, state: { capture: true } },
    policy: { max_total_exposure: 1e9, max_margin_usage: 0.5 },
  });
  const series = (symbol: string, side: string, band: string) =>
    metric(d.metricsUrl, "liquidator_forecast_notional_quote", { symbol, side, band });
  await waitFor(async () => (await series("PERP_BTC_USDC", "long", "5pct")) > 0, "a heatmap on /metrics", 30_000);

  const rows = platformPositionRows(sim.core, sim.scenario.market?.population, "sim");
  const expected = heatmapOf(
    rows.map((r) => ({
      symbol: r.symbol,
      side: r.side === "LONG" ? "long" : "short",
      qty: Math.abs(Number(r.wire.position_qty)),
      estLiqPrice: r.wire.est_liq_price === null ? null : Number(r.wire.est_liq_price),
    })),
    (s) => sim.core.mark(s),
  );
  let cells = 0;
  for (const [symbol, cell] of expected.cells) {
    for (const side of FORECAST_SIDES) {
      for (const [i, band] of FORECAST_BANDS.entries()) {
        const want = cell[side][i] as number;
        expect(await series(symbol, side, band.label)).toBeCloseTo(want, -1);
        if (want > 0) cells++;
      }
    }
  }
  expect(cells).toBeGreaterThan(20);

  // Capacity: none until claiming may start (the margin check fails closed); then half of 200,000 of
  // collateral at the account's 10× is about 1,000,000 of notional.
  await waitFor(() => d.logs.has("positions read from the venue; claiming may start"), "claiming may start");
  const capacity = await metric(d.metricsUrl, "liquidator_capacity_quote");
  expect(capacity).toBeGreaterThan(500_000);
  expect(capacity).toBeLessThanOrEqual(1_000_000);
  // Each side of each symbol beside its bands, at the symbol's own leverage.
  const bySide = (symbol: string, side: string) => metric(d.metricsUrl, "liquidator_capacity_by_side_quote", { symbol, side });
  const btcLong = await bySide("PERP_BTC_USDC", "long");
  expect(btcLong).toBeGreaterThan(500_000);
  expect(btcLong).toBeLessThanOrEqual(1_000_000);
  const ethLong = await bySide("PERP_ETH_USDC", "long");
  expect(ethLong).toBeGreaterThan(btcLong / 10);
  expect(ethLong).toBeLessThan(btcLong / 3);
  sim.core.setCollateral(sim.accountId, 2_000);
  await waitFor(
    async () => (await metric(d.metricsUrl, "liquidator_capacity_quote")) < 20_000,
    "capacity after the collateral fell",
    60_000,
  );
  // Now the fullest 2 % band is more than the account can take: the alert's condition.
  let fullest = 0;
  for (const cell of expected.cells.values()) for (const side of FORECAST_SIDES) fullest = Math.max(fullest, cell[side][1]);
  expect(fullest).toBeGreaterThan(await metric(d.metricsUrl, "liquidator_capacity_quote"));

  await d.stop();
  const dir = join(d.stateDir, "capture");
  const files = (await readdir(dir)).filter((f) => f.endsWith(".jsonl.gz"));
  const polls = [];
  for (const f of files) for await (const ev of readCapture(join(dir, f))) if (ev.k === "forecast") polls.push(ev);
  expect(polls.length).toBeGreaterThanOrEqual(1);
  // A poll before the symbol table is read has nothing allowed to keep; the ones after keep BTC's levels.
  const withBtc = polls.find((p) => p.levels.some((l) => l.symbol === "PERP_BTC_USDC" && l.side === "long"));
  const btc = withBtc?.levels.find((l) => l.symbol === "PERP_BTC_USDC" && l.side === "long");
  expect(btc?.prices.length).toBeGreaterThan(0);
  expect(withBtc?.marks.some((m) => m.symbol === "PERP_BTC_USDC")).toBe(true);
});
