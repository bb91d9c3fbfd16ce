/**
 * Issue #33's edges, each as an operator would meet it against the simulated venue: a claim the
 * venue applied while the process died (1), an unknown claim whose id left the open list (2), a
 * position report that overtakes an unwind fill (3), a journal write that fails during an unwind
 * fill (4), a fill no claim explains (5), an id pushed again after it left the open list (6), and a
 * deposit (7). Each failed on the main of the issue's filing; each must pass now.
 */
import { expect } from "vitest";
import type { JournalRecord } from "../../src/core/journalRecords.js";
import { JournalError } from "../../src/errors.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import type { StateStore } from "../../src/store/stateStore.js";
import {
  claimsBy,
  daemonEnv,
  ethLong,
  metric,
  nothingHappens,
  OPEN_POLICY,
  readJournal,
  readyz,
  reconcileReads,
  reconcileRounds,
  requestsFrom,
  sleep,
  untilReady,
  waitFor,
  writePolicyFile,
} from "../support/daemonHarness.js";
import { test } from "../support/rig.js";
import { openQty } from "../support/unwindProbe.js";

const ETH = "PERP_ETH_USDC";
const CLAIM = { path: "/v1/liquidation", method: "POST" } as const;

const appliedAt = (sim: SimulatorHandle, id: number): boolean => claimsBy(sim).some((c) => c.liquidationId === id && c.code === 0);
const requestsFor = (sim: SimulatorHandle, id: number): number => requestsFrom(sim).filter((r) => r.liquidationId === id).length;

/** The operator's own trade on the account (not the daemon's). */
function operatorBuy(sim: SimulatorHandle, qty: number): void {
  const r = sim.core.trading.place(sim.accountId, {
    symbol: ETH,
    order_type: "MARKET",
    side: "BUY",
    order_quantity: qty,
    client_order_id: "op-1",
  });
  if (!r.ok) throw new Error(`operator trade refused: ${r.refusal.message}`);
}

/**
 * A store whose appends of one record kind fail, the way the file journal fails (JournalError, and
 * sticky: every write fails until `recover()`), from the first such record on.
 */
function failingOn(kind: JournalRecord["t"]): (store: StateStore) => StateStore {
  return (store) => {
    let failure: Error | undefined;
    let armed = true;
    const guard = (): void => {
      if (failure !== undefined) throw failure;
    };
    return {
      kind: store.kind,
      orderIdPrefix: store.orderIdPrefix,
      role: () => store.role(),
      mayLead: () => store.mayLead(),
      requests: () => store.requests(),
      requestDone: (id) => store.requestDone(id),
      intent: (record) => {
        guard();
        return store.intent(record);
      },
      append: (record) => {
        if (armed && record.t === kind) {
          armed = false;
          failure = new JournalError("journal write failed: EIO (injected)");
        }
        guard();
        store.append(record);
      },
      get failure() {
        return failure ?? store.failure;
      },
      recover: () => {
        failure = undefined;
        return store.recover();
      },
      replay: () => store.replay(),
      close: () => store.close(),
    };
  };
}

test("#33.1 a claim the venue applied while the process died (answer and push lost) is closed after the restart", async ({
  rig,
  build,
}) => {
  const sim = await rig.sim();
  const dir = await rig.dir("edge-1");
  const env = daemonEnv(sim, `${dir}/state`, { LIQUIDATOR_CONFIG: await writePolicyFile(dir, OPEN_POLICY) });
  const first = rig.spawn(build.cli, [], env, dir);
  await untilReady(await first.metricsUrl(), "the first daemon ready", 30_000);

  // The venue applies the claim, holds its answer and loses its push: only the venue knows.
  const held = sim.faults.rest.delay(120_000, { ...CLAIM, phase: "after" });
  sim.faults.streams.dropTopic("liquidatorliquidations", true);
  const id = sim.core.addLiquidation(ethLong(0.4));
  await waitFor(() => appliedAt(sim, id), "the claim applied at the venue", 30_000);
  first.child.kill("SIGKILL");
  await first.exit;
  held();
  sim.faults.streams.dropTopic("liquidatorliquidations", false);
  expect(openQty(sim, ETH)).toBeCloseTo(0.4, 9);

  const second = rig.spawn(build.cli, [], env, dir);
  await untilReady(await second.metricsUrl(), "the second daemon ready", 30_000);
  await waitFor(() => openQty(sim, ETH) === 0, "the claimed position closed after the restart", 30_000);
  const outcomes = readJournal(`${dir}/state`).outcomes.get(id) ?? [];
  expect(outcomes.some((o) => o.result === "confirmed" && o.fills?.[0]?.qty === 0.4)).toBe(true);
  expect(requestsFor(sim, id)).toBe(1);
  // The safe stop ends: nothing unknown, nothing open.
  second.child.kill("SIGUSR2");
  expect(await Promise.race([second.exit, sleep(30_000).then(() => "still running after 30 s")])).toEqual({ code: 0, signal: null });
}, 120_000);

test("#33.2 an unknown claim whose id left the open list settles from the venue's record; the safe stop ends", async ({ rig, build }) => {
  const sim = await rig.sim();
  const dir = await rig.dir("edge-2");
  const env = daemonEnv(sim, `${dir}/state`, { LIQUIDATOR_CONFIG: await writePolicyFile(dir, OPEN_POLICY) });
  const first = rig.spawn(build.cli, [], env, dir);
  await untilReady(await first.metricsUrl(), "the first daemon ready", 30_000);

  // Our request is held before the venue looks at it; a rival takes the whole liquidation meanwhile.
  const held = sim.faults.rest.delay(120_000, { ...CLAIM, phase: "before" });
  const id = sim.core.addLiquidation(ethLong(0.4));
  await waitFor(() => readJournal(`${dir}/state`).intents.has(id), "our intent journaled", 30_000);
  expect((await sim.core.competitorClaim(id)).ok).toBe(true);
  first.child.kill("SIGKILL");
  await first.exit;
  held();

  const second = rig.spawn(build.cli, [], env, dir);
  await untilReady(await second.metricsUrl(), "the second daemon ready", 30_000);
  second.child.kill("SIGUSR2");
  expect(await Promise.race([second.exit, sleep(45_000).then(() => "still running after 45 s")])).toEqual({ code: 0, signal: null });
  const results = (readJournal(`${dir}/state`).outcomes.get(id) ?? []).map((o) => o.result);
  expect(results.at(-1)).toBe("not_accepted");
  expect(openQty(sim, ETH)).toBe(0);
}, 120_000);

test("#33.3 a position report that overtakes an unwind fill does not erase a newer claim", async ({ rig }) => {
  const sim = await rig.sim();
  const d = await rig.daemon({ sim, until: "ready" });
  // Fills reach the daemon 3 s after the position push that already includes them.
  sim.faults.streams.delayTopic("executionreport", 3_000);
  const first = sim.core.addLiquidation(ethLong(1));
  await waitFor(() => appliedAt(sim, first), "the first claim applied");
  await waitFor(() => openQty(sim, ETH) === 0, "the first claim unwound at the venue");
  const second = sim.core.addLiquidation(ethLong(0.5));
  await waitFor(() => appliedAt(sim, second), "the second claim applied");
  await waitFor(() => openQty(sim, ETH) === 0, "the second claim unwound too", 30_000);
  // The daemon's own view is flat too (a flat symbol's series is 0 or gone).
  const position = await metric(d.metricsUrl, "liquidator_position", { symbol: ETH });
  expect(Number.isNaN(position) ? 0 : position).toBeCloseTo(0, 9);
}, 60_000);

test("#33.4 a journal write that fails during an unwind fill loses nothing and wedges nothing", async ({ rig }) => {
  const sim = await rig.sim();
  const d = await rig.daemon({ sim, until: "ready", wrapStore: failingOn("order_fill"), timing: { journalRetryMs: 500 } });
  const first = sim.core.addLiquidation(ethLong(0.4));
  await waitFor(() => appliedAt(sim, first), "the first claim applied");
  await waitFor(() => openQty(sim, ETH) === 0, "the first claim unwound", 30_000);
  // The symbol is not wedged: a later claim on it is closed too.
  const second = sim.core.addLiquidation(ethLong(0.3));
  await waitFor(() => appliedAt(sim, second), "the second claim applied", 30_000);
  await waitFor(() => openQty(sim, ETH) === 0, "the second claim unwound", 30_000);
  // Every fill is in the P&L once: the trading fees the daemon counts are the venue's.
  const venueFees = sim.core.trading.ordersOf(sim.accountId).reduce((s, o) => s + o.total_fee, 0);
  await waitFor(
    async () => Math.abs((await metric(d.metricsUrl, "liquidator_pnl_quote", { component: "fees" })) - venueFees) < 1e-6,
    "the P&L's fees equal the venue's",
    20_000,
  );
  const fills = readJournal(d.stateDir).orders.fills.filter((f) => f.symbol === ETH);
  expect(fills.reduce((s, f) => s + f.qty, 0)).toBeCloseTo(-0.7, 9);
}, 90_000);

test("#33.5 a fill no claim explains opens no lot: a flat account does not trip the daily loss limit when the mark rises", async ({
  rig,
}) => {
  const sim = await rig.sim();
  operatorBuy(sim, 1); // held before the daemon starts: the operator's, closed by scope `all`
  const d = await rig.daemon({
    sim,
    until: "ready",
    sections: { unwind: { scope: "all" }, protections: { daily_loss_limit: 100 } },
  });
  await waitFor(() => openQty(sim, ETH) === 0, "the operator's position closed (scope all)", 30_000);
  const mark = sim.core.mark(ETH) as number;
  sim.core.setMark(ETH, mark * 1.1);
  sim.core.publishMarks();
  await waitFor(
    async () => (await metric(d.metricsUrl, "liquidator_mark_price", { symbol: ETH })) > mark * 1.05,
    "the daemon sees the new mark",
  );
  // Three reconcile rounds of 1 s span two of the protections' one-second observations at the new mark.
  await nothingHappens(
    async () => ((await readyz(d.metricsUrl)).body as { trading_state?: string }).trading_state !== "active" && "tripped",
    reconcileReads(d.metricsUrl),
    3,
  );
  expect(await metric(d.metricsUrl, "liquidator_pnl_unrealized_quote")).toBe(0);
}, 60_000);

test("#33.6 never twice on the file journal: an id pushed again long after it left the open list is not claimed again", async ({ rig }) => {
  const sim = await rig.sim();
  // A claim cut to about half by the cap; the rest taken by a rival; sweeps run at every reconcile
  // (on the main of the filing, forgetting the id 10 minutes after it left: 200 ms there).
  const d = await rig.daemon({ sim, until: "ready", policy: { max_claim_notional: 12_000 } });
  const id = sim.core.addLiquidation(ethLong(6));
  await waitFor(() => appliedAt(sim, id), "our partial claim applied");
  expect((await sim.core.competitorClaim(id)).ok).toBe(true);
  await reconcileRounds(d.metricsUrl, 3); // the id left the open list; sweeps ran
  sim.core.reopenLiquidation(id, ethLong(3));
  await reconcileRounds(d.metricsUrl, 3);
  expect(requestsFor(sim, id)).toBe(1);
}, 60_000);

test("#33.7 a deposit is seen at once: ids skipped for margin are claimed when collateral rises", async ({ rig }) => {
  const sim = await rig.sim({ collateral: 2_000, maxLeverage: 10 });
  const d = await rig.daemon({ sim, until: "ready", env: { LIQUIDATOR_UNWIND_MODE: "off" }, policy: { max_margin_usage: 0.9 } });
  await waitFor(() => d.logs.has("positions read from the venue; claiming may start"), "ready to claim");
  // ~7,700 each, below the partial-claim threshold (whole or nothing): two fit 0.9 × 2,000 at 10x.
  const ids = [0, 1, 2, 3].map(() => sim.core.addLiquidation(ethLong(2)));
  await waitFor(() => ids.some((id) => appliedAt(sim, id)), "the first claim applied");
  await waitFor(async () => (await metric(d.metricsUrl, "liquidator_claims_skipped_total", { reason: "margin" })) > 0, "a margin skip");
  await sleep(1_000); // paces the positions read the first claim asked for: the next periodic one is ~30 s away
  const before = ids.filter((id) => appliedAt(sim, id)).length;
  sim.core.setCollateral(sim.accountId, 20_000);
  await waitFor(() => ids.filter((id) => appliedAt(sim, id)).length > before, "a margin-skipped id claimed after the deposit", 10_000);
}, 60_000);
