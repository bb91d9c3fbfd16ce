/**
 * `liquidator report` as text for people (the liquidations, then the totals and the markouts), CSV
 * (one row per liquidation) and JSON (one object: day, liquidations, totals, markouts when known).
 * Times are ISO-8601 UTC in every form.
 */
import type { Bucket, SplitBucket } from "../engine/ledgerTotals.js";
import type { OpportunityRow } from "../engine/opportunities.js";
import { type Column, isoTime, money, renderCsv, renderTable, toJson } from "./output.js";
import type { LedgerReport } from "./reportLedger.js";
import { MARKOUT_COLUMNS, markoutRows } from "./reportMarkouts.js";

export /** JSON and CSV: quote to 1e-6, never float noise. */
const q6 = (x: number): number => Math.round(x * 1e6) / 1e6;

const LIQUIDATION_COLUMNS: Column<OpportunityRow>[] = [
  { key: "liquidation_id", value: (r) => r.liquidation_id },
  { key: "supply", value: (r) => r.supply, table: false },
  { key: "first_seen", value: (r) => isoTime(r.first_seen) },
  { key: "outcome", value: (r) => r.outcome },
  { key: "reason", value: (r) => r.reason },
  { key: "part", value: (r) => r.part },
  { key: "expected_fee", value: (r) => q6(r.expected_fee), text: (r) => money(r.expected_fee) },
  { key: "symbols", value: (r) => r.symbols.join(" ") },
  {
    key: "claimed_fee",
    value: (r) => (r.claimed_fee === null ? null : q6(r.claimed_fee)),
    text: (r) => (r.claimed_fee === null ? "" : money(r.claimed_fee)),
  },
  { key: "value", value: (r) => q6(r.value), text: (r) => money(r.value) },
  { key: "lost_after_first_push_ms", header: "lost_after_ms", value: (r) => r.lost_after_first_push_ms },
  { key: "lost_after_send_ms", header: "after_send_ms", value: (r) => r.lost_after_send_ms },
  { key: "ended_at", value: (r) => isoTime(r.ended_at), table: false },
];

interface Line {
  key: string;
  reason?: string;
  captured?: Bucket;
  missed?: Bucket;
  dryRun?: Bucket;
  bucket?: Bucket;
}

const count = (b: Bucket | undefined): number | undefined => b?.count;
const value = (b: Bucket | undefined): string => (b === undefined ? "" : money(b.value));

/** Entries by key: an object keeps "10" before "00" (integer-like keys first), so order is restored here. */
export function byKey<V>(m: Record<string, V>): [string, V][] {
  return Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function splitLines(m: Record<string, SplitBucket>): Line[] {
  return byKey(m).map(([key, s]) => ({ key, captured: s.captured, missed: s.missed, dryRun: s.dry_run }));
}

function splitColumns(first: string): Column<Line>[] {
  return [
    { key: first, value: (l) => l.key },
    { key: "captured", value: (l) => count(l.captured) },
    { key: "captured_value", value: (l) => l.captured?.value, text: (l) => value(l.captured) },
    { key: "missed", value: (l) => count(l.missed) },
    { key: "missed_value", value: (l) => l.missed?.value, text: (l) => value(l.missed) },
    { key: "dry_run", value: (l) => count(l.dryRun) },
    { key: "dry_run_value", value: (l) => l.dryRun?.value, text: (l) => value(l.dryRun) },
  ];
}

const BUCKET_COLUMNS: Column<Line>[] = [
  { key: "outcome", value: (l) => l.key },
  { key: "reason", value: (l) => l.reason ?? "" },
  { key: "liquidations", value: (l) => count(l.bucket) },
  { key: "value", value: (l) => l.bucket?.value, text: (l) => value(l.bucket) },
];

export function reportTable(r: LedgerReport): string {
  const t = r.totals;
  const parts = [
    `Opportunity ledger ${r.day} (UTC): ${t.liquidations} liquidations seen, ${money(t.value)} at stake; ` +
      `captured ${t.captured.count} (${money(t.captured.value)}: the fee of what we were assigned), missed ${t.missed.count} (${money(t.missed.value)})` +
      `${t.dry_run.count > 0 ? `, decided in dry run ${t.dry_run.count} (${money(t.dry_run.value)}, never sent)` : ""}\n`,
    renderTable(LIQUIDATION_COLUMNS, r.liquidations),
    "\nBy outcome\n",
    renderTable(
      BUCKET_COLUMNS.filter((c) => c.key !== "reason"),
      Object.entries(t.by_outcome).map(([key, bucket]) => ({ key, bucket })),
    ),
    "\nMissed by reason\n",
    renderTable(
      BUCKET_COLUMNS,
      t.missed_by_reason.map((b) => ({ key: b.outcome, reason: b.reason, bucket: b })),
    ),
    "\nWhat the policy cost, by reason (skipped whole, or the part a cap cut)\n",
    renderTable(
      BUCKET_COLUMNS.filter((c) => c.key !== "outcome"),
      t.policy_cost.map((b) => ({ key: b.outcome, reason: b.reason, bucket: b })),
    ),
    "\nPer supply\n",
    renderTable(splitColumns("supply"), splitLines(t.by_supply)),
    "\nPer symbol\n",
    renderTable(splitColumns("symbol"), splitLines(t.by_symbol)),
    "\nPer hour (UTC, of the first push)\n",
    renderTable(splitColumns("hour"), splitLines(t.by_hour)),
  ];
  if (r.markouts !== undefined)
    parts.push("\nMarkouts per symbol (bps, positive = against us; claims)\n", renderTable(MARKOUT_COLUMNS, markoutRows(r.markouts)));
  return parts.join("");
}

export function reportCsv(r: LedgerReport): string {
  return renderCsv(LIQUIDATION_COLUMNS, r.liquidations);
}

export function reportJson(r: LedgerReport): string {
  const liquidations = r.liquidations.map((row) => ({
    ...Object.fromEntries(LIQUIDATION_COLUMNS.map((c) => [c.key, c.value(row) ?? null])),
    fees: roundAll(row.fees),
    values: roundAll(row.values),
  }));
  return toJson({ day: r.day, liquidations, totals: roundDeep(r.totals), ...(r.markouts !== undefined ? { markouts: r.markouts } : {}) });
}

function roundAll(r: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, q6(v)]));
}

/** Every fractional number to 1e-6 (counts stay integers). */
function roundDeep<T>(v: T): T {
  if (typeof v === "number") return (Number.isInteger(v) ? v : q6(v)) as T;
  if (Array.isArray(v)) return v.map(roundDeep) as T;
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, roundDeep(x)])) as T;
  return v;
}
