/**
 * One config variant of a backtest (or a live shadow): the daemon's own trading core and claim desk
 * (core/buildCore.ts) and its protections (daemon/control/protectionGuard.ts), in virtual time, on the
 * modelled venue of modelledVenue.ts; claims permitted at the claims limiter's spacing, unwinds
 * filled by the unwind model (unwindModel.ts). The market it sees (open book, marks) and the
 * daemon's input handling are shared by all variants (replayMarket.ts), which calls `before` and
 * `after` around each recorded event; `result` summarises (variantCurves.ts keeps the figures).
 */
import { buildTradingCore } from "../../core/buildCore.js";
import type { ClaimDesk } from "../../core/claimDesk.js";
import type { ClaimLimiter } from "../../core/claimQueue.js";
import { CoreFold } from "../../core/coreFold.js";
import { claimLimiterOf } from "../../core/fundSupply.js";
import type { TradingCore } from "../../core/tradingCore.js";
import { PolicyState } from "../../daemon/claim/policyState.js";
import { ProtectionGuard, protectionLimits } from "../../daemon/control/protectionGuard.js";
import { TradingState } from "../../daemon/control/tradingState.js";
import type { OpenBook } from "../../daemon/feeds/openBook.js";
import { UnwindSettings } from "../../daemon/unwind/unwindSettings.js";
import { Exposure } from "../../engine/exposure.js";
import type { MarkBook } from "../../engine/marks.js";
import type { ClaimDecision } from "../../engine/policy.js";
import { PositionBook } from "../../engine/positionBook.js";
import type { Liquidation } from "../../engine/types.js";
import { spacingFor } from "../../venue/limiters.js";
import { FUND_ROW_TYPE } from "../../venue/mapping.js";
import { DecisionFollowers, type Fork } from "../sweep/decisionGroup.js";
import { DecisionMemo } from "../sweep/decisionMemo.js";
import type { Variant } from "../sweep/variants.js";
import { LabMargin } from "./labMargin.js";
import { ModelledVenue } from "./modelledVenue.js";
import { Timeline } from "./timeline.js";
import { UnwindModel } from "./unwindModel.js";
import { type ReplayModel, VariantCurves, type VariantResult } from "./variantCurves.js";

export type { ProtectionTripRow, ReplayModel, VariantResult } from "./variantCurves.js";

const SILENT = { info: () => undefined, warn: () => undefined, error: () => undefined };

export class ReplayVariant {
  readonly #variant: Variant;
  readonly #timeline = new Timeline();
  readonly #exposure = new Exposure();
  readonly #venue: ModelledVenue;
  readonly #core: TradingCore;
  readonly #desk: ClaimDesk;
  readonly #curves: VariantCurves;
  readonly #unwind: UnwindModel;
  readonly #margin: LabMargin;
  readonly #guard: ProtectionGuard | undefined;
  /** Variants replayed as this one while they decide alike (decisionGroup.ts). */
  readonly #followers: DecisionFollowers | undefined;
  /** The decisions of the claims out, by id (a won claim's facts). */
  readonly #out = new Map<number, { d: ClaimDecision; sentAt: number }>();
  readonly #spacingMs: number;
  /** Per claim limiter (core/claimQueue.ts), as the daemon's: the last permit, and since when it had work. */
  readonly #lastPermit: Record<ClaimLimiter, number> = { claims: Number.NEGATIVE_INFINITY, fund_claims: Number.NEGATIVE_INFINITY };
  readonly #nonEmptySince: Record<ClaimLimiter, number> = { claims: 0, fund_claims: 0 };
  #sweptAt = Number.NEGATIVE_INFINITY;
  readonly policy: PolicyState;

  /**
   * `market`: the open book and marks every variant reads, written only between their turns.
   * `followers`: variants whose configs differ from this one's only under `policy`, replayed as this
   * one while their decisions are its own (decisionGroup.ts).
   */
  constructor(variant: Variant, model: ReplayModel, market: { book: OpenBook; marks: MarkBook }, followers: readonly Variant[] = []) {
    this.#variant = variant;
    const config = variant.config;
    const { book, marks } = market;
    const t = this.#timeline;
    this.#spacingMs = spacingFor(config.venue.limits.claims_per_second);
    const limiterOf = claimLimiterOf(config.insurance_fund.route);
    const group = followers.length > 0 ? new DecisionFollowers(variant, followers) : undefined;
    this.#followers = group;
    const curves = new VariantCurves(variant, model, marks, group);
    this.#curves = curves;
    this.#margin = new LabMargin(model.collateral, () => curves.feesEarned, model.account);
    const policy = new PolicyState(config.policy, marks, this.#exposure, this.#margin);
    this.policy = policy;
    const decisions = new DecisionMemo({
      context: () => policy.context,
      exposure: this.#exposure,
      marks,
      earned: () => curves.feesEarned,
      decide: group === undefined ? policy.decide : (liquidation, now) => group.lead(liquidation, now, policy.context),
    });
    const venue = new ModelledVenue({
      timeline: t,
      book,
      marks,
      latencyMs: model.latencyMs,
      ownTakes: model.ownTakes,
      lost: () => curves.skip("taken_by_other"),
    });
    this.#venue = venue;
    const positions = new PositionBook(this.#exposure);
    const limits = protectionLimits(config.protections);
    const guarded = limits.dailyLossLimit !== null || limits.drawdownLimit !== null || limits.lossStreak !== null;
    const { core, desk } = buildTradingCore({
      fold: new CoreFold(),
      exposure: this.#exposure,
      positions,
      port: venue.port,
      fundRoute: config.insurance_fund.route,
      scope: () => "all",
      mark: (symbol) => marks.price(symbol),
      orderWorking: () => false,
      changed: () => undefined,
      desk: {
        decide: (liquidation, now) => {
          const d = decisions.decide(liquidation, now);
          if (d.action === "skip" && d.reason === "exposure_cap") curves.capRefused(now);
          if (d.action === "skip" && d.reason === "margin") this.#margin.skipped(now);
          return d;
        },
        ...(guarded ? { gate: (liquidation: Liquidation) => this.#guard?.gate(liquidation) } : {}),
        book: venue.book,
        dryRun: () => false,
        skipped: (reason) => curves.skip(reason),
        paused: () => undefined,
        queued: (liquidation, _d, added) => {
          const limiter = limiterOf(liquidation);
          if (added && desk.queue.sizeOf(limiter) === 1) this.#nonEmptySince[limiter] = t.now;
        },
        wake: () => {
          this.#nonEmptySince.claims = t.now;
          this.#nonEmptySince.fund_claims = t.now;
        },
        onBusy: (id) => venue.busy(id),
        taken: (d, liquidation) => {
          venue.taken(d, liquidation);
          this.#out.set(d.liquidationId, { d, sentAt: t.now });
        },
      },
      observer: {
        submitted: () => undefined,
        decisionLatency: () => undefined,
        result: () => undefined,
        feeEarned: () => undefined,
        settled: (id, fills, venueTs) => this.#won(id, fills, venueTs),
        traded: () => undefined,
        unknown: () => undefined,
        givenUp: () => undefined,
        changed: () => curves.changed(),
      },
      logger: SILENT,
    });
    this.#core = core;
    this.#desk = desk;
    this.#guard = guarded
      ? new ProtectionGuard({
          limits,
          ledger: () => core.fold.ledger,
          mark: (symbol) => marks.price(symbol),
          trading: new TradingState({ pause: (state, on) => desk.pause(state, on), logger: SILENT }),
          store: { append: () => undefined, mayLead: () => true },
          reopen: (reasons) => desk.retrySkipped(reasons),
          tripped: (trip) => curves.trip(trip),
          now: () => t.now,
          logger: SILENT,
        })
      : undefined;
    core.adopt(core.fold, (c) => {
      curves.claimClosed(c);
      this.#guard?.claimClosed(c);
    });
    this.#unwind = new UnwindModel({
      settings: new UnwindSettings(config.unwind),
      symbols: () => policy.context.symbols,
      marks,
      positions,
      own: core.orders,
      timeline: t,
      spacingMs: spacingFor(config.venue.limits.orders_per_second),
      slippageBps: model.slippageBps,
      altSlippageBps: model.altSlippageBps,
      takerFeeBps: model.takerFeeBps,
      filled: (symbol, qty, price, fee) => {
        curves.flow(symbol, qty, price, -fee);
        curves.changed();
      },
    });
    curves.bind(core, this.#exposure, this.#unwind);
    // The margin facts: a position that shrank frees margin (the core re-decides the skips itself).
    positions.onChange((_s, qty, before) => {
      if (Math.abs(qty) < Math.abs(before)) this.#margin.freed(t.now);
    });
  }

  /** A liquidation new or changed on the shared book; the insurance fund's rows only with `insurance_fund.enabled`. */
  offer(liquidation: Liquidation): void {
    if (liquidation.type === FUND_ROW_TYPE && !this.#variant.config.insurance_fund.enabled) return;
    this.#venue.offered(liquidation);
    this.#desk.offer(liquidation, this.#timeline.now);
  }

  /** The id left the shared book: cancelled, unless the recording account took it and it stays open here. */
  cancel(id: number): void {
    if (this.#venue.left(id, this.#core.busy(id))) return;
    this.#desk.cancel(id);
  }

  retrySkipped(reasons?: ReadonlySet<string>): void {
    this.#desk.retrySkipped(reasons);
  }

  /** The daemon's sweep, once a virtual minute: ghosts kept 10 min are forgotten, skips of ids no longer open too. */
  sweep(): void {
    const now = this.#timeline.now;
    if (now - this.#sweptAt < 60_000) return;
    this.#sweptAt = now;
    const venue = this.#venue;
    venue.forgetGhosts(now - 600_000, (id) => this.#desk.cancel(id));
    this.#desk.sweep((id) => venue.book.get(id) !== undefined);
  }

  /** A recorded event at `at` is next: what was due before it runs first, and the clock moves to it. */
  before(at: number): void {
    this.#runUntil(at, false);
    if (at > this.#timeline.now) this.#settle();
    this.#timeline.setNow(at);
  }

  /** The event at `at` was handled (`marksMoved`: a mark frame, which the curves take a point for): what is due at its time runs. */
  after(at: number, marksMoved: boolean): void {
    if (marksMoved) this.#curves.changed();
    this.#runUntil(at, true);
  }

  /** Runs what is still due (answers in flight, unwind slices) and summarises; `offered`: the liquidations seen. */
  result(offered: number): VariantResult {
    this.#runUntil(Number.POSITIVE_INFINITY, true);
    this.#settle();
    return this.#curves.result(offered, this.#timeline.now, this.#venue, this.#margin.finish(this.#timeline.now));
  }

  /** After `result`: each follower's result, or where it forked (decisionGroup.ts). */
  followerResults(leader: VariantResult): ({ result: VariantResult } | { fork: Fork })[] {
    return this.#followers?.results(leader, this.#timeline.now) ?? [];
  }

  /** Claims won so far. */
  get claimed(): number {
    return this.#curves.claimed;
  }

  /** The net so far, holdings at the latest marks (what the net curve reads): O(symbols held). */
  netNow(): number {
    return this.#curves.netNow();
  }

  /** Time of the next permit of `limiter`, Infinity while nothing may leave. */
  #nextPermitAt(limiter: ClaimLimiter): number {
    const desk = this.#desk;
    if (desk.queue.sizeOf(limiter) === 0 || desk.pauses.size > 0) return Number.POSITIVE_INFINITY;
    return Math.max(this.#nonEmptySince[limiter], this.#lastPermit[limiter] + this.#spacingMs);
  }

  #runUntil(t: number, inclusive: boolean): void {
    const tl = this.#timeline;
    for (;;) {
      const a = tl.nextAt();
      const c = this.#nextPermitAt("claims");
      const f = this.#nextPermitAt("fund_claims");
      const limiter: ClaimLimiter = f < c ? "fund_claims" : "claims"; // the claims limiter first on a tie
      const b = Math.min(c, f);
      const n = Math.min(a, b);
      if (n === Number.POSITIVE_INFINITY || (inclusive ? n > t : n >= t)) return;
      if (n > tl.now) this.#settle();
      if (b <= a) {
        tl.setNow(b);
        this.#lastPermit[limiter] = b;
        this.#desk.take(undefined, limiter);
        if (this.#desk.queue.sizeOf(limiter) > 0) this.#nonEmptySince[limiter] = b;
      } else {
        tl.runNext();
      }
      this.#curves.changed();
    }
  }

  /** A claim the modelled venue applied: its facts, and its positions to unwind. */
  #won(id: number, fills: readonly { symbol: string; qty: number; price: number; fee: number }[], landedAt: number): void {
    const out = this.#out.get(id);
    this.#out.delete(id);
    if (out === undefined) return;
    // Priced at its limit (no mark): followers, whose limits may differ, cannot share this replay.
    for (const f of fills) if (this.#curves.markOf(f.symbol) === undefined) this.#followers?.forkAll(out.d);
    this.#curves.won(id, out.d, fills, landedAt);
    this.#unwind.assigned(fills.map((f) => f.symbol));
    this.#curves.wonBy(this.#variant.name, id);
  }

  /** The curves' point for the instant that ends, and the protections' look at it (as the daemon's each second). */
  #settle(): void {
    if (!this.#curves.settle(this.#timeline.now)) return;
    this.#guard?.check();
  }
}
