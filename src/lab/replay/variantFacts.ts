/**
 * What a variant's report tells besides its totals (docs/policy-lab.md): net per UTC day (marked to
 * market at the day's last instant, so the days add up to the net), per symbol, the maximum drawdown
 * of the net curve, the time at the exposure cap, the worst claims, an interval on the net from the
 * claims' own spread (netInterval.ts), and a hash of what the variant did (its claims in order and
 * its net) that tells variants identical in effect apart from ones that only look alike. Fed by
 * ReplayVariant at every settled instant and every won claim.
 *
 * The words are `liquidator pnl`'s: `liquidator_fee` earned, `trading` the realized P&L of the
 * unwinds (signed), `fees` the trading fees they paid (positive, subtracted), `open` what is still
 * held at the last mark (signed); net = liquidator_fee + trading − fees + open.
 */
import type { ClaimPnl, PnlLedger } from "../../engine/pnlLedger.js";
import { CapClock } from "../sweep/capClock.js";
import { type NetInterval, netInterval } from "./netInterval.js";

interface DayRow {
  day: string;
  claims: number;
  liquidator_fee: number;
  net: number;
}

export interface SymbolRow {
  symbol: string;
  claims: number;
  notional: number;
  liquidator_fee: number;
  /** Realized trading P&L of the unwinds (signed). */
  trading: number;
  /** Trading fees the unwinds paid (positive: subtracted). */
  fees: number;
  /** Unrealized P&L of what is still held, at the last mark. */
  open: number;
  net: number;
}

export interface ClaimRow {
  id: number;
  day: string;
  symbols: string[];
  liquidator_fee: number;
  net: number;
}

export interface Drawdown {
  amount: number;
  /** When the net stood at the peak the drawdown fell from, and at its bottom (ms). */
  peak_at: number;
  trough_at: number;
}

const DAY_MS = 86_400_000;
/** Exposure this close to the cap leaves no room for a claim of any size: the policy cuts or refuses. */
const WORST_KEPT = 5;

export class VariantFacts {
  readonly #days: DayRow[] = [];
  #day: DayRow | undefined;
  #dayEnd = Number.NEGATIVE_INFINITY;
  #dayStartValue = 0;
  #value = 0;
  #peak = 0;
  #peakAt = Number.NaN;
  readonly drawdown: Drawdown = { amount: 0, peak_at: Number.NaN, trough_at: Number.NaN };
  readonly #cap: CapClock;
  readonly #symbols = new Map<string, { claims: number; notional: number }>();
  readonly #worst: ClaimRow[] = [];
  /** Every claim's net (the interval on the variant's net is drawn from them). */
  readonly #nets: number[] = [];
  /** FNV-1a over the claimed ids in claim order. */
  #hash = 0x811c9dc5;

  /** `cap`: the variant's `policy.max_total_exposure`. */
  constructor(cap = Number.POSITIVE_INFINITY) {
    this.#cap = new CapClock(cap);
  }

  /** The net curve's value and the exposure at the instant `at` ends. */
  point(at: number, value: number, exposure: number): void {
    if (at >= this.#dayEnd) {
      this.#closeDay();
      const start = Math.floor(at / DAY_MS) * DAY_MS;
      this.#dayEnd = start + DAY_MS;
      this.#day = { day: new Date(start).toISOString().slice(0, 10), claims: 0, liquidator_fee: 0, net: 0 };
    }
    this.#value = value;
    if (value > this.#peak || Number.isNaN(this.#peakAt)) {
      if (value > this.#peak) this.#peak = value;
      this.#peakAt = at;
    } else if (this.#peak - value > this.drawdown.amount) {
      this.drawdown.amount = this.#peak - value;
      this.drawdown.peak_at = this.#peakAt;
      this.drawdown.trough_at = at;
    }
    this.#cap.point(at, exposure);
  }

  /** A claim was refused for the exposure cap at `at`. */
  capRefused(at: number): void {
    this.#cap.refused(at);
  }

  /** A claim won, earning `fee` in all (its symbols are told with `wonIn`, as the caller prices them). */
  won(id: number, fee: number): void {
    this.#hash = Math.imul(this.#hash ^ (id & 0xffff), 0x01000193) >>> 0;
    this.#hash = Math.imul(this.#hash ^ (id >>> 16), 0x01000193) >>> 0;
    if (this.#day !== undefined) {
      this.#day.claims++;
      this.#day.liquidator_fee += fee;
    }
  }

  /** One symbol of a won claim: `notional` transferred at its price. */
  wonIn(symbol: string, notional: number): void {
    let s = this.#symbols.get(symbol);
    if (s === undefined) {
      s = { claims: 0, notional: 0 };
      this.#symbols.set(symbol, s);
    }
    s.claims++;
    s.notional += notional;
  }

  /** A claim's final numbers (its last lot closed, or still open at the end with `open` P&L). */
  claimClosed(c: ClaimPnl, open = 0): void {
    const net = c.liquidatorFee + c.trading - c.fees + open;
    this.#nets.push(net);
    const w = this.#worst;
    if (w.length === WORST_KEPT && net >= (w[w.length - 1] as ClaimRow).net) return;
    const row: ClaimRow = {
      id: c.claimId,
      day: c.day,
      symbols: [...c.symbols].sort(),
      liquidator_fee: round(c.liquidatorFee),
      net: round(net),
    };
    let i = w.length;
    while (i > 0 && (w[i - 1] as ClaimRow).net > net) i--;
    w.splice(i, 0, row);
    if (w.length > WORST_KEPT) w.pop();
  }

  /** The facts at the end of the replay (`now`), the ledger holding what is still open. */
  finish(now: number, net: number, ledger: PnlLedger, mark: (symbol: string) => number | undefined) {
    this.#closeDay();
    const open = ledger.unrealizedByClaim(mark);
    for (const c of ledger.claims()) this.claimClosed(c, open.get(c.claimId) ?? 0);
    let effect = this.#hash;
    for (const ch of String(round(net))) effect = Math.imul(effect ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    const bySymbol: SymbolRow[] = [];
    for (const [symbol, t] of [...ledger.bySymbol()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const s = this.#symbols.get(symbol);
      const open = ledger.unrealized((x) => (x === symbol ? mark(x) : undefined));
      bySymbol.push({
        symbol,
        claims: s?.claims ?? 0,
        notional: round(s?.notional ?? 0),
        liquidator_fee: round(t.liquidatorFee),
        trading: round(t.trading),
        fees: round(t.fees),
        open: round(open),
        net: round(t.net + open),
      });
    }
    const interval: NetInterval = netInterval(this.#nets);
    return {
      by_day: this.#days.map((d) => ({ ...d, liquidator_fee: round(d.liquidator_fee), net: round(d.net) })),
      by_symbol: bySymbol,
      max_drawdown: { ...this.drawdown, amount: round(this.drawdown.amount) },
      at_cap_seconds: this.#cap.finish(now),
      worst_claims: [...this.#worst],
      net_interval: interval,
      effect: effect.toString(16).padStart(8, "0"),
    };
  }

  #closeDay(): void {
    const d = this.#day;
    if (d === undefined) return;
    d.net = this.#value - this.#dayStartValue;
    this.#dayStartValue = this.#value;
    this.#days.push(d);
    this.#day = undefined;
  }
}

export type Facts = ReturnType<VariantFacts["finish"]>;

/** Money to 1e-6, as the variant's totals. */
export function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
