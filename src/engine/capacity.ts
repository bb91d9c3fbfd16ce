/**
 * Capacity (issue 35): how much notional the account could still claim now on one side of one
 * symbol, beside the heatmap of what may soon be offered. Read-only, from the decision's own
 * pieces: the exposure caps' room (`roomForClaim`, the global cap less what is held and in flight,
 * as `decide` cuts a claim) and the margin budget's room (the ClaimMargin fit of a claim on that
 * side, docs/protocol.md §7 and policy.max_margin_usage / min_free_collateral). A symbol the policy does
 * not allow, or without its info or a mark, has none; so does everything while protections stop
 * claiming (the caller says so). `max_claim_notional` is not a limit here: it caps one claim, not
 * what a cascade of claims may add up to.
 */
import { ClaimMargin } from "./claimMargin.js";
import { roomForClaim } from "./claimRoom.js";
import type { ForecastSide } from "./forecast.js";
import type { PolicyContext } from "./policy.js";
import { RATIO_QUANTA } from "./quantize.js";

/** With no finite exposure cap to start from, the margin is probed from this notional down. */
const PROBE_NOTIONAL = 1e12;

export class Capacity {
  /** Its own margin step: a capacity question never disturbs what the decisions keep. */
  readonly #margin = new ClaimMargin();

  /** The notional (quote) the account could still claim on `side` of `symbol` now. */
  of(ctx: PolicyContext, symbol: string, side: ForecastSide): number {
    const info = ctx.symbols.get(symbol);
    const mark = ctx.marks.get(symbol)?.price;
    if (info === undefined || mark === undefined || !(mark > 0) || ctx.policy.access(symbol) !== "allowed") return 0;
    const sign = side === "long" ? 1 : -1;
    const lim = ctx.policy.limitsFor(symbol);
    const room = roomForClaim(ctx.exposure.get(symbol), sign, lim.maxTotalExposure / mark);
    const global = ctx.policy.maxTotalExposure - ctx.exposure.totalNotional(ctx.marks);
    const byExposure = Math.max(0, Math.min(room.maxQty * mark, global + room.free * mark));
    if (!(byExposure > 0)) return 0;
    return Math.min(byExposure, this.#byMargin(ctx, symbol, sign, mark, info.liquidatorFee, byExposure));
  }

  /**
   * The notional a claim of this side may add before the margin budget is spent: the largest
   * fitting ratio of a probe claim, then of a probe just above that (a thousandth of the answer's
   * precision). Infinite while margin is not checked (the account's collateral is unknown).
   */
  #byMargin(ctx: PolicyContext, symbol: string, sign: number, mark: number, fee: number, upTo: number): number {
    const state = this.#margin.begin(ctx.account, ctx.policy.margin, ctx.symbols, ctx.exposure, ctx.marks);
    if (state === "off") return Number.POSITIVE_INFINITY;
    if (state === "unpriced") return 0;
    const fitting = (probe: number): number =>
      this.#margin.fitAll([{ pos: { symbol, positionQty: (sign * probe) / mark, liquidatorFee: fee }, mark, k: 0 }]);
    const first = Number.isFinite(upTo) ? upTo : PROBE_NOTIONAL;
    const k1 = fitting(first);
    if (k1 >= RATIO_QUANTA) return first;
    // The answer lies between k1 and k1 + 1 thousandths of the first probe: probe that span again.
    const second = (first * (k1 + 1)) / RATIO_QUANTA;
    return (second * fitting(second)) / RATIO_QUANTA;
  }
}
