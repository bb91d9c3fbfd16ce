/**
 * The composition root of the daemon: builds every part from the validated config, the venue
 * connection and the replayed journal, and wires them. No part builds another; none is a
 * module-level singleton (the metrics registry included).
 */
import type { Logger } from "pino";
import type { LoadedConfig } from "../config/loadConfig.js";
import { reloadPolicy } from "../config/reloadPolicy.js";
import { Claimer } from "../daemon/claimer.js";
import { claimObserver } from "../daemon/claimObserver.js";
import { ClaimSender } from "../daemon/claimSender.js";
import { Daemon, type DaemonLogger } from "../daemon/daemon.js";
import { Housekeeping } from "../daemon/housekeeping.js";
import { Ingest } from "../daemon/ingest.js";
import { OpenBook } from "../daemon/openBook.js";
import { PolicyState } from "../daemon/policyState.js";
import { RestHealth } from "../daemon/restHealth.js";
import { restoreFromJournal } from "../daemon/restore.js";
import { Exposure } from "../engine/exposure.js";
import { MarkBook } from "../engine/marks.js";
import { PositionBook } from "../engine/positionBook.js";
import type { Metrics } from "../observe/metrics.js";
import { RewardsPoller } from "../observe/rewardsPoller.js";
import type { Watchdog } from "../observe/watchdog.js";
import type { OpenedJournal } from "../store/openJournalWhenPossible.js";
import { createVenueLimiters, LIMITER_NAMES } from "../venue/limiters.js";
import { RestClient } from "../venue/rest.js";
import { Signer } from "../venue/signer.js";
import type { VenueConnection } from "./venueConnection.js";

/** Stream and loop timing overrides (tests). */
export interface DaemonTiming {
  reconcileIntervalMs?: number;
  pingIntervalMs?: number;
  deadAfterMs?: number;
  backoff?: { initialMs: number; maxMs: number; healthyMaxMs?: number };
  /** Server-time samples older than this pause claiming (default 120 s). */
  clockMaxAgeMs?: number;
  /** How often a failed journal is retried (default 10 s). */
  journalRetryMs?: number;
}

export interface AssembledDaemon {
  daemon: Daemon;
  publicKey: string;
  /** Runs until `signal` aborts, then drains and closes what it opened (not the journal or the venue). */
  run(signal: AbortSignal): Promise<void>;
  /** SIGHUP: apply a valid new policy without touching connections; log and ignore an invalid one. */
  reload(): Promise<void>;
}

export function assembleDaemon(o: {
  loaded: LoadedConfig;
  env: NodeJS.ProcessEnv;
  venue: VenueConnection;
  journal: OpenedJournal;
  metrics: Metrics;
  watchdog: Watchdog;
  logger: Logger;
  timing: DaemonTiming | undefined;
}): AssembledDaemon {
  const { loaded, venue, metrics, logger, timing } = o;
  const config = loaded.config;
  const { journal, replay } = o.journal;
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
  const policy = new PolicyState(config.policy, marks, exposure);
  const positions = new PositionBook(exposure);
  metrics.setMarkSource(() =>
    marks.snapshot().map((m) => ({ symbol: m.symbol, price: m.price, ageSeconds: (Date.now() - m.receivedAt) / 1000 })),
  );
  metrics.setExposureSource(() => exposure.symbols().map((symbol) => ({ symbol, value: exposure.symbolNotional(symbol, marks) })));
  const sender = new ClaimSender(rest, config.policy.dry_run);
  metrics.dryRun.set(config.policy.dry_run ? 1 : 0);
  const claimer = new Claimer({
    decide: policy.decide,
    book,
    exposure,
    positions,
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
  const ingest = new Ingest({ book, marks, claimer, positions, policy, metrics, logger: logger.child({ component: "ingest" }) });

  const daemon = new Daemon({
    rest,
    signer,
    publicUrl: `${venue.wsUrl}/ws/stream/${venue.accountId}`,
    privateUrl: `${venue.wsPrivateUrl}/v2/ws/private/stream/${venue.accountId}`,
    policy,
    ingest,
    marks,
    claimer,
    metrics,
    watchdog: o.watchdog,
    restHealth,
    publicPerSecond: config.venue.limits.public_per_second,
    housekeeping: new Housekeeping({
      clock: signer.clock,
      journal,
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

  return {
    daemon,
    publicKey: signer.publicKey,
    run: async (signal) => {
      try {
        const polling = poller.start(signal);
        await daemon.run(signal);
        await polling;
      } finally {
        await rest.close().catch(() => undefined);
        await limiters.stop().catch(() => undefined);
      }
    },
    reload: async () => {
      const result = await reloadPolicy(loaded.path, o.env, loaded.config);
      if (!result.ok) {
        logger.error({ key: result.error.key, err: result.error.message }, "config reload refused; keeping the running policy");
        return;
      }
      // Ids decided while dry run was on sent nothing: once live they may be claimed (re-offered below).
      if (sender.dryRun && !result.policy.dry_run) claimer.forgetDryRun();
      sender.setDryRun(result.policy.dry_run);
      policy.applyPolicy(result.policy);
      ingest.offerAll();
      metrics.dryRun.set(result.policy.dry_run ? 1 : 0);
      if (result.needsRestart.length > 0)
        logger.warn({ keys: result.needsRestart }, "config keys outside policy changed; they apply after a restart");
      logger.info({ dryRun: result.policy.dry_run }, "policy reloaded");
    },
  };
}
