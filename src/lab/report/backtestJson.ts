/**
 * `backtest --json`: the report as one JSON object, without the charts' series. `claimed_ids` only
 * with `--ids` (a week's sweep holds millions); a list of plain values is printed on one line, so
 * the file stays a size a person's tools open. Each variant's money is in `liquidator pnl`'s words
 * and signs (`liquidator_fee`, `trading`, `fees`, `open`, `net`: the report's SIGNS_NOTE);
 * `estimated_net` is `net` under the name earlier readers know, and `expected_fee` (docs/policy-lab.md, the `--json` object) is
 * what the policy expected when deciding, not what was booked.
 */
import type { BacktestReport } from "../replay/backtest.js";

/** JSON with two-space indent, but an array of plain values (ids, a sensitivity row) on one line. */
function compactJson(value: unknown, indent = ""): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    // One string for the whole list (a week's ids are tens of millions: no string per id).
    if (value.every((x) => x === null || typeof x !== "object")) return JSON.stringify(value);
    return `[\n${value.map((x) => `${inner}${compactJson(x, inner)}`).join(",\n")}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return "{}";
  return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${compactJson(v, inner)}`).join(",\n")}\n${indent}}`;
}

/** The fields docs/policy-lab.md lists for `--json` first, in its order; the ledger's words follow `expected_fee`. */
const HEAD = ["name", "settings", "offered", "claimed", "claimed_ids"] as const;

function pick<T extends object>(o: T, keys: readonly string[]): Partial<T> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in o) out[k] = (o as Record<string, unknown>)[k];
  return out as Partial<T>;
}

/** The JSON object (series are for the HTML charts only). */
export function backtestJson(report: BacktestReport): string {
  const variants = report.variants.map(({ series: _series, components, estimated_unwind_cost: _cost, ...v }) => {
    const { expected_fee, ...rest } = v;
    return { ...pick(rest, HEAD), expected_fee, ...components, ...rest };
  });
  const text = compactJson({
    captures: report.captures,
    events: report.events,
    bad_lines: report.bad_lines,
    started_at: report.started_at,
    ended_at: report.ended_at,
    model: report.model,
    recorded: report.recorded,
    assumptions: report.assumptions,
    variants,
    forecast: report.forecast,
  });
  // As toJson: C1 controls escaped, so a terminal showing the file is safe.
  return `${text.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`;
}
