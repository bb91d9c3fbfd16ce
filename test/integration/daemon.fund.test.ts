/**
 * The insurance fund's supply (docs/protocol.md §10, issue #35) against the simulated venue, over real
 * sockets: a cascade worth more than the account's margin is claimed as far as margin goes; what
 * nobody claimed moves to the fund at its TTL and is offered as `type: "claim"` rows, skipped while
 * the margin is full; once the positions are closed (what unwinding does) the daemon claims the
 * fund's rows through `POST /v1/claim_insurance_fund`, at the fund's discount, one id once; the
 * day's `liquidator report` shows both supplies and the value of each; the same with the daemon's
 * own unwinder freeing the margin (held by a slippage cap until a SIGHUP widens it). The fund read
 * beside its rows says what no row offers. With the fund off (the default) the rows are never claimed.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { expect } from "vitest";
import { main } from "../../src/commands/dispatch.js";
import { readCapture } from "../../src/lab/capture/captureReader.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { DEFAULT_SYMBOLS } from "../../src/sim/symbols.js";
import {
  claimsBy,
  countById,
  daemonEnv,
  metric,
  OPEN_POLICY,
  readJournal,
  reconcileRounds,
  requestsFrom,
  untilReady,
  waitFor,
  writePolicyFile,
} from "../support/daemonHarness.js";
import { test } from "../support/rig.js";
import { openQty, venueOrders } from "../support/unwindProbe.js";

const COLLATERAL = 20_000;
const LEVERAGE = 10;
const OFF = { LIQUIDATOR_UNWIND_MODE: "off" };
const ETH = "PERP_ETH_USDC";
const FUND_ON = { insurance_fund: { enabled: true } };

/** The fund's open claim rows on the venue now. */
const fundRows = (s: SimulatorHandle) =>
  s.core.book.list().filter((l) => l.type === "claim" && l.positions.some((p) => p.positionQty !== 0));
const applied = (s: SimulatorHandle) => claimsBy(s).filter((c) => c.code === 0);

interface ReportJson {
  liquidations: { liquidation_id: number; supply: string; outcome: string; claimed_fee: number | null; value: number }[];
  totals: { by_supply: Record<string, { captured: { count: number; value: number }; missed: { count: number; value: number } }> };
}

async function report(env: Record<string, string>): Promise<ReportJson> {
  const stdout = new PassThrough();
  let out = "";
  stdout.on("data", (d) => (out += String(d)));
  const code = await main(["report", "--json"], { stdout, stderr: new PassThrough(), env, signal: new AbortController().signal });
  expect(code).toBe(0);
  return JSON.parse(out) as ReportJson;
}

test("a cascade past the margin, then flat: the fund's rows are claimed on its endpoint, and the report values both supplies", async ({
  rig,
}) => {
  const sim = await rig.sim({ collateral: COLLATERAL, maxLeverage: LEVERAGE, liquidationTtlMs: 4_000, scenario: { insuranceFund: true } });
  const sections = { ...FUND_ON, state: { capture: true } };
  const d = await rig.daemon({ sim, policy: { max_margin_usage: 0.9 }, sections, env: OFF, until: "ready" });
  await waitFor(() => d.logs.has("positions read from the venue; claiming may start"), "the daemon ready to claim");

  const ids = sim.core.cascade(10, { symbols: ["PERP_ETH_USDC"], side: 1, notional: [15_000, 40_000] });
  // Every liquidation of the cascade is claimed (cut to the margin left) or has gone to the fund.
  await waitFor(() => ids.every((id) => sim.core.book.get(id) === undefined), "the cascade's rest taken over by the fund", 30_000);
  const fundIds = new Set(fundRows(sim).map((l) => l.liquidationId));
  expect(fundIds.size).toBeGreaterThan(0);
  // Margin is full: the fund's rows are offered and skipped for it.
  await waitFor(
    async () => (await metric(d.metricsUrl, "liquidator_claims_skipped_total", { reason: "margin" })) >= 1,
    "the fund's rows skipped for margin",
  );
  await reconcileRounds(d.metricsUrl, 2);
  // The fund read beside its rows: what it holds of ETH, all of it offered by claim rows.
  const fundEth = { symbol: "PERP_ETH_USDC" };
  await waitFor(
    async () => (await metric(d.metricsUrl, "liquidator_insurance_fund_position_quote", fundEth)) > 0,
    "the fund's position read",
  );
  expect(await metric(d.metricsUrl, "liquidator_insurance_fund_unlisted_quote", fundEth)).toBe(0);
  // Nothing went to the fund's endpoint while the margin was full.
  expect(requestsFrom(sim).filter((r) => r.liquidationId !== undefined && fundIds.has(r.liquidationId))).toEqual([]);
  const liquidationFee = applied(sim).reduce((s, c) => s + c.transfers.reduce((a, t) => a + t.absLiquidatorFee, 0), 0);
  expect(liquidationFee).toBeGreaterThan(0);

  // Flat again (what the unwinder does): the margin is free, and the fund's rows are claimed.
  sim.core.closePositions(sim.accountId);
  await waitFor(
    () => applied(sim).some((c) => c.liquidationId !== undefined && fundIds.has(c.liquidationId)),
    "a fund row claimed",
    30_000,
  );
  await reconcileRounds(d.metricsUrl, 2);
  const fundClaims = applied(sim).filter((c) => c.liquidationId !== undefined && fundIds.has(c.liquidationId));
  // One claim per id (never twice), each at the fund's discount (half ETH's 0.008 fee).
  expect(new Set(fundClaims.map((c) => c.liquidationId)).size).toBe(fundClaims.length);
  for (const c of fundClaims) for (const t of c.transfers) expect(t.liquidatorFee).toBeCloseTo(0.004, 9);
  // Through the fund's endpoint only: a fund id sent to /v1/liquidation would be refused -1005.
  expect(requestsFrom(sim).filter((r) => r.code === -1005)).toEqual([]);
  expect(await metric(d.metricsUrl, "liquidator_http_requests_total", { endpoint: "/v1/claim_insurance_fund" })).toBeGreaterThan(0);
  await d.stop();

  const r = await report(daemonEnv(sim, d.stateDir, {}));
  const claimed = r.liquidations.filter((l) => l.outcome === "claimed");
  expect(claimed.some((l) => l.supply === "liquidation")).toBe(true);
  expect(
    claimed
      .filter((l) => l.supply === "insurance_fund")
      .map((l) => l.liquidation_id)
      .sort(),
  ).toEqual([...new Set(fundClaims.map((c) => c.liquidationId as number))].sort());
  const fundValue = fundClaims.reduce((s, c) => s + c.transfers.reduce((a, t) => a + t.absLiquidatorFee, 0), 0);
  expect(r.totals.by_supply.insurance_fund?.captured.value).toBeCloseTo(fundValue, 4);
  expect(r.totals.by_supply.liquidation?.captured.value).toBeCloseTo(liquidationFee, 4);

  // The capture heard the fund's claims as the account's own (a backtest's and the shadows' own takes).
  const dir = join(d.stateDir, "capture");
  const captured: number[] = [];
  for (const f of (await readdir(dir)).filter((n) => n.endsWith(".jsonl.gz")))
    for await (const ev of readCapture(join(dir, f))) if (ev.k === "claim" && ev.code === 0 && fundIds.has(ev.id)) captured.push(ev.id);
  expect(captured.sort()).toEqual(fundClaims.map((c) => c.liquidationId as number).sort());
}, 120_000);

test("the unwinder frees the margin a cascade filled, and only then are the fund's rows claimed", async ({ rig, build }) => {
  // ETH's book 1 % under the mark: nothing fills within a 10 bps cap, so what was claimed is held.
  const WIDE = { spreadBps: 200, levels: 20, stepBps: 2, levelNotional: 200_000, refillPerSec: 1 };
  const symbols = DEFAULT_SYMBOLS.map((x) => (x.symbol === ETH ? { ...x, book: WIDE } : x));
  const sim = await rig.sim({
    collateral: COLLATERAL,
    maxLeverage: LEVERAGE,
    liquidationTtlMs: 4_000,
    symbols,
    scenario: { insuranceFund: true },
  });
  const dir = await rig.dir("fund-unwind");
  const policy = { ...OPEN_POLICY, max_margin_usage: 0.9 };
  const config = await writePolicyFile(dir, policy, "config.yaml", { ...FUND_ON, unwind: { max_slippage_bps: 10 } });
  const p = rig.spawn(build.cli, [], daemonEnv(sim, `${dir}/state`, { LIQUIDATOR_CONFIG: config }), dir);
  const url = await p.metricsUrl();
  await untilReady(url, "daemon ready", 30_000);

  const ids = sim.core.cascade(10, { symbols: [ETH], side: 1, notional: [15_000, 40_000] });
  await waitFor(() => ids.every((id) => sim.core.book.get(id) === undefined), "the cascade's rest taken over by the fund", 30_000);
  const fundIds = new Set(fundRows(sim).map((l) => l.liquidationId));
  expect(fundIds.size).toBeGreaterThan(0);
  await waitFor(
    async () => (await metric(url, "liquidator_claims_skipped_total", { reason: "margin" })) >= 1,
    "fund rows skipped for margin",
  );
  await reconcileRounds(url, 2);
  const isFund = (id: number | undefined) => id !== undefined && fundIds.has(id);
  expect(requestsFrom(sim).filter((r) => isFund(r.liquidationId))).toEqual([]);
  expect(venueOrders(sim).some((o) => o.total_executed_quantity > 0)).toBe(false);
  const held = openQty(sim, ETH);
  expect(held).not.toBe(0);

  // The operator widens the cap (SIGHUP applies unwind.* at once): the unwinder sells, the margin frees.
  await writePolicyFile(dir, policy, "config.yaml", { ...FUND_ON, unwind: { max_slippage_bps: 300 } });
  p.child.kill("SIGHUP");
  await waitFor(() => applied(sim).some((c) => isFund(c.liquidationId)), "a fund row claimed", 60_000);
  const firstFill = Math.min(
    ...venueOrders(sim)
      .filter((o) => o.total_executed_quantity > 0)
      .map((o) => o.updated_time),
  );
  const firstFundClaim = Math.min(
    ...applied(sim)
      .filter((c) => isFund(c.liquidationId))
      .map((c) => c.receivedAt),
  );
  expect(firstFundClaim).toBeGreaterThanOrEqual(firstFill);
  // Through the fund's endpoint, at its discount; and what the fund gave is unwound like the rest.
  for (const c of applied(sim).filter((x) => isFund(x.liquidationId)))
    for (const t of c.transfers) expect(t.liquidatorFee).toBeCloseTo(0.004, 9);
  // Every fund row is claimed once, and what all the claims gave is closed again.
  const tried = () => [...fundIds].every((id) => requestsFrom(sim).some((r) => r.liquidationId === id));
  await waitFor(() => tried() && openQty(sim, ETH) === 0, "every fund row claimed, then flat", 60_000);
  expect([...countById(requestsFrom(sim))].filter(([, n]) => n > 1)).toEqual([]);
  p.child.kill("SIGTERM");
  expect((await p.exit).code).toBe(0);
}, 120_000);

test("a fund position no claim row offers is measured and warned of once (the other reading of §10's unsettled claim_id)", async ({
  rig,
}) => {
  const sim = await rig.sim({ scenario: { insuranceFund: true } });
  const d = await rig.daemon({ sim, sections: FUND_ON, env: OFF, until: "ready" });
  const btc = { symbol: "PERP_BTC_USDC" };
  sim.fund.holdUnlisted([{ symbol: "PERP_BTC_USDC", position_qty: -0.5 }]);
  const unlisted = () => metric(d.metricsUrl, "liquidator_insurance_fund_unlisted_quote", btc);
  await waitFor(async () => (await unlisted()) > 0, "the unlisted BTC measured");
  // Half a BTC at the mark, against none listed.
  expect(await unlisted()).toBeCloseTo(0.5 * (sim.core.mark("PERP_BTC_USDC") as number), -2);
  expect(await metric(d.metricsUrl, "liquidator_insurance_fund_position_quote", btc)).toBeCloseTo(await unlisted(), 6);
  const gap = "the insurance fund holds a position no claim row of the open list offers";
  const warned = () => d.logs.lines.filter((l) => typeof l.msg === "string" && l.msg.startsWith(gap));
  await waitFor(() => warned().length > 0, "the gap warned of");
  const reads = async () => metric(d.metricsUrl, "liquidator_insurance_fund_polls_total", { result: "ok" });
  const after = await reads();
  await waitFor(async () => (await reads()) >= after + 3, "three more fund reads");
  expect(warned().map((l) => (l as { symbol?: string }).symbol)).toEqual(["PERP_BTC_USDC"]);
}, 60_000);

test("insurance_fund off (the default): the fund's rows are never claimed", async ({ rig }) => {
  const sim = await rig.sim({ scenario: { insuranceFund: true } });
  const d = await rig.daemon({ sim, env: OFF, until: "ready" });
  await waitFor(() => d.logs.has("positions read from the venue; claiming may start"), "the daemon ready to claim");
  const fundId = sim.fund.takeOver([{ symbol: "PERP_ETH_USDC", position_qty: 1 }]) as number;
  sim.core.addLiquidation({ positions: [{ symbol: "PERP_BTC_USDC", position_qty: 0.1 }] });
  await waitFor(() => applied(sim).length > 0, "the BTC liquidation claimed");
  await reconcileRounds(d.metricsUrl, 2);
  expect(requestsFrom(sim).filter((r) => r.liquidationId === fundId)).toEqual([]);
  expect(sim.core.book.get(fundId)?.positions[0]?.positionQty).toBe(1);
}, 60_000);

test("kill -9 mid fund claim: no fund id claimed twice after the restart, and what was claimed is unwound", async ({ rig, build }) => {
  // Each claim is held 300 ms at the venue, so the kill very likely lands with one in flight.
  const sim = await rig.sim({ claimProcessingDelayMs: 300, scenario: { insuranceFund: true } });
  const dir = await rig.dir("fund-restart");
  const config = await writePolicyFile(dir, OPEN_POLICY, "config.yaml", FUND_ON);
  const stateDir = `${dir}/state`;
  const env = daemonEnv(sim, stateDir, { LIQUIDATOR_CONFIG: config });

  const first = rig.spawn(build.cli, [], env, dir);
  await untilReady(await first.metricsUrl(), "first daemon ready", 30_000);
  const ids: number[] = [];
  for (let i = 0; i < 8; i++) ids.push(sim.fund.takeOver([{ symbol: "PERP_ETH_USDC", position_qty: 0.2 + i / 100 }]) as number);
  await waitFor(() => requestsFrom(sim).length >= 2, "the first fund claims", 30_000);
  first.child.kill("SIGKILL");
  expect((await first.exit).signal).toBe("SIGKILL");
  const intended = [...readJournal(stateDir).intents.values()];
  expect(intended.length).toBeGreaterThanOrEqual(2);
  for (const i of intended) expect(i.supply).toBe("insurance_fund");

  const second = rig.spawn(build.cli, [], env, dir);
  const url2 = await second.metricsUrl();
  await untilReady(url2, "second daemon ready", 30_000);
  await waitFor(() => ids.every((id) => claimsBy(sim).some((c) => c.liquidationId === id)), "every fund row claimed", 30_000);
  await reconcileRounds(url2, 1, 15_000);
  // Venue truth: at most one claim request per fund id, across both processes.
  expect([...countById(requestsFrom(sim))].filter(([, n]) => n > 1)).toEqual([]);
  // What both processes claimed from the fund is unwound (unwind.scope: claimed covers the fund's claims).
  await waitFor(
    () => (sim.core.positionsOf(sim.accountId).find((p) => p.symbol === "PERP_ETH_USDC")?.qty ?? 0) === 0,
    "flat again",
    30_000,
  );
  second.child.kill("SIGTERM");
  expect((await second.exit).code).toBe(0);
}, 120_000);
