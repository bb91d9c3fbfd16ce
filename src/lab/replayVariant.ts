/**
 * One config variant of a backtest: the daemon's own per-account state objects (exposure, policy
 * state, position book, P&L ledger) in virtual time, with the claimer and the unwinder modelled
 * (virtualClaimer.ts, unwindModel.ts). The market it sees (open book, marks) and the daemon's input
 * handling are shared by all variants (replayMarket.ts), which calls `before` and `after` around
 * each recorded event; `result` summarises.
 */
import type { OpenBook } from "../daemon/openBook.js";
import { PolicyState } from "../daemon/policyState.js";
import { PROTECTION_SKIPS, protectionLimits } from "../daemon/protectionGuard.js";
import { UnwindSettings } from "../daemon/unwindSettings.js";
import { Exposure } from "../engine/exposure.js";
import type { MarkBook } from "../engine/marks.js";
import { PnlLedger } from "../engine/pnlLedger.js";
import { PositionBook } from "../engine/positionBook.js";
import { type ProtectionName, type ProtectionStep, Protections } from "../engine/protections.js";
import type { Mark } from "../engine/types.js";
import { spacingFor } from "../venue/limiters.js";
import { DecisionFollowers, type Fork } from "./decisionGroup.js";
import { DecisionMemo } from "./decisionMemo.js";
import { type LabAccount, LabMargin, type MarginFacts } from "./labMargin.js";
import { componentsOf, type NetComponents } from "./recordedAccount.js";
import { Series } from "./series.js";
import { Timeline } from "./timeline.js";
import { UnwindModel } from "./unwindModel.js";
import { type Facts, round, VariantFacts } from "./variantFacts.js";
import type { Variant } from "./variants.js";
import { feeRate, VirtualClaimer, type WonClaim } from "./virtualClaimer.js";

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

const EXPOSURE_SKIPS: ReadonlySet<string> = new Set(["exposure_cap", "margin"]);

export class ReplayVariant {
  readonly #variant: Variant;
  readonly #timeline = new Timeline();
  readonly #marks: MarkBook;
  readonly #exposure = new Exposure();
  readonly #facts: VariantFacts;
  readonly #ledger = new PnlLedger({
    keepClosedClaims: false,
    closed: (c) => {
      this.#facts.claimClosed(c);
      if (this.#protections !== undefined)
        this.#protect(this.#protections.claimClosed(c.symbols, c.liquidatorFee + c.trading - c.fees, this.#timeline.now));
    },
  });
  /** The daemon's protections over this variant's net (none when every limit is off). */
  readonly #protections: Protections | undefined;
  readonly #trips: ProtectionTripRow[] = [];
  readonly #keepIds: boolean;
  readonly #onWon: ((variant: string, id: number) => void) | undefined;
  #claimed = 0;
  #lastExposure = 0;
  /** What the shared input handling drives (replayMarket.ts). */
  readonly claimer: VirtualClaimer;
  readonly policy: PolicyState;
  readonly #unwind: UnwindModel;
  readonly #skipped = new Map<string, number>();
  readonly #claimedIds: number[] = [];
  readonly #net = new Series();
  readonly #exposureSeries = new Series(1_000, 4_000, "max");
  /** Something changed at the current virtual instant: the curves take a point before the clock moves. */
  #dirty = false;
  #expectedFee = 0;
  #notional = 0;
  #peak = 0;
  #cash = 0;
  /** Liquidator fees earned so far: what the account's collateral grows by in the margin check. */
  #feesEarned = 0;
  readonly #margin: LabMargin;
  /** Variants replayed as this one while they decide alike (decisionGroup.ts). */
  readonly #followers: DecisionFollowers | undefined;
  /** Decides, or gives back the decision of a liquidation decided again on unchanged inputs. */
  readonly #decisions: DecisionMemo;
  /** Holdings for the net curve, each with its live mark entry (MarkBook.get): no lookup per point. */
  readonly #held = new Map<string, Held>();
  readonly #heldList: Held[] = [];

  /**
   * `market`: the open book and marks every variant reads, written only between their turns.
   * `followers`: variants whose configs differ from this one's only under `policy`, replayed as this
   * one while their decisions are its own (decisionGroup.ts).
   */
  constructor(variant: Variant, model: ReplayModel, market: { book: OpenBook; marks: MarkBook }, followers: readonly Variant[] = []) {
    this.#variant = variant;
    const config = variant.config;
    const { book, marks } = market;
    this.#marks = marks;
    this.#keepIds = model.keepIds;
    this.#onWon = model.onWon;
    this.#facts = new VariantFacts(config.policy.max_total_exposure);
    this.#margin = new LabMargin(model.collateral, () => this.#feesEarned, model.account);
    const policy = new PolicyState(config.policy, marks, this.#exposure, this.#margin);
    this.policy = policy;
    const group = followers.length > 0 ? new DecisionFollowers(variant, followers) : undefined;
    this.#followers = group;
    this.#decisions = new DecisionMemo({
      context: () => policy.context,
      exposure: this.#exposure,
      marks,
      earned: () => this.#feesEarned,
      decide: group === undefined ? policy.decide : (liquidation, now) => group.lead(liquidation, now, policy.context),
    });
    const positions = new PositionBook(this.#exposure);
    const limits = protectionLimits(config.protections);
    const guarded = limits.dailyLossLimit !== null || limits.drawdownLimit !== null || limits.lossStreak !== null;
    this.#protections = guarded ? new Protections(limits) : undefined;
    const rules = this.#protections;
    this.claimer = new VirtualClaimer({
      ...(rules === undefined
        ? {}
        : {
            gate: (liquidation) =>
              rules.gate(
                liquidation.positions.map((p) => p.symbol),
                this.#timeline.now,
              ),
          }),
      decide: (liquidation, now) => {
        const d = this.#decisions.decide(liquidation, now);
        if (d.action === "skip" && d.reason === "exposure_cap") {
          this.#facts.capRefused(now);
          group?.refused(now);
        }
        if (d.action === "skip" && d.reason === "margin") this.#margin.skipped(now);
        return d;
      },
      book,
      exposure: this.#exposure,
      positions,
      timeline: this.#timeline,
      spacingMs: spacingFor(config.venue.limits.claims_per_second),
      latencyMs: model.latencyMs,
      ownTakes: model.ownTakes,
      won: (c) => this.#won(c),
      skipped: (reason) => this.#skipped.set(reason, (this.#skipped.get(reason) ?? 0) + 1),
    });
    this.#unwind = new UnwindModel({
      settings: new UnwindSettings(config.unwind),
      symbols: () => policy.context.symbols,
      marks: this.#marks,
      positions,
      ledger: this.#ledger,
      timeline: this.#timeline,
      spacingMs: spacingFor(config.venue.limits.orders_per_second),
      slippageBps: model.slippageBps,
      altSlippageBps: model.altSlippageBps,
      takerFeeBps: model.takerFeeBps,
      filled: (symbol, qty, price, fee) => {
        this.#flow(symbol, qty, price, -fee);
        this.#changed();
      },
    });
    // As in the daemon: a position that shrank frees exposure and margin, so those skips are re-decided.
    positions.onChange((_s, qty, before) => {
      if (Math.abs(qty) >= Math.abs(before)) return;
      this.#margin.freed(this.#timeline.now);
      this.claimer.retrySkipped(EXPOSURE_SKIPS);
    });
  }

  /** A recorded event at `at` is next: what was due before it runs first, and the clock moves to it. */
  before(at: number): void {
    this.#runUntil(at, false);
    if (at > this.#timeline.now) this.#settle();
    this.#timeline.setNow(at);
  }

  /**
   * The event at `at` was handled (`marksMoved`: a mark frame, which the curves take a point for):
   * what is due at its time runs.
   */
  after(at: number, marksMoved: boolean): void {
    if (marksMoved) this.#changed();
    this.#runUntil(at, true);
  }

  /** Runs what is still due (answers in flight, unwind slices) and summarises; `offered`: the liquidations seen. */
  result(offered: number): VariantResult {
    this.#runUntil(Number.POSITIVE_INFINITY, true);
    this.#settle();
    const t = this.#ledger.totals();
    const unrealized = this.#ledger.unrealized((s) => this.#marks.price(s));
    const net = t.net + unrealized;
    const now = this.#timeline.now;
    this.#net.add(now, net);
    this.#facts.point(now, net, this.#lastExposure);
    this.#followers?.point(now, this.#lastExposure);
    const facts = this.#facts.finish(now, net, this.#ledger, (s) => this.#marks.price(s));
    const margin = this.#margin.finish(now);
    const skipped: Record<string, number> = {};
    for (const k of [...this.#skipped.keys()].sort()) skipped[k] = this.#skipped.get(k) as number;
    return {
      name: this.#variant.name,
      settings: this.#variant.settings,
      offered,
      claimed: this.#claimed,
      ...(this.#keepIds ? { claimed_ids: [...this.#claimedIds].sort((a, b) => a - b) } : {}),
      expected_fee: round(this.#expectedFee),
      claimed_notional: round(this.#notional),
      peak_exposure: round(this.#peak),
      skipped,
      sent: this.claimer.sent,
      lost_to_others: this.claimer.lost,
      unwind_orders: this.#unwind.orders,
      estimated_unwind_cost: round(t.liquidatorFee - net),
      estimated_net: round(net),
      components: componentsOf(this.#ledger, (s) => this.#marks.price(s)),
      net_at_alt_slippage: this.#unwind.altCashDelta.map((d) => round(net + d)),
      ...facts,
      ...margin,
      series: { net: this.#net.points(), exposure: this.#exposureSeries.points() },
      protection_trips: this.#trips,
    };
  }

  /** After `result`: each follower's result, or where it forked (decisionGroup.ts). */
  followerResults(leader: VariantResult): ({ result: VariantResult } | { fork: Fork })[] {
    return this.#followers?.results(leader, this.#timeline.now) ?? [];
  }

  /** Claims won so far. */
  get claimed(): number {
    return this.#claimed;
  }

  /** The net so far, holdings at the latest marks (what the net curve reads): O(symbols held). */
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

  #runUntil(t: number, inclusive: boolean): void {
    const tl = this.#timeline;
    for (;;) {
      const a = tl.nextAt();
      const b = this.claimer.nextPermitAt();
      const n = Math.min(a, b);
      if (n === Number.POSITIVE_INFINITY || (inclusive ? n > t : n >= t)) return;
      if (n > tl.now) this.#settle();
      if (b <= a) {
        tl.setNow(b);
        this.claimer.permit();
      } else {
        tl.runNext();
      }
      this.#changed();
    }
  }

  #won(c: WonClaim): void {
    const d = c.decision;
    this.#claimed++;
    if (this.#keepIds) this.#claimedIds.push(c.id);
    this.#expectedFee += d.expectedFee;
    this.#notional += d.notional;
    // The venue transfers at the mark (docs/protocol.md §4): the fee is the fee rate of that notional.
    let fees = 0;
    const symbols = Object.keys(d.perSymbolQty);
    for (const symbol of symbols) {
      const qty = d.perSymbolQty[symbol] as number;
      // Priced at its limit (no mark): followers, whose limits may differ, cannot share this replay.
      const mark = this.#marks.price(symbol);
      if (mark === undefined) this.#followers?.forkAll(d);
      const price = mark ?? d.limitPrice[symbol] ?? 0;
      const fee = Math.abs(qty) * price * feeRate(c.liquidation, symbol);
      fees += fee;
      this.#ledger.claim(c.id, symbol, qty, price, fee, c.landedAt);
      this.#flow(symbol, qty, price, fee);
      this.#facts.wonIn(symbol, Math.abs(qty) * price);
    }
    this.#feesEarned += fees;
    this.#facts.won(c.id, fees);
    this.#unwind.assigned(symbols);
    this.#onWon?.(this.#variant.name, c.id);
  }

  #changed(): void {
    this.#dirty = true;
  }

  /**
   * The curves' point for the instant that ends (the state after everything that happened at it):
   * once per instant, however many changes it had.
   */
  #settle(): void {
    if (!this.#dirty) return;
    this.#dirty = false;
    const now = this.#timeline.now;
    const e = this.#exposure.totalNotional(this.#marks);
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
    // The daemon observes its net after claims, fills and every second; here, at every instant that changed it.
    if (this.#protections !== undefined) this.#protect(this.#protections.observe(value, now));
  }

  /** Trips recorded; a gate that opened again (or a cooldown that ended) re-decides what it skipped, as the daemon does. */
  #protect(step: ProtectionStep): void {
    for (const t of step.trips)
      this.#trips.push({
        at: t.at,
        protection: t.protection,
        ...(t.symbol !== undefined ? { symbol: t.symbol } : {}),
        value: round(t.value),
      });
    if (step.changed && step.trips.length === 0) this.claimer.retrySkipped(PROTECTION_SKIPS);
  }

  /** Holdings and cash for the net curve: `qty` signed bought at `price`, `cash` received besides. */
  #flow(symbol: string, qty: number, price: number, cash: number): void {
    let h = this.#held.get(symbol);
    if (h === undefined) {
      h = { symbol, qty: 0, mark: undefined };
      this.#held.set(symbol, h);
      this.#heldList.push(h);
    }
    h.qty += qty;
    this.#cash += cash - qty * price;
  }
}
