/**
 * Texts of a backtest report's facts, the same in the table and on the HTML page: the words and
 * signs (`liquidator pnl`'s, stated once), amounts in cents that add up to their total, the verdict
 * on the best variant with what its sample can carry, the identical variants named, and whether the
 * unwind cost was measured or assumed.
 */
import type { BacktestReport, VariantReport } from "../replay/backtest.js";
import { FEW_CLAIMS, INTERVAL_LEVEL } from "../replay/netInterval.js";
import type { ClaimRow } from "../replay/variantFacts.js";

/** Cents; a float residue of zero prints 0.00, not −0.00. */
export const cents = (x: number | undefined): string => (x === undefined ? "" : (Math.abs(x) < 0.005 ? 0 : x).toFixed(2));

/** The words and signs of every amount below, said once (the same as `liquidator pnl`). */
export const SIGNS_NOTE =
  "Amounts in quote. liquidator_fee: the liquidator fees earned; trading: the realized P&L of the unwinds (signed); fees: the trading fees the unwinds paid (positive, subtracted); open: what is still held, at the last mark (signed); net = liquidator_fee + trading − fees + open. The words and signs are those of liquidator pnl.";

/**
 * `values` in cents, rounded so that they add up to `total` rounded to cents (largest remainder):
 * a section's rows then sum to the variant's total on the page, not only before rounding.
 */
export function centsAddingUp(values: readonly number[], total: number): string[] {
  if (values.length === 0) return [];
  const hundredths = values.map((v) => v * 100);
  const floors = hundredths.map((c) => Math.floor(c + 1e-9));
  let missing = Math.round(total * 100) - floors.reduce((a, b) => a + b, 0);
  const order = hundredths.map((c, i) => ({ i, rest: c - (floors[i] as number) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  // A section that does not add up exactly (it should within float noise) keeps its own rounding.
  if (Math.abs(missing) > values.length) return values.map((v) => cents(v));
  for (let k = 0; missing > 0; k = (k + 1) % order.length, missing--) {
    const i = (order[k] as { i: number }).i;
    floors[i] = (floors[i] as number) + 1;
  }
  for (let k = order.length - 1; missing < 0; k = (k - 1 + order.length) % order.length, missing++) {
    const i = (order[k] as { i: number }).i;
    floors[i] = (floors[i] as number) - 1;
  }
  return floors.map((c) => cents(c / 100));
}

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
export function claimRowText(c: ClaimRow | undefined): string {
  return c === undefined ? "" : `#${c.id} ${c.symbols.join("+")} ${cents(c.net)}`;
}

/** The variant's 90 % interval on its net (bootstrap over its claims), as text. */
export function intervalText(v: VariantReport): string {
  const i = v.net_interval;
  return i.method === "none" ? "" : `${cents(i.low)} … ${cents(i.high)}`;
}

/**
 * Which variant nets most, and whether the sample can tell: too few claims, or a runner-up inside
 * the best one's interval, is said instead of a bare name.
 */
export function verdictText(report: BacktestReport): string {
  const distinct = report.variants.filter((v) => v.same_as === null);
  if (distinct.length < 2) return "";
  const ranked = [...distinct].sort((a, b) => b.estimated_net - a.estimated_net);
  const best = ranked[0] as VariantReport;
  const second = ranked[1] as VariantReport;
  const diff = best.estimated_net - second.estimated_net;
  const pct = second.estimated_net !== 0 ? ` (${((100 * diff) / Math.abs(second.estimated_net)).toFixed(1)} %)` : "";
  const level = `${Math.round(INTERVAL_LEVEL * 100)} %`;
  const head = `Highest net: ${best.name}, ${cents(diff)}${pct} above ${second.name}.`;
  if (best.net_interval.claims < FEW_CLAIMS)
    return `${head} Only ${best.net_interval.claims} claims: too few to choose a variant on; replay a longer capture.`;
  if (second.estimated_net >= best.net_interval.low)
    return `${head} The difference is inside the ${level} interval of its net (${intervalText(best)}, bootstrap over its ${best.net_interval.claims} claims): not a finding.`;
  return `${head} Outside the ${level} interval of its net (${intervalText(best)}, ${best.net_interval.claims} claims).`;
}

/** Variants identical in effect, each with the one it repeats: the sections list the first only. */
export function identicalText(report: BacktestReport): string {
  const same = report.variants.filter((v) => v.same_as !== null);
  if (same.length === 0) return "";
  return `Identical in effect (same claims, same net), listed once in the sections: ${same.map((v) => `${v.name} = ${v.same_as}`).join("; ")}.`;
}

/** Where the unwind cost came from; loud when it is assumed. */
export function unwindText(report: BacktestReport): string {
  const m = report.model;
  if (m.unwind_source === "measured")
    return `Unwind cost measured from the recording account's ${m.unwind_samples} unwind trades in the capture: ${m.unwind_slippage_bps} bps slippage, ${m.taker_fee_bps} bps fees.`;
  if (m.unwind_given === true)
    return `Unwind cost as given (--slippage-bps ${m.unwind_slippage_bps}, --taker-fee-bps ${m.taker_fee_bps}), not measured.`;
  return `Unwind cost ASSUMED (${m.unwind_slippage_bps} bps slippage, ${m.taker_fee_bps} bps fees): the capture holds no unwind of its recorder. A daemon's own capture (state.capture) measures it; else set --slippage-bps and --taker-fee-bps from liquidator pnl --by claim.`;
}
