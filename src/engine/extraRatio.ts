/**
 * `policy.extra_liquidation_ratio` (docs/protocol.md §10): a claim that takes the whole liquidation (ratio 1,
 * no `symbols`) may also ask for up to that fraction more, which the venue transfers only if the live
 * quantity has grown since the push. The extra is sized like the ratio: no more than every cap
 * (max_claim_notional, each symbol's and the global exposure cap) and the margin limits allow at
 * (1 + extra) of the quantity, in whole thousandths; the claim reserves that most it may take.
 */
import type { ClaimMargin, MarginLeg, MarginState } from "./claimMargin.js";
import { maxRatioWithinBudget } from "./claimRoom.js";
import type { Leg } from "./decisionLegs.js";
import type { Exposure } from "./exposure.js";
import type { MarkBook } from "./marks.js";
import { RATIO_QUANTA, roundQty } from "./quantize.js";
import type { RiskPolicy } from "./riskPolicy.js";
import type { ClaimDecision } from "./types.js";

/** What the extra is sized against: the part of policy.ts's `PolicyContext` it reads (policy.ts imports this file). */
export interface ExtraContext {
  readonly policy: RiskPolicy;
  readonly marks: MarkBook;
  readonly exposure: Exposure;
}

/** The largest extra (thousandths, ≤ `wanted`) the caps leave a claim of these legs at ratio 1. */
function extraByCaps(legs: readonly Leg[], ctx: ExtraContext, wanted: number): number {
  let claimWeight = 0;
  let r = Number.POSITIVE_INFINITY;
  const notional: number[] = [];
  const free: number[] = [];
  for (const leg of legs) {
    claimWeight += leg.notional / leg.lim.maxClaimNotional;
    const own = leg.maxQty / Math.abs(leg.pos.positionQty);
    if (own < r) r = own;
    notional.push(leg.notional);
    free.push(leg.freeNotional);
  }
  if (claimWeight > 0 && 1 / claimWeight < r) r = 1 / claimWeight;
  const global = maxRatioWithinBudget(ctx.policy.maxTotalExposure - ctx.exposure.totalNotional(ctx.marks), notional, free);
  if (global < r) r = global;
  if (!(r > 1)) return 0;
  return Math.min(wanted, Math.floor(r * RATIO_QUANTA + 1e-6) - RATIO_QUANTA);
}

/** The largest extra in [0, `upTo`] at which the legs keep the margin limits (they do at 1: convex beyond). */
function extraByMargin(legs: readonly MarginLeg[], margin: ClaimMargin, upTo: number): number {
  if (margin.fitsAllAt(legs, RATIO_QUANTA + upTo)) return upTo;
  let lo = 0;
  let hi = upTo;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (margin.fitsAllAt(legs, RATIO_QUANTA + mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * The claim with its extra, when the policy asks for one and the claim takes everything (ratio 1, no
 * `symbols`, every open leg whole); otherwise the claim as it is.
 */
export function withExtraRatio(d: ClaimDecision, legs: Leg[], ctx: ExtraContext, margin: ClaimMargin, m: MarginState): ClaimDecision {
  const wanted = ctx.policy.extraThousandths;
  if (wanted === 0 || d.ratio !== 1 || d.symbols !== undefined) return d;
  for (const leg of legs) if (leg.k !== RATIO_QUANTA) return d;
  let extra = extraByCaps(legs, ctx, wanted);
  if (extra > 0 && m === "ready") extra = extraByMargin(legs, margin, extra);
  if (extra <= 0) return d;
  const most: Record<string, number> = {};
  for (const leg of legs) most[leg.pos.symbol] = roundQty((leg.pos.positionQty * (RATIO_QUANTA + extra)) / RATIO_QUANTA);
  return { ...d, perSymbolQty: most, extraRatio: extra / RATIO_QUANTA };
}
