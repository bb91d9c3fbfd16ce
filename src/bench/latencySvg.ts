/**
 * A hand-written SVG histogram of tick-to-claim latencies (log-scale x), one outlined series per
 * client, with p50/p99 markers and a legend. Pure: samples in, SVG text out.
 */
import { latencyPercentile } from "./stats.js";

export interface LatencySeries {
  label: string;
  color: string;
  /** Latencies in ms. */
  samplesMs: readonly number[];
}

const W = 760;
const H = 380;
const M = { left: 64, right: 24, top: 48, bottom: 56 };
const BINS_PER_DECADE = 16;

/** "85 µs", "850 µs", "1.2 ms", "12 ms". */
function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  const us = ms * 1000;
  if (us < 1000) return `${us < 10 ? us.toFixed(1) : Math.round(us)} µs`;
  return `${ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms)} ms`;
}

/** Axis tick label: "10 µs", "200 µs", "1 ms", "20 ms". */
function tickLabel(ms: number): string {
  const us = Math.round(ms * 1000);
  return us < 1000 ? `${us} µs` : `${Math.round(ms * 10) / 10} ms`;
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function latencySvg(series: readonly LatencySeries[], title: string): string {
  const all = series.flatMap((s) => s.samplesMs.filter((x) => x > 0 && Number.isFinite(x)));
  const lo = 10 ** Math.floor(Math.log10(all.length > 0 ? Math.min(...all) : 0.01));
  const hi = 10 ** Math.ceil(Math.log10(all.length > 0 ? Math.max(...all) : 10));
  const decades = Math.max(1, Math.round(Math.log10(hi / lo)));
  const nBins = decades * BINS_PER_DECADE;
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const x = (ms: number): number => M.left + (Math.log10(ms / lo) / decades) * pw;
  const bin = (ms: number): number => Math.min(nBins - 1, Math.max(0, Math.floor((Math.log10(ms / lo) / decades) * nBins)));

  const hists = series.map((s) => {
    const counts = new Array<number>(nBins).fill(0);
    for (const v of s.samplesMs) if (v > 0 && Number.isFinite(v)) counts[bin(v)]! += 1;
    const n = Math.max(1, s.samplesMs.length);
    return counts.map((c) => (100 * c) / n);
  });
  const peak = Math.max(1, ...hists.flat());
  const yMax = peak <= 10 ? Math.ceil(peak) : Math.ceil(peak / 5) * 5;
  const y = (pct: number): number => M.top + ph - (pct / yMax) * ph;
  const binX = (i: number): number => M.left + (i / nBins) * pw;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="${W / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`);
  // Grid and x ticks at 1, 2, 5 per decade.
  for (let d = 0; d <= decades; d++) {
    for (const m of [1, 2, 5]) {
      const v = lo * 10 ** d * m;
      if (v > hi * 1.0001) continue;
      const px = x(v);
      out.push(
        `<line x1="${px.toFixed(1)}" y1="${M.top}" x2="${px.toFixed(1)}" y2="${M.top + ph}" stroke="${m === 1 ? "#cccccc" : "#eeeeee"}"/>`,
      );
      out.push(`<text x="${px.toFixed(1)}" y="${M.top + ph + 16}" text-anchor="middle" fill="#333">${esc(tickLabel(v))}</text>`);
    }
  }
  const yStep = yMax <= 5 ? 1 : yMax <= 20 ? 5 : 10;
  for (let v = 0; v <= yMax; v += yStep) {
    out.push(`<line x1="${M.left}" y1="${y(v).toFixed(1)}" x2="${M.left + pw}" y2="${y(v).toFixed(1)}" stroke="#eeeeee"/>`);
    out.push(`<text x="${M.left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" fill="#333">${v}%</text>`);
  }
  out.push(`<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#666"/>`);
  out.push(
    `<text x="${M.left + pw / 2}" y="${H - 14}" text-anchor="middle">tick-to-claim: venue frame written → complete claim request received (venue clock, log scale)</text>`,
  );
  out.push(`<text transform="translate(16 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">share of frames per bin</text>`);

  series.forEach((s, k) => {
    const h = hists[k] as number[];
    let d = `M${binX(0).toFixed(1)} ${y(0).toFixed(1)}`;
    for (let i = 0; i < nBins; i++)
      d += ` L${binX(i).toFixed(1)} ${y(h[i] as number).toFixed(1)} L${binX(i + 1).toFixed(1)} ${y(h[i] as number).toFixed(1)}`;
    d += ` L${binX(nBins).toFixed(1)} ${y(0).toFixed(1)} Z`;
    out.push(`<path d="${d}" fill="${s.color}" fill-opacity="0.18" stroke="${s.color}" stroke-width="1.5"/>`);
    for (const [p, dash] of [
      [50, "5 3"],
      [99, "2 3"],
    ] as const) {
      const v = latencyPercentile(s.samplesMs, p);
      if (!Number.isFinite(v) || v <= 0) continue;
      out.push(
        `<line x1="${x(v).toFixed(1)}" y1="${M.top}" x2="${x(v).toFixed(1)}" y2="${M.top + ph}" stroke="${s.color}" stroke-dasharray="${dash}" stroke-width="1.2"/>`,
      );
    }
    const ly = M.top + 16 + k * 18;
    const lx = M.left + pw - 300;
    const label = `${s.label}: p50 ${formatMs(latencyPercentile(s.samplesMs, 50))}, p99 ${formatMs(latencyPercentile(s.samplesMs, 99))}, n=${s.samplesMs.length}`;
    out.push(`<rect x="${lx}" y="${ly - 10}" width="14" height="10" fill="${s.color}" fill-opacity="0.35" stroke="${s.color}"/>`);
    out.push(`<text x="${lx + 20}" y="${ly}">${esc(label)}</text>`);
  });
  out.push(`<text x="${M.left + pw - 300}" y="${M.top + 16 + series.length * 18}" fill="#555">dashed: p50, dotted: p99</text>`);
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { formatMs as formatMsForTests, tickLabel as tickLabelForTests };
