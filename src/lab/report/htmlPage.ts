/**
 * The frame of the self-contained HTML pages (the backtest report, `liquidator report`): one style,
 * no script, no network; and their tables. Every text cell is HTML-escaped; a cell given as `html`
 * is trusted markup its caller escaped.
 */
import { esc } from "./svgChart.js";

export type HtmlCell = string | number | { html: string; cls?: string };

export function htmlTable(head: readonly string[], rows: readonly (readonly HtmlCell[])[], cls = ""): string {
  const td = (c: HtmlCell): string => {
    if (typeof c === "number") return `<td class="n">${c}</td>`;
    if (typeof c === "string") return `<td>${esc(c)}</td>`;
    return `<td class="${c.cls ?? "n"}">${c.html}</td>`;
  };
  const body = rows.map((r) => `<tr>${r.map(td).join("")}</tr>`).join("");
  return `<table${cls === "" ? "" : ` class="${cls}"`}><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>${body}</table>`;
}

const STYLE =
  "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin-bottom:1em}td,th{border:1px solid #ccc;padding:4px 8px}td.n{text-align:right;font-variant-numeric:tabular-nums}td.best{background:#dff0d8;font-weight:bold}th{background:#f0f0f0}small{color:#777}summary h2{display:inline}.verdict{font-weight:bold}";

/** A whole page: `title` (text) in the head and as the heading, `body` (markup) below it. */
export function page(title: string, heading: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>${STYLE}</style>
</head><body><h1>${esc(heading)}</h1>${body}</body></html>
`;
}
