/**
 * The opportunity ledger end to end: the daemon runs against the simulated venue, a competitor takes
 * a known set of ids first, the policy skips another (a denied symbol, a fee below `min_fee`), one
 * claim is refused for a reason that is no rival's and its liquidation then leaves, the rest are
 * claimed, one only in part (the claim cap cuts it). `liquidator report` (from the file journal, and
 * from PostgreSQL) puts every liquidation in the right outcome with the right reason and value — the
 * partly claimed one as its claimed row (the fee of what the venue assigned, as `pnl` has it) and
 * its rest cut by the cap — the totals add up, the live metrics agree, and the HTML page renders in
 * headless chromium with no console message.
 */
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect } from "vitest";
import { main } from "../../src/commands/dispatch.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { runCli } from "../support/captures.js";
import { daemonEnv, metric } from "../support/daemonHarness.js";
import { chromiumAvailable, renderPage } from "../support/headlessChromium.js";
import { describeWithPostgres, type PgCluster, pgClusterFixture } from "../support/pgCluster.js";
import { type Rig, test } from "../support/rig.js";
import { waitFor } from "../support/wait.js";

type Expected = { outcome: string; reason: string; fee: number };
/** The partly claimed liquidation: its claimed row's value (the assigned fee) and its rest's. */
type Capped = { id: number; whole: number; claimed: number; rest: number };

interface Json {
  day: string;
  markouts?: unknown;
  liquidations: {
    liquidation_id: number;
    first_seen: string;
    outcome: string;
    reason: string;
    part: string;
    supply: string;
    expected_fee: number;
    claimed_fee: number | null;
    value: number;
    lost_after_first_push_ms: number | null;
    lost_after_send_ms: number | null;
  }[];
  totals: {
    liquidations: number;
    value: number;
    captured: { count: number; value: number };
    missed: { count: number; value: number };
    by_outcome: Record<string, { count: number; value: number }>;
    missed_by_reason: { outcome: string; reason: string; count: number; value: number }[];
    by_symbol: Record<string, { captured: { count: number; value: number }; missed: { count: number; value: number } }>;
    by_hour: Record<string, { captured: { count: number; value: number }; missed: { count: number; value: number } }>;
  };
}

async function runReport(env: Record<string, string>, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (d) => (out += String(d)));
  stderr.on("data", (d) => (err += String(d)));
  const code = await main(["report", ...args], { stdout, stderr, env, signal: new AbortController().signal });
  return { code, out, err };
}

/** The quiet market's marks stand still: the value at stake is |qty| × mark × the symbol's fee. */
function feeOf(sim: SimulatorHandle, symbol: string, qty: number): number {
  const spec = sim.core.symbols.get(symbol);
  const mark = sim.core.market.mark(symbol);
  if (spec === undefined || mark === undefined) throw new Error(`no ${symbol} on the simulator`);
  return Math.abs(qty) * mark * spec.liquidatorFee;
}

/** Drives the known sets through the daemon; returns what each id must become. */
async function scenario(
  rig: Rig,
  sim: SimulatorHandle,
  stateDir: string,
  env: Record<string, string> = {},
): Promise<{ expected: Map<number, Expected>; capped: Capped }> {
  const daemon = await rig.daemon({
    sim,
    stateDir,
    // BNB claims are capped at 20,000 of notional: a 60,000 liquidation is claimed a third.
    policy: { min_fee: 1, symbols: { deny: ["PERP_SOL_USDC"] }, per_symbol: { PERP_BNB_USDC: { max_claim_notional: 20_000 } } },
    env,
    until: "ready",
    // No horizon falls due before the daemon stops: the page's markouts section stays out.
    timing: { markoutDelaysMs: [600_000, 600_000, 600_000, 600_000, 600_000] },
  });
  const expected = new Map<number, Expected>();
  const add = (symbol: string, qty: number, outcome: string, reason: string): number => {
    const id = sim.core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
    expected.set(id, { outcome, reason, fee: feeOf(sim, symbol, qty) });
    return id;
  };

  // Refused for no rival's reason (-1201 is not retried), then gone: expired, with the refusal as the reason.
  sim.faults.rest.venueError(-1201, { path: "/v1/liquidation", method: "POST", times: 1 });
  const refused = add("PERP_ETH_USDC", 2, "expired", "ratio_too_small");
  await waitFor(
    async () => (await metric(daemon.metricsUrl, "liquidator_claims_result_total", { result: "rejected", code: "-1201" })) >= 1,
    "the refused claim",
  );
  sim.core.removeLiquidation(refused);

  // A competitor takes these the instant they open: ours arrives second (-1202), or not at all.
  for (const qty of [1, 3]) {
    const id = add("PERP_ETH_USDC", qty, "lost", "");
    const taken = await sim.core.competitorClaim(id, 1);
    expect(taken.ok).toBe(true);
  }
  // The policy passes on these: a denied symbol, and a fee (0.008 × 0.01 ETH × mark ≈ 0.2) below min_fee.
  const denied = [add("PERP_SOL_USDC", -20, "skipped", "symbol_denied"), add("PERP_SOL_USDC", 5, "skipped", "symbol_denied")];
  const small = add("PERP_ETH_USDC", 0.01, "skipped", "below_min_fee");
  // Claimed.
  const won = [add("PERP_ETH_USDC", 1.5, "claimed", ""), add("PERP_BTC_USDC", 0.2, "claimed", "")];
  // Claimed in part: the cap cuts it to a third.
  const bnbQty = Math.round(60_000 / (sim.core.market.mark("PERP_BNB_USDC") as number));
  const cappedId = sim.core.addLiquidation({ positions: [{ symbol: "PERP_BNB_USDC", position_qty: bnbQty }] });
  const bnbWhole = feeOf(sim, "PERP_BNB_USDC", bnbQty);

  await waitFor(
    async () => (await metric(daemon.metricsUrl, "liquidator_claims_skipped_total", { reason: "symbol_denied" })) >= 2,
    "the denied symbol skipped",
  );
  await waitFor(
    async () => (await metric(daemon.metricsUrl, "liquidator_claims_skipped_total", { reason: "below_min_fee" })) >= 1,
    "the small fee skipped",
  );
  for (const id of [...denied, small]) sim.core.removeLiquidation(id);
  await waitFor(
    () => [...won, cappedId].every((id) => sim.core.claims().some((c) => c.accountId === sim.accountId && c.liquidationId === id)),
    "the claims assigned",
  );
  const cappedClaim = sim.core.claims().find((c) => c.accountId === sim.accountId && c.liquidationId === cappedId);
  const assignedQty = cappedClaim?.transfers.reduce((a, t) => a + Math.abs(t.positionQty), 0) ?? 0;
  const claimedFee = cappedClaim?.transfers.reduce((a, t) => a + t.absLiquidatorFee, 0) ?? 0;
  // The cap's ratio (0.333) asked for 20,000 / 60,000 of it; the venue assigned that, to its step.
  expect(assignedQty / bnbQty).toBeCloseTo(0.333, 3);
  const capped: Capped = {
    id: cappedId,
    whole: bnbWhole,
    claimed: claimedFee,
    // Cut by the cap (whole − asked) and, to the step, asked but not assigned (left on the list).
    rest: bnbWhole - (bnbWhole / bnbQty) * assignedQty,
  };

  // Every fate is sealed and counted live.
  const count = (outcome: string) => metric(daemon.metricsUrl, "liquidator_opportunities_total", { outcome });
  await waitFor(
    async () =>
      (await count("claimed")) === 3 && (await count("lost")) === 2 && (await count("skipped")) === 4 && (await count("expired")) >= 1,
    "every liquidation counted by outcome",
  );
  // The capped one's rest is its own row, skipped for the cap that cut it.
  expect(await metric(daemon.metricsUrl, "liquidator_opportunities_total", { outcome: "skipped", reason: "max_claim_notional" })).toBe(1);
  // The reason rides along as a label (the Grafana row "missed value by reason").
  expect(await metric(daemon.metricsUrl, "liquidator_opportunities_total", { outcome: "skipped", reason: "symbol_denied" })).toBe(2);
  expect(await metric(daemon.metricsUrl, "liquidator_opportunities_total", { outcome: "expired", reason: "ratio_too_small" })).toBe(1);
  const value = (outcome: string) => metric(daemon.metricsUrl, "liquidator_opportunity_value_quote", { outcome });
  const sum = (outcome: string) => [...expected.values()].filter((e) => e.outcome === outcome).reduce((a, e) => a + e.fee, 0);
  expect(await value("claimed")).toBeCloseTo(sum("claimed") + capped.claimed, 6);
  expect(await value("lost")).toBeCloseTo(sum("lost"), 6);
  // Stopping flushes the ledger's buffer.
  await daemon.stop();
  return { expected, capped };
}

function checkReport(json: Json, { expected, capped }: { expected: Map<number, Expected>; capped: Capped }): void {
  expect(json.day).toBe(new Date().toISOString().slice(0, 10));
  const cappedRows = json.liquidations.filter((l) => l.liquidation_id === capped.id);
  // The claimed part counts the fee the venue assigned (what `pnl` counts), not the whole's.
  expect(cappedRows[0]).toMatchObject({ outcome: "claimed", part: "claimed", supply: "liquidation" });
  expect(cappedRows[0]?.claimed_fee).toBeCloseTo(capped.claimed, 5);
  expect(cappedRows[0]?.value).toBeCloseTo(capped.claimed, 5);
  expect(cappedRows[0]?.expected_fee).toBeCloseTo(capped.whole, 5);
  const rest = cappedRows.slice(1);
  expect(rest.map((r) => r.part)).toEqual(rest.map(() => "rest"));
  expect(rest[0]).toMatchObject({ outcome: "skipped", reason: "max_claim_notional" });
  expect(rest.reduce((a, r) => a + r.value, 0)).toBeCloseTo(capped.rest, 4);
  const others = json.liquidations.filter((l) => l.liquidation_id !== capped.id);
  expect(others.map((l) => l.liquidation_id).sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b));
  for (const l of others) {
    const e = expected.get(l.liquidation_id);
    expect({ id: l.liquidation_id, outcome: l.outcome }).toEqual({ id: l.liquidation_id, outcome: e?.outcome });
    if (e?.outcome === "lost") {
      // Taken before our claim arrived (-1202), or gone before it left.
      expect(["taken", "left_while_queued"]).toContain(l.reason);
      expect(l.lost_after_first_push_ms).toBeGreaterThanOrEqual(0);
      if (l.lost_after_send_ms !== null) expect(l.lost_after_send_ms).toBeLessThanOrEqual(l.lost_after_first_push_ms as number);
    } else {
      expect(l.reason).toBe(e?.reason);
      expect(l.lost_after_first_push_ms).toBeNull();
    }
    expect(l.expected_fee).toBeCloseTo(e?.fee ?? Number.NaN, 6);
    expect(Date.parse(l.first_seen)).toBeGreaterThan(0);
  }
  const t = json.totals;
  const all = [...expected.values()];
  const sum = (list: Expected[]) => list.reduce((a, e) => a + e.fee, 0);
  expect(t.liquidations).toBe(expected.size + 1);
  expect(t.value).toBeCloseTo(sum(all) + capped.claimed + capped.rest, 4);
  expect(t.captured.value + t.missed.value).toBeCloseTo(t.value, 6);
  expect(t.captured.value).toBeCloseTo(sum(all.filter((e) => e.outcome === "claimed")) + capped.claimed, 5);
  for (const outcome of ["lost", "expired"]) {
    const of = all.filter((e) => e.outcome === outcome);
    expect(t.by_outcome[outcome]?.value).toBeCloseTo(
      sum(of) + rest.filter((r) => r.outcome === outcome).reduce((a, r) => a + r.value, 0),
      5,
    );
  }
  expect(t.by_outcome.claimed?.count).toBe(3);
  const reason = (outcome: string, r: string) => t.missed_by_reason.find((b) => b.outcome === outcome && b.reason === r);
  expect(reason("skipped", "symbol_denied")?.count).toBe(2);
  expect(reason("skipped", "below_min_fee")?.count).toBe(1);
  expect(reason("expired", "ratio_too_small")?.count).toBe(1);
  expect(t.missed_by_reason.reduce((a, b) => a + b.value, 0)).toBeCloseTo(t.missed.value, 6);
  // Per symbol and per hour add up to the whole.
  const symbols = Object.values(t.by_symbol);
  expect(symbols.reduce((a, s) => a + s.captured.value + s.missed.value, 0)).toBeCloseTo(t.value, 6);
  expect(t.by_symbol.PERP_SOL_USDC?.missed.count).toBe(2);
  const hours = Object.values(t.by_hour);
  expect(hours.reduce((a, h) => a + h.captured.count + h.missed.count, 0)).toBe(json.liquidations.length);
}

describe("liquidator report: the opportunity ledger", () => {
  test("from the file journal: every liquidation in its outcome, totals adding up, CSV, table and an HTML page that renders", async ({
    rig,
    skip,
  }) => {
    const sim = await rig.sim();
    const stateDir = await rig.dir("ledger");
    const result = await scenario(rig, sim, stateDir);
    const reportEnv = daemonEnv(sim, stateDir);

    const json = await runReport(reportEnv, ["--json"]);
    expect(json.err).toBe("");
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.out) as Json;
    checkReport(parsed, result);
    // Captured is what `pnl` counts as liquidator fees.
    const pnl = await runCli(["pnl", "--json"], reportEnv);
    expect(pnl.code).toBe(0);
    const fees = (JSON.parse(pnl.stdout) as { liquidator_fee: number }[]).reduce((a, r) => a + r.liquidator_fee, 0);
    expect(parsed.totals.captured.value).toBeCloseTo(fees, 4);

    const csv = await runReport(reportEnv, ["--csv"]);
    expect(csv.out.trimEnd().split("\r\n")).toHaveLength(parsed.liquidations.length + 1);
    const table = await runReport(reportEnv, []);
    expect(table.out).toContain("Missed by reason");
    expect(table.out).toContain("symbol_denied");
    expect(table.out).toContain("What the policy cost, by reason");
    // Another day holds nothing.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((JSON.parse((await runReport(reportEnv, ["--json", "--day", yesterday])).out) as Json).liquidations).toEqual([]);
    expect((await runReport(reportEnv, ["--day", "2026-13-01"])).code).not.toBe(0);

    const page = join(stateDir, "report.html");
    const html = await runReport(reportEnv, ["--html", page]);
    expect(html.code).toBe(0);
    if (!(await chromiumAvailable())) {
      skip("chromium is not installed (apt-get install chromium): the page was not rendered");
      return;
    }
    const { dom, console } = await renderPage(page);
    expect(console).toEqual([]);
    for (const id of ["outcomes", "missed-by-reason", "policy-cost", "per-symbol", "per-hour", "liquidations"])
      expect(dom).toContain(`id="${id}"`);
    expect(dom.match(/<svg/g)).toHaveLength(1);
    // The markouts section is there exactly when the journal holds markouts (the daemon samples them 1 s on).
    expect(dom.includes('id="markouts"')).toBe(parsed.markouts !== undefined);
  }, 180_000);
});

/** One PostgreSQL server for the file, started only when its test runs. */
const pgTest = test.extend<{ pgc: PgCluster }>({
  pgc: pgClusterFixture,
});

describeWithPostgres("liquidator report from PostgreSQL", () => {
  pgTest(
    "the same ledger from journal_events (migration 7)",
    async ({ rig, pgc }) => {
      const sim = await rig.sim();
      const stateDir = await rig.dir("ledger-pg");
      const url = await pgc.createDatabase("ledger");
      const pg = { LIQUIDATOR_STATE_BACKEND: "postgres", LIQUIDATOR_POSTGRES_URL: url };
      const result = await scenario(rig, sim, stateDir, pg);
      const env = daemonEnv(sim, stateDir, pg);
      const json = await runReport(env, ["--json"]);
      expect(json.err).toBe("");
      expect(json.code).toBe(0);
      checkReport(JSON.parse(json.out) as Json, result);
    },
    180_000,
  );
});
