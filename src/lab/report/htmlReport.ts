/**
 * `backtest --html FILE`: one self-contained page (no script, no network) to decide from: the
 * variants' table in `liquidator pnl`'s words and signs (said once), each net with its 90 % interval
 * and a verdict on the best variant that says what its sample can carry, the net under the model's
 * assumptions moved (½× and 2×, each variant's worst of them, the best variant of each column marked,
 * and whether the choice flips), risk (maximum drawdown of the net, time at the exposure cap, worst
 * claims), rows per symbol and per UTC day in cents that add up to the variant's totals, the charts
 * of cumulative net and of exposure (lines told apart by colour, dash and marker; the exposure's peak
 * line is the table's peak), and the assumptions, the unwind cost's origin first. Variants identical
 * in effect are said to be so. Every text from a capture or a config is HTML-escaped.
 */
import type { BacktestReport, VariantReport } from "../replay/backtest.js";
import { type HtmlCell, htmlTable, page } from "./htmlPage.js";
import { REALITY_NOTE, realityRows } from "./realityView.js";
import { capText, cents, claimRowText, identicalText, intervalText, SIGNS_NOTE, unwindText, verdictText } from "./reportText.js";
import { DAY_KEYS, dayRows, SYMBOL_KEYS, symbolRows } from "./sectionRows.js";
import { bestPerColumn, sensitivityColumns, sensitivityVerdict } from "./sensitivityView.js";
import { amount, chart, esc } from "./svgChart.js";

const num = (x: number | undefined): HtmlCell => ({ html: esc(cents(x)) });

function variantsTable(r: BacktestReport): string {
  const row = new Map(r.variants.map((v, i) => [v.name, i + 1]));
  const head = [
    "#",
    "variant",
    "offered",
    "sent",
    "claimed",
    "lost",
    "notional",
    "liquidator_fee",
    "trading",
    "fees",
    "open",
    "net",
    "net 90 % interval",
    "peak exposure",
    "skipped",
  ];
  const rows = r.variants.map((v, i): HtmlCell[] => [
    i + 1,
    v.same_as === null
      ? v.name
      : { html: `${esc(v.name)}<br><small title="${esc(v.same_as)}">identical in effect to #${row.get(v.same_as)}</small>`, cls: "" },
    v.offered,
    v.sent,
    v.claimed,
    v.lost_to_others,
    num(v.claimed_notional),
    num(v.components.liquidator_fee),
    num(v.components.trading),
    num(v.components.fees),
    num(v.components.open),
    num(v.estimated_net),
    { html: esc(intervalText(v)), cls: "n" },
    num(v.peak_exposure),
    Object.entries(v.skipped)
      .map(([k, n]) => `${k}: ${n}`)
      .join(", "),
  ]);
  const groups = new Set(r.variants.map((v) => v.same_as ?? v.name)).size;
  const note =
    groups < r.variants.length
      ? `<p>${r.variants.length} variants, ${groups} different in effect: a variant marked identical claims the same liquidations in the same order for the same net as the one it names.</p>`
      : "";
  const verdict = verdictText(r);
  const identical = identicalText(r);
  return `<h2 id="variants">Variants</h2><p class="signs">${esc(SIGNS_NOTE)}</p><p id="unwind-cost">${esc(unwindText(r))}</p>${note}${htmlTable(head, rows)}<p>Net 90 % interval: a bootstrap over the variant's claims (each claim's net resampled); a difference between variants inside it is not a finding.</p>${verdict === "" ? "" : `<p class="verdict" id="verdict">${esc(verdict)}</p>`}${identical === "" ? "" : `<p>${esc(identical)}</p>`}`;
}

function realitySection(r: BacktestReport): string {
  const rows = realityRows(r);
  if (rows.length === 0) return "";
  const cells = rows.map((x): HtmlCell[] => [
    x.name,
    x.claims,
    num(x.liquidator_fee),
    num(x.trading),
    num(x.fees),
    num(x.open),
    num(x.net),
    { html: x.net_vs_recorded_pct === undefined ? "" : `${x.net_vs_recorded_pct} %` },
  ]);
  return `<h2 id="reality">Reality check</h2><p>${esc(REALITY_NOTE)}</p>${htmlTable(["account", "claims", "liquidator_fee", "trading", "fees", "open", "net", "net vs recorded"], cells)}`;
}

function sensitivitySection(r: BacktestReport): string {
  const cols = sensitivityColumns(r);
  if (cols.length === 0) return "";
  const best = bestPerColumn(r, cols);
  const rows = r.variants.map((v, i): HtmlCell[] => [
    i + 1,
    v.name,
    ...cols.map((c, i) => {
      const n = c.net(v);
      return { html: esc(cents(n)), cls: best[i] === v.name ? "n best" : "n" };
    }),
  ]);
  const verdict = sensitivityVerdict(r, cols);
  const more = r.variants[0]?.sensitivity.net[0] === null ? " Latency columns: run with <code>--sensitivity</code>." : "";
  return `<h2 id="sensitivity">Net under the assumptions moved</h2><p>Each column moves one assumption of the model (below) to half or twice the chosen value; "worst of these" is each variant's lowest net over them; the best variant of each column is marked.${more}</p>${verdict === "" ? "" : `<p class="verdict">${esc(verdict)}</p>`}${htmlTable(["#", "variant", ...cols.map((c) => c.label)], rows)}`;
}

function when(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 16).replace("T", " ") : "";
}

function riskSection(r: BacktestReport): string {
  const rows = r.variants.map((v, i): HtmlCell[] => [
    i + 1,
    v.name,
    num(v.max_drawdown.amount),
    when(v.max_drawdown.peak_at),
    when(v.max_drawdown.trough_at),
    { html: esc(capText(r, v)) },
    claimRowText(v.worst_claims[0]),
  ]);
  return `<h2 id="risk">Risk</h2><p>Maximum drawdown: the largest fall of the net curve from a running peak. At cap: time the exposure stood within 1 % of <code>max_total_exposure</code> (a claim is cut to the room left or refused), or from a claim refused for it until exposure next fell.</p>${htmlTable(["#", "variant", "max drawdown", "from (UTC)", "to (UTC)", "at cap", "worst claim"], rows)}`;
}

function tripsSection(r: BacktestReport): string {
  const rows = distinct(r).flatMap((v) =>
    v.protection_trips.map((t): HtmlCell[] => [v.name, when(t.at), t.protection, t.symbol ?? "", num(t.value)]),
  );
  if (rows.length === 0) return "";
  return `<h2 id="protections">Protection trips</h2><p>Where the configured <code>protections.*</code> would have stopped new claims (daily_loss: halted; drawdown: reducing) or cooled a symbol (loss_streak), replayed through the daemon's own rules. Net: of the day, from the peak, or of the last claim.</p>${htmlTable(["variant", "at (UTC)", "protection", "symbol", "net"], rows)}`;
}

function details(title: string, id: string, open: boolean, body: string): string {
  return `<details id="${id}"${open ? " open" : ""}><summary><h2>${esc(title)}</h2></summary>${body}</details>`;
}

function distinct(r: BacktestReport): VariantReport[] {
  return r.variants.filter((v) => v.same_as === null);
}

function rowsSections(r: BacktestReport): string {
  const open = distinct(r).length <= 12;
  const centsCell = (text: string): HtmlCell => ({ html: esc(text) });
  const sym = symbolRows(r.variants).map((s): HtmlCell[] => [
    s.variant,
    s.symbol,
    s.claims,
    num(s.notional),
    ...SYMBOL_KEYS.map((k) => centsCell(s.cents[k])),
  ]);
  const day = dayRows(r.variants).map((d): HtmlCell[] => [d.variant, d.day, d.claims, ...DAY_KEYS.map((k) => centsCell(d.cents[k]))]);
  const worst = distinct(r).flatMap((v) =>
    v.worst_claims.map((c): HtmlCell[] => [v.name, c.id, c.day, c.symbols.join(", "), num(c.liquidator_fee), num(c.net)]),
  );
  return [
    details(
      "Per symbol",
      "per-symbol",
      open,
      `<p>Each variant's rows add up to its totals in the table above (to the cent).</p>${htmlTable(["variant", "symbol", "claims", "notional", ...SYMBOL_KEYS], sym)}`,
    ),
    details(
      "Per day (UTC)",
      "per-day",
      open,
      `<p>Net marked to market at the day's end: the days add up to the variant's liquidator_fee and net (to the cent).</p>${htmlTable(["variant", "day", "claims", ...DAY_KEYS], day)}`,
    ),
    details(
      "Worst claims",
      "worst-claims",
      open,
      `<p>Net of a claim: its liquidator_fee, plus the trading P&amp;L of the unwind of what it brought, less that unwind's fees (still held: at the last mark).</p>${htmlTable(["variant", "claim", "day", "symbols", "liquidator_fee", "net"], worst)}`,
    ),
  ].join("");
}

/**
 * Legend texts that fit: the row number and what sets the variant apart (words every name shares
 * dropped, dotted keys by their last part); an identical variant names the row it repeats.
 */
function legendLabels(r: BacktestReport): string[] {
  const words = r.variants.map((v) => v.name.split(" "));
  const common = new Set((words[0] ?? []).filter((w) => words.every((ws) => ws.includes(w))));
  const row = new Map(r.variants.map((v, i) => [v.name, i + 1]));
  return r.variants.map((v, i) => {
    if (v.same_as !== null) return `#${i + 1} = #${row.get(v.same_as)}`;
    const short = (words[i] ?? [])
      .filter((w) => !common.has(w) || r.variants.length === 1)
      .map((w) => w.replace(/^(?:[A-Za-z0-9_]+\.)+(?=[A-Za-z0-9_]+=)/, ""));
    return `#${i + 1} ${short.join(" ")}`;
  });
}

export function renderHtml(report: BacktestReport): string {
  const labels = legendLabels(report);
  const series = (pick: (v: VariantReport) => VariantReport["series"]["net"]) =>
    report.variants.map((v, i) => ({ name: v.name, label: labels[i] as string, points: pick(v), sameAs: v.same_as }));
  const net = chart(
    "Cumulative net (liquidator_fee + trading − fees + open, at the mark)",
    series((v) => v.series.net),
  );
  const top = report.variants.reduce<VariantReport | undefined>(
    (a, v) => (a === undefined || v.peak_exposure > a.peak_exposure ? v : a),
    undefined,
  );
  const exposure = chart(
    "Exposure (notional held and reserved)",
    series((v) => v.series.exposure),
    top === undefined ? undefined : { value: top.peak_exposure, label: `peak ${amount(top.peak_exposure)} (${top.name})` },
  );
  const assumptions = `<h2 id="assumptions">Assumptions</h2><ul>${report.assumptions.map((a) => `<li>${esc(a)}</li>`).join("")}</ul>`;
  const span = Number.isFinite(report.started_at) ? `, ${when(report.started_at)} to ${when(report.ended_at)} UTC` : "";
  const sources = `<p>${report.events} events from ${report.captures.map(esc).join(", ")}${span}${report.bad_lines > 0 ? `; ${report.bad_lines} bad lines skipped` : ""}</p>`;
  return page(
    "liquidator backtest",
    "Backtest",
    `${sources}${variantsTable(report)}${realitySection(report)}${sensitivitySection(report)}${riskSection(report)}${tripsSection(report)}${net}${exposure}${rowsSections(report)}${assumptions}`,
  );
}
