/**
 * A decision's trace, and the decisions it settles for other policies. `min_fee` and
 * `limit_price_slippage_bps` enter a decision (policy.ts) at three places only: each leg's limit
 * price (slippage; NaN excludes the leg as `limit_tick`), the proportional claim's check of its fee
 * net at full size, and buildClaim's check of the claimed fee (min_fee). Everything else a decision
 * computes is the same under two policies that differ in nothing but those two keys (globally or per
 * symbol). So from one decision's trace — its legs, the two fees and whether each passed — the
 * decision of such a policy is known whenever its legs are excluded alike and it passes each check
 * the traced one reached (then it is the traced decision, limit prices aside), or fails one (then it
 * is `below_min_fee`). Otherwise it is not known here and must be decided in full.
 *
 * `max_total_exposure` (globally or per symbol) enters only where a ratio is cut to the exposure
 * left. Where the traced decision's exposure room was slack at every cut (room for the whole
 * position, rExp ≥ 1), the ratio is min(1, the claim-size bound) whatever the room, and the room can
 * name a skip's reason only when it is under the claim-size bound, i.e. at a whole ratio, which
 * only the margin step can then cut (naming margin). So a policy with another cap decides alike if
 * its room, computed the same way on the same exposure, is slack too; with the same caps, alike
 * whatever the room.
 *
 * The policy lab decides many variants at each decision of one (lab/sweep/decisionGroup.ts); most differ
 * in these keys, and a trace answers for them at the cost of a few comparisons.
 */
import { maxRatioWithinBudget, roomForClaim } from "./claimRoom.js";
import type { Exposure } from "./exposure.js";
import { RATIO_QUANTA, safeLimitPrice } from "./quantize.js";
import type { RiskPolicy, SymbolLimits } from "./riskPolicy.js";
import type { SymbolTable } from "./symbolInfo.js";
import type { Decision, LiquidationPosition, SkipDecision, SkipReason } from "./types.js";

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
  /** A per-symbol claim gave this leg its turn at the budgets (traced only). */
  turn: boolean;
}

/** Filled by `decide` when given one; read before the next decision with it. */
export interface DecideTrace {
  /** The legs, once the decision got past building them (undefined: it stopped before, whatever the three keys). */
  legs: readonly Leg[] | undefined;
  /** The proportional form's fee net of unwind cost at full size was compared with min_fee. */
  fullReached: boolean;
  netAtFull: number;
  fullPassed: boolean;
  /** buildClaim compared the claim's net fee with min_fee. */
  feeReached: boolean;
  netFee: number;
  feePassed: boolean;
  /** The global exposure budget was computed: `cap` − `exposed`. */
  capsReached: boolean;
  cap: number;
  exposed: number;
  /** Every ratio cut to exposure so far was slack (see the file comment). */
  capsSlack: boolean;
  /** Proportional: the legs' notionals and free room, as the budget was cut. */
  notional: readonly number[] | undefined;
  free: readonly number[] | undefined;
  /** Per symbol: the legs in the order the budgets were given out. */
  order: readonly Leg[] | undefined;
}

export function newDecideTrace(): DecideTrace {
  return {
    legs: undefined,
    fullReached: false,
    netAtFull: 0,
    fullPassed: false,
    feeReached: false,
    netFee: 0,
    feePassed: false,
    capsReached: false,
    cap: 0,
    exposed: 0,
    capsSlack: true,
    notional: undefined,
    free: undefined,
    order: undefined,
  };
}

export function resetDecideTrace(t: DecideTrace): void {
  t.legs = undefined;
  t.fullReached = false;
  t.feeReached = false;
  t.capsReached = false;
  t.capsSlack = true;
  t.notional = undefined;
  t.free = undefined;
  t.order = undefined;
}

/** Neither the ratio nor a skip's reason came from the exposure room `rExp` (see the file comment). */
export function capsSlack(rExp: number): boolean {
  return rExp >= 1;
}

export function traceProportionalCaps(t: DecideTrace, rExp: number, notional: number[], free: number[]): void {
  t.capsSlack = capsSlack(rExp);
  t.notional = notional;
  t.free = free;
}

/**
 * The decision `policy` makes where `traced` was made (with the trace `t`, on the same liquidation,
 * symbols, marks, exposure and account), or undefined when the trace cannot tell. `policy` must
 * differ from the traced decision's policy in `min_fee`, `limit_price_slippage_bps` and
 * `max_total_exposure` alone (the caller's grouping guarantees it). A claim given back is `traced`
 * itself: its limit prices are the traced policy's. `agree`: the answers of `limitsAgree` and
 * `capsAgree` for `policy`, from a caller that remembers them for policies alike in those keys.
 */
export function derivedDecision(
  traced: Decision,
  t: DecideTrace,
  policy: RiskPolicy,
  ctx: TracedContext,
  agree?: Agreement,
): Decision | undefined {
  const legs = t.legs;
  if (legs === undefined) return traced;
  if (!(agree === undefined ? limitsAgree(t, policy, ctx) : agree.limits(policy))) return undefined;
  if (t.fullReached) {
    let minFee = 0;
    for (const leg of legs) minFee = Math.max(minFee, policy.limitsFor(leg.pos.symbol).minFee);
    if (t.netAtFull < minFee) return belowMinFee(traced.liquidationId);
    if (!t.fullPassed) return undefined;
  }
  if (t.capsReached && !(agree === undefined ? capsAgree(t, policy, ctx) : agree.caps(policy))) return undefined;
  if (t.feeReached) {
    let minFee = 0;
    for (const leg of legs) if (leg.k > 0) minFee = Math.max(minFee, policy.limitsFor(leg.pos.symbol).minFee);
    if (t.netFee < minFee) return belowMinFee(traced.liquidationId);
    if (!t.feePassed) return undefined;
  }
  return traced;
}

/** What a trace is read against: the decision's own symbols and exposure. */
export interface TracedContext {
  readonly symbols: SymbolTable;
  readonly exposure: Exposure;
}

/** `limitsAgree` and `capsAgree` for a policy, remembered by a caller (the same for policies alike in the keys each reads). */
export interface Agreement {
  limits(policy: RiskPolicy): boolean;
  caps(policy: RiskPolicy): boolean;
}

/** Whether `policy`'s slippage excludes (limit_tick) the traced decision's legs as its own did. Reads only the slippage settings. */
export function limitsAgree(t: DecideTrace, policy: RiskPolicy, ctx: TracedContext): boolean {
  for (const leg of t.legs ?? []) {
    if (leg.mark === 0) continue;
    const own = policy.limitsFor(leg.pos.symbol);
    const qty = leg.pos.positionQty;
    const numerator = qty > 0 ? own.upNumerator : own.downNumerator;
    if (numerator === (qty > 0 ? leg.lim.upNumerator : leg.lim.downNumerator)) continue;
    const info = ctx.symbols.get(leg.pos.symbol);
    if (info === undefined) return false;
    const limit = safeLimitPrice(qty, leg.mark, numerator, info.priceTick, info.priceDecimals);
    // A leg one policy excludes (limit_tick) and the other claims: their paths part here.
    if (Number.isNaN(limit) !== Number.isNaN(leg.limit)) return false;
  }
  return true;
}

/**
 * Whether `policy`'s exposure caps cut the traced decision's ratios as its own did (see the file
 * comment), once the budget was computed. Reads only the caps.
 */
export function capsAgree(t: DecideTrace, policy: RiskPolicy, ctx: TracedContext): boolean {
  const legs = t.legs ?? [];
  const exposure = ctx.exposure;
  let same = policy.maxTotalExposure === t.cap;
  for (const leg of legs) if (same && leg.mark !== 0) same = policy.limitsFor(leg.pos.symbol).maxTotalExposure === leg.lim.maxTotalExposure;
  if (same) return true;
  // An extra_liquidation_ratio is sized by the exposure room past ratio 1 (extraRatio.ts): another cap may size it otherwise.
  if (!t.capsSlack || policy.extraThousandths > 0) return false;
  let budget = policy.maxTotalExposure - t.exposed;
  if (t.order === undefined) {
    let rExp = Number.POSITIVE_INFINITY;
    for (const leg of legs) {
      const r = ownMaxQty(leg, policy, exposure) / Math.abs(leg.pos.positionQty);
      if (r < rExp) rExp = r;
    }
    const rTotal = maxRatioWithinBudget(budget, t.notional ?? [], t.free ?? []);
    if (rTotal < rExp) rExp = rTotal;
    return capsSlack(rExp);
  }
  for (const leg of t.order) {
    if (!leg.turn) continue;
    let rExp = ownMaxQty(leg, policy, exposure) / Math.abs(leg.pos.positionQty);
    const rTotal = budget >= 0 ? (budget + leg.freeNotional) / leg.notional : 0;
    if (rTotal < rExp) rExp = rTotal;
    if (!capsSlack(rExp)) return false;
    if (leg.k > 0) budget -= Math.max(0, (leg.notional * leg.k) / RATIO_QUANTA - leg.freeNotional);
  }
  return true;
}

/** The largest |q| the leg's symbol cap allows under `policy` (the traced one's when the caps are equal). */
function ownMaxQty(leg: Leg, policy: RiskPolicy, exposure: Exposure): number {
  const cap = policy.limitsFor(leg.pos.symbol).maxTotalExposure;
  if (cap === leg.lim.maxTotalExposure) return leg.maxQty;
  return roomForClaim(exposure.get(leg.pos.symbol), leg.pos.positionQty, cap / leg.mark).maxQty;
}

function belowMinFee(liquidationId: number): SkipDecision {
  return { action: "skip", liquidationId, reason: "below_min_fee", detail: undefined };
}
