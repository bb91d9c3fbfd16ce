/**
 * `liquidator run`: the daemon's lifecycle. The metrics server comes first (so `/readyz` can say why
 * nothing is claimed yet), SIGHUP is handled from the first moment, then the venue, the journal and
 * the parts (assembleDaemon.ts) start; on abort everything stops in the reverse order.
 */

import { join } from "node:path";
import { configErrorFrom } from "../config/issues.js";
import { liveLimitProblems } from "../config/liveLimits.js";
import type { LoadedConfig } from "../config/loadConfig.js";
import { EXIT_POSITIONS_OPEN } from "../errors.js";
import type { CaptureQueue } from "../lab/capture/captureQueue.js";
import { startObserveServer } from "../observe/httpServer.js";
import { createLogger } from "../observe/logger.js";
import { createMetrics } from "../observe/metrics.js";
import { Watchdog } from "../observe/watchdog.js";
import type { StateStore } from "../store/stateStore.js";
import { PACKAGE_VERSION } from "../venue/userAgent.js";
import { assembleDaemon } from "./assembleDaemon.js";
import type { DaemonTiming } from "./daemonTiming.js";
import { fundOnEmbedded } from "./embeddedFund.js";
import { captureBudget, openDaemonCapture } from "./openCapture.js";
import { type OpenedStore, openStateStore } from "./openStateStore.js";
import { DrainSignal, HupReloader } from "./processSignals.js";
import { connectVenue } from "./venueConnection.js";

export type { DaemonTiming } from "./daemonTiming.js";

export interface RunDaemonOptions {
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** Pretty logs (npm start on a terminal); the config's `log.pretty` also turns it on. */
  pretty?: boolean;
  /** Log destination (tests); stdout by default. */
  logDestination?: NodeJS.WritableStream;
  /** Called once the daemon is up (tests and `npm start` read the metrics URL from it). */
  onStarted?: (info: { metricsUrl: string; simulated: boolean; baseUrl: string }) => void;
  /** Stream and loop timing overrides (tests). */
  timing?: DaemonTiming;
  /** Wraps the opened state store (tests inject write failures at the store's boundary). */
  wrapStore?: (store: StateStore) => StateStore;
}

/**
 * Resolves with the exit status: 0, or EXIT_POSITIONS_OPEN when a safe stop (SIGUSR2) ended with
 * claimed positions above dust still open.
 */
export async function runDaemon(options: RunDaemonOptions): Promise<number> {
  const { loaded, signal } = options;
  const config = loaded.config;
  const unset = liveLimitProblems(config, loaded.given ?? new Set());
  if (unset.length > 0) throw configErrorFrom(unset);
  const logger = createLogger({
    level: config.log.level,
    pretty: config.log.pretty || options.pretty === true,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  const metrics = createMetrics({ version: PACKAGE_VERSION, commit: options.env.LIQUIDATOR_BUILD_COMMIT ?? "unknown" });
  const watchdog = new Watchdog();
  metrics.setWatchdogSource(() => watchdog.samples());

  let notReady: () => readonly string[] = () => ["starting"];
  let details: () => Record<string, unknown> = () => ({ role: "single" });
  const server = await startObserveServer({
    host: config.metrics.host,
    port: config.metrics.port,
    metrics,
    health: { stale: () => watchdog.stale(), notReady: () => notReady(), details: () => details() },
    logger,
  });
  logger.info({ url: server.url, host: config.metrics.host, port: server.port }, "metrics server listening");
  const reloader = new HupReloader(logger);
  const drainSignal = new DrainSignal(logger);
  try {
    const venue = await connectVenue(loaded, logger);
    if (fundOnEmbedded(config, loaded.given ?? new Set(), venue.simulated))
      logger.info(
        { key: "insurance_fund.enabled" },
        "embedded simulated venue: the insurance fund's supply is on (set the key to turn it off)",
      );
    let opened: OpenedStore | undefined;
    let capture: CaptureQueue | undefined;
    try {
      opened = await openStateStore({
        config,
        venue,
        signal,
        logger,
        retryMs: options.timing?.journalRetryMs ?? 10_000,
        onProblem: (reason) => {
          notReady = () => [reason];
        },
      });
      if (opened === undefined) return 0;
      const store = options.wrapStore?.(opened.store) ?? opened.store;
      notReady = () => ["starting"];
      const captureDir = join(config.state.dir, "capture");
      capture = config.state.capture
        ? await openDaemonCapture({
            dir: captureDir,
            maxBytes: (await captureBudget({ stateDir: config.state.dir, captureDir, configured: config.state.capture_max_bytes }))
              .maxBytes,
            venue: venue.baseUrl,
            logger,
            dropped: () => metrics.captureDropped.inc(),
          })
        : undefined;
      const parts = assembleDaemon({
        loaded,
        env: options.env,
        venue,
        store,
        replay: opened.replay,
        metrics,
        watchdog,
        logger,
        timing: options.timing,
        capture,
        signal,
      });
      opened.bind(parts.leadership);
      // A healthy standby is ready: standing by is its job, not a fault.
      notReady = () => parts.daemon.notReady().filter((r) => !(r === "claiming_paused:standby" && store.role() === "standby"));
      // Informational, never a reason to be unready: an operator's position held on purpose would
      // otherwise keep the pod unready for good (see docs/runbook.md "Positions no claim explains").
      details = () => ({ role: store.role(), degraded: parts.daemon.degradedStreams(), ...parts.details() });
      reloader.enable(() => parts.reload());
      drainSignal.enable(() => parts.drain());
      opened.start();
      options.onStarted?.({ metricsUrl: server.url, simulated: venue.simulated, baseUrl: venue.baseUrl });
      logger.info(
        { accountId: venue.accountId, dryRun: config.policy.dry_run, publicKey: parts.publicKey, backend: store.kind },
        "liquidator running",
      );
      await parts.run(signal);
      logger.info({}, "shutting down: claims drained");
      return parts.drainResult()?.flat === false ? EXIT_POSITIONS_OPEN : 0;
    } finally {
      await reloader.disable();
      await capture?.close();
      await opened?.store.close();
      await venue.close();
    }
  } finally {
    reloader.detach();
    drainSignal.detach();
    await server.close();
  }
}
