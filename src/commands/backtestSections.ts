/**
 * The sections of the `backtest` table under the variants' rows: sensitivity of the net to the
 * model's assumptions, risk (maximum drawdown, time at the exposure cap, worst claims), and rows
 * per symbol and per UTC day of every variant, their amounts in cents adding up to the variant's
 * totals. Variants identical in effect are listed once (the table above names them).
 */
import type { BacktestReport, VariantReport } from "../lab/replay/backtest.js";
import type { ForecastFigure } from "../lab/replay/forecastScore.js";
import type { ProtectionTripRow } from "../lab/replay/replayVariant.js";
import { REALITY_NOTE, type RealityRow, realityRows } from "../lab/report/realityView.js";
import { capText, cents, claimRowText, secondsText } from "../lab/report/reportText.js";
import { DAY_KEYS, dayRows, SYMBOL_KEYS, symbolRows } from "../lab/report/sectionRows.js";
import { sensitivityColumns, sensitivityVerdict } from "../lab/report/sensitivityView.js";
import { type Column, isoTime, renderTable, sanitize } from "./output.js";

type Row<T> = T & { variant: string };

function rowsOf<T>(variants: readonly VariantReport[], pick: (v: VariantReport) => readonly T[]): Row<T>[] {
  return variants.filter((v) => v.same_as === null).flatMap((v) => pick(v).map((r) => ({ ...r, variant: v.name })));
}

export function renderSections(report: BacktestReport): string {
  const out: string[] = [];
  const cols = sensitivityColumns(report);
  if (cols.length > 0) {
    const columns: Column<VariantReport>[] = [
      { key: "variant", value: (v) => v.name },
      ...cols.map((c) => ({ key: c.label, value: (v: VariantReport) => c.net(v), text: (v: VariantReport) => cents(c.net(v)) })),
    ];
    const verdict = sensitivityVerdict(report, cols);
    out.push(`net under the assumptions moved:\n${renderTable(columns, report.variants)}${verdict === "" ? "" : `${sanitize(verdict)}\n`}`);
  }
  const risk: Column<VariantReport>[] = [
    { key: "variant", value: (v) => v.name },
    { key: "max_drawdown", value: (v) => v.max_drawdown.amount, text: (v) => cents(v.max_drawdown.amount) },
    { key: "from", value: (v) => time(v.max_drawdown.peak_at) },
    { key: "to", value: (v) => time(v.max_drawdown.trough_at) },
    { key: "at_cap", value: (v) => capText(report, v) },
    { key: "at_margin_limit", value: (v) => secondsText(report, v.at_margin_limit_seconds) },
    { key: "margin_skips", value: (v) => v.margin_skips },
    { key: "worst_claim", value: (v) => claimRowText(v.worst_claims[0]) },
    { key: "same_as", value: (v) => v.same_as ?? "" },
  ];
  out.push(`risk:\n${renderTable(risk, report.variants)}`);
  const trips: Column<Row<ProtectionTripRow>>[] = [
    { key: "variant", value: (r) => r.variant },
    { key: "at", value: (r) => time(r.at) },
    { key: "protection", value: (r) => r.protection },
    { key: "symbol", value: (r) => r.symbol ?? "" },
    { key: "net", value: (r) => r.value, text: (r) => cents(r.value) },
  ];
  const tripRows = rowsOf(report.variants, (v) => v.protection_trips);
  if (tripRows.length > 0) out.push(`protection trips:\n${renderTable(trips, tripRows)}`);
  type Sym = ReturnType<typeof symbolRows>[number];
  const symbols: Column<Sym>[] = [
    { key: "variant", value: (r) => r.variant },
    { key: "symbol", value: (r) => r.symbol },
    { key: "claims", value: (r) => r.claims },
    { key: "notional", value: (r) => r.notional, text: (r) => cents(r.notional) },
    ...SYMBOL_KEYS.map((k) => ({ key: k, value: (r: Sym) => r[k], text: (r: Sym) => r.cents[k] })),
  ];
  out.push(`per symbol (adds up to each variant's totals):\n${renderTable(symbols, symbolRows(report.variants))}`);
  type Day = ReturnType<typeof dayRows>[number];
  const days: Column<Day>[] = [
    { key: "variant", value: (r) => r.variant },
    { key: "day", value: (r) => r.day },
    { key: "claims", value: (r) => r.claims },
    ...DAY_KEYS.map((k) => ({ key: k, value: (r: Day) => r[k], text: (r: Day) => r.cents[k] })),
  ];
  out.push(
    `per day (UTC; net marked to market at the day's end; adds up to each variant's totals):\n${renderTable(days, dayRows(report.variants))}`,
  );
  const reality = realityRows(report);
  if (reality.length > 0) {
    const cols: Column<RealityRow>[] = [
      { key: "account", value: (r) => r.name },
      { key: "claims", value: (r) => r.claims },
      ...(["liquidator_fee", "trading", "fees", "open", "net"] as const).map((k) => ({
        key: k,
        value: (r: RealityRow) => r[k],
        text: (r: RealityRow) => cents(r[k]),
      })),
      { key: "vs_recorded", value: (r) => (r.net_vs_recorded_pct === undefined ? "" : `${r.net_vs_recorded_pct} %`) },
    ];
    out.push(`reality check (${REALITY_NOTE}):\n${renderTable(cols, reality)}`);
  }
  if (report.forecast !== undefined && report.forecast.length > 0) {
    const share = (x: number | null): string => (x === null ? "" : x.toFixed(3));
    const cols: Column<ForecastFigure>[] = [
      { key: "capture", value: (f) => f.capture },
      { key: "polls", value: (f) => f.polls },
      { key: "liquidations", value: (f) => f.liquidations },
      { key: "recall", value: (f) => f.recall ?? "", text: (f) => share(f.recall) },
      { key: "median_lead_s", value: (f) => f.median_lead_s ?? "" },
      { key: "precision", value: (f) => f.precision ?? "", text: (f) => share(f.precision) },
      { key: "band_notional", value: (f) => f.band_notional, text: (f) => cents(f.band_notional) },
    ];
    out.push(
      `heatmap (recall: liquidated notional inside the 2 % band ≥ 5 s before its first push; precision: the 2 % band liquidated within 10 min):\n${renderTable(cols, report.forecast)}`,
    );
  }
  return out.join("\n");
}

const time = (ms: number): string => (Number.isFinite(ms) ? isoTime(ms) : "");
