/**
 * `liquidator report --html FILE`: the opportunity ledger of a day as one self-contained page, in
 * the backtest report's frame and charts (lab/report/htmlPage.ts, lab/report/svgChart.ts): what was captured and
 * missed, the cumulative value of each through the day, the missed value by reason, per symbol and
 * per hour, markouts per symbol when known, and every liquidation. Every text is HTML-escaped.
 */
import { type Bucket, type SplitBucket, sideOf } from "../engine/ledgerTotals.js";
import type { OpportunityRow } from "../engine/opportunities.js";
import type { Point } from "../lab/replay/series.js";
import { type HtmlCell, htmlTable, page } from "../lab/report/htmlPage.js";
import { chart, esc } from "../lab/report/svgChart.js";
import { isoTime, money } from "./output.js";
import type { LedgerReport } from "./reportLedger.js";
import { markoutsHtml } from "./reportMarkouts.js";
import { byKey } from "./reportOutput.js";

/** Liquidations listed open by default up to this many (the rest stay one click away). */
const OPEN_ROWS = 500;

const num = (x: number | null | undefined): HtmlCell => ({ html: x === null || x === undefined ? "" : esc(money(x)) });
const bucketCells = (b: Bucket): HtmlCell[] => [b.count, num(b.value)];
const splitCells = (s: SplitBucket): HtmlCell[] => [...bucketCells(s.captured), ...bucketCells(s.missed), ...bucketCells(s.dry_run)];

/** Cumulative value captured and missed (dry run apart) at each row's end (its first push while unresolved). */
function cumulative(rows: readonly OpportunityRow[]): { captured: Point[]; missed: Point[] } {
  const events = rows.map((r) => ({ at: r.ended_at ?? r.first_seen, side: sideOf(r.outcome), value: r.value }));
  events.sort((a, b) => a.at - b.at);
  const out = { captured: [] as Point[], missed: [] as Point[] };
  let captured = 0;
  let missed = 0;
  for (const e of events) {
    if (e.side === "captured") captured += e.value;
    else if (e.side === "missed") missed += e.value;
    else continue;
    out.captured.push([e.at, captured]);
    out.missed.push([e.at, missed]);
  }
  return out;
}

function liquidationsSection(rows: readonly OpportunityRow[]): string {
  const body = htmlTable(
    [
      "liquidation",
      "first seen (UTC)",
      "outcome",
      "reason",
      "part",
      "expected fee (whole)",
      "symbols",
      "claimed fee",
      "value",
      "lost after (ms)",
      "after our send (ms)",
    ],
    rows.map((r): HtmlCell[] => [
      r.liquidation_id,
      isoTime(r.first_seen).slice(11, 23),
      r.outcome,
      r.reason,
      r.part,
      num(r.expected_fee),
      r.symbols.join(" "),
      num(r.claimed_fee),
      num(r.value),
      { html: r.lost_after_first_push_ms === null ? "" : String(r.lost_after_first_push_ms) },
      { html: r.lost_after_send_ms === null ? "" : String(r.lost_after_send_ms) },
    ]),
  );
  const open = rows.length <= OPEN_ROWS ? " open" : "";
  return `<details id="liquidations"${open}><summary><h2>Liquidations (${rows.length})</h2></summary>${body}</details>`;
}

export function renderLedgerHtml(r: LedgerReport): string {
  const t = r.totals;
  const dry = t.dry_run.count > 0 ? `, decided in dry run ${t.dry_run.count} for ${esc(money(t.dry_run.value))} (never sent)` : "";
  const summary = `<p>${t.liquidations} liquidations first seen on ${esc(r.day)} (UTC), ${esc(money(t.value))} of liquidator fees at stake: captured ${t.captured.count} for ${esc(money(t.captured.value))} (the fee of what the venue assigned us), missed ${t.missed.count} for ${esc(money(t.missed.value))}${dry}. Missed value is at the first push's marks.</p>`;
  const outcomes = `<h2 id="outcomes">Outcomes</h2><p>claimed: assigned to us (its value is the fee of what we got; the rest of a partly claimed liquidation is a row of its own); lost: taken by someone else first (our claim refused as taken, the liquidation left while our claim waited its turn, or a rival took part of it before our claim); skipped: the policy passed on it, or cut part of it (the reason is its skip reason or the cap that cut it); expired: it left with no claim of ours pending, or the venue assigned less than we asked and the rest stayed on the list (<code>left</code>); dry_run: decided in dry run, never sent.</p>${htmlTable(
    ["outcome", "rows", "value"],
    Object.entries(t.by_outcome).map(([o, b]): HtmlCell[] => [o, ...bucketCells(b)]),
  )}`;
  const series = cumulative(r.liquidations);
  const value = chart("Cumulative value captured and missed", [
    { name: "captured", points: series.captured },
    { name: "missed", points: series.missed },
  ]);
  const reasons = `<h2 id="missed-by-reason">Missed value by reason</h2>${htmlTable(
    ["outcome", "reason", "rows", "value"],
    t.missed_by_reason.map((b): HtmlCell[] => [b.outcome, b.reason, ...bucketCells(b)]),
  )}<h2 id="policy-cost">What the policy cost, by reason</h2><p>The value the policy passed on: liquidations skipped whole, and the parts of claimed ones a cap cut (or a symbol it left out).</p>${htmlTable(
    ["reason", "rows", "value"],
    t.policy_cost.map((b): HtmlCell[] => [b.reason, ...bucketCells(b)]),
  )}`;
  const head = ["captured", "captured value", "missed", "missed value", "dry run", "dry run value"];
  const symbols = `<h2 id="per-symbol">Per symbol</h2><p>A liquidation of several symbols counts under each, with that symbol's share of its value.</p>${htmlTable(
    ["symbol", ...head],
    byKey(t.by_symbol).map(([s, b]): HtmlCell[] => [s, ...splitCells(b)]),
  )}`;
  const hours = `<h2 id="per-hour">Per hour (UTC)</h2>${htmlTable(
    ["hour", ...head],
    byKey(t.by_hour).map(([h, b]): HtmlCell[] => [`${h}:00`, ...splitCells(b)]),
  )}`;
  return page(
    `liquidator report ${r.day}`,
    `Opportunity ledger ${r.day}`,
    `${summary}${outcomes}${value}${reasons}${symbols}${hours}${markoutsHtml(r.markouts)}${liquidationsSection(r.liquidations)}`,
  );
}
