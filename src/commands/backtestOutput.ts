/**
 * `backtest` output: one row per variant as a table (with the verdict on the best variant, the
 * variants identical in effect named, the sections of backtestSections.ts and the model's
 * assumptions under it), CSV (assumptions on stderr, so the file stays plain RFC 4180),
 * or JSON: the object of docs/policy-lab.md `{"variants":[{name, settings, offered, claimed, claimed_ids,
 * expected_fee, claimed_notional, peak_exposure, skipped}]}` plus the unwind estimates, the report's
 * facts per variant and the model and assumptions (lab/report/backtestJson.ts).
 */
import type { BacktestReport, VariantReport } from "../lab/replay/backtest.js";
import { backtestJson } from "../lab/report/backtestJson.js";
import { cents, claimRowText, identicalText, intervalText, SIGNS_NOTE, unwindText, verdictText } from "../lab/report/reportText.js";
import { renderSections } from "./backtestSections.js";
import { type Column, type OutputFormat, renderCsv, renderTable, sanitize } from "./output.js";

const COLUMNS: readonly Column<VariantReport>[] = [
  { key: "name", header: "variant", value: (r) => r.name },
  { key: "offered", value: (r) => r.offered },
  { key: "sent", value: (r) => r.sent },
  { key: "claimed", value: (r) => r.claimed },
  { key: "lost_to_others", header: "lost", value: (r) => r.lost_to_others },
  { key: "claimed_notional", header: "notional", value: (r) => r.claimed_notional, text: (r) => cents(r.claimed_notional) },
  // The ledger's components (the words and signs of liquidator pnl; SIGNS_NOTE says them once).
  { key: "liquidator_fee", value: (r) => r.components.liquidator_fee, text: (r) => cents(r.components.liquidator_fee) },
  { key: "trading", value: (r) => r.components.trading, text: (r) => cents(r.components.trading) },
  { key: "fees", value: (r) => r.components.fees, text: (r) => cents(r.components.fees) },
  { key: "open", value: (r) => r.components.open, text: (r) => cents(r.components.open) },
  { key: "net", value: (r) => r.estimated_net, text: (r) => cents(r.estimated_net) },
  { key: "net_interval", header: "net_90%", value: (r) => intervalText(r) },
  { key: "claims_for_interval", value: (r) => r.net_interval.claims, table: false },
  // What the policy expected when deciding (decision-time marks): not booked, not summed anywhere.
  { key: "expected_fee", value: (r) => r.expected_fee, table: false },
  { key: "peak_exposure", header: "peak_exposure", value: (r) => r.peak_exposure, text: (r) => cents(r.peak_exposure) },
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
  { key: "worst_claim", value: (r) => claimRowText(r.worst_claims[0]), table: false },
  { key: "same_as", value: (r) => r.same_as ?? "", table: false },
];

export function renderBacktest(format: OutputFormat, report: BacktestReport): { stdout: string; stderr: string } {
  const notes = `assumptions:\n${report.assumptions.map((a) => `  - ${sanitize(a)}`).join("\n")}\n`;
  if (format === "json") return { stdout: backtestJson(report), stderr: "" };
  if (format === "csv") return { stdout: renderCsv(COLUMNS, report.variants), stderr: notes };
  const head = `${report.events} events from ${report.captures.length} capture(s)${report.bad_lines > 0 ? `, ${report.bad_lines} bad lines skipped` : ""}\n${sanitize(SIGNS_NOTE)}\n${sanitize(unwindText(report))}\n\n`;
  const table = renderTable(COLUMNS, report.variants);
  const said = [verdictText(report), identicalText(report)].filter((t) => t !== "").map((t) => `${sanitize(t)}\n`);
  return { stdout: `${head}${table}${said.join("")}\n${renderSections(report)}\n${notes}`, stderr: "" };
}
