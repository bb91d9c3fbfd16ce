/**
 * The liquidator's Prometheus metrics: every family of docs/operations.md "HTTP endpoints and metrics" plus what the alert rules need,
 * in a fresh prom-client Registry per call (no global default registry, so tests build their own and
 * two daemons in one process never share counters). The families live by part: claimMetrics.ts,
 * venueMetrics.ts, sampledMetrics.ts, rewardsMetrics.ts, unwindMetrics.ts, shadowMetrics.ts,
 * forecastMetrics.ts; this file holds the daemon's own state and puts them together.
 *
 * Label values must come from bounded sets, or Prometheus memory grows without limit:
 * `symbol` from the venue's symbol list, `code` through `codeLabel` (unknown codes become "other"),
 * `endpoint` a path template without query, `stream`/`limiter`/`target`/`reason` from the constants
 * of the families' files or the owning module's enum, `epoch` a sliding window of a few epochs (rewardsPoller).
 */

import { type Counter, collectDefaultMetrics, type Gauge, Registry } from "prom-client";
import { type ClaimMetrics, createClaimMetrics } from "./claimMetrics.js";
import { createForecastMetrics, type ForecastMetrics } from "./forecastMetrics.js";
import { createFundMetrics, type FundMetrics } from "./fundMetrics.js";
import { metricMakers } from "./metricMakers.js";
import { createRewardsMetrics, type RewardsMetrics } from "./rewardsMetrics.js";
import { createSampledMetrics, type SampledMetrics } from "./sampledMetrics.js";
import { createShadowMetrics, type ShadowMetrics } from "./shadowMetrics.js";
import { createUnwindMetrics, type UnwindMetrics } from "./unwindMetrics.js";
import { createVenueMetrics, type VenueMetrics } from "./venueMetrics.js";

/**
 * Sampling interval of the event-loop delay gauges (`liquidator_nodejs_eventloop_lag_*`, prom-client's
 * monitorEventLoopDelay, reset at every scrape). Their readings are intervals between sampling ticks,
 * so an idle loop reads about this much: the delay is the reading minus this (nodejs/node#34661).
 */
export const EVENT_LOOP_RESOLUTION_MS = 10;

export interface MetricsOptions {
  version?: string;
  commit?: string;
  /** Defaults to process.version. */
  node?: string;
  /** Default process metrics (`liquidator_process_*`, `liquidator_nodejs_*`); default true. */
  defaultMetrics?: boolean;
}

export interface Metrics extends ClaimMetrics, VenueMetrics, SampledMetrics, RewardsMetrics, ForecastMetrics, FundMetrics {
  readonly registry: Registry;
  readonly buildInfo: Gauge<"version" | "commit" | "node">;
  readonly dryRun: Gauge;
  /** docs/protocol.md §8: when the venue says the key expires (seconds since the epoch). */
  readonly keyExpiry: Gauge;
  /** 1 when the venue is the embedded simulator (`venue.mode: simulator`), 0 on a live venue. */
  readonly venueSimulated: Gauge;
  /** `policy.max_total_exposure` in force (quote): what `exposure_notional` is capped by. */
  readonly exposureCap: Gauge;
  /** 1 on the replica that may send (the leader, or a single daemon), else 0. */
  readonly leader: Gauge;
  /** 1 on the current trading state (active|reducing|halted), else 0. */
  readonly tradingState: Gauge<"state">;
  /** Protections tripped (daily_loss|drawdown|loss_streak). */
  readonly protectionTrips: Counter<"protection">;
  readonly journalErrors: Counter;
  /** SIGHUP reloads by result: `applied` (a valid config, applied), `refused` (invalid: the running one kept). */
  readonly configReloads: Counter<"result">;
  /** `state.capture`: events dropped because the capture queue was full (claims never wait for it). */
  readonly captureDropped: Counter;
  /** Unwinding and P&L (unwindMetrics.ts). */
  readonly unwind: UnwindMetrics;
  /** Shadow variants (shadowMetrics.ts). */
  readonly shadow: ShadowMetrics;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const p = "liquidator_";
  const { counter, gauge } = metricMakers(registry, p);
  const metrics: Metrics = {
    registry,
    ...createClaimMetrics(registry, p),
    ...createSampledMetrics(registry, p),
    ...createVenueMetrics(registry, p),
    ...createRewardsMetrics(registry, p),
    ...createForecastMetrics(registry, p),
    ...createFundMetrics(registry, p),
    buildInfo: gauge("build_info", "Always 1; the build's version, git commit and Node.js version", ["version", "commit", "node"]),
    dryRun: gauge("dry_run", "1 when dry run is on (claims are decided and recorded, never sent)"),
    keyExpiry: gauge("key_expiry_timestamp_seconds", "When the venue says the API key expires (GET /v1/client/key_info, read hourly)"),
    venueSimulated: gauge("venue_simulated", "1 when the venue is the embedded simulator (venue.mode simulator), 0 on a live venue"),
    exposureCap: gauge("exposure_cap_quote", "policy.max_total_exposure in force: the cap on the sum of exposure_notional (quote)"),
    leader: gauge("leader", "1 on the replica that may send claims and orders (the leader, or a single daemon), else 0"),
    tradingState: gauge(
      "trading_state",
      "1 on the current trading state: active (claiming), reducing or halted (no new claims; unwinding goes on)",
      ["state"],
    ),
    protectionTrips: counter(
      "protection_trips_total",
      "Protections tripped: daily_loss (halted), drawdown (reducing), loss_streak (one symbol cools)",
      ["protection"],
    ),
    journalErrors: counter("journal_errors_total", "Claims journal write or fsync failures"),
    configReloads: counter("config_reloads_total", "SIGHUP config reloads by result (applied, refused)", ["result"]),
    captureDropped: counter("capture_dropped_total", "Capture events dropped because the capture queue was full (state.capture)"),
    unwind: createUnwindMetrics(registry, p),
    shadow: createShadowMetrics(registry, p),
  };

  metrics.buildInfo.set(
    { version: options.version ?? "unknown", commit: options.commit ?? "unknown", node: options.node ?? process.version },
    1,
  );
  metrics.dryRun.set(0);
  for (const result of ["applied", "refused"]) metrics.configReloads.inc({ result }, 0);
  // Series that alerts and panels compare with 0 must exist before the first event.
  metrics.journalErrors.inc(0);
  metrics.captureDropped.inc(0);

  if (options.defaultMetrics !== false)
    collectDefaultMetrics({ register: registry, prefix: p, eventLoopMonitoringPrecision: EVENT_LOOP_RESOLUTION_MS });
  return metrics;
}
