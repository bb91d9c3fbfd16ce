/**
 * What a variant's replay adds up to (replayVariant.ts): the claims won and their fees, the skips by
 * reason, the protections' trips, the net and exposure curves (a point per instant that changed
 * something), and the result row. The P&L itself is the trading core's ledger (its fold's).
 */
import type { TradingCore } from "../../core/tradingCore.js";
import type { Exposure } from "../../engine/exposure.js";
import type { MarkBook } from "../../engine/marks.js";
import type { ClaimPnl } from "../../engine/pnlLedger.js";
import type { ClaimDecision } from "../../engine/policy.js";
import type { ProtectionName, ProtectionTrip } from "../../engine/protections.js";
import type { Fill, Mark } from "../../engine/types.js";
import { componentsOf, type NetComponents } from "../capture/recordedAccount.js";
import type { Variant } from "../sweep/variants.js";
import type { LabAccount, MarginFacts } from "./labMargin.js";
import { Series } from "./series.js";
import type { UnwindModel } from "./unwindModel.js";
import { type Facts, round, VariantFacts } from "./variantFacts.js";

export interface ReplayModel {
  latencyMs: number;
  ownTakes: ReadonlyMap<number, number>;
  slippageBps: number;
  /** Other unwind slippages each variant's net is also given at (the report's sensitivity). */
  altSlippageBps: readonly number[];
  takerFeeBps: number;
  /** Keep each variant's claimed ids for the result (`backtest --ids`); a week of them is large. */
  keepIds: boolean;
  /** Each claim the modelled venue applied, as it lands (the live shadows' log). */
  onWon?: (variant: string, id: number) => void;
  /** The account's collateral at the start (`backtest --collateral`), quote. */
  collateral: number;
  /** The account's margin settings (`backtest --leverage`, `--imr-factor`, `--max-notional`; labMargin.ts). */
  account?: LabAccount;
}

export interface VariantResult extends Facts, MarginFacts {
  name: string;
  settings: Record<string, unknown>;
  offered: number;
  claimed: number;
  /** With `keepIds` only. */
  claimed_ids?: number[];
  expected_fee: number;
  claimed_notional: number;
  peak_exposure: number;
  skipped: Record<string, number>;
  sent: number;
  lost_to_others: number;
  unwind_orders: number;
  estimated_unwind_cost: number;
  estimated_net: number;
  /** `estimated_net` by component (set beside the recording account's in the report). */
  components: NetComponents;
  /** The net with every unwind fill priced at each of the model's `altSlippageBps` instead. */
  net_at_alt_slippage: number[];
  series: { net: readonly (readonly [number, number])[]; exposure: readonly (readonly [number, number])[] };
  /** The protections that tripped (engine/protections.ts, as the daemon runs them), in order. */
  protection_trips: ProtectionTripRow[];
}

export interface ProtectionTripRow {
  at: number;
  protection: ProtectionName;
  /** The symbol a loss streak cooled. */
  symbol?: string;
  /** As the engine gives it: the day's net (daily loss), minus the fall from the peak (drawdown), the claim's net (loss streak). */
  value: number;
}

interface Held {
  readonly symbol: string;
  qty: number;
  mark: Mark | undefined;
}

export class VariantCurves {
  readonly #variant: Variant;
  readonly #model: ReplayModel;
  readonly #marks: MarkBook;
  readonly #followers: CurveFollowers | undefined;
  readonly #facts: VariantFacts;
  readonly #net = new Series();
  readonly #exposureSeries = new Series(1_000, 4_000, "max");
  readonly #skipped = new Map<string, number>();
  readonly #claimedIds: number[] = [];
  readonly #trips: ProtectionTripRow[] = [];
  /** Holdings for the net curve, each with its live mark entry (MarkBook.get): no lookup per point. */
  readonly #held = new Map<string, Held>();
  readonly #heldList: Held[] = [];
  #core: TradingCore | undefined;
  #exposure: Exposure | undefined;
  #unwind: UnwindModel | undefined;
  /** Something changed at the current virtual instant: the curves take a point before the clock moves. */
  #dirty = false;
  #lastExposure = 0;
  #peak = 0;
  #cash = 0;
  #expectedFee = 0;
  #notional = 0;
  claimed = 0;
  /** Liquidator fees earned so far: what the account's collateral grows by in the margin check. */
  feesEarned = 0;

  constructor(variant: Variant, model: ReplayModel, marks: MarkBook, followers: CurveFollowers | undefined) {
    this.#variant = variant;
    this.#model = model;
    this.#marks = marks;
    this.#followers = followers;
    this.#facts = new VariantFacts(variant.config.policy.max_total_exposure);
  }

  bind(core: TradingCore, exposure: Exposure, unwind: UnwindModel): void {
    this.#core = core;
    this.#exposure = exposure;
    this.#unwind = unwind;
  }

  markOf(symbol: string): number | undefined {
    return this.#marks.price(symbol);
  }

  changed(): void {
    this.#dirty = true;
  }

  skip(reason: string): void {
    this.#skipped.set(reason, (this.#skipped.get(reason) ?? 0) + 1);
  }

  capRefused(at: number): void {
    this.#facts.capRefused(at);
    this.#followers?.refused(at);
  }

  trip(t: ProtectionTrip): void {
    this.#trips.push({
      at: t.at,
      protection: t.protection,
      ...(t.symbol !== undefined ? { symbol: t.symbol } : {}),
      value: round(t.value),
    });
  }

  claimClosed(c: ClaimPnl): void {
    this.#facts.claimClosed(c);
  }

  /** A claim applied: `fills` at the venue's prices (fee: the liquidator fee of each). */
  won(id: number, d: ClaimDecision, fills: readonly Fill[], _at: number): void {
    this.claimed++;
    if (this.#model.keepIds) this.#claimedIds.push(id);
    this.#expectedFee += d.expectedFee;
    this.#notional += d.notional;
    let fees = 0;
    for (const f of fills) {
      fees += f.fee;
      this.flow(f.symbol, f.qty, f.price, f.fee);
      this.#facts.wonIn(f.symbol, Math.abs(f.qty) * f.price);
    }
    this.feesEarned += fees;
    this.#facts.won(id, fees);
    this.#dirty = true;
  }

  wonBy(variant: string, id: number): void {
    this.#model.onWon?.(variant, id);
  }

  /** Holdings and cash for the net curve: `qty` signed bought at `price`, `cash` received besides. */
  flow(symbol: string, qty: number, price: number, cash: number): void {
    let h = this.#held.get(symbol);
    if (h === undefined) {
      h = { symbol, qty: 0, mark: undefined };
      this.#held.set(symbol, h);
      this.#heldList.push(h);
    }
    h.qty += qty;
    this.#cash += cash - qty * price;
  }

  /** The net so far, holdings at the latest marks: O(symbols held). */
  netNow(): number {
    let value = this.#cash;
    const list = this.#heldList;
    for (let i = 0; i < list.length; i++) {
      const h = list[i] as Held;
      h.mark ??= this.#marks.get(h.symbol);
      value += h.qty * (h.mark?.price ?? 0);
    }
    return value;
  }

  /** The curves' point for the instant that ends (once per instant, however many changes it had); false: nothing changed. */
  settle(now: number): boolean {
    if (!this.#dirty) return false;
    this.#dirty = false;
    const e = (this.#exposure as Exposure).totalNotional(this.#marks);
    if (Number.isFinite(e)) {
      if (e > this.#peak) this.#peak = e;
      this.#exposureSeries.add(now, e);
      this.#lastExposure = e;
    }
    // The curve marks to market from cash and holdings (O(symbols)); it equals the ledger's net plus
    // unrealized, which walks every claim and is only read for the totals.
    const value = this.netNow();
    this.#net.add(now, value);
    this.#facts.point(now, value, this.#lastExposure);
    this.#followers?.point(now, this.#lastExposure);
    return true;
  }

  result(offered: number, now: number, venue: { sent: number; lost: number }, margin: MarginFacts): VariantResult {
    const ledger = (this.#core as TradingCore).fold.ledger;
    const unwind = this.#unwind as UnwindModel;
    const t = ledger.totals();
    const net = t.net + ledger.unrealized((s) => this.#marks.price(s));
    this.#net.add(now, net);
    this.#facts.point(now, net, this.#lastExposure);
    this.#followers?.point(now, this.#lastExposure);
    const facts = this.#facts.finish(now, net, ledger, (s) => this.#marks.price(s));
    const skipped: Record<string, number> = {};
    for (const k of [...this.#skipped.keys()].sort()) skipped[k] = this.#skipped.get(k) as number;
    return {
      name: this.#variant.name,
      settings: this.#variant.settings,
      offered,
      claimed: this.claimed,
      ...(this.#model.keepIds ? { claimed_ids: [...this.#claimedIds].sort((a, b) => a - b) } : {}),
      expected_fee: round(this.#expectedFee),
      claimed_notional: round(this.#notional),
      peak_exposure: round(this.#peak),
      skipped,
      sent: venue.sent,
      lost_to_others: venue.lost,
      unwind_orders: unwind.orders,
      estimated_unwind_cost: round(t.liquidatorFee - net),
      estimated_net: round(net),
      components: componentsOf(ledger, (s) => this.#marks.price(s)),
      net_at_alt_slippage: unwind.altCashDelta.map((d) => round(net + d)),
      ...facts,
      ...margin,
      series: { net: this.#net.points(), exposure: this.#exposureSeries.points() },
      protection_trips: this.#trips,
    };
  }
}
/**
 * What the curves tell the variants that follow this one's decisions (sweep/decisionGroup.ts
 * `DecisionFollowers`): a refusal and each exposure point. Named here so the two files do not import
 * each other.
 */
export interface CurveFollowers {
  refused(at: number): void;
  point(at: number, exposure: number): void;
}
