/**
 * `backtest` output: one row per variant as a table (with the sections of backtestSections.ts and
 * the model's assumptions under it), CSV (assumptions on stderr, so the file stays plain RFC 4180),
 * or JSON: the INTERFACE.md object `{"variants":[{name, settings, offered, claimed, claimed_ids,
 * expected_fee, claimed_notional, peak_exposure, skipped}]}` plus the unwind estimates, the report's
 * facts per variant and the model and assumptions (lab/backtestJson.ts).
 */
import type { BacktestReport, VariantReport } from "../lab/backtest.js";
import { backtestJson } from "../lab/backtestJson.js";
import { claimText } from "../lab/reportText.js";
import { renderSections } from "./backtestSections.js";
import { type Column, type OutputFormat, renderCsv, renderTable, sanitize } from "./output.js";

const money = (x: number): string => x.toFixed(2);

const COLUMNS: readonly Column<VariantReport>[] = [
  { key: "name", header: "variant", value: (r) => r.name },
  { key: "offered", value: (r) => r.offered },
  { key: "sent", value: (r) => r.sent },
  { key: "claimed", value: (r) => r.claimed },
  { key: "lost_to_others", header: "lost", value: (r) => r.lost_to_others },
  { key: "claimed_notional", header: "notional", value: (r) => r.claimed_notional, text: (r) => money(r.claimed_notional) },
  { key: "expected_fee", header: "fees", value: (r) => r.expected_fee, text: (r) => money(r.expected_fee) },
  {
    key: "estimated_unwind_cost",
    header: "unwind_cost",
    value: (r) => r.estimated_unwind_cost,
    text: (r) => money(r.estimated_unwind_cost),
  },
  { key: "estimated_net", header: "net", value: (r) => r.estimated_net, text: (r) => money(r.estimated_net) },
  { key: "peak_exposure", header: "peak_exposure", value: (r) => r.peak_exposure, text: (r) => money(r.peak_exposure) },
  {
    key: "skipped",
    value: (r) =>
      Object.entries(r.skipped)
        .map(([k, v]) => `${k}:${v}`)
        .join(" "),
  },
  { key: "max_drawdown", value: (r) => r.max_drawdown.amount, table: false },
  { key: "at_cap_seconds", value: (r) => r.at_cap_seconds, table: false },
  { key: "margin_skips", value: (r) => r.margin_skips, table: false },
  { key: "at_margin_limit_seconds", value: (r) => r.at_margin_limit_seconds, table: false },
  { key: "worst_claim", value: (r) => claimText(r.worst_claims[0]), table: false },
  { key: "same_as", value: (r) => r.same_as ?? "", table: false },
];

export function renderBacktest(format: OutputFormat, report: BacktestReport): { stdout: string; stderr: string } {
  const notes = `assumptions:\n${report.assumptions.map((a) => `  - ${sanitize(a)}`).join("\n")}\n`;
  if (format === "json") return { stdout: backtestJson(report), stderr: "" };
  if (format === "csv") return { stdout: renderCsv(COLUMNS, report.variants), stderr: notes };
  const head = `${report.events} events from ${report.captures.length} capture(s)${report.bad_lines > 0 ? `, ${report.bad_lines} bad lines skipped` : ""}\n\n`;
  const table = renderTable(COLUMNS, report.variants);
  return { stdout: `${head}${table}\n${renderSections(report)}\n${notes}`, stderr: "" };
}
