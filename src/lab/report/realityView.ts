/**
 * The reality check of a backtest report, shared by the text table and the HTML page: what the
 * recording account got (its own assignments and unwind trades in the capture) beside each variant's
 * replay, component by component, so a replay of the recording config shows where it differs from
 * what happened, and by how much of the recorded net.
 */

import type { NetComponents } from "../capture/recordedAccount.js";
import type { BacktestReport } from "../replay/backtest.js";

export interface RealityRow extends NetComponents {
  /** `recorded`, or the variant's name. */
  name: string;
  claims: number;
  /** (net − recorded net) ÷ |recorded net|, percent; undefined on the recorded row or a zero recorded net. */
  net_vs_recorded_pct: number | undefined;
}

export const REALITY_NOTE =
  "Recorded: the recording account's own assignments and unwind trades, as the capture holds them (open positions at the last mark). A variant with the recording config should land close to it; a component far off names what the model misses.";

export function realityRows(report: BacktestReport): RealityRow[] {
  const rec = report.recorded;
  if (rec === undefined) return [];
  const pct = (net: number): number | undefined =>
    rec.net === 0 ? undefined : Math.round(((net - rec.net) / Math.abs(rec.net)) * 1000) / 10;
  return [
    { name: "recorded", ...rec, net_vs_recorded_pct: undefined },
    ...report.variants
      .filter((v) => v.same_as === null)
      .map((v) => ({ name: v.name, claims: v.claimed, ...v.components, net_vs_recorded_pct: pct(v.components.net) })),
  ];
}
