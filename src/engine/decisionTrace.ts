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
 *
 * The trace is read after the fact: `decideTraced` makes the decision exactly as `decide` does (the
 * same two steps, decisionLegs.ts and policy.ts `decideLegs`), then reads the trace from the legs
 * it left and the checks' own helpers (the same sums in the same order), so the live policy carries
 * nothing for the lab. The lab's "grouped or not, the same bytes" tests hold the two readings together.
 *
 * Longer than most files: the trace's reading and the replay that judges a follower's policy by it
 * are one argument (each check the follower must pass is where the trace was read); apart, each
 * half would restate the other's invariants.
 */

import type { ClaimMargin } from "./claimMargin.js";
import { maxRatioWithinBudget, roomForClaim } from "./claimRoom.js";
import { type DecisionLegs, decisionLegs, type Leg, legChecked, newDecisionLegs, type PolicyContext } from "./decisionLegs.js";
import type { Exposure } from "./exposure.js";
import { byFeeRate, claimedQty, decideLegs, legNetFee } from "./policy.js";
import { RATIO_QUANTA, safeLimitPrice } from "./quantize.js";
import type { RiskPolicy } from "./riskPolicy.js";
import type { SymbolTable } from "./symbolInfo.js";
import type { Decision, Liquidation, SkipDecision } from "./types.js";

/**
 * What settles other policies' decisions at one decision; filled by `decideTraced`, read before the
 * next decision and before the exposure or the marks change (the lab derives at once): the exposure
 * side (`exposed` to `order`) is read from the decision's context only when a policy with other caps
 * asks (`capsAgree`), since most decisions of a sweep never need it.
 */
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
  /** The decision's context and form, for the exposure side below. */
  context: PolicyContext | undefined;
  proportional: boolean;
  /** The exposure side has been read (`capsDetail`). */
  capsKnown: boolean;
  exposed: number;
  /** Every ratio cut to exposure was slack (see the file comment). */
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
    context: undefined,
    proportional: false,
    capsKnown: false,
    exposed: 0,
    capsSlack: true,
    notional: undefined,
    free: undefined,
    order: undefined,
  };
}

function resetDecideTrace(t: DecideTrace): void {
  t.legs = undefined;
  t.fullReached = false;
  t.feeReached = false;
  t.capsReached = false;
  t.context = undefined;
  t.capsKnown = false;
  t.capsSlack = true;
  t.notional = undefined;
  t.free = undefined;
  t.order = undefined;
}

/** The traced decisions' legs object (they are synchronous); each decision's legs array is its own. */
const tracedLegs = newDecisionLegs();

/** `decide` (policy.ts), with `t` filled from the legs and the decision afterwards. */
export function decideTraced(liq: Liquidation, ctx: PolicyContext, now: number, t: DecideTrace, margin?: ClaimMargin): Decision {
  resetDecideTrace(t);
  const skipped = decisionLegs(liq, ctx, now, tracedLegs);
  if (skipped !== undefined) return skipped;
  const d = decideLegs(liq.liquidationId, tracedLegs, ctx, margin);
  traceLegs(t, tracedLegs, ctx);
  return d;
}

/** Which checks the decision on `built` reached, and with what (the order policy.ts makes them in). */
function traceLegs(t: DecideTrace, built: DecisionLegs, ctx: PolicyContext): void {
  const legs = built.legs;
  t.legs = legs;
  if (built.anyLow) {
    // The proportional form: every leg must pass its own checks, then the whole must pay min_fee.
    for (const leg of legs) if (leg.reason !== undefined) return;
    t.fullReached = true;
    let net = 0;
    let minFee = 0;
    for (const leg of legs) {
      net += legNetFee(leg, leg.notional);
      if (leg.lim.minFee > minFee) minFee = leg.lim.minFee;
    }
    t.netAtFull = net;
    t.fullPassed = !(net < minFee);
    if (!t.fullPassed) return;
  } else {
    let checked = false;
    for (const leg of legs) if (legChecked(leg)) checked = true;
    if (!checked) return;
  }
  t.capsReached = true;
  t.cap = ctx.policy.maxTotalExposure;
  t.context = ctx;
  t.proportional = built.anyLow;
  // buildClaim: reached by any leg given a ratio, unless 1e-9 rounding left the claim no quantity.
  let claimed = 0;
  let net = 0;
  let minFee = 0;
  for (const leg of legs) {
    if (leg.k === 0) continue;
    const n = Math.abs(claimedQty(leg)) * leg.mark;
    claimed += n;
    net += legNetFee(leg, n);
    if (leg.lim.minFee > minFee) minFee = leg.lim.minFee;
  }
  if (claimed === 0) return;
  t.feeReached = true;
  t.netFee = net;
  t.feePassed = !(net < minFee);
}

/** The exposure side of a trace that reached the caps: the exposure, the budget's order or shares, the slack. */
function capsDetail(t: DecideTrace): void {
  if (t.capsKnown || t.context === undefined) return;
  t.capsKnown = true;
  const ctx = t.context as PolicyContext;
  const legs = t.legs ?? [];
  if (t.proportional) {
    t.notional = legs.map((leg) => leg.notional);
    t.free = legs.map((leg) => leg.freeNotional);
  } else {
    let checked = 0;
    for (const leg of legs) if (legChecked(leg)) checked++;
    t.order = checked > 1 ? byFeeRate(legs) : legs;
  }
  t.exposed = ctx.exposure.totalNotional(ctx.marks);
  t.capsSlack = slackUnder(t, t.cap - t.exposed, (leg) => leg.maxQty);
}

/** Neither the ratio nor a skip's reason came from the exposure room `rExp` (see the file comment). */
function capsSlack(rExp: number): boolean {
  return rExp >= 1;
}

/**
 * Whether every ratio the traced decision cut to exposure would be slack with `budget` of global
 * room and each leg's own room `maxQtyOf` (the traced policy's: what its decision saw; another's:
 * what that policy's decision would see), replaying the budget as policy.ts spends it.
 */
function slackUnder(t: DecideTrace, budget: number, maxQtyOf: (leg: Leg) => number): boolean {
  const legs = t.legs ?? [];
  if (t.order === undefined) {
    let rExp = Number.POSITIVE_INFINITY;
    for (const leg of legs) {
      const r = maxQtyOf(leg) / Math.abs(leg.pos.positionQty);
      if (r < rExp) rExp = r;
    }
    const rTotal = maxRatioWithinBudget(budget, t.notional ?? [], t.free ?? []);
    if (rTotal < rExp) rExp = rTotal;
    return capsSlack(rExp);
  }
  let left = budget;
  for (const leg of t.order) {
    if (!legChecked(leg)) continue;
    let rExp = maxQtyOf(leg) / Math.abs(leg.pos.positionQty);
    const rTotal = left >= 0 ? (left + leg.freeNotional) / leg.notional : 0;
    if (rTotal < rExp) rExp = rTotal;
    if (!capsSlack(rExp)) return false;
    if (leg.k > 0) left -= Math.max(0, (leg.notional * leg.k) / RATIO_QUANTA - leg.freeNotional);
  }
  return true;
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
  let same = policy.maxTotalExposure === t.cap;
  for (const leg of legs) if (same && leg.mark !== 0) same = policy.limitsFor(leg.pos.symbol).maxTotalExposure === leg.lim.maxTotalExposure;
  if (same) return true;
  capsDetail(t);
  // An extra_liquidation_ratio is sized by the exposure room past ratio 1 (extraRatio.ts): another cap may size it otherwise.
  if (!t.capsSlack || policy.extraThousandths > 0) return false;
  return slackUnder(t, policy.maxTotalExposure - t.exposed, (leg) => ownMaxQty(leg, policy, ctx.exposure));
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
