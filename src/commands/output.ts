/**
 * Rendering of command results: an aligned table for people (default), JSON or CSV (RFC 4180) for
 * machines. Values come from the venue, so every string is stripped of control characters before it
 * reaches a terminal: a hostile order tag must not be able to move the cursor or recolour the screen.
 */
import { UsageError } from "../errors.js";

export type OutputFormat = "table" | "json" | "csv";
export type Cell = string | number | boolean | null | undefined;

export interface Column<R> {
  /** JSON key and CSV header. */
  key: string;
  /** Table header; defaults to `key`. */
  header?: string;
  /** The machine value (JSON / CSV): raw numbers, ms timestamps. */
  value: (row: R) => Cell;
  /** The table text; defaults to the value as text. */
  text?: (row: R) => string;
  /** false: JSON / CSV only (keeps the table readable). */
  table?: boolean;
}

/** The output flags every read command accepts. */
export const OUTPUT_OPTIONS = {
  json: { type: "boolean" },
  csv: { type: "boolean" },
} as const;

export function outputFormat(values: { json?: boolean | undefined; csv?: boolean | undefined }): OutputFormat {
  if (values.json && values.csv) throw new UsageError("--json and --csv are exclusive; pick one");
  return values.json ? "json" : values.csv ? "csv" : "table";
}

// C0, DEL and C1 controls (C1 includes the 8-bit CSI that some terminals honour).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Text safe for a terminal: control characters become U+FFFD. */
export function sanitize(text: string): string {
  return text.replace(CONTROL, "\uFFFD");
}

/** ISO-8601 UTC for a ms timestamp; the raw value when it is not a plausible time. */
/** Quote amounts in the command tables: four decimals (JSON and CSV keep more). */
export const money = (x: number): string => x.toFixed(4);

export function isoTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "";
  if (!Number.isFinite(ms) || ms <= 0 || ms > 8.64e15) return String(ms);
  return new Date(ms).toISOString();
}

function cellText(value: Cell): string {
  if (value === null || value === undefined) return "";
  return String(value);
}

export function renderTable<R>(columns: readonly Column<R>[], rows: readonly R[]): string {
  const shown = columns.filter((c) => c.table !== false);
  const headers = shown.map((c) => sanitize(c.header ?? c.key));
  const cells = rows.map((row) => shown.map((c) => sanitize(c.text ? c.text(row) : cellText(c.value(row)))));
  // Numbers read best right-aligned; a column is numeric when every non-empty value is a number.
  const numeric = shown.map(
    (c) =>
      rows.length > 0 &&
      rows.every((r) => {
        const v = c.value(r);
        return typeof v === "number" || v === null || v === undefined;
      }) &&
      !c.text,
  );
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (parts: string[]): string =>
    parts
      .map((p, i) => (numeric[i] ? p.padStart(widths[i] ?? 0) : p.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const out = [line(headers), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)];
  if (rows.length === 0) out.push("(no rows)");
  return `${out.join("\n")}\n`;
}

/** One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF; quotes doubled. */
export function csvField(value: Cell): string {
  const text = sanitizeCsv(cellText(value));
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function sanitizeCsv(text: string): string {
  // Keep what RFC 4180 can carry (CR/LF inside quotes) but no other controls.
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, "\uFFFD");
}

export function renderCsv<R>(columns: readonly Column<R>[], rows: readonly R[]): string {
  const lines = [columns.map((c) => csvField(c.key)).join(","), ...rows.map((row) => columns.map((c) => csvField(c.value(row))).join(","))];
  return `${lines.join("\r\n")}\r\n`;
}

/** JSON text with C1 controls escaped too (JSON.stringify escapes only C0). */
export function toJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;
}

function renderJson<R>(columns: readonly Column<R>[], rows: readonly R[]): string {
  return toJson(rows.map((row) => Object.fromEntries(columns.map((c) => [c.key, c.value(row) ?? null]))));
}

export function render<R>(format: OutputFormat, columns: readonly Column<R>[], rows: readonly R[]): string {
  if (format === "json") return renderJson(columns, rows);
  if (format === "csv") return renderCsv(columns, rows);
  return renderTable(columns, rows);
}

/** A two-column field / value listing, for a single record in table form. */
export function renderFields(pairs: readonly [string, string][]): string {
  const width = Math.max(0, ...pairs.map(([k]) => k.length));
  return `${pairs.map(([k, v]) => `${sanitize(k).padEnd(width)}  ${sanitize(v)}`.trimEnd()).join("\n")}\n`;
}
