/**
 * `backtest --html FILE`: one self-contained page (no script, no network): the variants' table, the
 * model's assumptions, and two inline SVG charts, cumulative estimated net over time per variant and
 * exposure over time per variant. Every text from a capture or a config is HTML-escaped.
 */
import type { BacktestReport } from "./backtest.js";
import type { Point } from "./series.js";

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const LEGEND_W = 330;
const W = 1_230;
const H = 280;
const PAD = { l: 70, r: 10 + LEGEND_W, t: 10, b: 30 };

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function fmt(x: number): string {
  return Math.abs(x) >= 1000 ? x.toFixed(0) : x.toFixed(2);
}

function chart(title: string, series: readonly { name: string; points: readonly Point[] }[]): string {
  const all = series.flatMap((s) => s.points);
  if (all.length === 0) return `<h2>${esc(title)}</h2><p>(no data)</p>`;
  let t0 = Number.POSITIVE_INFINITY;
  let t1 = Number.NEGATIVE_INFINITY;
  let v0 = 0;
  let v1 = 0;
  for (const [t, v] of all) {
    t0 = Math.min(t0, t);
    t1 = Math.max(t1, t);
    v0 = Math.min(v0, v);
    v1 = Math.max(v1, v);
  }
  if (t1 === t0) t1 = t0 + 1;
  if (v1 === v0) v1 = v0 + 1;
  const x = (t: number) => PAD.l + ((t - t0) / (t1 - t0)) * (W - PAD.l - PAD.r);
  const y = (v: number) => H - PAD.b - ((v - v0) / (v1 - v0)) * (H - PAD.t - PAD.b);
  const lines = series.map((s, i) => {
    const d = s.points.map(([t, v], j) => `${j === 0 ? "M" : "L"}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join("");
    return `<path d="${d}" fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.5"><title>${esc(s.name)}</title></path>`;
  });
  const axes = [
    `<line x1="${PAD.l}" y1="${y(0).toFixed(1)}" x2="${W - PAD.r}" y2="${y(0).toFixed(1)}" stroke="#999" stroke-dasharray="3,3"/>`,
    `<text x="${PAD.l - 5}" y="${PAD.t + 10}" text-anchor="end">${fmt(v1)}</text>`,
    `<text x="${PAD.l - 5}" y="${H - PAD.b}" text-anchor="end">${fmt(v0)}</text>`,
    `<text x="${PAD.l}" y="${H - 8}">${esc(new Date(t0).toISOString())}</text>`,
    `<text x="${W - PAD.r}" y="${H - 8}" text-anchor="end">${esc(new Date(t1).toISOString())}</text>`,
    `<line x1="${PAD.l}" y1="${PAD.t}" x2="${PAD.l}" y2="${H - PAD.b}" stroke="#999"/>`,
  ];
  // The legend is inside the picture, so the SVG alone (README) is readable too.
  const legend = series.map(
    (s, i) =>
      `<rect x="${W - LEGEND_W + 5}" y="${PAD.t + i * 14}" width="9" height="9" fill="${COLORS[i % COLORS.length]}"/><text x="${W - LEGEND_W + 18}" y="${PAD.t + 8 + i * 14}">${esc(s.name)}</text>`,
  );
  const h = Math.max(H, PAD.t + series.length * 14 + PAD.b);
  return `<h2>${esc(title)}</h2>${svgDocument(title, h, `${axes.join("")}${lines.join("")}${legend.join("")}`)}`;
}

function svgDocument(title: string, height: number, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-size="11" font-family="sans-serif"><title>${esc(title)}</title><rect width="100%" height="100%" fill="#fff"/>${body}</svg>`;
}

export function renderHtml(report: BacktestReport): string {
  const head = ["variant", "offered", "sent", "claimed", "lost", "notional", "fees", "unwind cost", "net", "peak exposure", "skipped"];
  const rows = report.variants.map((v) =>
    [
      esc(v.name),
      v.offered,
      v.sent,
      v.claimed,
      v.lost_to_others,
      fmt(v.claimed_notional),
      fmt(v.expected_fee),
      fmt(v.estimated_unwind_cost),
      fmt(v.estimated_net),
      fmt(v.peak_exposure),
      esc(
        Object.entries(v.skipped)
          .map(([k, n]) => `${k}: ${n}`)
          .join(", "),
      ),
    ]
      .map((c, i) => `<td${i > 0 && i < 10 ? ' class="n"' : ""}>${c}</td>`)
      .join(""),
  );
  const table = `<table><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr>${rows.map((r) => `<tr>${r}</tr>`).join("")}</table>`;
  const net = chart(
    "Cumulative estimated net (fees + unwind P&L, open positions at mark)",
    report.variants.map((v) => ({ name: v.name, points: v.series.net })),
  );
  const exposure = chart(
    "Exposure (notional held and reserved)",
    report.variants.map((v) => ({ name: v.name, points: v.series.exposure })),
  );
  const assumptions = `<h2>Assumptions</h2><ul>${report.assumptions.map((a) => `<li>${esc(a)}</li>`).join("")}</ul>`;
  const sources = `<p>${report.events} events from ${report.captures.map(esc).join(", ")}${report.bad_lines > 0 ? `; ${report.bad_lines} bad lines skipped` : ""}</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>liquidator backtest</title>
<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px}td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f0f0f0}</style>
</head><body><h1>Backtest</h1>${sources}${table}${net}${exposure}${assumptions}</body></html>
`;
}
