/**
 * The report's "markouts per symbol" section: what the mark did after our claims, per symbol and
 * horizon (mean in basis points against the transfer price, positive = against us, and how many
 * claims the mean is over). The table comes in aggregated (from the markout records); this file only
 * renders it, as text, HTML and JSON. Absent: the section is left out.
 */
import { type MarkoutPoint, markoutsBySymbol } from "../engine/markoutSummary.js";
import { MARKOUT_HORIZONS, type MarkoutHorizon } from "../engine/markouts.js";
import { type HtmlCell, htmlTable } from "../lab/report/htmlPage.js";
import { esc } from "../lab/report/svgChart.js";
import type { Column } from "./output.js";

export interface MarkoutCell {
  mean_bps: number;
  count: number;
}

/** Per symbol, per horizon: the mean markout and its count (a horizon not reached yet is absent). */
export type MarkoutsBySymbol = Record<string, Partial<Record<MarkoutHorizon, MarkoutCell>>>;

/** The section's table from the markout records (engine/markoutSummary.ts); undefined when there are none. */
export function markoutTable(points: Iterable<MarkoutPoint>): MarkoutsBySymbol | undefined {
  const out: MarkoutsBySymbol = {};
  for (const s of markoutsBySymbol(points)) {
    const cells: Partial<Record<MarkoutHorizon, MarkoutCell>> = {};
    for (const h of MARKOUT_HORIZONS) {
      const x = s.horizons[h];
      if (x.meanBps !== undefined) cells[h] = { mean_bps: x.meanBps, count: x.count };
    }
    out[s.symbol] = cells;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

interface MarkoutRow {
  symbol: string;
  cells: Partial<Record<MarkoutHorizon, MarkoutCell>>;
}

const cellText = (c: MarkoutCell | undefined): string => (c === undefined ? "" : `${c.mean_bps.toFixed(1)} (${c.count})`);

export function markoutRows(markouts: MarkoutsBySymbol): MarkoutRow[] {
  return Object.keys(markouts)
    .sort()
    .map((symbol) => ({ symbol, cells: markouts[symbol] ?? {} }));
}

/** Columns of the text table: one per horizon, "mean bps (count)". */
export const MARKOUT_COLUMNS: Column<MarkoutRow>[] = [
  { key: "symbol", value: (r) => r.symbol },
  ...MARKOUT_HORIZONS.map((h): Column<MarkoutRow> => ({ key: h, value: (r) => r.cells[h]?.mean_bps, text: (r) => cellText(r.cells[h]) })),
];

export function markoutsHtml(markouts: MarkoutsBySymbol | undefined): string {
  if (markouts === undefined) return "";
  const rows = markoutRows(markouts).map((r): HtmlCell[] => [
    r.symbol,
    ...MARKOUT_HORIZONS.map((h) => ({ html: esc(cellText(r.cells[h])) })),
  ]);
  return `<h2 id="markouts">Markouts per symbol</h2><p>The mark after each claim against its transfer price, in basis points (positive = against us): mean (claims).</p>${htmlTable(["symbol", ...MARKOUT_HORIZONS], rows)}`;
}
