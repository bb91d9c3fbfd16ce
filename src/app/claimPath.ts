/**
 * The claim path: the opportunity ledger, the frame slices the claims pump waits behind, and the
 * claimer, whose settled claims feed the P&L, the markouts, the claimed positions, the capture and
 * the protections.
 */
import type { Logger } from "pino";
import type { CaptureTap } from "../daemon/captureTap.js";
import { Claimer } from "../daemon/claimer.js";
import { claimObserver } from "../daemon/claimObserver.js";
import type { ClaimSender } from "../daemon/claimSender.js";
import type { Daemon } from "../daemon/daemon.js";
import type { MarkoutSampler } from "../daemon/markoutSampler.js";
import { OpportunityLedger } from "../daemon/opportunityLedger.js";
import { ledgerClaim } from "../daemon/pnlFromJournal.js";
import type { ProtectionGuard } from "../daemon/protectionGuard.js";
import { gatedPermit, gatedTryPermit, SliceQueue } from "../daemon/sliceQueue.js";
import type { PnlLedger } from "../engine/pnlLedger.js";
import type { Metrics } from "../observe/metrics.js";
import type { StateStore } from "../store/stateStore.js";
import type { VenueLimiters } from "../venue/limiters.js";
import type { RestClient } from "../venue/rest.js";
import type { Later } from "./later.js";
import type { TradingBooks } from "./tradingBooks.js";
import type { UnwindScope } from "./unwindScope.js";

export interface ClaimPath {
  claimer: Claimer;
  opportunities: OpportunityLedger;
  slices: SliceQueue;
  /** Ingest's logger (the slices and the opportunity ledger report there too). */
  ingestLog: Logger;
}

export function claimPath(o: {
  store: StateStore;
  metrics: Metrics;
  logger: Logger;
  books: TradingBooks;
  limiters: VenueLimiters;
  rest: RestClient;
  sender: ClaimSender;
  ledger: PnlLedger;
  markouts: MarkoutSampler;
  scope: UnwindScope;
  /** `state.capture`, when on. */
  capture: CaptureTap | undefined;
  guard: Later<ProtectionGuard>;
  daemon: Later<Daemon>;
}): ClaimPath {
  const { store, metrics, logger, limiters, ledger, markouts, scope, guard, daemon } = o;
  const { marks, policy } = o.books;
  // Big frames are offered in slices; the claims pump waits for a sliced frame's end (sliceQueue.ts).
  const ingestLog = logger.child({ component: "ingest" });
  const slices = new SliceQueue(100, (err) => ingestLog.error({ err }, "an offer failed in a sliced frame"));
  const opportunities = new OpportunityLedger({
    store,
    price: (symbol) => marks.price(symbol),
    settled: (outcome, reason, value) => {
      metrics.opportunities.inc({ outcome, reason });
      metrics.opportunityValue.inc({ outcome, reason }, value);
    },
    failed: (err) => ingestLog.warn({ err: (err as Error).message }, "opportunity ledger records not written"),
  });
  const claimer = new Claimer({
    decide: policy.decide,
    book: o.books.book,
    exposure: o.books.exposure,
    positions: o.books.positions,
    acquire: gatedPermit(slices, (s) => limiters.acquire("claims", s)),
    tryAcquire: gatedTryPermit(slices, () => limiters.tryAcquire("claims")),
    sender: o.sender,
    wire: o.rest,
    // The ledger reads the claim records as they are written (intents, outcomes).
    store: opportunities.tap(store),
    opportunities,
    gate: (liquidation) => guard.get().gate(liquidation),
    observer: {
      ...claimObserver(metrics),
      settled: (id, fills) => {
        const at = Date.now();
        ledgerClaim(ledger, id, fills, at);
        markouts.assigned(id, fills, at);
        scope.claimed.claim(id, fills);
        o.capture?.record({ k: "assigned", at: Date.now(), id, fills });
        guard.get().check();
      },
      acceptedUnsized: (id, requested) => scope.claimed.claimRequested(id, requested),
    },
    logger: logger.child({ component: "claimer" }),
    // -1101: the model was wrong; the leverages and positions read say what the venue counts (accountRead).
    rereadAccount: () => daemon.get().requestLeverages(),
  });
  // Held positions come from the venue only: nothing is claimed until GET /v1/positions answered.
  claimer.setPaused("positions", true);
  return { claimer, opportunities, slices, ingestLog };
}
