/**
 * A decision's first step (policy.ts): one leg per open symbol of the liquidation, each with what
 * its symbol allows — access, a fresh mark, its limit price, its own exposure room — or the reason it
 * cannot be claimed. The claim forms and the shared budgets (policy.ts `decideLegs`) work on the
 * legs; the lab's trace (decisionTrace.ts) reads them after the decision, never inside it.
 */
import type { MarginSource } from "./claimMargin.js";
import { roomForClaim } from "./claimRoom.js";
import type { Exposure } from "./exposure.js";
import { invalidLiquidation } from "./invalidLiquidation.js";
import type { MarkBook } from "./marks.js";
import { safeLimitPrice } from "./quantize.js";
import type { RiskPolicy, SymbolLimits } from "./riskPolicy.js";
import type { SymbolTable } from "./symbolInfo.js";
import type { Liquidation, LiquidationPosition, SkipDecision, SkipReason } from "./types.js";

/** Everything a decision reads besides the liquidation and the time. */
export interface PolicyContext {
  readonly policy: RiskPolicy;
  readonly symbols: SymbolTable;
  readonly marks: MarkBook;
  readonly exposure: Exposure;
  /** The account's collateral (docs/protocol.md §7); none, or not yet known: margin is not checked. */
  readonly account?: MarginSource | undefined;
}

/** Per open symbol, what the decision needs (one small object per symbol, no closures). */
export interface Leg {
  readonly pos: LiquidationPosition;
  reason: SkipReason | undefined;
  lim: SymbolLimits;
  /** The mark decided at; 0 until the leg passed its access and mark checks (its limit price is then computed). */
  mark: number;
  notional: number;
  limit: number;
  /** Largest |q| the symbol's own exposure cap allows. */
  maxQty: number;
  /** Notional of |q| that does not raise the worst-case exposure (see roomForClaim). */
  freeNotional: number;
  /** Ratio given to this leg, in thousandths (0 = not claimed). */
  k: number;
}

/**
 * The legs of a liquidation, and whether any is low tier (the claim is then one proportional share).
 * Filled by `decisionLegs` into the caller's object: a decision allocates its legs and nothing more.
 */
export interface DecisionLegs {
  legs: Leg[];
  anyLow: boolean;
}

export function newDecisionLegs(): DecisionLegs {
  return { legs: [], anyLow: false };
}

export function skip(liquidationId: number, reason: SkipReason, detail: string | undefined): SkipDecision {
  return { action: "skip", liquidationId, reason, detail };
}

/**
 * Fills `into` with the legs (a new array each time: a trace may keep it) and returns undefined, or
 * returns the skip that ends the decision before any (an invalid liquidation, an unknown symbol).
 */
export function decisionLegs(liq: Liquidation, ctx: PolicyContext, now: number, into: DecisionLegs): SkipDecision | undefined {
  const id = liq.liquidationId;
  const bad = invalidLiquidation(liq);
  if (bad !== undefined) return skip(id, "invalid_liquidation", bad);
  const { policy, symbols, marks, exposure } = ctx;

  const legs: Leg[] = [];
  into.legs = legs;
  into.anyLow = false;
  for (const pos of liq.positions) {
    if (pos.positionQty === 0) continue;
    const info = symbols.get(pos.symbol);
    // Without its tier the claim form cannot be chosen, whatever the other symbols are.
    if (info === undefined) return skip(id, "unknown_symbol", pos.symbol);
    if (info.tier === 1) into.anyLow = true;
    const lim = policy.limitsFor(pos.symbol);
    const leg: Leg = { pos, reason: undefined, lim, mark: 0, notional: 0, limit: 0, maxQty: 0, freeNotional: 0, k: 0 };
    legs.push(leg);

    const access = policy.access(pos.symbol);
    if (access !== "allowed") {
      leg.reason = access === "denied" ? "symbol_denied" : "symbol_not_allowed";
      continue;
    }
    const m = marks.get(pos.symbol);
    if (m === undefined || !(m.price > 0) || m.price === Number.POSITIVE_INFINITY) {
      leg.reason = "mark_missing";
      continue;
    }
    // `!(≤)` so a NaN age (bad clock input) counts as stale.
    if (!(now - m.receivedAt <= lim.maxMarkAgeMs)) {
      leg.reason = "mark_stale";
      continue;
    }
    leg.mark = m.price;
    leg.notional = Math.abs(pos.positionQty) * m.price;
    if (!Number.isFinite(leg.notional)) return skip(id, "invalid_liquidation", pos.symbol);
    leg.limit = safeLimitPrice(
      pos.positionQty,
      m.price,
      pos.positionQty > 0 ? lim.upNumerator : lim.downNumerator,
      info.priceTick,
      info.priceDecimals,
    );
    if (Number.isNaN(leg.limit)) {
      leg.reason = "limit_tick";
      continue;
    }
    const room = roomForClaim(exposure.get(pos.symbol), pos.positionQty, lim.maxTotalExposure / m.price);
    leg.maxQty = room.maxQty;
    leg.freeNotional = room.free * m.price;
  }
  return undefined;
}

/**
 * The leg passed every check of its own (access, mark, limit price): it takes part in the budgets.
 * Read after the decision, where a cap may have given it a reason since.
 */
export function legChecked(leg: Leg): boolean {
  return leg.mark !== 0 && !Number.isNaN(leg.limit);
}
