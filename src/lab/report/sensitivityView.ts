/**
 * The sensitivity table of a backtest report, shared by the text table and the HTML page: each
 * variant's net at the chosen assumptions and with one of them halved or doubled, its worst over
 * those columns (a variant's worst case is whichever moved assumption hurts it most, not a fixed
 * one), and which variant is best in each column, so a choice that flips under its own assumptions
 * shows.
 */
import type { BacktestReport, VariantReport } from "../replay/backtest.js";

export interface SensitivityColumn {
  label: string;
  /** The variant's net in this column, undefined when not replayed (no `--sensitivity`). */
  net: (v: VariantReport) => number | undefined;
}

export function sensitivityColumns(report: BacktestReport): SensitivityColumn[] {
  const s = report.variants[0]?.sensitivity;
  if (s === undefined) return [];
  const [l0, l1, l2] = s.latency_ms;
  const [s0, , s2] = s.slippage_bps;
  const cols: SensitivityColumn[] = [
    { label: `chosen (${l1} ms, ${report.model.unwind_slippage_bps} bps)`, net: (v) => v.sensitivity.net[1]?.[1] },
    { label: `slippage ½× (${s0} bps)`, net: (v) => v.sensitivity.net[1]?.[0] },
    { label: `slippage 2× (${s2} bps)`, net: (v) => v.sensitivity.net[1]?.[2] },
  ];
  if (s.net[0] !== null) {
    cols.push(
      { label: `latency ½× (${l0} ms)`, net: (v) => v.sensitivity.net[0]?.[1] },
      { label: `latency 2× (${l2} ms)`, net: (v) => v.sensitivity.net[2]?.[1] },
      { label: "latency and slippage 2×", net: (v) => v.sensitivity.net[2]?.[2] },
    );
  }
  const moved = [...cols];
  cols.push({ label: "worst of these", net: (v) => worstOf(moved, v) });
  return cols;
}

/** The lowest net of a variant over the columns (undefined where none was replayed). */
function worstOf(cols: readonly SensitivityColumn[], v: VariantReport): number | undefined {
  let worst: number | undefined;
  for (const c of cols) {
    const n = c.net(v);
    if (n !== undefined && (worst === undefined || n < worst)) worst = n;
  }
  return worst;
}

/** The best variant's name per column (ties: the first), undefined for a column not replayed. */
export function bestPerColumn(report: BacktestReport, cols: readonly SensitivityColumn[]): (string | undefined)[] {
  return cols.map((c) => {
    let best: VariantReport | undefined;
    for (const v of report.variants) {
      const n = c.net(v);
      if (n === undefined) continue;
      if (best === undefined || n > (c.net(best) as number)) best = v;
    }
    return best?.name;
  });
}

/** One line on whether the best variant at the chosen assumptions stays best in every column. */
export function sensitivityVerdict(report: BacktestReport, cols: readonly SensitivityColumn[]): string {
  const best = bestPerColumn(report, cols);
  if (report.variants.length < 2 || best[0] === undefined) return "";
  const flips = cols.map((c, i) => ({ c, b: best[i] })).filter(({ b }) => b !== undefined && b !== best[0]);
  if (flips.length === 0) return `Best at the chosen assumptions, and in every column: ${best[0]}.`;
  return `Best at the chosen assumptions: ${best[0]}; the choice flips at ${flips.map(({ c, b }) => `${c.label} (best: ${b})`).join("; ")}.`;
}
