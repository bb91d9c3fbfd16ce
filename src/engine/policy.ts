/**
 * The decision: liquidation + marks + exposure + risk policy → claim (with its guards) or skip (with
 * a reason from a closed set, the `reason` label of `claims_skipped_total`). Pure: no I/O, no clock
 * (`now` is passed in), no randomness; the same inputs always give the same decision. Its first
 * step, the legs, is decisionLegs.ts; the lab's trace (decisionTrace.ts) is read from the legs and
 * the decision after the fact and has no part here.
 *
 * Semantics of each policy key (README.md "Configuration"; `lim` = the symbol's limits, overrides merged in):
 * - allow / deny: deny wins; an empty allow list allows every symbol.
 * - max_mark_age_ms: a symbol whose mark is missing, or older than its limit at `now`, is not claimed.
 * - limit_price_slippage_bps: see `safeLimitPrice` (quantize.ts); a symbol whose quantised limit
 *   would land on the wrong side of the mark is not claimed (`limit_tick`).
 * - max_claim_notional: each symbol's part (|q| × mark) of one claim spends part / lim.maxClaimNotional
 *   of a single budget of 1. With no overrides this is exactly "claim notional ≤ max_claim_notional";
 *   an override sets the limit for that symbol's part, and a claim spanning several symbols cannot
 *   exceed what its parts would be allowed alone (each part ≤ its own limit, total ≤ the largest).
 * - max_total_exposure: the global value caps Σ over all symbols of the worst-case exposure (held +
 *   reserved, exposure.ts), the merged per-symbol value caps that symbol's own; the claim's ratio is
 *   cut so that both still hold with the claim reserved.
 * - max_margin_usage / min_free_collateral (claimMargin.ts): the initial margin of everything held
 *   plus claims in flight, after the claim, within both limits; the ratio is cut to fit like the
 *   caps above, and the claim is skipped with reason `margin` when margin is what leaves nothing.
 *   Not checked while the account's collateral or leverage is unknown (no `account`).
 * - extra_liquidation_ratio: a whole claim (ratio 1, no `symbols`) asks for up to it more if the
 *   live quantity grew, as far as the caps and margin allow at (1 + extra) (extraRatio.ts).
 * - min_fee: the claim's expected fee (docs/protocol.md §11: Σ |q| × mark × liquidator_fee), net of each
 *   symbol's expected unwind cost (Σ |q| × mark × expected_unwind_cost_bps / 10⁴, 0 by default), must be at
 *   least the largest min_fee of the symbols it claims: with a cost set, a claim that would lose money
 *   getting flat is skipped even at min_fee 0.
 *
 * Claim forms (docs/protocol.md §11): a liquidation with any low-tier open symbol is claimed as one proportional
 * share of all open symbols (no `symbols` field): every one must be claimable, and below 10,000 of
 * total notional the ratio must be 1 — if our caps cut it, the whole is over our caps (`over_caps`).
 * A liquidation of only high-tier symbols is claimed per symbol through `symbols`: ineligible symbols
 * are left out, each symbol gets its own ratio (a symbol under 5,000 of notional whole or not at all),
 * the shared budgets are given out by highest fee rate first, and the top-level ratio is the largest;
 * `symbols` is sent only where it changes the meaning (a symbol left out, or two ratios that differ),
 * else the top-level ratio alone claims every open symbol (`symbolsNeeded`).
 * Open symbols are those with position_qty ≠ 0 (a zero one was already claimed by others).
 *
 * Reason precedence: invalid_liquidation; unknown_symbol (any open symbol); then per symbol, in the
 * liquidation's order, denied / not allowed / mark missing / stale / limit_tick (the first failing
 * symbol names the reason of a proportional skip, or of a per-symbol skip where none is left); then
 * below_min_fee at full size (proportional), the caps (margin when margin is the binding cap, else
 * exposure_cap when exposure is, else over_caps / ratio_zero), and below_min_fee at the final ratio.
 *
 * Caps hold up to the venue's quantity rounding: q is position_qty × ratio rounded to 1e-9 (docs/protocol.md §11,
 * and what Exposure reserves), so a part may exceed its exact share by 5e-10 × mark — dust.
 */
import { ClaimMargin, type MarginState } from "./claimMargin.js";
import { maxRatioWithinBudget } from "./claimRoom.js";
import { type DecisionLegs, decisionLegs, type Leg, newDecisionLegs, type PolicyContext, skip } from "./decisionLegs.js";
import { withExtraRatio } from "./extraRatio.js";
import { RATIO_QUANTA, ratioThousandthsDown, roundQty, thousandthsToRatio } from "./quantize.js";
import type { CutReason, Decision, Liquidation, SymbolRatio } from "./types.js";

export type { PolicyContext } from "./decisionLegs.js";
export type { ClaimDecision, Decision, SkipDecision, SkipReason, SymbolRatio } from "./types.js";
export { GATE_SKIP_REASONS, SKIP_REASONS } from "./types.js";

/** docs/protocol.md §4.1 / §7: below these notionals (quote, at mark) a claim must take everything. */
const FULL_TAKE_LOW_TIER = 10_000;
const FULL_TAKE_HIGH_TIER = 5_000;

/** The margin step, reused by every decision (they are synchronous): see claimMargin.ts. */
const sharedMargin = new ClaimMargin();
/** Where each decision's legs are put, reused likewise. */
const sharedLegs = newDecisionLegs();

/** `margin`: the margin step to decide with (a test passes one that keeps nothing, to compare). */
export function decide(liq: Liquidation, ctx: PolicyContext, now: number, margin: ClaimMargin = sharedMargin): Decision {
  return decisionLegs(liq, ctx, now, sharedLegs) ?? decideLegs(liq.liquidationId, sharedLegs, ctx, margin);
}

/** The decision on legs already built (decisionLegs.ts): the claim form, the budgets, the fee. */
export function decideLegs(id: number, built: DecisionLegs, ctx: PolicyContext, margin: ClaimMargin = sharedMargin): Decision {
  const m = margin.begin(ctx.account, ctx.policy.margin, ctx.symbols, ctx.exposure, ctx.marks);
  return built.anyLow ? decideProportional(id, built.legs, ctx, margin, m) : decidePerSymbol(id, built.legs, ctx, margin, m);
}

/**
 * A leg's fee on `notional` net of its symbol's expected unwind cost: the one term of both fee checks
 * (the proportional form's at full size, buildClaim's on the claimed parts), here and in the trace.
 */
export function legNetFee(leg: Leg, notional: number): number {
  return notional * (leg.pos.liquidatorFee - leg.lim.unwindCostRate);
}

/** Same arithmetic as the venue (docs/protocol.md §11): q = position_qty × ratio, rounded to 1e-9. */
export function claimedQty(leg: Leg): number {
  const qty = leg.pos.positionQty;
  return leg.k === RATIO_QUANTA ? qty : roundQty((qty * leg.k) / RATIO_QUANTA);
}

/** Global exposure budget left: cap − Σ worst-case exposure now (−Infinity when unpriceable). */
function exposureBudget(ctx: PolicyContext): number {
  return ctx.policy.maxTotalExposure - ctx.exposure.totalNotional(ctx.marks);
}

function decideProportional(id: number, legs: Leg[], ctx: PolicyContext, margin: ClaimMargin, m: MarginState): Decision {
  for (const leg of legs) if (leg.reason !== undefined) return skip(id, leg.reason, leg.pos.symbol);

  let total = 0;
  let netAtFull = 0; // the fee net of the expected unwind cost, whole liquidation
  let minFee = 0; // the strictest min_fee of the symbols claimed
  let claimWeight = 0; // Σ notional / own max_claim_notional: ratio r spends r × claimWeight of the budget 1
  let rExp = Number.POSITIVE_INFINITY;
  const notional: number[] = [];
  const free: number[] = [];
  for (const leg of legs) {
    total += leg.notional;
    netAtFull += legNetFee(leg, leg.notional);
    if (leg.lim.minFee > minFee) minFee = leg.lim.minFee;
    claimWeight += leg.notional / leg.lim.maxClaimNotional;
    const r = leg.maxQty / Math.abs(leg.pos.positionQty);
    if (r < rExp) rExp = r;
    notional.push(leg.notional);
    free.push(leg.freeNotional);
  }
  // Even the whole liquidation pays too little: that is the reason, whatever the caps say.
  if (netAtFull < minFee) return skip(id, "below_min_fee", undefined);

  const rClaim = claimWeight > 0 ? 1 / claimWeight : Number.POSITIVE_INFINITY;
  const rTotal = maxRatioWithinBudget(exposureBudget(ctx), notional, free);
  if (rTotal < rExp) rExp = rTotal;
  let k = ratioThousandthsDown(Math.min(1, rClaim, rExp));
  const byExposure = rExp < rClaim;
  let byMargin = m === "unpriced";
  if (m === "ready" && k > 0) {
    const fits = margin.fitAll(legs);
    if (fits < k) {
      k = fits;
      byMargin = true;
    }
  }
  if (byMargin && m === "unpriced") k = 0;
  if (total < FULL_TAKE_LOW_TIER && k < RATIO_QUANTA)
    return skip(id, byMargin ? "margin" : byExposure ? "exposure_cap" : "over_caps", undefined);
  if (k === 0) return skip(id, byMargin ? "margin" : byExposure ? "exposure_cap" : "ratio_zero", undefined);

  for (const leg of legs) leg.k = k;
  const cut = k >= RATIO_QUANTA ? undefined : byMargin ? "margin" : byExposure ? "exposure_cap" : "max_claim_notional";
  const d = buildClaim(id, legs, undefined, thousandthsToRatio(k), margin, cut);
  // policy.extra_liquidation_ratio: a whole claim asks for the extra its caps and margin leave (extraRatio.ts).
  if (ctx.policy.extraThousandths === 0 || d.action !== "claim") return d;
  return withExtraRatio(d, legs, ctx, margin, m);
}

/** Highest fee rate first (the shared budgets go where they earn most), then liquidation order. */
export function byFeeRate(legs: readonly Leg[]): Leg[] {
  const out = legs.slice();
  for (let i = 1; i < out.length; i++) {
    const x = out[i] as Leg;
    let j = i - 1;
    while (j >= 0 && (out[j] as Leg).pos.liquidatorFee < x.pos.liquidatorFee) {
      out[j + 1] = out[j] as Leg;
      j--;
    }
    out[j + 1] = x;
  }
  return out;
}

function decidePerSymbol(id: number, legs: Leg[], ctx: PolicyContext, margin: ClaimMargin, m: MarginState): Decision {
  let claimBudget = 1; // fraction of "one claim" left (see max_claim_notional above)
  let expBudget = Number.NaN; // computed on first use: most liquidations fail earlier
  let eligible = 0;
  for (const leg of legs) if (leg.reason === undefined) eligible++;
  /** The first cap that bound a symbol's ratio (what cut the claim, unless a symbol was left out). */
  let capCut: CutReason | undefined;

  if (eligible > 0) {
    expBudget = exposureBudget(ctx);
    const order = eligible > 1 ? byFeeRate(legs) : legs;
    for (const leg of order) {
      if (leg.reason !== undefined) continue;
      const rClaim = (claimBudget * leg.lim.maxClaimNotional) / leg.notional;
      let rExp = leg.maxQty / Math.abs(leg.pos.positionQty);
      const rTotal = expBudget >= 0 ? (expBudget + leg.freeNotional) / leg.notional : 0;
      if (rTotal < rExp) rExp = rTotal;
      let k = ratioThousandthsDown(Math.min(1, rClaim, rExp));
      const byExposure = rExp < rClaim;
      let byMargin = m === "unpriced";
      if (byMargin) k = 0;
      else if (m === "ready" && k > 0) {
        const fits = margin.fitLeg(legs, leg);
        if (fits < k) {
          k = fits;
          byMargin = true;
        }
      }
      if (leg.notional < FULL_TAKE_HIGH_TIER && k < RATIO_QUANTA) {
        leg.reason = byMargin ? "margin" : byExposure ? "exposure_cap" : "over_caps";
        continue;
      }
      if (k === 0) {
        leg.reason = byMargin ? "margin" : byExposure ? "exposure_cap" : "ratio_zero";
        continue;
      }
      leg.k = k;
      if (k < RATIO_QUANTA) capCut ??= byMargin ? "margin" : byExposure ? "exposure_cap" : "max_claim_notional";
      const part = (leg.notional * k) / RATIO_QUANTA;
      claimBudget = Math.max(0, claimBudget - part / leg.lim.maxClaimNotional);
      expBudget -= Math.max(0, part - leg.freeNotional);
    }
  }

  const claimed: SymbolRatio[] = [];
  let top = 0;
  for (const leg of legs) {
    if (leg.k === 0) continue;
    claimed.push({ symbol: leg.pos.symbol, ratio: thousandthsToRatio(leg.k) });
    if (leg.k > top) top = leg.k;
  }
  if (claimed.length === 0) {
    const first = legs[0] as Leg; // invalidLiquidation() guarantees an open symbol, and none was claimed
    return skip(id, first.reason ?? "ratio_zero", first.pos.symbol);
  }
  // A symbol left out (the first, in the liquidation's order) cuts more than a cap on a ratio.
  let cut: CutReason | undefined = legs.find((leg) => leg.k === 0 && leg.reason !== undefined)?.reason;
  cut ??= capCut;
  const d = buildClaim(id, legs, symbolsNeeded(legs, claimed) ? claimed : undefined, thousandthsToRatio(top), margin, cut);
  if (ctx.policy.extraThousandths === 0 || d.action !== "claim") return d;
  return withExtraRatio(d, legs, ctx, margin, m);
}

/**
 * Whether `symbols` changes what a per-symbol claim means (docs/protocol.md §10): only when some open symbol
 * is left out or two get different ratios. Every open symbol at one ratio is the top-level ratio
 * alone, the form every official client sends (the venue's answer to `symbols` is unsettled), and
 * the venue's rule for it is met: each symbol at ≥ 5,000 when the ratio is below 1 makes the total so.
 */
function symbolsNeeded(legs: readonly Leg[], claimed: readonly SymbolRatio[]): boolean {
  if (claimed.length !== legs.length) return true;
  const k = (legs[0] as Leg).k;
  for (const leg of legs) if (leg.k !== k) return true;
  return false;
}

/** The claim of every leg with k > 0, or `below_min_fee` when its fee is under the strictest min_fee. */
function buildClaim(
  id: number,
  legs: Leg[],
  symbols: SymbolRatio[] | undefined,
  ratio: number,
  margin: ClaimMargin,
  cut: CutReason | undefined,
): Decision {
  const limitPrice: Record<string, number> = {};
  const perSymbolQty: Record<string, number> = {};
  let expectedFee = 0;
  let netFee = 0;
  let notional = 0;
  let minFee = 0;
  for (const leg of legs) {
    if (leg.k === 0) continue;
    const q = claimedQty(leg);
    const n = Math.abs(q) * leg.mark;
    limitPrice[leg.pos.symbol] = leg.limit;
    perSymbolQty[leg.pos.symbol] = q;
    notional += n;
    expectedFee += n * leg.pos.liquidatorFee;
    netFee += legNetFee(leg, n);
    if (leg.lim.minFee > minFee) minFee = leg.lim.minFee;
  }
  // Quantities so small that 1e-9 rounding leaves nothing: the venue would transfer nothing (-1201).
  if (notional === 0) return skip(id, "ratio_zero", undefined);
  if (netFee < minFee) return skip(id, "below_min_fee", undefined);
  margin.measure(legs);
  // Margin need and room are absent when margin is not checked (account unknown): a decision carries
  // finite numbers only. Two literals rather than a spread: this runs for every claim decided.
  if (!Number.isFinite(margin.room))
    return { action: "claim", liquidationId: id, ratio, symbols, limitPrice, expectedFee, notional, perSymbolQty, cut };
  return {
    action: "claim",
    liquidationId: id,
    ratio,
    symbols,
    limitPrice,
    expectedFee,
    notional,
    perSymbolQty,
    marginNeed: margin.need,
    marginRoom: margin.room,
    cut,
  };
}
