/**
 * The liquidation heatmap and the capacity beside it (issue 35, `forecast.*`): the poller of the
 * venue's platform positions (daemon/feeds/forecastPoller.ts) into `liquidator_forecast_notional_quote`
 * and, with `state.capture` on, the capture; `liquidator_capacity_quote` read at scrape from the
 * decision's own books (engine/capacity.ts): for the symbol and side whose 2 % band holds the most,
 * else the least over the allowed symbols and sides; and per symbol and side beside each band
 * (`liquidator_capacity_by_side_quote`: each symbol's own leverage makes its own). Whatever stops
 * claiming makes it 0: protections, and a pause (until the account and positions are read, the
 * margin check fails closed; an unknown account is no room, not unlimited room).
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import type { ProtectionGuard } from "../daemon/control/protectionGuard.js";
import { type ForecastPoll, ForecastPoller } from "../daemon/feeds/forecastPoller.js";
import type { CaptureTap } from "../daemon/records/captureTap.js";
import { Capacity } from "../engine/capacity.js";
import { FORECAST_SIDES, type ForecastSide, fullestTwoPercent } from "../engine/forecast.js";
import type { Metrics } from "../observe/metrics.js";
import type { RestClient } from "../venue/rest.js";
import { SupplyApi } from "../venue/supplyApi.js";
import type { TradingBooks } from "./tradingBooks.js";

export interface ForecastParts {
  /** Polls until `signal` aborts (nothing when `forecast.enabled` is false); never rejects. */
  run(signal: AbortSignal): Promise<void>;
}

export function forecastParts(o: {
  config: Config;
  metrics: Metrics;
  logger: Logger;
  books: TradingBooks;
  rest: RestClient;
  guard: Pick<ProtectionGuard, "gate">;
  /** Claiming is paused now (the account or positions not read yet, a margin hold, standby…): no capacity. */
  paused: () => boolean;
  capture: CaptureTap | undefined;
}): ForecastParts {
  const { config, metrics, books } = o;
  const policy = books.policy;
  const capacity = new Capacity();
  let last: ForecastPoll | undefined;
  const allowed = (symbol: string): boolean => policy.context.symbols.has(symbol) && policy.context.policy.access(symbol) === "allowed";
  const open = (symbol: string): boolean =>
    o.guard.gate({ liquidationId: 0, timestamp: 0, positions: [{ symbol, positionQty: 1, liquidatorFee: 0 }] }) === undefined;
  const capacityOf = (symbol: string, side: ForecastSide): number =>
    !o.paused() && open(symbol) ? capacity.of(policy.context, symbol, side) : 0;

  metrics.setCapacitySource(() => {
    const fullest = last === undefined ? undefined : fullestTwoPercent(last.heatmap);
    if (fullest !== undefined && allowed(fullest.symbol)) return capacityOf(fullest.symbol, fullest.side);
    let least: number | undefined;
    for (const symbol of policy.context.symbols.symbols()) {
      if (!allowed(symbol)) continue;
      for (const side of FORECAST_SIDES) least = Math.min(least ?? Number.POSITIVE_INFINITY, capacityOf(symbol, side));
    }
    return least;
  });

  if (!config.forecast.enabled) return { run: async () => undefined };
  metrics.setHeatmapSource(() => {
    const poll = last;
    if (poll === undefined) return undefined;
    return {
      symbols: [...policy.context.symbols.symbols()].filter(allowed),
      cell: (symbol, side) => poll.heatmap.cells.get(symbol)?.[side],
      capacity: capacityOf,
    };
  });
  const maxAgeMs = config.policy.max_mark_age_ms;
  const poller = new ForecastPoller({
    supply: new SupplyApi(o.rest),
    intervalMs: config.forecast.interval_s * 1000,
    allowList: () => [...(policy.context.policy.allow ?? [])],
    allowed,
    // The daemon's own mark while fresh; else the venue's, in the rows.
    mark: (symbol) => {
      const m = books.marks.get(symbol);
      return m !== undefined && Date.now() - m.receivedAt <= maxAgeMs ? m.price : undefined;
    },
    onPoll: (poll) => {
      last = poll;
      o.capture?.record({
        k: "forecast",
        at: poll.at,
        requestedAt: poll.requestedAt,
        marks: [...poll.marks].map(([symbol, price]) => ({ symbol, price })),
        levels: poll.levels,
      });
    },
    onResult: (result) => metrics.forecastPolls.inc({ result }),
    onBadRows: (n) => metrics.forecastBadRows.inc(n),
    logger: o.logger.child({ component: "forecast" }),
  });
  return { run: (signal) => poller.run(signal) };
}
