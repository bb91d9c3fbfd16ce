/**
 * Composition root: builds every part of the daemon from a validated config, starts it, and
 * tears it down in order on shutdown. The only place (with cli.ts) that may start the embedded
 * simulated venue, through a dynamic import so a live daemon never loads it.
 */
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import type { LoadedConfig } from "./config/loadConfig.js";
import { reloadPolicy } from "./config/reloadPolicy.js";
import type { Config } from "./config/schema.js";
import { Claimer } from "./daemon/claimer.js";
import { ClaimSender } from "./daemon/claimSender.js";
import { createPolicyContext, Daemon, makeDecider } from "./daemon/daemon.js";
import { Housekeeping } from "./daemon/housekeeping.js";
import type { Journal, JournalReplay } from "./daemon/journal.js";
import { OpenBook } from "./daemon/openBook.js";
import { openOwnJournal } from "./daemon/openOwnJournal.js";
import { RestHealth } from "./daemon/restHealth.js";
import { restoreFromJournal } from "./daemon/restore.js";
import { Exposure } from "./engine/exposure.js";
import { MarkBook } from "./engine/marks.js";
import { PositionBook } from "./engine/positionBook.js";
import { ConfigError } from "./errors.js";
import { type ObserveServer, startObserveServer } from "./observe/httpServer.js";
import { createLogger } from "./observe/logger.js";
import { createMetrics, type Metrics } from "./observe/metrics.js";
import { RewardsPoller } from "./observe/rewardsPoller.js";
import { Watchdog } from "./observe/watchdog.js";
import { createVenueLimiters, LIMITER_NAMES } from "./venue/limiters.js";
import { RestClient } from "./venue/rest.js";
import { Signer } from "./venue/signer.js";
import { sleep } from "./venue/streamOptions.js";

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
  timing?: {
    reconcileIntervalMs?: number;
    pingIntervalMs?: number;
    deadAfterMs?: number;
    backoff?: { initialMs: number; maxMs: number };
    /** Server-time samples older than this pause claiming (default 120 s). */
    clockMaxAgeMs?: number;
    /** How often a failed journal is retried (default 10 s). */
    journalRetryMs?: number;
  };
}

interface Venue {
  baseUrl: string;
  wsUrl: string;
  wsPrivateUrl: string;
  accountId: string;
  secret: string;
  close(): Promise<void>;
}

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

async function openVenue(config: Config, secret: string | undefined, logger: Logger): Promise<Venue> {
  if (config.venue.mode === "live") {
    const v = config.venue;
    return {
      baseUrl: v.base_url,
      wsUrl: v.ws_url,
      wsPrivateUrl: v.ws_private_url,
      accountId: v.account_id,
      secret: secret as string,
      close: async () => {},
    };
  }
  const { startSimulator } = await import("./sim/startSimulator.js");
  const sim = await startSimulator({
    seed: config.simulator.seed,
    headerPrefix: config.venue.header_prefix,
    scenario: { liquidationsPerSec: config.simulator.liquidations_per_second },
    logger: logger.child({ component: "simulator" }),
  });
  logger.info(
    { baseUrl: sim.baseUrl, accountId: sim.accountId, seed: sim.seed },
    "embedded simulated venue started (venue.mode=simulator)",
  );
  return { ...sim, close: () => sim.close() };
}

export async function runDaemon(options: RunDaemonOptions): Promise<void> {
  const { loaded } = options;
  const config = loaded.config;
  const logger = createLogger({
    level: config.log.level,
    pretty: config.log.pretty || options.pretty === true,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  const metrics = createMetrics({ version: packageVersion(), commit: options.env.LIQUIDATOR_BUILD_COMMIT ?? "unknown" });
  const watchdog = new Watchdog();
  metrics.setWatchdogSource(() => watchdog.samples());

  // The metrics server comes first so /readyz can say why the daemon is not claiming yet.
  let notReady: () => readonly string[] = () => ["starting"];
  let details: () => Record<string, unknown> = () => ({ role: "single" });
  const server = await startObserveServer({
    host: config.metrics.host,
    port: config.metrics.port,
    metrics,
    health: { stale: () => watchdog.stale(), notReady: () => notReady(), details: () => details() },
    logger,
  });
  logger.info({ url: server.url, port: server.port }, "metrics server listening");
  // SIGHUP is handled from the first moment (Node's default action would kill the process);
  // reloads run one after another so two quick signals cannot apply the older file last.
  let onReload: (() => Promise<void>) | undefined;
  let reloading = Promise.resolve();
  const onHup = (): void => {
    if (onReload === undefined) return void logger.warn({}, "SIGHUP during start-up ignored: the config being started is the one read");
    reloading = reloading.then(onReload, onReload);
  };
  process.on("SIGHUP", onHup);
  try {
    await runStarted({
      options,
      logger,
      metrics,
      watchdog,
      server,
      setNotReady: (f) => {
        notReady = f;
      },
      setDetails: (f) => {
        details = f;
      },
      setReload: (f) => {
        onReload = f;
      },
    });
  } finally {
    onReload = undefined;
    await reloading;
    process.off("SIGHUP", onHup);
    await server.close();
  }
}

interface StartedParts {
  options: RunDaemonOptions;
  logger: Logger;
  metrics: Metrics;
  watchdog: Watchdog;
  server: ObserveServer;
  setNotReady(f: () => readonly string[]): void;
  setDetails(f: () => Record<string, unknown>): void;
  setReload(f: () => Promise<void>): void;
}

/**
 * The claims journal, retried until it opens: claiming never starts without the journal replayed
 * (it is what says which ids were already claimed), and /readyz says why meanwhile. A journal of
 * another venue or account is a configuration error, not a disk error: it is not retried.
 */
async function openJournal(
  dir: string,
  venue: Venue,
  simulated: boolean,
  signal: AbortSignal,
  logger: Logger,
  setNotReady: StartedParts["setNotReady"],
  retryMs: number,
): Promise<ReturnType<typeof openOwnJournal> | undefined> {
  for (let failures = 0; !signal.aborted; failures++) {
    try {
      return openOwnJournal({
        dir,
        owner: { baseUrl: venue.baseUrl, accountId: venue.accountId, simulated },
        logger: logger.child({ component: "journal" }),
      });
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      const message = (err as Error).message;
      setNotReady(() => [`journal_error:${message}`]);
      if (failures === 0) logger.error({ err: message, retryMs }, "claims journal unavailable; not claiming until it opens");
      await sleep(retryMs, signal).catch(() => undefined);
    }
  }
  return undefined;
}

async function runStarted(parts: StartedParts): Promise<void> {
  const { options, logger } = parts;
  const { loaded, signal } = options;
  const config = loaded.config;
  const venue = await openVenue(config, loaded.secret, logger);
  let journal: Journal | undefined;
  try {
    const simulated = config.venue.mode === "simulator";
    const opened = await openJournal(
      config.state.dir,
      venue,
      simulated,
      signal,
      logger,
      parts.setNotReady,
      options.timing?.journalRetryMs ?? 10_000,
    );
    if (opened === undefined) return;
    journal = opened.journal;
    parts.setNotReady(() => ["starting"]);
    await runWithJournal(parts, venue, opened.journal, opened.replay);
  } finally {
    await journal?.close();
    await venue.close();
  }
}

async function runWithJournal(parts: StartedParts, venue: Venue, journal: Journal, replay: JournalReplay): Promise<void> {
  const { options, logger, metrics, watchdog, server } = parts;
  const { loaded, signal } = options;
  const config = loaded.config;
  const signer = new Signer({ secret: venue.secret, accountId: venue.accountId, headerPrefix: config.venue.header_prefix });
  const limiters = createVenueLimiters(config.venue.limits);
  metrics.setLimiterSource(() => LIMITER_NAMES.map((limiter) => ({ limiter, queued: limiters.queued(limiter) })));
  const restHealth = new RestHealth();
  const rest = new RestClient({
    baseUrl: venue.baseUrl,
    signer,
    limiters,
    timeoutMs: config.venue.request_timeout_ms,
    onRequest: (endpoint, status, seconds) => {
      restHealth.record(status);
      metrics.httpRequests.inc({ endpoint, status: String(status) });
      metrics.httpRequestDuration.observe({ endpoint }, seconds);
    },
  });

  const marks = new MarkBook();
  const exposure = new Exposure();
  const book = new OpenBook();
  metrics.setMarkSource(() =>
    marks.snapshot().map((m) => ({ symbol: m.symbol, price: m.price, ageSeconds: (Date.now() - m.receivedAt) / 1000 })),
  );
  metrics.setExposureSource(() => exposure.symbols().map((symbol) => ({ symbol, value: exposure.symbolNotional(symbol, marks) })));
  const sender = new ClaimSender(rest, config.policy.dry_run);
  metrics.dryRun.set(config.policy.dry_run ? 1 : 0);
  const ctx = createPolicyContext(config.policy, marks, exposure);
  const claimer = new Claimer({
    decide: makeDecider(ctx),
    book,
    exposure,
    positions: new PositionBook(exposure),
    acquire: (s) => limiters.acquire("claims", s),
    sender,
    journal,
    observer: claimObserver(metrics),
    logger: logger.child({ component: "claimer" }),
  });
  const restored = restoreFromJournal(replay, claimer);
  if (restored.ids > 0) logger.info(restored, "journal replayed: these ids are never claimed again");
  // Held positions come from the venue only: nothing is claimed until GET /v1/positions answered.
  claimer.setPaused("positions", true);

  const daemon = new Daemon({
    rest,
    signer,
    publicUrl: `${venue.wsUrl}/ws/stream/${venue.accountId}`,
    privateUrl: `${venue.wsPrivateUrl}/v2/ws/private/stream/${venue.accountId}`,
    policy: config.policy,
    ctx,
    book,
    marks,
    exposure,
    claimer,
    metrics,
    watchdog,
    restHealth,
    publicPerSecond: config.venue.limits.public_per_second,
    housekeeping: new Housekeeping({
      clock: signer.clock,
      journal,
      claimer,
      logger: logger.child({ component: "housekeeping" }),
      ...(options.timing?.clockMaxAgeMs !== undefined ? { clockMaxAgeMs: options.timing.clockMaxAgeMs } : {}),
      ...(options.timing?.journalRetryMs !== undefined ? { journalRetryMs: options.timing.journalRetryMs } : {}),
    }),
    logger: logger.child({ component: "daemon" }),
    ...(options.timing?.reconcileIntervalMs !== undefined ? { reconcileIntervalMs: options.timing.reconcileIntervalMs } : {}),
    stream: {
      ...(options.timing?.pingIntervalMs !== undefined ? { pingIntervalMs: options.timing.pingIntervalMs } : {}),
      ...(options.timing?.deadAfterMs !== undefined ? { deadAfterMs: options.timing.deadAfterMs } : {}),
      ...(options.timing?.backoff !== undefined ? { backoff: options.timing.backoff } : {}),
    },
  });

  try {
    parts.setNotReady(() => daemon.notReady());
    parts.setDetails(() => ({ role: "single", degraded: daemon.degradedStreams() }));
    const poller = new RewardsPoller({
      source: rest,
      metrics,
      intervalMs: config.rewards.poll_interval_ms,
      ...(config.rewards.campaign ? { campaign: config.rewards.campaign } : {}),
      logger: logger.child({ component: "rewards" }),
    });
    const polling = poller.start(signal);
    parts.setReload(() => reload(loaded, options.env, daemon, claimer, sender, metrics, logger));
    options.onStarted?.({ metricsUrl: server.url, simulated: config.venue.mode === "simulator", baseUrl: venue.baseUrl });
    logger.info({ accountId: venue.accountId, dryRun: config.policy.dry_run, publicKey: signer.publicKey }, "liquidator running");
    await daemon.run(signal);
    await polling;
    logger.info({}, "shutting down: claims drained");
  } finally {
    await rest.close().catch(() => undefined);
    await limiters.stop().catch(() => undefined);
  }
}

/** SIGHUP: apply a valid new policy without touching connections; log and ignore an invalid one. */
async function reload(
  loaded: LoadedConfig,
  env: NodeJS.ProcessEnv,
  daemon: Daemon,
  claimer: Claimer,
  sender: ClaimSender,
  metrics: Metrics,
  logger: Logger,
): Promise<void> {
  const result = await reloadPolicy(loaded.path, env, loaded.config);
  if (!result.ok) {
    logger.error({ key: result.error.key, err: result.error.message }, "config reload refused; keeping the running policy");
    return;
  }
  // Ids decided while dry run was on sent nothing: once live they may be claimed (re-offered below).
  if (sender.dryRun && !result.policy.dry_run) claimer.forgetDryRun();
  sender.setDryRun(result.policy.dry_run);
  daemon.applyPolicy(result.policy);
  metrics.dryRun.set(result.policy.dry_run ? 1 : 0);
  if (result.needsRestart.length > 0)
    logger.warn({ keys: result.needsRestart }, "config keys outside policy changed; they apply after a restart");
  logger.info({ dryRun: result.policy.dry_run }, "policy reloaded");
}

function claimObserver(metrics: Metrics) {
  return {
    skipped: (reason: string) => metrics.claimsSkipped.inc({ reason }),
    submitted: () => metrics.claimsSubmitted.inc(),
    result: (result: string, code: string, latency: number | undefined) => {
      metrics.claimsResult.inc({ result, code });
      if (latency !== undefined) metrics.claimLatency.observe(latency);
    },
    decisionLatency: (seconds: number) => metrics.decisionLatency.observe(seconds),
    feeEarned: (symbol: string, amount: number) => metrics.feeEarned.inc({ symbol }, amount),
    paused: (reason: "margin" | "journal" | "clock", on: boolean) => metrics.claimingPaused.set({ reason }, on ? 1 : 0),
  };
}
