/**
 * Lists read row by row (docs/protocol.md §9, §10: every field of a row is optional in the venue's OpenAPI):
 * a row that does not parse is left out and the rest of the page is used, so one odd row never hides
 * a whole page (with the public stream down, a failed open-list page was no claim at all). Each left-
 * out row is described by its shape (its keys and their JSON types, never its values) so the REST
 * core can count it and log each new shape once (restCore.ts `onSkippedRows`).
 *
 * A list whose rows must all be read or none (the account's positions: a row left out would read as
 * flat and understate what is held) does not use this; it tolerates bad optional fields instead.
 */
import { z } from "zod";

/** A row a list could not read. */
export interface SkippedRow {
  /** Its index in the page. */
  readonly index: number;
  /** The first problem found, e.g. `positions_by_perp.0.position_qty: expected number`. */
  readonly problem: string;
  /** Keys and JSON types, e.g. `{liquidation_id:number,type:string,positions_by_perp:array}`. */
  readonly shape: string;
}

/** Where a tolerant array keeps its left-out rows (not enumerable: JSON and spreads never see it). */
const SKIPPED = Symbol("skippedRows");

type WithSkipped = { [SKIPPED]?: readonly SkippedRow[] };

function jsonType(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/** Most keys a shape names: a hostile row must not make an unbounded log line. */
const MAX_SHAPE_KEYS = 24;

/** A row's shape: top-level keys with their JSON types (an array's first element's keys too). */
function shapeOf(row: unknown): string {
  if (typeof row !== "object" || row === null || Array.isArray(row)) return jsonType(row);
  const parts: string[] = [];
  for (const [k, v] of Object.entries(row as Record<string, unknown>).slice(0, MAX_SHAPE_KEYS)) {
    const key = k.length > 40 ? `${k.slice(0, 40)}…` : k;
    const inner = Array.isArray(v) && typeof v[0] === "object" && v[0] !== null ? `array<${shapeOf(v[0])}>` : jsonType(v);
    parts.push(`${key}:${inner}`);
  }
  return `{${parts.join(",")}}`;
}

function problemOf(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "invalid";
  const where = issue.path.map(String).join(".");
  const text = issue.message.length > 120 ? `${issue.message.slice(0, 120)}…` : issue.message;
  return where === "" ? text : `${where}: ${text}`;
}

/** An array schema whose rows are read one by one with `row`; unreadable rows are left out (see `skippedRows`). */
export function tolerantRows<S extends z.ZodType>(row: S) {
  return z.array(z.unknown()).transform((items): z.output<S>[] => {
    const out: z.output<S>[] = [];
    let skipped: SkippedRow[] | undefined;
    for (let i = 0; i < items.length; i++) {
      const r = row.safeParse(items[i]);
      if (r.success) out.push(r.data);
      else {
        skipped ??= [];
        skipped.push({ index: i, problem: problemOf(r.error), shape: shapeOf(items[i]) });
      }
    }
    if (skipped !== undefined) Object.defineProperty(out, SKIPPED, { value: skipped, enumerable: false });
    return out;
  });
}

/** The rows `tolerantRows` left out of this array (none for any other array). */
function skippedRows(rows: unknown): readonly SkippedRow[] {
  return (Array.isArray(rows) ? (rows as WithSkipped)[SKIPPED] : undefined) ?? [];
}

/** The rows left out of a parsed payload's `rows` (the venue's list shape, `{rows}` or `{meta, rows}`). */
export function skippedRowsOf(data: unknown): readonly SkippedRow[] {
  return typeof data === "object" && data !== null ? skippedRows((data as { rows?: unknown }).rows) : [];
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { skippedRows as skippedRowsForTests };
