/**
 * The composition root of the daemon: builds every part from the validated config, the venue
 * connection and the replayed journal, and wires them. No part builds another; none is a
 * module-level singleton (the metrics registry included). Each builder below takes only parts
 * built above it; the wiring's cycles (a part calling one built after it) go through a `Later`,
 * bound right after its builder ran.
 */

import type { Logger } from "pino";
import type { LoadedConfig } from "../config/loadConfig.js";
import type { DrainResult } from "../daemon/control/drain.js";
import type { Leadership } from "../daemon/control/leadership.js";
import type { ProtectionGuard } from "../daemon/control/protectionGuard.js";
import type { TradingStateName } from "../daemon/control/tradingState.js";
import type { Daemon } from "../daemon/daemon.js";
import type { Ingest } from "../daemon/feeds/ingest.js";
import type { CaptureTap } from "../daemon/records/captureTap.js";
import { type LeftPosition, positionsLeft } from "../daemon/unwind/positionsLeft.js";
import type { Unwinder } from "../daemon/unwind/unwinder.js";
import type { Metrics } from "../observe/metrics.js";
import type { Watchdog } from "../observe/watchdog.js";
import type { JournalReplay } from "../store/journalReplay.js";
import type { StateStore } from "../store/stateStore.js";
import { claimPath } from "./claimPath.js";
import { daemonRun } from "./daemonRun.js";
import type { DaemonTiming } from "./daemonTiming.js";
import { forecastParts } from "./forecastParts.js";
import { fundParts } from "./fundParts.js";
import { journalOwner } from "./journalOwner.js";
import { Later } from "./later.js";
import { markoutParts } from "./markoutParts.js";
import { metricSources } from "./metricSources.js";
import { policyReloader } from "./policyReloader.js";
import { protectionParts } from "./protectionParts.js";
import { shadowsAndCapture } from "./shadowsAndCapture.js";
import { streamParts } from "./streamParts.js";
import { tradingBooks } from "./tradingBooks.js";
import { unwindParts } from "./unwindParts.js";
import type { VenueConnection } from "./venueConnection.js";
import { venueParts } from "./venueParts.js";

export interface AssembledDaemon {
  daemon: Daemon;
  /** The lease's events go here (PostgreSQL); undefined for a single daemon on the file journal. */
  leadership: Leadership | undefined;
  publicKey: string;
  /** Runs until `signal` aborts, then drains and closes what it opened (not the journal or the venue). */
  run(signal: AbortSignal): Promise<void>;
  /** SIGHUP: apply a valid new policy without touching connections; log and ignore an invalid one. */
  reload(): Promise<void>;
  /** SIGUSR2: claim nothing new, unwind what claims assigned until flat, then `run` returns. */
  drain(): void;
  /** How the safe stop ended (undefined: the run ended otherwise, or has not). */
  drainResult(): DrainResult | undefined;
  /** `/readyz` details: the trading state and the positions no claim explains. */
  details(): {
    venue: "simulator" | "live";
    trading_state: TradingStateName;
    trading_state_reason?: string;
    unexplained_positions: object[];
  };
}

export function assembleDaemon(o: {
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  venue: VenueConnection;
  store: StateStore;
  replay: JournalReplay;
  metrics: Metrics;
  watchdog: Watchdog;
  logger: Logger;
  timing: DaemonTiming | undefined;
  /** `state.capture`: what the daemon sees also goes to a capture (docs/policy-lab.md). */
  capture?: CaptureTap | undefined;
  /** Aborted when the daemon stops (the core's reads of the venue end with it). */
  signal: AbortSignal;
}): AssembledDaemon {
  const { loaded, venue, store, replay, metrics, watchdog, logger, timing } = o;
  const config = loaded.config;
  // `state.capture` as configured; ingest records into `ingestTap`, which also feeds the shadows.
  const stateCapture = o.capture;
  // Called by parts built before them (core → guard, unwinder and daemon; unwinder → daemon and ingest).
  const later = {
    guard: new Later<ProtectionGuard>("the protection guard"),
    unwinder: new Later<Unwinder>("the unwinder"),
    ingest: new Later<Ingest>("ingest"),
    daemon: new Later<Daemon>("the daemon"),
  };

  const books = tradingBooks(config.policy, config.unwind);
  const venueSide = venueParts({ config, venue, metrics, policy: books.policy, logger });
  const { rest, limiters } = venueSide;
  const { shadows, ingestTap, sender } = shadowsAndCapture({
    loaded,
    metrics,
    logger,
    account: books.account,
    marks: books.marks,
    rest,
    capture: stateCapture,
    leastRatios: books.policy.leastRatios,
  });
  const markouts = markoutParts({ store, metrics, logger, timing, marks: books.marks, policy: books.policy });
  const { core, claimer, opportunities, slices, ingestLog } = claimPath({
    config,
    store,
    metrics,
    logger,
    books,
    limiters,
    rest,
    sender,
    markouts,
    capture: stateCapture,
    guard: later.guard,
    unwinder: later.unwinder,
    daemon: later.daemon,
    timing,
    signal: o.signal,
  });
  const unwinder = later.unwinder.bind(
    unwindParts({ config, store, metrics, logger, books, rest, sender, core, daemon: later.daemon, ingest: later.ingest }),
  );
  const left = (): LeftPosition[] =>
    positionsLeft({
      positions: books.positions,
      target: (symbol, mode, held) => core.account.target(symbol, mode, held),
      symbols: () => books.policy.context.symbols,
      mark: (symbol) => books.marks.price(symbol),
      settings: books.policy.unwind,
      dryRun: () => sender.dryRun,
      halted: () => unwinder.halted(),
    });
  const { trading, drain, drained, drainResult, guard } = protectionParts({
    config,
    store,
    metrics,
    logger,
    books,
    claimer,
    unwinder,
    core,
    left,
  });
  later.guard.bind(guard);
  const paused = (): boolean => claimer.pausedReasons().length > 0;
  const forecast = forecastParts({ config, metrics, logger, books, rest, guard, paused, capture: stateCapture });
  const fund = fundParts({ config, metrics, logger, marks: books.marks, rest, timing });
  const leadership = journalOwner({ store, replay, metrics, logger, claimer, core, unwinder, markouts, guard });
  metricSources({ config, metrics, books, limiters, core, unwinder, left });
  const { ingest, daemon, poller, keyWatch } = streamParts({
    config,
    venue,
    venueParts: venueSide,
    store,
    metrics,
    watchdog,
    logger,
    timing,
    books,
    claimer,
    core,
    unwinder,
    opportunities,
    slices,
    ingestLog,
    ingestTap,
    fund: fund.feed,
    daemon: later.daemon,
  });
  later.ingest.bind(ingest);
  later.daemon.bind(daemon);

  return {
    daemon,
    leadership,
    publicKey: venueSide.signer.publicKey,
    run: daemonRun({
      daemon,
      keyWatch,
      poller,
      forecast,
      fund,
      guard,
      store,
      drain,
      drained,
      drainResult,
      left,
      logger: logger.child({ component: "lifecycle" }),
      unwinder,
      opportunities,
      markouts,
      rest,
      limiters,
      shadows,
    }),
    reload: policyReloader({
      loaded,
      env: o.env,
      logger,
      metrics,
      sender,
      claimer,
      policy: books.policy,
      ingest,
      unwinder,
      shadows,
      guard,
    }),
    drain: () => drain.start(),
    drainResult,
    details: () => ({
      venue: o.venue.simulated ? "simulator" : "live",
      trading_state: trading.state,
      ...(trading.reason !== undefined ? { trading_state_reason: trading.reason } : {}),
      unexplained_positions: books.positions.known ? core.account.unexplained() : [],
    }),
  };
}
