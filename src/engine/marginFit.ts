/**
 * What a claim may add under the policy's margin limits (INTERFACE "Third wave"): the initial margin
 * of everything held plus claims in flight, after the claim, at most `max_margin_usage` × total
 * collateral, and the free collateral left at least `min_free_collateral`. Both limits are one
 * bound on the initial margin after the claim (free after = total − IM after − orders' margin).
 *
 * The hot path calls it per decision: one instance is reset and refilled each time, its per-symbol
 * lines live in arrays that only grow, so a decision allocates nothing here.
 *
 * Why a search and not a formula: IM_i(q) = |q| × max(1/lev, base_imr, f × |q × mark|^(4/5)) has no
 * closed inverse across its pieces. It is convex in the signed quantity (a max of convex functions),
 * and each symbol's quantity after the claim is affine in the ratio, so the initial margin after a
 * claim is convex in the ratio and the ratios that fit form one interval. From a state that fits,
 * the largest fitting ratio is found by bisection (10 steps over 1000 thousandths).
 */
import { initialMargin, type MarginParams } from "./margin.js";
import { RATIO_QUANTA, roundQty } from "./quantize.js";

/** The account as the check needs it (accountBook.ts supplies it). */
export interface MarginAccount {
  /** USDC holding + unsettled P&L (quote). */
  readonly totalCollateral: number;
  /** The account's `max_leverage` (GET /v1/client/info). */
  readonly maxLeverage: number;
  /** Margin held by open orders (`frozen` of the balance), quote. */
  readonly ordersMargin: number;
}

/** `policy.max_margin_usage` (a share of total collateral) and `policy.min_free_collateral` (quote). */
export interface MarginLimits {
  readonly maxMarginUsage: number;
  readonly minFreeCollateral: number;
}

export class MarginFit {
  #lines = 0;
  readonly #symbols: string[] = [];
  readonly #params: MarginParams[] = [];
  readonly #marks: number[] = [];
  /** Signed quantity held plus reserved by claims in flight. */
  readonly #held: number[] = [];
  /** Signed quantity the candidate claim adds at ratio 1. */
  readonly #add: number[] = [];
  /** Initial margin the line carries whatever the ratio (the other side of its claims in flight). */
  readonly #floor: number[] = [];
  /** Initial margin of positions the candidate cannot change (isolated, not yet attributed). */
  #fixed = 0;
  #total = 0;
  #maxLeverage = 0;
  #ordersMargin = 0;
  #budget = 0;

  /** Start a new check. */
  reset(account: MarginAccount, limits: MarginLimits): this {
    this.#lines = 0;
    this.#fixed = 0;
    this.#total = account.totalCollateral;
    this.#maxLeverage = account.maxLeverage;
    this.#ordersMargin = account.ordersMargin;
    this.#budget = Math.min(
      limits.maxMarginUsage * account.totalCollateral,
      account.totalCollateral - account.ordersMargin - limits.minFreeCollateral,
    );
    return this;
  }

  /** A position held, or reserved by a claim in flight (signed); a symbol's quantities are summed. */
  hold(symbol: string, params: MarginParams, mark: number, qty: number): this {
    const i = this.#line(symbol, params, mark);
    this.#held[i] = (this.#held[i] as number) + qty;
    return this;
  }

  /**
   * The line's initial margin is at least that of `absQty` at `mark`: claims in flight on the other
   * side may all fail, leaving that position, so the worst case is the larger (still convex).
   */
  floor(symbol: string, params: MarginParams, mark: number, absQty: number): this {
    const i = this.#line(symbol, params, mark);
    const im = initialMargin(params, Math.abs(absQty) * mark, this.#maxLeverage);
    if (im > (this.#floor[i] as number)) this.#floor[i] = im;
    return this;
  }

  /** Initial margin that no ratio changes (a position the claim does not land in). */
  fixed(im: number): this {
    this.#fixed += im;
    return this;
  }

  /** The candidate claim's signed quantity of `symbol` at ratio 1 (the liquidation's `position_qty`). */
  add(symbol: string, params: MarginParams, mark: number, qty: number): this {
    const i = this.#line(symbol, params, mark);
    this.#add[i] = (this.#add[i] as number) + qty;
    return this;
  }

  /** The bound on the initial margin after the claim that both limits allow (quote). */
  get budget(): number {
    return this.#budget;
  }

  /** Initial margin of everything held and reserved plus the candidate at `thousandths` / 1000. */
  initialMarginAt(thousandths: number): number {
    let sum = this.#fixed;
    for (let i = 0; i < this.#lines; i++) {
      const add = this.#add[i] as number;
      // The venue's quantity at a ratio: position_qty × ratio rounded to 1e-9 (quantize.ts).
      const q = (this.#held[i] as number) + (add === 0 ? 0 : roundQty((add * thousandths) / RATIO_QUANTA));
      const im = initialMargin(this.#params[i] as MarginParams, Math.abs(q) * (this.#marks[i] as number), this.#maxLeverage);
      const floor = this.#floor[i] as number;
      sum += im > floor ? im : floor;
    }
    return sum;
  }

  /** Free collateral after the candidate at `thousandths`. */
  freeCollateralAt(thousandths: number): number {
    return this.#total - this.initialMarginAt(thousandths) - this.#ordersMargin;
  }

  /** Whether the candidate at `thousandths` keeps both limits. */
  fits(thousandths: number): boolean {
    return this.initialMarginAt(thousandths) <= this.#budget;
  }

  /**
   * The largest ratio, in thousandths (0..1000), at which the candidate keeps both limits; 0 when no
   * ratio does. One thousandth more than the answer (below 1000) does not fit.
   */
  largestFit(): number {
    if (this.fits(RATIO_QUANTA)) return RATIO_QUANTA;
    let lo: number;
    if (this.fits(0)) lo = 0;
    else {
      // Over the budget already: only a claim that shrinks a held position can bring it back under.
      if (!this.#reducesSome()) return 0;
      lo = this.#argMin();
      if (!this.fits(lo)) return 0;
    }
    // fits(lo) and !fits(hi): the fitting ratios are one interval, so the boundary is between them.
    let hi = RATIO_QUANTA;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (this.fits(mid)) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /** Whether the candidate shrinks some held or reserved position (its margin can fall as the ratio grows). */
  #reducesSome(): boolean {
    for (let i = 0; i < this.#lines; i++) if ((this.#held[i] as number) * (this.#add[i] as number) < 0) return true;
    return false;
  }

  /** The ratio of least initial margin (convex in the ratio: a ternary search over the integers). */
  #argMin(): number {
    let lo = 0;
    let hi = RATIO_QUANTA;
    while (hi - lo > 2) {
      const m1 = lo + Math.floor((hi - lo) / 3);
      const m2 = hi - Math.floor((hi - lo) / 3);
      if (this.initialMarginAt(m1) <= this.initialMarginAt(m2)) hi = m2;
      else lo = m1;
    }
    let best = lo;
    for (let k = lo + 1; k <= hi; k++) if (this.initialMarginAt(k) < this.initialMarginAt(best)) best = k;
    return best;
  }

  #line(symbol: string, params: MarginParams, mark: number): number {
    for (let i = 0; i < this.#lines; i++) {
      if (this.#symbols[i] === symbol) {
        this.#params[i] = params;
        this.#marks[i] = mark;
        return i;
      }
    }
    const i = this.#lines++;
    this.#symbols[i] = symbol;
    this.#params[i] = params;
    this.#marks[i] = mark;
    this.#held[i] = 0;
    this.#add[i] = 0;
    this.#floor[i] = 0;
    return i;
  }
}
