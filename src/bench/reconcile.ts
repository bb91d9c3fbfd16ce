/**
 * In-process: how long a REST reconcile of 10,000 open ids blocks the event loop. The daemon's own
 * Ingest, OpenBook and Claimer (a file journal in a temp dir, no permits, so nothing is sent) take a
 * full open list as `GET /v1/public/liquidation` pages deliver it: once all new (the offers are then
 * sliced, sliceQueue.ts), then again and again unchanged, and once with a tenth of the rows changed.
 * Measured: the synchronous call (`Ingest.openList`) and each turn of the loop while its slices run
 * (a setImmediate ping between them): what holds the loop, whichever part it is in.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildTradingCore } from "../core/buildCore.js";
import { CoreFold } from "../core/coreFold.js";
import { Claimer } from "../daemon/claim/claimer.js";
import { ClaimSender } from "../daemon/claim/claimSender.js";
import { PolicyState } from "../daemon/claim/policyState.js";
import { Ingest } from "../daemon/feeds/ingest.js";
import { OpenBook } from "../daemon/feeds/openBook.js";
import { SliceQueue } from "../daemon/feeds/sliceQueue.js";
import { Exposure } from "../engine/exposure.js";
import { MarkBook } from "../engine/marks.js";
import { PositionBook } from "../engine/positionBook.js";
import { DEFAULT_SYMBOLS } from "../sim/symbols.js";
import { Journal } from "../store/fileJournal.js";
import { FileStore } from "../store/fileStore.js";
import type { OpenLiquidation } from "../venue/restSchemas.js";
import { round2 } from "./stats.js";
import { simulatorSymbolTable } from "./throughput.js";

export interface ReconcileResult {
  openIds: number;
  /** All ids new (its offers sliced too): the longest block, wall and CPU (ms). */
  firstBlockMs: number;
  firstBlockCpuMs: number;
  /** Unchanged lists, `rounds` of them: each round's longest block, median and maximum, wall and CPU (ms). */
  unchangedBlockMsP50: number;
  unchangedBlockMsMax: number;
  unchangedBlockCpuMsP50: number;
  unchangedBlockCpuMsMax: number;
  /** A tenth of the rows changed: the longest block, wall and CPU (ms). */
  changedBlockMs: number;
  changedBlockCpuMs: number;
  rounds: number;
}

const noop = (): undefined => undefined;

function rows(n: number, qtyScale: (i: number) => number): OpenLiquidation[] {
  return Array.from({ length: n }, (_, i) => {
    const s = DEFAULT_SYMBOLS[i % DEFAULT_SYMBOLS.length]!;
    const qty = ((i % 2 === 0 ? 1 : -1) * (5_000 + (i % 97) * 100) * qtyScale(i)) / s.startPrice;
    return {
      liquidation_id: 1_000_000 + i,
      timestamp: Date.now(),
      type: "liquidated",
      positions_by_perp: [{ symbol: s.symbol, position_qty: qty, liquidator_fee: s.liquidatorFee }],
    };
  });
}

/** CPU time of this process (every thread, GC helpers included), ms. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Runs `fn`, then pings the loop until `slices` is idle: the longest block, a synchronous call or
 * a turn while sliced, in wall time and in this process's CPU time (wall time on a shared machine
 * also counts the time other processes had the core).
 */
async function timed(fn: () => void, slices: SliceQueue): Promise<{ wall: number; cpu: number }> {
  let w = performance.now();
  let c = cpuMs();
  fn();
  let wall = performance.now() - w;
  let cpu = cpuMs() - c;
  while (slices.busy) {
    w = performance.now();
    c = cpuMs();
    await new Promise((r) => setImmediate(r));
    wall = Math.max(wall, performance.now() - w);
    cpu = Math.max(cpu, cpuMs() - c);
  }
  return { wall, cpu };
}

export async function measureReconcile(openIds = 10_000, rounds = 20): Promise<ReconcileResult> {
  const dir = mkdtempSync(join(tmpdir(), "liquidator-reconcile-"));
  const { journal } = Journal.open({ dir });
  const marks = new MarkBook();
  const exposure = new Exposure();
  const book = new OpenBook();
  const policy = new PolicyState(
    {
      dry_run: false,
      max_claim_notional: 50_000,
      max_total_exposure: 1e12,
      min_fee: 0,
      limit_price_slippage_bps: 50,
      max_mark_age_ms: 3_600_000,
      symbols: { allow: [], deny: [] },
      per_symbol: {},
    },
    marks,
    exposure,
  );
  policy.applySymbols(simulatorSymbolTable());
  for (const s of DEFAULT_SYMBOLS) marks.set(s.symbol, s.startPrice, Date.now());
  const positions = new PositionBook(exposure);
  const sender = new ClaimSender({ claimLiquidation: () => Promise.reject(new Error("not in this bench")) }, true);
  const store = new FileStore(journal, "bench");
  const { core, desk } = buildTradingCore({
    fold: new CoreFold(),
    exposure,
    positions,
    port: {
      intent: (r) => store.intent(r),
      append: (r) => store.append(r),
      recover: () => store.recover(),
      mayLead: () => true,
      sendClaim: (body, dryRun) => sender.send(body, dryRun),
      placeOrder: () => Promise.reject(new Error("not in this bench")),
      readRecord: () => Promise.resolve({ ok: false, reason: "not in this bench", permanent: true }),
      requestPositions: noop,
      schedule: (ms, f) => {
        const t = setTimeout(f, ms);
        return () => clearTimeout(t);
      },
      now: Date.now,
      monotonic: () => performance.now(),
    },
    scope: () => "claimed",
    mark: (symbol) => marks.price(symbol),
    orderWorking: () => false,
    changed: noop,
    desk: { decide: policy.decide, book, dryRun: () => true, skipped: noop, paused: noop },
    observer: {
      submitted: noop,
      decisionLatency: noop,
      result: noop,
      feeEarned: noop,
      settled: noop,
      traded: noop,
      unknown: noop,
      givenUp: noop,
      changed: noop,
    },
    logger: { info: noop, warn: noop, error: noop },
  });
  const claimer = new Claimer({ desk, acquire: () => new Promise<void>(noop), dryRun: () => true }); // never started: nothing is sent
  const slices = new SliceQueue();
  const ingest = new Ingest({
    book,
    marks,
    claimer,
    core,
    positions,
    policy,
    metrics: { liquidationsSeen: { inc: noop } } as never,
    logger: { info: noop },
    slices,
  });
  try {
    const list = rows(openIds, () => 1);
    const first = await timed(() => ingest.openList(list, Date.now()), slices);
    const unchanged: number[] = [];
    const unchangedCpu: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // A page-sized pause between lists, as the REST feed has (and GC a chance to run).
      await new Promise((r) => setTimeout(r, 5));
      const t = await timed(() => ingest.openList(list, Date.now()), slices);
      unchanged.push(t.wall);
      unchangedCpu.push(t.cpu);
    }
    const changedList = rows(openIds, (i) => (i % 10 === 0 ? 1.5 : 1));
    await new Promise((r) => setTimeout(r, 5));
    const changed = await timed(() => ingest.openList(changedList, Date.now()), slices);
    const median = (xs: number[]): number => round2([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN);
    return {
      openIds,
      firstBlockMs: round2(first.wall),
      firstBlockCpuMs: round2(first.cpu),
      unchangedBlockMsP50: median(unchanged),
      unchangedBlockMsMax: round2(Math.max(...unchanged)),
      unchangedBlockCpuMsP50: median(unchangedCpu),
      unchangedBlockCpuMsMax: round2(Math.max(...unchangedCpu)),
      changedBlockMs: round2(changed.wall),
      changedBlockCpuMs: round2(changed.cpu),
      rounds,
    };
  } finally {
    await claimer.stop();
    await journal.close().catch(noop);
    rmSync(dir, { recursive: true, force: true });
  }
}
