/**
 * The families read at scrape time from a source callback (mark prices and ages, exposure, limiter
 * queues, watchdog ages, the account's collateral), so the hot path never touches a label map for them.
 */
import type { Gauge, Registry } from "prom-client";
import { fromSource, metricMakers } from "./metricMakers.js";
import { setEverySeen } from "./unwindMetrics.js";

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
/** `account_collateral_quote{kind}` and `margin_usage_ratio`; undefined = not known yet (no series). */
export interface AccountSample {
  total: number | undefined;
  free: number | undefined;
  /** Initial margin of everything held ÷ total collateral. */
  usage: number | undefined;
}

export interface SampledMetrics {
  readonly markPrice: Gauge<"symbol">;
  readonly markPriceAge: Gauge<"symbol">;
  readonly exposureNotional: Gauge<"symbol">;
  readonly limiterQueued: Gauge<"limiter">;
  readonly watchdogAge: Gauge<"loop">;
  readonly watchdogLimit: Gauge<"loop">;
  /** Mark price and age per symbol, read at scrape time (replaces what was set by hand). */
  setMarkSource(source: (() => Iterable<MarkSample>) | undefined): void;
  setExposureSource(source: (() => Iterable<SymbolValue>) | undefined): void;
  setLimiterSource(source: (() => Iterable<LimiterSample>) | undefined): void;
  setWatchdogSource(source: (() => Iterable<WatchdogSample>) | undefined): void;
  /** The account's collateral and margin usage (docs/protocol.md §7), read at scrape time. */
  setAccountSource(source: (() => AccountSample) | undefined): void;
}

export function createSampledMetrics(registry: Registry, prefix: string): SampledMetrics {
  const { gauge } = metricMakers(registry, prefix);
  const exposureSeen = new Set<string>();
  const sources: {
    marks?: () => Iterable<MarkSample>;
    exposure?: () => Iterable<SymbolValue>;
    limiters?: () => Iterable<LimiterSample>;
    watchdogs?: () => Iterable<WatchdogSample>;
    account?: () => AccountSample;
  } = {};

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
  const marginUsage = gauge(
    "margin_usage_ratio",
    "Initial margin of everything held ÷ total collateral (docs/protocol.md §7)",
    [],
    collectAccount,
  );

  const markPrice = gauge("mark_price", "Latest mark price per symbol (quote currency)", ["symbol"], collectMarks);
  const markPriceAge = gauge("mark_price_age_seconds", "Age of the latest mark price per symbol", ["symbol"], collectMarks);
  const watchdogAge = gauge("watchdog_age_seconds", "Time since each loop last reported progress", ["loop"], collectWatchdogs);
  const watchdogLimit = gauge(
    "watchdog_limit_seconds",
    "Age after which a loop counts as stalled (/healthz fails)",
    ["loop"],
    collectWatchdogs,
  );

  return {
    markPrice,
    markPriceAge,
    watchdogAge,
    watchdogLimit,
    exposureNotional: gauge("exposure_notional", "Absolute notional held + queued + in flight per symbol (quote)", ["symbol"], function () {
      const exposure = read(sources.exposure);
      if (exposure === undefined) return;
      setEverySeen(
        this,
        exposureSeen,
        [...exposure].map((e) => [e.symbol, e.value] as const),
      );
    }),
    limiterQueued: gauge("limiter_queued", "Requests waiting for a rate-limiter permit", ["limiter"], function () {
      const limiters = read(sources.limiters);
      if (limiters === undefined) return;
      this.reset();
      for (const l of limiters) this.set({ limiter: l.limiter }, l.queued);
    }),
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
}

/**
 * A source's samples, or undefined when there is no source or it threw: a broken source leaves its
 * gauges at their last values instead of failing the whole scrape.
 */
function read<T>(source: (() => Iterable<T>) | undefined): T[] | undefined {
  return fromSource(source === undefined ? undefined : () => [...source()]);
}
