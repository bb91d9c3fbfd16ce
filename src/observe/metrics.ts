/**
 * The liquidator's Prometheus metrics: every family of docs/operations.md "HTTP endpoints and metrics" plus what the alert rules need,
 * in a fresh prom-client Registry per call (no global default registry, so tests build their own and
 * two daemons in one process never share counters).
 *
 * Label values must come from bounded sets, or Prometheus memory grows without limit:
 * `symbol` from the venue's symbol list, `code` through `codeLabel` (unknown codes become "other"),
 * `endpoint` a path template without query, `stream`/`limiter`/`target`/`reason` from the constants
 * below or the owning module's enum, `epoch` a sliding window of a few epochs (rewardsPoller).
 *
 * Sampled values (mark prices and ages, exposure, limiter queues, watchdog ages) are read at scrape
 * time from a source callback, so the hot path never touches a label map for them.
 *
 * Longer than most files: the declarations of every metric family, one after the other; the unwinding ones are unwindMetrics.ts.
 */

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { MARKOUT_HORIZONS } from "../engine/markouts.js";
import { OPPORTUNITY_OUTCOMES } from "../engine/opportunities.js";
import { isErrorCode, LiquidatorError } from "../errors.js";
import { TimeoutError, TransportError, VENUE_CODES, VenueError } from "../venue/errors.js";
import { createShadowMetrics, type ShadowMetrics } from "./shadowMetrics.js";
import { createUnwindMetrics, setEverySeen, type UnwindMetrics } from "./unwindMetrics.js";

/** ~10 µs (a decision) to 10 s (a claim stuck behind a timeout), roughly 1-2.5-5 per decade. */
export const LATENCY_BUCKETS_SECONDS: readonly number[] = [
  0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Markouts, bps of the transfer price (positive = against us): symmetric, a few bps to a few %. */
export const MARKOUT_BUCKETS_BPS: readonly number[] = [-500, -200, -100, -50, -20, -10, -5, -2, 0, 2, 5, 10, 20, 50, 100, 200, 500];

/**
 * Sampling interval of the event-loop delay gauges (`liquidator_nodejs_eventloop_lag_*`, prom-client's
 * monitorEventLoopDelay, reset at every scrape). Their readings are intervals between sampling ticks,
 * so an idle loop reads about this much: the delay is the reading minus this (nodejs/node#34661).
 */
export const EVENT_LOOP_RESOLUTION_MS = 10;

export const STREAMS = ["public", "private"] as const;
export type StreamName = (typeof STREAMS)[number];

/**
 * `claims_result_total{result}`: success; rejected = the venue refused for a business reason that
 * competition or the market explains (gone, racing, price moved, ratio, margin); error = anything
 * that should not happen (auth, rate limit, bad parameter, 5xx, invalid answer, undelivered);
 * unknown = the request may have reached the venue but no answer came (outcome unknown);
 * confirmed = an unknown outcome later confirmed by the private stream; dry_run = decided, not sent.
 */
export const CLAIM_RESULTS = ["success", "rejected", "error", "unknown", "confirmed", "dry_run"] as const;
export type ClaimResultLabel = (typeof CLAIM_RESULTS)[number];

export const POLL_TARGETS = ["epoch_info", "epoch_data", "campaign"] as const;
export type PollTarget = (typeof POLL_TARGETS)[number];

/** `ws_bad_messages_total{reason}`: not JSON, failed validation, or anything else. */
export { BAD_MESSAGE_REASONS, type BadMessageReason } from "../venue/wire.js";

/** docs/protocol.md §A.2.2 numeric fields, as `epoch_info{field}`; times are converted to seconds. */
export const EPOCH_INFO_FIELDS = [
  "start_time_seconds",
  "end_time_seconds",
  "power_fees_paid_major",
  "power_fees_paid_alts",
  "power_staked_major",
  "power_staked_alts",
  "max_reward_amount",
  "k_constant_major",
  "k_constant_alts",
] as const;
/** docs/protocol.md §A.2.3 numeric fields, as `epoch_data{field}`; reward_status via REWARD_STATUS_VALUES. */
export const EPOCH_DATA_FIELDS = ["total_trader_score_major", "total_trader_score_alts", "r_major", "r_alts", "reward_status"] as const;

/**
 * `epoch_data{field="reward_status"}` as a number (docs/protocol.md §4 lists the values): 0 future epoch
 * ("0"), 1 Ongoing, 2 Pending, 3 Confirmed, -1 any value the venue adds later.
 */
export const REWARD_STATUS_VALUES: ReadonlyMap<string, number> = new Map([
  ["0", 0],
  ["Ongoing", 1],
  ["Pending", 2],
  ["Confirmed", 3],
]);

/** docs/protocol.md §A.2.4 field → gauge `liquidator_campaign_<name>{campaign_id}`; `divisor` converts ms to s. */
export const CAMPAIGN_GAUGES = [
  { field: "volume", name: "volume", help: "Campaign trading volume of the configured user" },
  { field: "filled_order_count", name: "filled_orders", help: "Filled orders in the campaign" },
  { field: "updated_time", name: "updated_timestamp_seconds", help: "When the venue last updated the statistics", divisor: 1000 },
  { field: "pnl", name: "pnl", help: "Campaign PnL" },
  { field: "total_deposit_amount", name: "deposit_amount", help: "Total deposits during the campaign" },
  { field: "total_withdrawal_amount", name: "withdrawal_amount", help: "Total withdrawals during the campaign" },
  { field: "start_account_value", name: "start_account_value", help: "Account value at campaign start" },
  { field: "end_account_value", name: "end_account_value", help: "Current account value (end_account_value)" },
  { field: "new_invited_referee", name: "new_invited_referees", help: "New referees invited" },
  { field: "new_traded_referee", name: "new_traded_referees", help: "New referees who traded" },
  { field: "total_staked_native", name: "staked_native", help: "Total staked, native token" },
  { field: "total_staked_esnative", name: "staked_esnative", help: "Total staked, escrowed native token" },
] as const;
export type CampaignField = (typeof CAMPAIGN_GAUGES)[number]["field"];

export interface MarkSample {
  symbol: string;
  price: number;
  ageSeconds: number;
}
export interface SymbolValue {
  symbol: string;
  value: number;
}
export interface LimiterSample {
  limiter: string;
  queued: number;
}
export interface WatchdogSample {
  loop: string;
  ageSeconds: number;
  limitSeconds: number;
}

export interface MetricsOptions {
  version?: string;
  commit?: string;
  /** Defaults to process.version. */
  node?: string;
  /** Default process metrics (`liquidator_process_*`, `liquidator_nodejs_*`); default true. */
  defaultMetrics?: boolean;
}

export interface Metrics {
  readonly registry: Registry;
  readonly liquidationsSeen: Counter;
  readonly claimsSubmitted: Counter;
  readonly claimsResult: Counter<"result" | "code">;
  readonly claimsSkipped: Counter<"reason">;
  /** Liquidations by the fate the opportunity ledger settled (claimed, lost, skipped, expired) and its reason. */
  readonly opportunities: Counter<"outcome" | "reason">;
  /** Expected liquidator fee at stake of those liquidations since the start, quote (only grows; not `_total`, a sum of money). */
  readonly opportunityValue: Gauge<"outcome" | "reason">;
  /** Seconds, frame received → claim response. */
  readonly claimLatency: Histogram;
  /** Seconds, frame received → request written. */
  readonly decisionLatency: Histogram;
  readonly wsConnected: Gauge<"stream">;
  /** 1 while the stream is degraded and its data is read from REST. */
  readonly degraded: Gauge<"stream">;
  readonly wsReconnects: Counter<"stream">;
  readonly wsMessages: Counter<"stream" | "topic">;
  readonly wsBadMessages: Counter<"stream" | "reason">;
  readonly markPrice: Gauge<"symbol">;
  readonly markPriceAge: Gauge<"symbol">;
  readonly exposureNotional: Gauge<"symbol">;
  readonly claimConnections: Counter<"kind">;
  readonly claimRehearsals: Counter;
  readonly feeEarned: Counter<"symbol">;
  readonly httpRequests: Counter<"endpoint" | "status">;
  readonly httpRequestDuration: Histogram<"endpoint">;
  readonly limiterQueued: Gauge<"limiter">;
  readonly epochCurrent: Gauge;
  readonly epochInfo: Gauge<"epoch" | "token" | "field">;
  readonly epochData: Gauge<"epoch" | "token" | "field">;
  readonly rewardsReleased: Gauge<"kind">;
  readonly campaign: Readonly<Record<CampaignField, Gauge<"campaign_id">>>;
  readonly pollErrors: Counter<"target">;
  readonly pollLastSuccess: Gauge<"target">;
  readonly buildInfo: Gauge<"version" | "commit" | "node">;
  readonly dryRun: Gauge;
  /** docs/protocol.md §8: when the venue says the key expires (seconds since the epoch). */
  readonly keyExpiry: Gauge;
  /** The mark at a horizon after a claim against its transfer price, bps, positive = against us. */
  readonly markoutBps: Histogram<"horizon">;
  /** 1 when the venue is the embedded simulator (`venue.mode: simulator`), 0 on a live venue. */
  readonly venueSimulated: Gauge;
  /** `policy.max_total_exposure` in force (quote): what `exposure_notional` is capped by. */
  readonly exposureCap: Gauge;
  /** 1 on the replica that may send (the leader, or a single daemon), else 0. */
  readonly leader: Gauge;
  readonly claimingPaused: Gauge<"reason">;
  /** 1 on the current trading state (active|reducing|halted), else 0. */
  readonly tradingState: Gauge<"state">;
  /** Protections tripped (daily_loss|drawdown|loss_streak). */
  readonly protectionTrips: Counter<"protection">;
  readonly journalErrors: Counter;
  /** `state.capture`: events dropped because the capture queue was full (claims never wait for it). */
  readonly captureDropped: Counter;
  readonly watchdogAge: Gauge<"loop">;
  readonly watchdogLimit: Gauge<"loop">;
  /** Unwinding and P&L (unwindMetrics.ts). */
  readonly unwind: UnwindMetrics;
  /** Shadow variants (shadowMetrics.ts). */
  readonly shadow: ShadowMetrics;
  /** Mark price and age per symbol, read at scrape time (replaces what was set by hand). */
  setMarkSource(source: (() => Iterable<MarkSample>) | undefined): void;
  setExposureSource(source: (() => Iterable<SymbolValue>) | undefined): void;
  setLimiterSource(source: (() => Iterable<LimiterSample>) | undefined): void;
  setWatchdogSource(source: (() => Iterable<WatchdogSample>) | undefined): void;
  /** The account's collateral and margin usage (PROTOCOL.md §7), read at scrape time. */
  setAccountSource(source: (() => AccountSample) | undefined): void;
}

/** `account_collateral_quote{kind}` and `margin_usage_ratio`; undefined = not known yet (no series). */
export interface AccountSample {
  total: number | undefined;
  free: number | undefined;
  /** Initial margin of everything held ÷ total collateral. */
  usage: number | undefined;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const reg = { registers: [registry] };
  const p = "liquidator_";
  const exposureSeen = new Set<string>();
  const sources: {
    marks?: () => Iterable<MarkSample>;
    exposure?: () => Iterable<SymbolValue>;
    limiters?: () => Iterable<LimiterSample>;
    watchdogs?: () => Iterable<WatchdogSample>;
    account?: () => AccountSample;
  } = {};

  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name: p + name, help, labelNames, ...reg });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = [], collect?: (this: Gauge<L>) => void) =>
    new Gauge<L>({ name: p + name, help, labelNames, ...reg, ...(collect ? { collect } : {}) });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Histogram<L>({ name: p + name, help, labelNames, buckets: [...LATENCY_BUCKETS_SECONDS], ...reg });

  const markoutBps = new Histogram<"horizon">({
    name: `${p}markout_bps`,
    help: "The mark at a horizon (1s|5s|30s|60s|300s) after a claim against its transfer price, bps (positive = against us)",
    labelNames: ["horizon"],
    buckets: [...MARKOUT_BUCKETS_BPS],
    ...reg,
  });
  for (const horizon of MARKOUT_HORIZONS) markoutBps.zero({ horizon });

  // One source feeds two gauges (price and age): both are rebuilt from it by each collect.
  const collectMarks = (): void => {
    const marks = read(sources.marks);
    if (marks === undefined) return;
    markPrice.reset();
    markPriceAge.reset();
    for (const m of marks) {
      if (Number.isFinite(m.price)) markPrice.set({ symbol: m.symbol }, m.price);
      if (!Number.isNaN(m.ageSeconds)) markPriceAge.set({ symbol: m.symbol }, m.ageSeconds);
    }
  };
  const collectWatchdogs = (): void => {
    const loops = read(sources.watchdogs);
    if (loops === undefined) return;
    watchdogAge.reset();
    watchdogLimit.reset();
    for (const w of loops) {
      watchdogAge.set({ loop: w.loop }, w.ageSeconds);
      watchdogLimit.set({ loop: w.loop }, w.limitSeconds);
    }
  };

  const collectAccount = (): void => {
    const [a] = read(sources.account === undefined ? undefined : () => [(sources.account as () => AccountSample)()]) ?? [];
    if (a === undefined) return;
    accountCollateral.reset();
    marginUsage.reset();
    if (a.total !== undefined && Number.isFinite(a.total)) accountCollateral.set({ kind: "total" }, a.total);
    if (a.free !== undefined && Number.isFinite(a.free)) accountCollateral.set({ kind: "free" }, a.free);
    if (a.usage !== undefined && !Number.isNaN(a.usage)) marginUsage.set(a.usage);
  };
  const accountCollateral = gauge(
    "account_collateral_quote",
    "The account's collateral (quote): total (holding + unsettled P&L) and free (total − initial margin − orders' margin)",
    ["kind"],
    collectAccount,
  );
  const marginUsage = gauge("margin_usage_ratio", "Initial margin of everything held ÷ total collateral (PROTOCOL §7)", [], collectAccount);

  const markPrice = gauge("mark_price", "Latest mark price per symbol (quote currency)", ["symbol"], collectMarks);
  const markPriceAge = gauge("mark_price_age_seconds", "Age of the latest mark price per symbol", ["symbol"], collectMarks);
  const watchdogAge = gauge("watchdog_age_seconds", "Time since each loop last reported progress", ["loop"], collectWatchdogs);
  const watchdogLimit = gauge(
    "watchdog_limit_seconds",
    "Age after which a loop counts as stalled (/healthz fails)",
    ["loop"],
    collectWatchdogs,
  );

  const metrics: Metrics = {
    registry,
    liquidationsSeen: counter("liquidations_seen_total", "Liquidations heard on the streams or the REST reconcile (each id once)"),
    claimsSubmitted: counter("claims_submitted_total", "Claims sent to the venue"),
    claimsResult: counter("claims_result_total", "Claim outcomes by result (success|rejected|error|unknown) and venue/local code", [
      "result",
      "code",
    ]),
    claimsSkipped: counter("claims_skipped_total", "Liquidations (or claims) not sent, by policy reason", ["reason"]),
    opportunities: counter("opportunities_total", "Liquidations seen, by what became of them (claimed|lost|skipped|expired) and why", [
      "outcome",
      "reason",
    ]),
    opportunityValue: gauge(
      "opportunity_value_quote",
      "Expected liquidator fee at stake of the liquidations seen since the start, by what became of them and why (quote)",
      ["outcome", "reason"],
    ),
    claimLatency: histogram("claim_latency_seconds", "Frame received to claim response"),
    decisionLatency: histogram("decision_latency_seconds", "Frame received to claim request written"),
    wsConnected: gauge("ws_connected", "1 while the stream is authenticated (private) and subscribed, else 0", ["stream"]),
    degraded: gauge("degraded", "1 while the stream is degraded (down, refused or silent) and its data is read from REST", ["stream"]),
    wsReconnects: counter("ws_reconnects_total", "Stream reconnect attempts", ["stream"]),
    wsMessages: counter("ws_messages_total", "Data frames received per stream and topic", ["stream", "topic"]),
    wsBadMessages: counter("ws_bad_messages_total", "Frames dropped as invalid (json|schema|other)", ["stream", "reason"]),
    markPrice,
    markPriceAge,
    exposureNotional: gauge("exposure_notional", "Absolute notional held + queued + in flight per symbol (quote)", ["symbol"], function () {
      const exposure = read(sources.exposure);
      if (exposure === undefined) return;
      setEverySeen(
        this,
        exposureSeen,
        [...exposure].map((e) => [e.symbol, e.value] as const),
      );
    }),
    claimConnections: counter(
      "claim_connections_total",
      "Claims by the connection they went out on: warm (kept open), fresh (had to connect first), pool (every claim lane busy)",
      ["kind"],
    ),
    claimRehearsals: counter(
      "claim_rehearsals_total",
      "Runs of the claim path on the last liquidation seen that send nothing (venue.claim_rehearsal_ms): they keep it in the CPU caches",
    ),
    feeEarned: counter("fee_earned_total", "Liquidator fee earned from successful claims (quote)", ["symbol"]),
    httpRequests: counter("http_requests_total", "REST requests to the venue by path template and HTTP status ('error' = no response)", [
      "endpoint",
      "status",
    ]),
    httpRequestDuration: histogram("http_request_duration_seconds", "REST request duration by path template", ["endpoint"]),
    limiterQueued: gauge("limiter_queued", "Requests waiting for a rate-limiter permit", ["limiter"], function () {
      const limiters = read(sources.limiters);
      if (limiters === undefined) return;
      this.reset();
      for (const l of limiters) this.set({ limiter: l.limiter }, l.queued);
    }),
    epochCurrent: gauge("epoch_current", "Current trading-rewards epoch (epoch_info current_epoch)"),
    epochInfo: gauge("epoch_info", "Epoch parameters (docs/protocol.md §A.2.2) by epoch and field; times in seconds", [
      "epoch",
      "token",
      "field",
    ]),
    epochData: gauge(
      "epoch_data",
      "Epoch scores and rewards (docs/protocol.md §A.2.3) by epoch and field; reward_status 0 future, 1 Ongoing, 2 Pending, 3 Confirmed, -1 other",
      ["epoch", "token", "field"],
    ),
    rewardsReleased: gauge("rewards_released", "Total released trading rewards (epoch_data), kind native|escrow", ["kind"]),
    campaign: Object.fromEntries(CAMPAIGN_GAUGES.map((c) => [c.field, gauge(`campaign_${c.name}`, c.help, ["campaign_id"])])) as Record<
      CampaignField,
      Gauge<"campaign_id">
    >,
    pollErrors: counter("poll_errors_total", "Failed rewards/campaign polls by target", ["target"]),
    pollLastSuccess: gauge("poll_last_success_timestamp_seconds", "Time of the last successful poll by target", ["target"]),
    buildInfo: gauge("build_info", "Always 1; the build's version, git commit and Node.js version", ["version", "commit", "node"]),
    dryRun: gauge("dry_run", "1 when dry run is on (claims are decided and recorded, never sent)"),
    keyExpiry: gauge("key_expiry_timestamp_seconds", "When the venue says the API key expires (GET /v1/client/key_info, read hourly)"),
    markoutBps,
    venueSimulated: gauge("venue_simulated", "1 when the venue is the embedded simulator (venue.mode simulator), 0 on a live venue"),
    exposureCap: gauge("exposure_cap_quote", "policy.max_total_exposure in force: the cap on the sum of exposure_notional (quote)"),
    leader: gauge("leader", "1 on the replica that may send claims and orders (the leader, or a single daemon), else 0"),
    claimingPaused: gauge(
      "claiming_paused",
      "1 while claiming is paused for the reason (margin|journal|clock|positions|standby|reducing|halted)",
      ["reason"],
    ),
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
    captureDropped: counter("capture_dropped_total", "Capture events dropped because the capture queue was full (state.capture)"),
    watchdogAge,
    watchdogLimit,
    unwind: createUnwindMetrics(registry, p),
    shadow: createShadowMetrics(registry, p),
    setMarkSource: (s) => {
      sources.marks = s;
    },
    setExposureSource: (s) => {
      sources.exposure = s;
    },
    setLimiterSource: (s) => {
      sources.limiters = s;
    },
    setWatchdogSource: (s) => {
      sources.watchdogs = s;
    },
    setAccountSource: (s) => {
      sources.account = s;
    },
  };

  metrics.buildInfo.set(
    { version: options.version ?? "unknown", commit: options.commit ?? "unknown", node: options.node ?? process.version },
    1,
  );
  metrics.dryRun.set(0);
  // Series that alerts and panels compare with 0 must exist before the first event.
  for (const stream of STREAMS) {
    metrics.wsConnected.set({ stream }, 0);
    metrics.degraded.set({ stream }, 0);
    metrics.wsReconnects.inc({ stream }, 0);
  }
  for (const target of POLL_TARGETS) metrics.pollErrors.inc({ target }, 0);
  for (const kind of ["warm", "fresh", "pool"]) metrics.claimConnections.inc({ kind }, 0);
  metrics.liquidationsSeen.inc(0);
  for (const outcome of OPPORTUNITY_OUTCOMES) {
    // One zero series per outcome (reason empty) so that a sum by outcome exists from the start.
    metrics.opportunities.inc({ outcome, reason: "" }, 0);
    metrics.opportunityValue.set({ outcome, reason: "" }, 0);
  }
  metrics.claimsSubmitted.inc(0);
  metrics.journalErrors.inc(0);
  metrics.captureDropped.inc(0);
  metrics.claimRehearsals.inc(0);

  if (options.defaultMetrics !== false)
    collectDefaultMetrics({ register: registry, prefix: p, eventLoopMonitoringPrecision: EVENT_LOOP_RESOLUTION_MS });
  return metrics;
}

/**
 * A source's samples, or undefined when there is no source or it threw: a broken source leaves its
 * gauges at their last values instead of failing the whole scrape.
 */
function read<T>(source: (() => Iterable<T>) | undefined): T[] | undefined {
  if (source === undefined) return undefined;
  try {
    return [...source()];
  } catch {
    return undefined;
  }
}

/**
 * Bounded `code` label: a venue code of the venue's table as its decimal text, a local error code
 * (`LIQ_*`, errors.ts) as is, "none" for no code, "other" for anything else.
 */
export function codeLabel(code: number | string | undefined): string {
  if (code === undefined) return "none";
  if (typeof code === "number") return VENUE_CODES.has(code) ? String(code) : "other";
  return isErrorCode(code) ? code : "other";
}

/** `{result, code}` of a claim: `undefined` for success, else the error it failed with. */
export function claimOutcomeLabels(err: unknown): { result: ClaimResultLabel; code: string } {
  if (err === undefined) return { result: "success", code: "none" };
  if (err instanceof VenueError) return { result: err.meaning.result, code: codeLabel(err.venueCode) };
  if (err instanceof TimeoutError) return { result: "unknown", code: err.code };
  if (err instanceof TransportError) return { result: err.maybeDelivered ? "unknown" : "error", code: err.code };
  if (err instanceof LiquidatorError) return { result: "error", code: codeLabel(err.code) };
  return { result: "error", code: "other" };
}

/** Bounded `status` label of `http_requests_total`: the HTTP status, or "error" when none came. */
export function httpStatusLabel(status: number | undefined): string {
  return status !== undefined && Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : "error";
}
