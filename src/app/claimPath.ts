/**
 * The claim path: the trading core and its claim desk (core/buildCore.ts) on the live port, the
 * claimer that drives the desk from the claims limiter, the opportunity ledger, and the frame slices
 * the claims pump waits behind. What the core settles feeds the markouts, the capture and the
 * protections; what it counts goes to the metrics.
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import { buildTradingCore } from "../core/buildCore.js";
import { CoreFold } from "../core/coreFold.js";
import type { TradingCore } from "../core/tradingCore.js";
import { Claimer } from "../daemon/claim/claimer.js";
import { claimObserver } from "../daemon/claim/claimObserver.js";
import type { ClaimSender } from "../daemon/claim/claimSender.js";
import type { ProtectionGuard } from "../daemon/control/protectionGuard.js";
import type { Daemon } from "../daemon/daemon.js";
import { gatedPermit, gatedTryPermit, SliceQueue } from "../daemon/feeds/sliceQueue.js";
import type { CaptureTap } from "../daemon/records/captureTap.js";
import type { MarkoutSampler } from "../daemon/records/markoutSampler.js";
import { OpportunityLedger } from "../daemon/records/opportunityLedger.js";
import type { Unwinder } from "../daemon/unwind/unwinder.js";
import type { Metrics } from "../observe/metrics.js";
import type { StateStore } from "../store/stateStore.js";
import type { VenueLimiters } from "../venue/limiters.js";
import { OrderApi } from "../venue/orderApi.js";
import type { RestClient } from "../venue/rest.js";
import type { DaemonTiming } from "./daemonTiming.js";
import type { Later } from "./later.js";
import { livePort } from "./livePort.js";
import type { TradingBooks } from "./tradingBooks.js";

export interface ClaimPath {
  core: TradingCore;
  claimer: Claimer;
  opportunities: OpportunityLedger;
  slices: SliceQueue;
  /** Ingest's logger (the slices and the opportunity ledger report there too). */
  ingestLog: Logger;
}

export function claimPath(o: {
  config: Config;
  store: StateStore;
  metrics: Metrics;
  logger: Logger;
  books: TradingBooks;
  limiters: VenueLimiters;
  rest: RestClient;
  sender: ClaimSender;
  markouts: MarkoutSampler;
  /** `state.capture`, when on. */
  capture: CaptureTap | undefined;
  guard: Later<ProtectionGuard>;
  unwinder: Later<Unwinder>;
  daemon: Later<Daemon>;
  timing: DaemonTiming | undefined;
  signal: AbortSignal;
}): ClaimPath {
  const { store, metrics, logger, limiters, markouts, guard, books } = o;
  const { marks, policy } = books;
  // Big frames are offered in slices; the claims pump waits for a sliced frame's end (sliceQueue.ts).
  const ingestLog = logger.child({ component: "ingest" });
  const slices = new SliceQueue(100, (err) => ingestLog.error({ err }, "an offer failed in a sliced frame"));
  const opportunities = new OpportunityLedger({
    store,
    price: (symbol) => marks.price(symbol),
    settled: (outcome, reason, value, supply) => {
      metrics.opportunities.inc({ outcome, reason, supply });
      metrics.opportunityValue.inc({ outcome, reason }, value);
    },
    failed: (err) => ingestLog.warn({ err: (err as Error).message }, "opportunity ledger records not written"),
  });
  const claimLog = logger.child({ component: "claimer" });
  const counts = claimObserver(metrics);
  // The ledger reads the claim records as they are written (intents, outcomes).
  const journal = opportunities.readingAlong(store);
  const port = livePort({
    store: journal,
    sender: o.sender,
    rest: o.rest,
    orders: new OrderApi(o.rest),
    requestPositions: () => o.daemon.get().requestPositions(),
    // -1101: the model was wrong; the leverages and positions read say what the venue counts.
    rereadAccount: () => o.daemon.get().requestLeverages(),
    signal: o.signal,
  });
  let claimer: Claimer | undefined;
  const { core, desk } = buildTradingCore({
    // Empty until the journal is adopted (journalOwner.ts: at once on the file, when elected otherwise).
    fold: new CoreFold(),
    exposure: books.exposure,
    positions: books.positions,
    port,
    // Read at each use: SIGHUP may change it (policyReloader.ts).
    scope: () => policy.unwind.scope,
    mark: (symbol) => marks.price(symbol),
    orderWorking: (symbol, mode) => o.unwinder.get().working(symbol, mode),
    changed: (symbol, mode) => o.unwinder.get().kick(symbol, mode),
    desk: {
      // The ledger hears what cut a claim below the whole (the report's cut rows: what a cap cost).
      decide: (liquidation, now) => {
        const d = policy.decide(liquidation, now);
        if (d.action === "claim") opportunities.decided(d);
        return d;
      },
      gate: (liquidation) => guard.get().gate(liquidation),
      book: books.book,
      dryRun: () => o.sender.dryRun,
      skipped: (reason, id) => {
        counts.skipped(reason);
        opportunities.skipped(id, reason);
      },
      left: (id, pending) => opportunities.left(id, pending),
      paused: (reason, on) => counts.paused(reason, on),
      queued: (liquidation, d) => claimer?.hooks.queued(liquidation, d),
      wake: () => claimer?.hooks.wake(),
    },
    observer: {
      ...counts,
      settled: (id, fills) => {
        const at = Date.now();
        markouts.assigned(id, fills, at);
        o.capture?.record({ k: "assigned", at, id, fills });
        guard.get().check();
      },
      traded: (symbol, qty, price, fee, mark) => {
        // Worse = selling below the mark, buying above it.
        metrics.unwind.slippageBps.observe(((qty < 0 ? mark - price : price - mark) / mark) * 10_000);
        o.capture?.record({ k: "fill", at: Date.now(), symbol, qty, price, fee, mark });
      },
      unknown: (n) => metrics.claimsUnknown.set(n),
      givenUp: () => metrics.claimsGivenUp.inc(),
      // After the record's turn: the ledger has it then.
      changed: () => queueMicrotask(() => guard.get().check()),
    },
    logger: claimLog,
    fundRoute: o.config.insurance_fund.route,
    timings: { ...(o.timing?.journalRetryMs !== undefined ? { journalRetryMs: o.timing.journalRetryMs } : {}) },
  });
  claimer = new Claimer({
    desk,
    acquire: gatedPermit(slices, (s) => limiters.acquire("claims", s)),
    tryAcquire: gatedTryPermit(slices, () => limiters.tryAcquire("claims")),
    // The insurance fund's claims on their endpoint's own limiter (claimer.ts: one pump per limiter).
    acquireFund: gatedPermit(slices, (s) => limiters.acquire("fund_claims", s)),
    dryRun: () => o.sender.dryRun,
    wire: o.rest,
  });
  // Held positions come from the venue only: nothing is claimed until GET /v1/positions answered.
  claimer.setPaused("positions", true);
  return { core, claimer, opportunities, slices, ingestLog };
}
