/**
 * The liquidation heatmap (issue 35, docs/operations.md "The liquidation heatmap"), pure: every open position on the
 * venue with its estimated liquidation price (`platformPositions`, docs/protocol.md §10) becomes the
 * notional that would be liquidated if the mark moved 1, 2 or 5 % against it, per symbol and side.
 *
 * A long is liquidated as the mark falls to its estimated price, a short as it rises: a position is
 * inside band b when its price lies within b of the mark on its side, or already past the mark (its
 * liquidation is due). Its notional is at the mark. A position without an estimated price, or of a
 * symbol without a mark, is in no band.
 */

/** The bands and their label values (`band` of `liquidator_forecast_notional_quote`). */
export const FORECAST_BANDS = [
  { label: "1pct", width: 0.01 },
  { label: "2pct", width: 0.02 },
  { label: "5pct", width: 0.05 },
] as const;
export type ForecastBand = (typeof FORECAST_BANDS)[number]["label"];
export type ForecastSide = "long" | "short";
export const FORECAST_SIDES: readonly ForecastSide[] = ["long", "short"];

/** The widest band: the positions the capture keeps (lab/replay/forecastScore.ts). */
const WIDEST_BAND = 0.05;

export interface ForecastPosition {
  symbol: string;
  side: ForecastSide;
  /** Base quantity, unsigned. */
  qty: number;
  /** Null when the venue could not estimate it. */
  estLiqPrice: number | null;
}

/** Notional per band (FORECAST_BANDS order) of one symbol and side. */
export type BandNotional = [number, number, number];

export interface Heatmap {
  /** By symbol: the long and the short side's notional per band. */
  cells: Map<string, Record<ForecastSide, BandNotional>>;
  /** Positions read, and those with an estimated price and a mark. */
  positions: number;
  priced: number;
}

/**
 * How far the mark must move against the position for it to be liquidated, as a share of the mark
 * (≤ 0: already past). Undefined without a price to measure.
 */
function distanceToLiquidation(side: ForecastSide, mark: number, estLiqPrice: number | null): number | undefined {
  if (estLiqPrice === null || !(mark > 0) || !(estLiqPrice > 0)) return undefined;
  return side === "long" ? (mark - estLiqPrice) / mark : (estLiqPrice - mark) / mark;
}

/** The heatmap of `positions` at the marks; `keep` picks the symbols wanted (the allowed ones). */
export function heatmapOf(
  positions: Iterable<ForecastPosition>,
  mark: (symbol: string) => number | undefined,
  keep: (symbol: string) => boolean = () => true,
): Heatmap {
  const cells = new Map<string, Record<ForecastSide, BandNotional>>();
  let count = 0;
  let priced = 0;
  for (const p of positions) {
    count++;
    if (!keep(p.symbol)) continue;
    const m = mark(p.symbol);
    const d = m === undefined ? undefined : distanceToLiquidation(p.side, m, p.estLiqPrice);
    if (d === undefined || m === undefined || !(p.qty > 0)) continue;
    priced++;
    let cell = cells.get(p.symbol);
    if (cell === undefined) {
      cell = { long: [0, 0, 0], short: [0, 0, 0] };
      cells.set(p.symbol, cell);
    }
    const notional = p.qty * m;
    const bands = cell[p.side];
    for (let i = 0; i < FORECAST_BANDS.length; i++)
      if (d <= (FORECAST_BANDS[i] as { width: number }).width) bands[i] = (bands[i] as number) + notional;
  }
  return { cells, positions: count, priced };
}

/** The band's notional of one cell (0 for a symbol with none). */
export function bandNotional(h: Heatmap, symbol: string, side: ForecastSide, band: ForecastBand): number {
  const i = FORECAST_BANDS.findIndex((b) => b.label === band);
  return h.cells.get(symbol)?.[side][i] ?? 0;
}

/** The symbol and side whose 2 % band holds the most notional (undefined for an empty heatmap). */
export function fullestTwoPercent(h: Heatmap): { symbol: string; side: ForecastSide; notional: number } | undefined {
  let best: { symbol: string; side: ForecastSide; notional: number } | undefined;
  for (const [symbol, cell] of h.cells) {
    for (const side of FORECAST_SIDES) {
      const n = cell[side][1];
      if (n > 0 && (best === undefined || n > best.notional)) best = { symbol, side, notional: n };
    }
  }
  return best;
}

/** What a capture keeps of a heatmap (lab/replay/forecastScore.ts): one symbol and side's positions by price level. */
export interface ForecastLevels {
  symbol: string;
  side: ForecastSide;
  /** Estimated liquidation prices, rounded to levels `LEVEL_STEP` of the mark apart, ascending. */
  prices: number[];
  /** Base quantity at each level. */
  qty: number[];
}

/** Levels are 0.05 % of the mark apart: a hundred over the widest band, finer than any band edge needs. */
export const LEVEL_STEP = 0.0005;

/**
 * The positions within the widest band (or past the mark), summed by price level per symbol and
 * side: what the lab scores the forecast on, at a fraction of the rows' size.
 */
export function levelsOf(
  positions: Iterable<ForecastPosition>,
  mark: (symbol: string) => number | undefined,
  keep: (symbol: string) => boolean = () => true,
): ForecastLevels[] {
  const by = new Map<string, Map<number, number>>();
  for (const p of positions) {
    if (!keep(p.symbol) || !(p.qty > 0)) continue;
    const m = mark(p.symbol);
    const d = m === undefined ? undefined : distanceToLiquidation(p.side, m, p.estLiqPrice);
    if (d === undefined || m === undefined || d > WIDEST_BAND) continue;
    const step = m * LEVEL_STEP;
    const level = Number((Math.round((p.estLiqPrice as number) / step) * step).toPrecision(8));
    const key = `${p.symbol} ${p.side}`;
    let levels = by.get(key);
    if (levels === undefined) {
      levels = new Map();
      by.set(key, levels);
    }
    levels.set(level, (levels.get(level) ?? 0) + p.qty);
  }
  const out: ForecastLevels[] = [];
  for (const [key, levels] of [...by].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const [symbol, side] = key.split(" ") as [string, ForecastSide];
    const prices = [...levels.keys()].sort((a, b) => a - b);
    out.push({ symbol, side, prices, qty: prices.map((p) => Number((levels.get(p) as number).toPrecision(12))) });
  }
  return out;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { distanceToLiquidation as distanceToLiquidationForTests };
