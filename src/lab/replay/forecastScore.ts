/**
 * How good the liquidation heatmap was, per capture (issue 35): its polls (`forecast` events, the
 * positions within 5 % by price level) against the liquidations that came (the first push of each
 * id, `type: "liquidated"`), at the marks of the time (`markprices`).
 *
 * - recall: the share of liquidated notional that sat inside the 2 % band of a poll that ended at
 *   least 5 s before the liquidation's first push;
 * - precision: the share of each poll's 2 % band that was liquidated within the 10 minutes after it.
 *
 * A push does not say whose position was liquidated, so a liquidation is matched to a poll's band
 * by what the venue's rule makes true of it: on its symbol and side, at a price level the mark of
 * the push has reached (a long's estimated price at or above that mark, a short's at or below,
 * within one level), each level's quantity matched once. A band whose positions were not the ones
 * liquidated is credited only as far as quantity at crossed prices allows, so chance matches are
 * bounded by what the band held where the mark went. Notional is quantity × the mark of the push
 * (recall) or of the poll (precision).
 */
import type { CaptureEvent } from "../../daemon/records/captureTap.js";
import { FORECAST_BANDS, LEVEL_STEP } from "../../engine/forecast.js";
import { readPreparedBatches } from "../prepared/preparedCapture.js";

/** The heatmap's band scored and the lead a forecast must have had. */
const SCORED_BAND = (FORECAST_BANDS[1] as { width: number }).width;
const RECALL_LEAD_MS = 5_000;
const PRECISION_WINDOW_MS = 10 * 60_000;

export interface ForecastFigure {
  capture: string;
  polls: number;
  /** Liquidated positions (one per symbol of a liquidation's first push) and their notional, scored. */
  liquidations: number;
  liquidated_notional: number;
  /** Before the first poll had 5 s of lead: not scored. */
  unscored: number;
  recall: number | null;
  /** Median lead of what was forecast: first push − end of the poll that had it, seconds. */
  median_lead_s: number | null;
  precision: number | null;
  /** Mean 2 % band notional of a poll. */
  band_notional: number;
}

interface Level {
  price: number;
  /** Quantity left to match, for recall and for precision (each matched once per use). */
  recall: number;
  precision: number;
}

interface Pending {
  symbol: string;
  qty: number;
  at: number;
  /** The symbol's mark before the push. */
  mark: number | undefined;
}

interface Poll {
  at: number;
  /** By `symbol side`: the 2 % band's levels. */
  cells: Map<string, Level[]>;
  mark: Map<string, number>;
  bandNotional: number;
  matched: number;
}

class ForecastScore {
  readonly #capture: string;
  readonly #marks = new Map<string, number>();
  readonly #seen = new Set<number>();
  /** Polls of the last 10 minutes, oldest first; and the latest one before them (a forecast for recall still). */
  #polls: Poll[] = [];
  #older: Poll | undefined;
  #firstPollAt = Number.POSITIVE_INFINITY;
  #pollCount = 0;
  #bandTotal = 0;
  #matchedBand = 0;
  #closedBand = 0;
  #liquidations = 0;
  #liquidated = 0;
  #forecast = 0;
  #unscored = 0;
  readonly #leads: number[] = [];
  /** Liquidations waiting for their symbol's next mark. */
  #pending: Pending[] = [];

  constructor(capture: string) {
    this.#capture = capture;
  }

  /** One capture event, in capture order. */
  take(ev: CaptureEvent): void {
    switch (ev.k) {
      case "markprices":
        for (const m of ev.data) {
          this.#marks.set(m.symbol, m.price);
          this.#settle(m.symbol, m.price);
        }
        return;
      case "forecast":
        this.#poll(ev);
        return;
      case "liquidation":
        for (const row of ev.data) {
          if (row.positionsByPerp.length === 0 || row.type !== "liquidated" || this.#seen.has(row.liquidationId)) continue;
          this.#seen.add(row.liquidationId);
          for (const p of row.positionsByPerp)
            this.#pending.push({ symbol: p.symbol, qty: p.positionQty, at: ev.at, mark: this.#marks.get(p.symbol) });
        }
        return;
      default:
        return;
    }
  }

  /** The figure, once every event was taken. */
  figure(): ForecastFigure {
    for (const l of this.#pending.splice(0)) this.#liquidation(l.symbol, l.qty, l.at, l.mark);
    for (const p of this.#polls) this.#close(p);
    this.#polls = [];
    const leads = [...this.#leads].sort((a, b) => a - b);
    return {
      capture: this.#capture,
      polls: this.#pollCount,
      liquidations: this.#liquidations,
      liquidated_notional: round(this.#liquidated),
      unscored: this.#unscored,
      recall: this.#liquidated > 0 ? round(this.#forecast / this.#liquidated, 4) : null,
      median_lead_s: leads.length > 0 ? round((leads[leads.length >> 1] as number) / 1000, 1) : null,
      precision: this.#closedBand > 0 ? round(this.#matchedBand / this.#closedBand, 4) : null,
      band_notional: this.#pollCount > 0 ? round(this.#bandTotal / this.#pollCount) : 0,
    };
  }

  /**
   * A liquidation is scored at the mark of its symbol's next `markprices`: the venue liquidates as a
   * mark crosses, and pushes the liquidation before that mark. It counts as reached by the further
   * of the marks before and after it (the lower for a long, the higher for a short).
   */
  #settle(symbol: string, after: number): void {
    if (this.#pending.length === 0) return;
    const keep: Pending[] = [];
    for (const l of this.#pending) {
      if (l.symbol !== symbol) keep.push(l);
      else {
        const before = l.mark ?? after;
        this.#liquidation(l.symbol, l.qty, l.at, l.qty > 0 ? Math.min(before, after) : Math.max(before, after));
      }
    }
    this.#pending = keep;
  }

  #poll(ev: Extract<CaptureEvent, { k: "forecast" }>): void {
    this.#pollCount++;
    if (ev.at < this.#firstPollAt) this.#firstPollAt = ev.at;
    while (this.#polls.length > 0 && (this.#polls[0] as Poll).at < ev.at - PRECISION_WINDOW_MS) {
      this.#older = this.#polls.shift() as Poll;
      this.#close(this.#older);
    }
    const mark = new Map(ev.marks.map((m) => [m.symbol, m.price]));
    const cells = new Map<string, Level[]>();
    let band = 0;
    for (const l of ev.levels) {
      const m = mark.get(l.symbol);
      if (m === undefined) continue;
      const levels: Level[] = [];
      l.prices.forEach((price, i) => {
        const d = l.side === "long" ? (m - price) / m : (price - m) / m;
        const qty = l.qty[i] as number;
        if (d > SCORED_BAND || !(qty > 0)) return;
        levels.push({ price, recall: qty, precision: qty });
        band += qty * m;
      });
      if (levels.length > 0) cells.set(`${l.symbol} ${l.side}`, levels);
    }
    this.#bandTotal += band;
    this.#polls.push({ at: ev.at, cells, mark, bandNotional: band, matched: 0 });
  }

  #close(p: Poll): void {
    this.#closedBand += p.bandNotional;
    this.#matchedBand += p.matched;
  }

  #liquidation(symbol: string, positionQty: number, at: number, mark: number | undefined): void {
    if (mark === undefined || positionQty === 0) return;
    const side = positionQty > 0 ? "long" : "short";
    const qty = Math.abs(positionQty);
    const key = `${symbol} ${side}`;
    // Reached: a long's level at or above the mark of the push, a short's at or below (one level of slack).
    const reached = (l: Level): boolean => (side === "long" ? l.price >= mark * (1 - LEVEL_STEP) : l.price <= mark * (1 + LEVEL_STEP));
    if (at - RECALL_LEAD_MS < this.#firstPollAt) {
      this.#unscored++;
      return;
    }
    let lead = this.#older;
    for (const p of this.#polls) if (p.at <= at - RECALL_LEAD_MS) lead = p;
    this.#liquidations++;
    this.#liquidated += qty * mark;
    if (lead !== undefined) {
      const got = take(lead.cells.get(key), side, qty, reached, "recall");
      if (got > 0) {
        this.#forecast += got * mark;
        this.#leads.push(at - lead.at);
      }
    }
    for (const p of this.#polls) {
      if (p.at >= at || p.at < at - PRECISION_WINDOW_MS) continue;
      p.matched += take(p.cells.get(key), side, qty, reached, "precision") * (p.mark.get(symbol) ?? mark);
    }
  }
}

/**
 * Up to `qty` from the reached levels' quantity left, nearest the mark first (the liquidated
 * position's price has just been reached: a long's is the lowest reached level, a short's the
 * highest; levels are in ascending price); what was taken.
 */
function take(
  levels: Level[] | undefined,
  side: "long" | "short",
  qty: number,
  reached: (l: Level) => boolean,
  use: "recall" | "precision",
): number {
  if (levels === undefined) return 0;
  let left = qty;
  const n = levels.length;
  for (let k = 0; k < n && left > 0; k++) {
    const l = levels[side === "long" ? k : n - 1 - k] as Level;
    if (!reached(l) || l[use] <= 0) continue;
    const t = Math.min(left, l[use]);
    l[use] -= t;
    left -= t;
  }
  return qty - left;
}

function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** The figure of every capture that holds heatmap polls, each read once for the kinds it needs. */
export async function scoreForecastFiles(
  files: readonly string[],
  read: { lenient: boolean; prepare: boolean },
): Promise<ForecastFigure[]> {
  const out: ForecastFigure[] = [];
  for (const file of files) {
    const score = new ForecastScore(file);
    for await (const batch of readPreparedBatches(file, { ...read, only: ["markprices", "forecast", "liquidation"] }))
      for (const ev of batch) score.take(ev);
    const f = score.figure();
    if (f.polls > 0) out.push(f);
  }
  return out;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { ForecastScore as ForecastScoreForTests };
