/** Texts of a backtest report's facts, the same in the table and on the HTML page. */
import type { BacktestReport, VariantReport } from "./backtest.js";
import type { ClaimRow } from "./variantFacts.js";

export const money = (x: number | undefined): string => (x === undefined ? "" : x.toFixed(2));

/** Time the exposure cap bound, and its share of the replayed span. */
export function capText(report: BacktestReport, v: VariantReport): string {
  const span = (report.ended_at - report.started_at) / 1000;
  const s = v.cap_bound_seconds;
  const text = s >= 3600 ? `${(s / 3600).toFixed(1)} h` : `${s.toFixed(0)} s`;
  return span > 0 ? `${text} (${((100 * s) / span).toFixed(1)} %)` : text;
}

/** A claim in a few words: id, symbols, net. */
export function claimText(c: ClaimRow | undefined): string {
  return c === undefined ? "" : `#${c.id} ${c.symbols.join("+")} ${money(c.net)}`;
}
