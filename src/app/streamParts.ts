/**
 * What reads the venue: ingest (streams and REST reads into the books and the claimer), the claim
 * rehearsal, the daemon that runs the streams and loops, the rewards poller and the key watch.
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import type { TradingCore } from "../core/tradingCore.js";
import type { Claimer } from "../daemon/claim/claimer.js";
import { ClaimRehearsal } from "../daemon/claim/claimRehearsal.js";
import { Housekeeping } from "../daemon/control/housekeeping.js";
import { KeyWatch } from "../daemon/control/keyWatch.js";
import { Daemon, type DaemonLogger } from "../daemon/daemon.js";
import type { FundFeed } from "../daemon/feeds/fundFeed.js";
import { Ingest } from "../daemon/feeds/ingest.js";
import { RewardsPoller } from "../daemon/feeds/rewardsPoller.js";
import type { SliceQueue } from "../daemon/feeds/sliceQueue.js";
import type { CaptureTap } from "../daemon/records/captureTap.js";
import type { OpportunityLedger } from "../daemon/records/opportunityLedger.js";
import type { Unwinder } from "../daemon/unwind/unwinder.js";
import type { Metrics } from "../observe/metrics.js";
import type { Watchdog } from "../observe/watchdog.js";
import type { StateStore } from "../store/stateStore.js";
import { readKeyInfo } from "../venue/keyInfo.js";
import type { DaemonTiming } from "./daemonTiming.js";
import type { Later } from "./later.js";
import type { TradingBooks } from "./tradingBooks.js";
import type { VenueConnection } from "./venueConnection.js";
import type { VenueParts } from "./venueParts.js";

export interface StreamParts {
  ingest: Ingest;
  daemon: Daemon;
  poller: RewardsPoller;
  keyWatch: KeyWatch;
}

export function streamParts(o: {
  config: Config;
  venue: VenueConnection;
  venueParts: VenueParts;
  store: StateStore;
  metrics: Metrics;
  watchdog: Watchdog;
  logger: Logger;
  timing: DaemonTiming | undefined;
  books: TradingBooks;
  claimer: Claimer;
  core: TradingCore;
  unwinder: Unwinder;
  opportunities: OpportunityLedger;
  slices: SliceQueue;
  ingestLog: Logger;
  /** What ingest records into (the capture, when on, and the shadows). */
  ingestTap: CaptureTap;
  /** The insurance fund's rows, offered through it (fundParts.ts); undefined with the fund off. */
  fund: FundFeed | undefined;
  daemon: Later<Daemon>;
}): StreamParts {
  const { config, venue, metrics, logger, timing, claimer, core } = o;
  const { rest, signer } = o.venueParts;
  const { marks, positions, policy } = o.books;
  // A claim answered before any report of its symbol: the venue's positions say which margin mode
  // it landed in (and so which position to unwind); read them now rather than at the next period.
  positions.onPending(() => o.daemon.get().requestPositions());
  const ingest = new Ingest({
    book: o.books.book,
    marks,
    claimer,
    core,
    positions,
    account: o.books.account,
    policy,
    metrics,
    logger: o.ingestLog,
    slices: o.slices,
    orders: o.unwinder,
    positionsRead: (first) => {
      if (first) {
        const unwindLog = logger.child({ component: "unwinder" });
        for (const p of core.account.unexplained()) {
          if (config.unwind.scope === "all") unwindLog.warn(p, "a position no claim explains: closing it (unwind.scope: all)");
          else unwindLog.warn(p, "a position no claim explains: left alone (unwind.scope: claimed; use a dedicated account)");
        }
      }
      claimer.accountRead();
    },
    opportunities: o.opportunities,
    capture: o.ingestTap,
    // insurance_fund.enabled: the fund's rows are offered too (fundParts.ts).
    ...(o.fund !== undefined ? { fund: o.fund } : {}),
    corrected: (c) => {
      metrics.unwind.positionsCorrected.inc({ symbol: c.symbol });
      logger.warn(c, "the venue's positions differ from what the daemon held: the venue's are taken");
    },
  });

  const rehearsalLog = logger.child({ component: "rehearsal" });
  const rehearsal = new ClaimRehearsal({
    claimer,
    intervalMs: config.venue.claim_rehearsal_ms,
    // Claims queued for permits (a cascade): their own sends and the frame slices keep the path warm.
    idle: () => claimer.pendingCount === 0,
    onRun: () => metrics.claimRehearsals.inc(),
    onError: (err) => rehearsalLog.error({ err: err.message }, "the claim rehearsal failed and stopped (claims are not affected)"),
  });
  const daemon = new Daemon({
    rest,
    rehearsal,
    signer,
    publicUrl: `${venue.wsUrl}/ws/stream/${venue.accountId}`,
    privateUrl: `${venue.wsPrivateUrl}/v2/ws/private/stream/${venue.accountId}`,
    policy,
    ingest,
    marks,
    claimer,
    metrics,
    watchdog: o.watchdog,
    restHealth: o.venueParts.restHealth,
    publicPerSecond: config.venue.limits.public_per_second,
    housekeeping: new Housekeeping({
      clock: signer.clock,
      journal: { failure: () => core.journalFailure() ?? o.store.failure, retry: () => core.retryJournal() },
      claimer,
      logger: logger.child({ component: "housekeeping" }),
      ...(timing?.clockMaxAgeMs !== undefined ? { clockMaxAgeMs: timing.clockMaxAgeMs } : {}),
      ...(timing?.journalRetryMs !== undefined ? { journalRetryMs: timing.journalRetryMs } : {}),
    }),
    logger: logger.child({ component: "daemon" }) as DaemonLogger,
    ...(timing?.reconcileIntervalMs !== undefined ? { reconcileIntervalMs: timing.reconcileIntervalMs } : {}),
    stream: {
      ...(timing?.pingIntervalMs !== undefined ? { pingIntervalMs: timing.pingIntervalMs } : {}),
      ...(timing?.deadAfterMs !== undefined ? { deadAfterMs: timing.deadAfterMs } : {}),
      ...(timing?.backoff !== undefined ? { backoff: timing.backoff } : {}),
    },
  });
  const poller = new RewardsPoller({
    source: rest,
    metrics,
    intervalMs: config.rewards.poll_interval_ms,
    ...(config.rewards.campaign ? { campaign: config.rewards.campaign } : {}),
    logger: logger.child({ component: "rewards" }),
  });
  const keyWatch = new KeyWatch({
    read: (signal) => readKeyInfo(rest, { signal }),
    publicKey: signer.publicKey,
    onExpiry: (seconds) => metrics.keyExpiry.set(seconds),
    logger: logger.child({ component: "key" }),
  });
  return { ingest, daemon, poller, keyWatch };
}
