/**
 * The heatmap's families (docs/operations.md "The liquidation heatmap", issue 35): the notional that would be liquidated
 * within 1, 2 and 5 % of the mark per symbol and side (the last poll's, for the symbols allowed at
 * the scrape), the capacity the account has to claim it (read at scrape: it moves with every claim
 * and unwind), and the poller's health.
 * `symbol` comes from the venue's symbol table, `side` and `band` from engine/forecast.ts.
 */
import type { Counter, Gauge, Registry } from "prom-client";
import { FORECAST_BANDS, FORECAST_SIDES, type ForecastSide } from "../engine/forecast.js";
import { fromSource, metricMakers, oneOf } from "./metricMakers.js";

const FORECAST_RESULTS = ["ok", "rate_limited", "error"] as const;

export interface HeatmapSample {
  symbols: Iterable<string>;
  cell(symbol: string, side: ForecastSide): readonly number[] | undefined;
  /** What the account could still claim on that side of that symbol now (engine/capacity.ts); undefined: unknown. */
  capacity(symbol: string, side: ForecastSide): number | undefined;
}

export interface ForecastMetrics {
  readonly forecastNotional: Gauge<"symbol" | "side" | "band">;
  readonly capacity: Gauge;
  readonly capacityBySide: Gauge<"symbol" | "side">;
  readonly forecastPolls: Counter<"result">;
  readonly forecastBadRows: Counter;
  /**
   * What `forecast_notional_quote` reads at scrape: the symbols that get a series each (the allowed
   * ones of the symbol table now), and the last poll's cell of each (0 where nothing is near);
   * undefined before the first poll (no series).
   */
  setHeatmapSource(source: () => HeatmapSample | undefined): void;
  /** What `capacity_quote` reads at scrape; undefined (or a failing source) reads as NaN. */
  setCapacitySource(source: () => number | undefined): void;
}

export function createForecastMetrics(registry: Registry, prefix: string): ForecastMetrics {
  const { counter, gauge } = metricMakers(registry, prefix);
  let capacitySource: (() => number | undefined) | undefined;
  let heatmapSource: (() => HeatmapSample | undefined) | undefined;
  const heatmap = (): HeatmapSample | undefined => fromSource(heatmapSource);
  const forecastNotional = gauge(
    "forecast_notional_quote",
    `Notional of the venue's open positions whose estimated liquidation price lies within the band (${oneOf(FORECAST_BANDS.map((b) => b.label))}) of the mark, by the side (${oneOf(FORECAST_SIDES)}) that is liquidated (quote; platformPositions, forecast.interval_s)`,
    ["symbol", "side", "band"],
    function (this: Gauge<"symbol" | "side" | "band">) {
      const sample = heatmap();
      // Rebuilt whole at each scrape: a symbol no longer allowed loses its series at once.
      this.reset();
      if (sample === undefined) return;
      for (const symbol of sample.symbols) {
        for (const side of FORECAST_SIDES) {
          const bands = sample.cell(symbol, side);
          FORECAST_BANDS.forEach((b, i) => {
            this.set({ symbol, side, band: b.label }, bands?.[i] ?? 0);
          });
        }
      }
    },
  );
  const capacity = gauge(
    "capacity_quote",
    "Notional the account could still claim now (margin, exposure caps, protections) on the symbol and side whose 2 % band holds the most; the least over the allowed symbols when no band holds any (quote)",
    [],
    function (this: Gauge) {
      const v = fromSource(capacitySource);
      // Unknown is NaN, not 0: a comparison with it is false, so no alert fires on what is not known.
      this.set(v ?? Number.NaN);
    },
  );
  const capacityBySide = gauge(
    "capacity_by_side_quote",
    "Notional the account could still claim now (margin at the symbol's own leverage, exposure caps, protections) on each side of each symbol the heatmap shows: what its 2 % band is set against (quote)",
    ["symbol", "side"],
    function (this: Gauge<"symbol" | "side">) {
      const sample = heatmap();
      this.reset();
      if (sample === undefined) return;
      for (const symbol of sample.symbols) {
        for (const side of FORECAST_SIDES) {
          this.set({ symbol, side }, fromSource(() => sample.capacity(symbol, side)) ?? Number.NaN);
        }
      }
    },
  );
  const forecastPolls = counter("forecast_polls_total", `Heatmap polls by result (${oneOf(FORECAST_RESULTS)})`, ["result"]);
  const forecastBadRows = counter("forecast_bad_rows_total", "Platform position rows dropped as invalid");
  for (const result of FORECAST_RESULTS) forecastPolls.inc({ result }, 0);
  forecastBadRows.inc(0);
  return {
    forecastNotional,
    capacity,
    capacityBySide,
    forecastPolls,
    forecastBadRows,
    setHeatmapSource(source) {
      heatmapSource = source;
    },
    setCapacitySource(source) {
      capacitySource = source;
    },
  };
}
