/** Texts of a backtest report's facts, the same in the table and on the HTML page. */
import type { BacktestReport, VariantReport } from "./backtest.js";
import type { ClaimRow } from "./variantFacts.js";

/** Cents; a float residue of zero prints 0.00, not −0.00. */
export const money = (x: number | undefined): string => (x === undefined ? "" : (Math.abs(x) < 0.005 ? 0 : x).toFixed(2));

/** Time at the exposure cap, and its share of the replayed span. */
export function capText(report: BacktestReport, v: VariantReport): string {
  return secondsText(report, v.at_cap_seconds);
}

/** A time in seconds (at a cap or limit), and its share of the replayed span. */
export function secondsText(report: BacktestReport, s: number): string {
  const span = (report.ended_at - report.started_at) / 1000;
  const text = s >= 3600 ? `${(s / 3600).toFixed(1)} h` : `${s.toFixed(0)} s`;
  return span > 0 ? `${text} (${((100 * s) / span).toFixed(1)} %)` : text;
}

/** A claim in a few words: id, symbols, net. */
export function claimText(c: ClaimRow | undefined): string {
  return c === undefined ? "" : `#${c.id} ${c.symbols.join("+")} ${money(c.net)}`;
}
