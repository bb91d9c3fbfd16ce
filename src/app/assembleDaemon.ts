/**
 * The composition root of the daemon: builds every part from the validated config, the venue
 * connection and the replayed journal, and wires them. No part builds another; none is a
 * module-level singleton (the metrics registry included). Each builder below takes only parts
 * built above it; the wiring's cycles (a part calling one built after it) go through a `Later`,
 * bound right after its builder ran.
 */

import type { Logger } from "pino";
import type { LoadedConfig } from "../config/loadConfig.js";
import type { CaptureTap } from "../daemon/captureTap.js";
import type { Daemon } from "../daemon/daemon.js";
import type { Ingest } from "../daemon/ingest.js";
import type { Leadership } from "../daemon/leadership.js";
import type { ProtectionGuard } from "../daemon/protectionGuard.js";
import type { TradingStateName } from "../daemon/tradingState.js";
import type { Unwinder } from "../daemon/unwinder.js";
import type { Metrics } from "../observe/metrics.js";
import type { Watchdog } from "../observe/watchdog.js";
import type { JournalReplay } from "../store/journalRecords.js";
import type { StateStore } from "../store/stateStore.js";
import { claimPath } from "./claimPath.js";
import { daemonRun } from "./daemonRun.js";
import type { DaemonTiming } from "./daemonTiming.js";
import { forecastParts } from "./forecastParts.js";
import { journalOwner } from "./journalOwner.js";
import { Later } from "./later.js";
import { metricSources } from "./metricSources.js";
import { pnlParts } from "./pnlParts.js";
import { policyReloader } from "./policyReloader.js";
import { protectionParts } from "./protectionParts.js";
import { shadowsAndCapture } from "./shadowsAndCapture.js";
import { streamParts } from "./streamParts.js";
import { tradingBooks } from "./tradingBooks.js";
import { unwindParts } from "./unwindParts.js";
import { unwindScope } from "./unwindScope.js";
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
}): AssembledDaemon {
  const { loaded, venue, store, replay, metrics, watchdog, logger, timing } = o;
  const config = loaded.config;
  // `state.capture` as configured; ingest records into `capture`, which also feeds the shadows.
  const stateCapture = o.capture;
  // Called by parts built before them (claimer → guard and daemon, unwinder → daemon and ingest, scope → unwinder).
  const later = {
    guard: new Later<ProtectionGuard>("the protection guard"),
    unwinder: new Later<Unwinder>("the unwinder"),
    ingest: new Later<Ingest>("ingest"),
    daemon: new Later<Daemon>("the daemon"),
  };

  const books = tradingBooks(config.policy);
  const venueSide = venueParts({ config, venue, metrics, policy: books.policy });
  const { rest, limiters } = venueSide;
  const { shadows, capture, sender } = shadowsAndCapture({
    loaded,
    metrics,
    logger,
    account: books.account,
    marks: books.marks,
    rest,
    capture: stateCapture,
  });
  const { ledger, markouts } = pnlParts({ store, metrics, logger, timing, marks: books.marks, policy: books.policy, guard: later.guard });
  const scope = unwindScope({
    scope: config.unwind.scope,
    positions: books.positions,
    store,
    metrics,
    kick: (symbol, mode) => later.unwinder.get().kick(symbol, mode),
    logger: logger.child({ component: "unwinder" }),
  });
  const { claimer, opportunities, slices, ingestLog } = claimPath({
    store,
    metrics,
    logger,
    books,
    limiters,
    rest,
    sender,
    ledger,
    markouts,
    scope,
    capture: stateCapture,
    guard: later.guard,
    daemon: later.daemon,
  });
  const unwinder = later.unwinder.bind(
    unwindParts({
      config,
      store,
      metrics,
      logger,
      books,
      rest,
      sender,
      ledger,
      scope,
      capture: stateCapture,
      guard: later.guard,
      daemon: later.daemon,
      ingest: later.ingest,
    }),
  );
  const { trading, drain, drained, guard } = protectionParts({ config, store, metrics, logger, books, claimer, unwinder, scope, ledger });
  later.guard.bind(guard);
  const forecast = forecastParts({ config, metrics, logger, books, rest, guard, capture: stateCapture });
  const leadership = journalOwner({ store, replay, metrics, logger, claimer, unwinder, ledger, scope, markouts, guard });
  metricSources({ config, metrics, books, limiters, ledger, unwinder });
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
    unwinder,
    scope,
    opportunities,
    slices,
    ingestLog,
    capture,
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
      guard,
      drain,
      drained,
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
    details: () => ({
      venue: o.venue.simulated ? "simulator" : "live",
      trading_state: trading.state,
      ...(trading.reason !== undefined ? { trading_state_reason: trading.reason } : {}),
      unexplained_positions: books.positions.known ? scope.claimed.unexplainedPositions() : [],
    }),
  };
}
