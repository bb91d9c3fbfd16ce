/**
 * The backtest page's charts: one inline SVG per chart (no script), a line per variant, UTC time
 * ticks on the x axis (minutes to days, whatever the span), round-number ticks on the y axis, the
 * legend inside the picture so the SVG alone (README) reads too. Lines are told apart three ways —
 * colour, dash and a marker shape placed along each line (each line's markers at its own offsets, so
 * lines that run together still show each one's) — and the legend shows all three. A variant
 * identical in effect to an earlier one draws no line of its own (it would hide under the first):
 * its legend entry says so. An optional marked value (the table's peak) is drawn as a labelled line.
 */
import type { Point } from "../replay/series.js";

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
const DASHES = ["", "6,3", "2,2", "8,3,2,3"];
/** Marker shapes, in order of the lines (a shape per line up to eight, then with colour and dash). */
const MARKERS = ["circle", "square", "triangle", "diamond", "cross", "plus", "ring", "box"] as const;
/** Markers along each line. */
const MARKS_PER_LINE = 8;
const LEGEND_W = 420;
const W = 1_320;
const H = 300;
const PAD = { l: 80, r: 10 + LEGEND_W, t: 12, b: 42 };
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const TIME_STEPS = [MIN, 5 * MIN, 15 * MIN, 30 * MIN, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 30 * DAY];

export interface ChartSeries {
  name: string;
  /** The legend's text (default: the name). */
  label?: string;
  points: readonly Point[];
  /** The name of an earlier series this one is identical to (not drawn). */
  sameAs?: string | null;
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A money value for an axis or label: thousands grouped, cents below 1000. */
export function amount(x: number): string {
  const a = Math.abs(x);
  const text = a >= 1000 ? Math.round(a).toLocaleString("en-US") : a.toFixed(a >= 10 || a === 0 ? 0 : 2);
  return `${x < 0 ? "−" : ""}${text}`;
}

/** Time ticks at round UTC instants: at most ~8 across [t0, t1]. */
function timeTicks(t0: number, t1: number): { at: number; label: string }[] {
  const span = t1 - t0;
  const step = TIME_STEPS.find((s) => span / s <= 8) ?? Math.ceil(span / 8 / DAY) * DAY;
  const out: { at: number; label: string }[] = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
    const iso = new Date(t).toISOString();
    const day = iso.slice(5, 10);
    const hm = iso.slice(11, 16);
    // The date where it is news: on the first tick, at midnight, and on every tick of a multi-day span.
    const dated = out.length === 0 || span > DAY || t % DAY === 0;
    out.push({ at: t, label: step >= DAY ? day : dated ? `${day} ${hm}` : hm });
  }
  return out;
}

/** Round-number ticks (1, 2, 5 × 10ⁿ) covering [v0, v1]. */
function valueTicks(v0: number, v1: number): number[] {
  const raw = (v1 - v0) / 5;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
  const out: number[] = [];
  for (let v = Math.ceil(v0 / step) * step; v <= v1 + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

export function chart(title: string, series: readonly ChartSeries[], mark?: { value: number; label: string }): string {
  const drawn = series.filter((s) => !s.sameAs);
  const all = drawn.flatMap((s) => s.points);
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
  if (mark !== undefined) v1 = Math.max(v1, mark.value);
  if (t1 === t0) t1 = t0 + 1;
  if (v1 === v0) v1 = v0 + 1;
  const ticks = valueTicks(v0, v1);
  v0 = Math.min(v0, ticks[0] ?? v0);
  v1 = Math.max(v1, ticks[ticks.length - 1] ?? v1);
  const x = (t: number) => PAD.l + ((t - t0) / (t1 - t0)) * (W - PAD.l - PAD.r);
  const y = (v: number) => H - PAD.b - ((v - v0) / (v1 - v0)) * (H - PAD.t - PAD.b);
  const style = new Map<string, { color: string; dash: string; marker: Marker }>();
  const parts: string[] = [];
  for (const v of ticks) {
    const yy = y(v).toFixed(1);
    parts.push(
      `<line x1="${PAD.l}" y1="${yy}" x2="${W - PAD.r}" y2="${yy}" stroke="${v === 0 ? "#999" : "#eee"}"/>`,
      `<text x="${PAD.l - 5}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${esc(amount(v))}</text>`,
    );
  }
  for (const tk of timeTicks(t0, t1)) {
    const xx = x(tk.at).toFixed(1);
    parts.push(
      `<line x1="${xx}" y1="${PAD.t}" x2="${xx}" y2="${H - PAD.b}" stroke="#eee"/>`,
      `<text x="${xx}" y="${H - PAD.b + 15}" text-anchor="middle">${esc(tk.label)}</text>`,
    );
  }
  parts.push(
    `<text x="${(PAD.l + W - PAD.r) / 2}" y="${H - 6}" text-anchor="middle" fill="#666">time (UTC)</text>`,
    `<line x1="${PAD.l}" y1="${PAD.t}" x2="${PAD.l}" y2="${H - PAD.b}" stroke="#999"/>`,
  );
  drawn.forEach((s, i) => {
    const st = {
      color: COLORS[i % COLORS.length] as string,
      dash: DASHES[Math.floor(i / COLORS.length) % DASHES.length] as string,
      marker: MARKERS[i % MARKERS.length] as Marker,
    };
    style.set(s.name, st);
    const d = s.points.map(([t, v], j) => `${j === 0 ? "M" : "L"}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join("");
    const dash = st.dash === "" ? "" : ` stroke-dasharray="${st.dash}"`;
    parts.push(`<path d="${d}" fill="none" stroke="${st.color}" stroke-width="1.5"${dash}><title>${esc(s.name)}</title></path>`);
    // Markers at evenly spaced points, each line's shifted by its own fraction of a spacing.
    const n = s.points.length;
    const marks: string[] = [];
    for (let k = 0; k < Math.min(MARKS_PER_LINE, n); k++) {
      const j = Math.min(n - 1, Math.floor(((k + ((i * 0.37) % 1)) * n) / Math.min(MARKS_PER_LINE, n)));
      const [t, v] = s.points[j] as Point;
      marks.push(markerSvg(st.marker, x(t), y(v), st.color));
    }
    parts.push(`<g class="markers" data-marker="${st.marker}">${marks.join("")}</g>`);
  });
  if (mark !== undefined) {
    const yy = y(mark.value).toFixed(1);
    parts.push(
      `<line class="mark" x1="${PAD.l}" y1="${yy}" x2="${W - PAD.r}" y2="${yy}" stroke="#000" stroke-dasharray="1,3"/>`,
      `<text x="${W - PAD.r - 4}" y="${(y(mark.value) - 4).toFixed(1)}" text-anchor="end">${esc(mark.label)}</text>`,
    );
  }
  const lx = W - LEGEND_W + 5;
  series.forEach((s, i) => {
    const st = style.get(s.sameAs ?? s.name) ?? { color: "#ccc", dash: "", marker: undefined };
    const yy = PAD.t + i * 14;
    const dash = st.dash === "" ? "" : ` stroke-dasharray="${st.dash}"`;
    const label = s.label ?? (s.sameAs ? `${s.name} (identical to ${s.sameAs})` : s.name);
    parts.push(
      `<line x1="${lx}" y1="${yy + 5}" x2="${lx + 16}" y2="${yy + 5}" stroke="${st.color}" stroke-width="2"${dash}/>`,
      st.marker === undefined ? "" : markerSvg(st.marker, lx + 8, yy + 5, st.color),
      `<text x="${lx + 21}" y="${yy + 9}"${s.sameAs ? ' fill="#888"' : ""}>${esc(label)}<title>${esc(s.name)}</title></text>`,
    );
  });
  const h = Math.max(H, PAD.t + series.length * 14 + PAD.b);
  return `<h2>${esc(title)}</h2>${svgDocument(title, h, parts.join(""))}`;
}

type Marker = (typeof MARKERS)[number];

/** One marker centred on (cx, cy). */
function markerSvg(m: Marker, cx: number, cy: number, color: string): string {
  const x = cx.toFixed(1);
  const y = cy.toFixed(1);
  const p = (pts: [number, number][]) =>
    pts.map(([dx, dy], i) => `${i === 0 ? "M" : "L"}${(cx + dx).toFixed(1)},${(cy + dy).toFixed(1)}`).join("");
  switch (m) {
    case "circle":
      return `<circle cx="${x}" cy="${y}" r="3" fill="${color}"/>`;
    case "ring":
      return `<circle cx="${x}" cy="${y}" r="3" fill="#fff" stroke="${color}" stroke-width="1.5"/>`;
    case "square":
      return `<rect x="${(cx - 3).toFixed(1)}" y="${(cy - 3).toFixed(1)}" width="6" height="6" fill="${color}"/>`;
    case "box":
      return `<rect x="${(cx - 3).toFixed(1)}" y="${(cy - 3).toFixed(1)}" width="6" height="6" fill="#fff" stroke="${color}" stroke-width="1.5"/>`;
    case "triangle":
      return `<path d="${p([
        [0, -3.5],
        [3.5, 3],
        [-3.5, 3],
      ])}Z" fill="${color}"/>`;
    case "diamond":
      return `<path d="${p([
        [0, -4],
        [4, 0],
        [0, 4],
        [-4, 0],
      ])}Z" fill="${color}"/>`;
    case "cross":
      return `<path d="${p([
        [-3, -3],
        [3, 3],
      ])}${p([
        [-3, 3],
        [3, -3],
      ])}" stroke="${color}" stroke-width="1.8"/>`;
    case "plus":
      return `<path d="${p([
        [0, -3.5],
        [0, 3.5],
      ])}${p([
        [-3.5, 0],
        [3.5, 0],
      ])}" stroke="${color}" stroke-width="1.8"/>`;
  }
}

function svgDocument(title: string, height: number, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" viewBox="0 0 ${W} ${height}" font-size="11" font-family="sans-serif"><title>${esc(title)}</title><rect width="100%" height="100%" fill="#fff"/>${body}</svg>`;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { timeTicks as timeTicksForTests, valueTicks as valueTicksForTests };
