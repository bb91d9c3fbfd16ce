/**
 * The lab's reality check (docs/policy-lab.md): the daemon claims and unwinds on the simulated venue
 * with `state.capture` on, in a market whose marks move; replaying its capture with its own config
 * predicts its live net within 10 %. The capture's recorded account (its own assignments and unwind
 * trades) equals the live P&L, and the unwind costs are measured from those trades, not assumed.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import type { BacktestReport } from "../../src/lab/replay/backtest.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { roundToStep, type SymbolSpec } from "../../src/sim/symbols.js";
import { runCli } from "../support/captures.js";
import { claimsBy, metric, OPEN_POLICY, sleep, waitFor } from "../support/daemonHarness.js";
import { test } from "../support/rig.js";
import { openQty } from "../support/unwindProbe.js";

const FOUR = ["PERP_BTC_USDC", "PERP_ETH_USDC", "PERP_SOL_USDC", "PERP_DOGE_USDC"];
const CLAIMS = 40;
/** The quiet simulator's account (daemonHarness.ts startQuietSim). */
const COLLATERAL = 100_000_000;

function open(s: SimulatorHandle, symbol: string, notional: number, sign: 1 | -1): void {
  const spec = s.core.symbols.get(symbol) as SymbolSpec;
  const qty = roundToStep(notional / (s.core.mark(symbol) as number), spec.qtyStep);
  s.core.addLiquidation({ positions: [{ symbol, position_qty: sign * qty }] });
}

async function replay(stateDir: string, extra: string[] = []): Promise<BacktestReport> {
  const dir = join(stateDir, "capture");
  const files = (await readdir(dir)).filter((n) => n.endsWith(".jsonl.gz")).map((n) => join(dir, n));
  // The capture does not hold the account's collateral: the simulated account's is given.
  const r = await runCli([
    "backtest",
    ...files,
    "--config",
    join(stateDir, "policy.yaml"),
    "--json",
    "--collateral",
    String(COLLATERAL),
    ...extra,
  ]);
  expect(r.stderr.replace(/^liquidator backtest: wrote .*\n/gm, ""), r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as BacktestReport;
}

test("the replay of the daemon's own capture predicts its live net within 10 %", { timeout: 180_000 }, async ({ rig }) => {
  const sim = await rig.sim({ scenario: { volatilityScale: 1 } });
  const stateDir = await rig.dir("reality");
  const daemon = await rig.daemon({ sim, stateDir, policy: OPEN_POLICY, env: { LIQUIDATOR_CAPTURE: "1" } });
  await waitFor(() => daemon.logs.has("positions read from the venue; claiming may start"), "ready to claim");
  for (let i = 0; i < CLAIMS; i++) {
    // Sizes from 2,000 to 74,000: the larger ones walk the simulated book (real slippage).
    open(sim, FOUR[i % 4] as string, 2_000 + ((i * 7) % 9) * 9_000, i % 3 === 0 ? -1 : 1);
    await sleep(150); // paces the load: claims and unwinds overlap rather than come as one burst
  }
  await waitFor(() => claimsBy(sim).filter((c) => c.code === 0).length === CLAIMS, `${CLAIMS} claims`, 60_000);
  await waitFor(() => FOUR.every((x) => openQty(sim, x) === 0), "flat", 90_000);
  let venueFees = 0;
  for (const b of sim.core.trading.booksOf(sim.accountId).values()) venueFees += b.feesPaid;
  // The last fills reach the daemon just after the venue books them.
  await waitFor(
    async () => Math.abs((await metric(daemon.metricsUrl, "liquidator_pnl_quote", { component: "fees" })) - venueFees) < 1e-6,
    "the daemon's fees caught up with the venue's",
  );
  const live = await metric(daemon.metricsUrl, "liquidator_pnl_quote", { component: "net" });
  await daemon.stop();

  const report = await replay(stateDir);
  const variant = report.variants[0];
  const recorded = report.recorded;
  expect(variant).toBeDefined();
  expect(recorded).toBeDefined();
  const { series: _s, ...shown } = variant as NonNullable<typeof variant>;
  console.info(`variant ${JSON.stringify(shown)}`);
  console.info(
    `live net ${live}; recorded ${JSON.stringify(recorded)}; replay ${JSON.stringify(variant?.components)}; model ${JSON.stringify(report.model)}`,
  );
  // The capture holds what the journal holds: the recorded account is the live P&L.
  expect(recorded?.claims).toBe(CLAIMS);
  expect(Math.abs((recorded?.net ?? 0) - live)).toBeLessThan(1e-3);
  expect(report.model.unwind_source).toBe("measured");
  expect(report.model.unwind_samples).toBeGreaterThanOrEqual(CLAIMS);
  expect(variant?.claimed).toBe(CLAIMS);
  expect(Math.abs((variant?.estimated_net ?? 0) - live) / Math.abs(live)).toBeLessThanOrEqual(0.1);
});
