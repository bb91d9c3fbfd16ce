/**
 * What a claim may add under the policy's margin limits (docs/operations.md "Margin: what the account can carry"): the initial margin
 * of everything held plus claims in flight, after the claim, at most `max_margin_usage` × total
 * collateral, and the free collateral left at least `min_free_collateral`. Both limits are one
 * bound on the initial margin after the claim (free after = total − IM after − orders' margin).
 * Each symbol's margin is the account's (docs/protocol.md §10: its leverage setting and own `imr_factor`),
 * and a symbol the claim adds to may not pass the account's `max_notional` for it (a position the
 * claim grows past it is what the venue refuses with -1101; one already past it may only shrink).
 *
 * The hot path calls it per decision: one instance is reset and refilled each time, its per-symbol
 * lines live in arrays that only grow, so a decision allocates nothing here.
 *
 * Why a search and not a formula: IM_i(q) = |q| × max(1/lev, base_imr, f × |q × mark|^(4/5)) has no
 * closed inverse across its pieces. It is convex in the signed quantity (a max of convex functions),
 * and each symbol's quantity after the claim is affine in the ratio, so the initial margin after a
 * claim is convex in the ratio and the ratios that fit form one interval (|quantity| ≤ a bound is an
 * interval too, and the intersection of intervals is one). From a state that fits,
 * the largest fitting ratio is found by bisection (10 steps over 1000 thousandths).
 */
import { flatImrBelow, flatImrRate, imrRate, type SymbolMargin } from "./margin.js";
import type { MarginSettings } from "./marginSettings.js";
import { RATIO_QUANTA, roundQty } from "./quantize.js";

/** The account as the check needs it (accountBook.ts, the lab's labMargin.ts supply it). */
export interface MarginAccount {
  /** USDC holding + unsettled P&L (quote). */
  readonly totalCollateral: number;
  /** Leverage per symbol, the account's own `imr_factor` and `max_notional` (docs/protocol.md §10). */
  readonly settings: MarginSettings;
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
  readonly #params: SymbolMargin[] = [];
  readonly #marks: number[] = [];
  /** Signed quantity held plus reserved by claims in flight. */
  readonly #held: number[] = [];
  /** Signed quantity the candidate claim adds at ratio 1. */
  readonly #add: number[] = [];
  /** Initial margin the line carries whatever the ratio (the other side of its claims in flight). */
  readonly #floor: number[] = [];
  /**
   * Per line, its symbol's flat IMR and the notional under which the rate is that flat one
   * (margin.ts flatImrBelow), kept while the line's margin (parameters and leverage: one object per
   * symbol and settings, marginSettings.ts) stays the same: most positions are far below the size
   * term, and the 4/5 power is the costly part of the check.
   */
  readonly #flat: number[] = [];
  readonly #below: number[] = [];
  readonly #ratesFor: (SymbolMargin | undefined)[] = [];
  /** Initial margin of positions the candidate cannot change (isolated, not yet attributed). */
  #fixed = 0;
  /** The lines and fixed margin as `keep` left them, for `restore`. */
  #keptLines = 0;
  #keptFixed = 0;
  readonly #keptSymbols: string[] = [];
  readonly #keptParams: SymbolMargin[] = [];
  readonly #keptMarks: number[] = [];
  readonly #keptHeld: number[] = [];
  readonly #keptFloor: number[] = [];
  #total = 0;
  #ordersMargin = 0;
  #budget = 0;

  /** Start a new check. */
  reset(account: MarginAccount, limits: MarginLimits): this {
    this.#lines = 0;
    this.#fixed = 0;
    this.#total = account.totalCollateral;
    this.#ordersMargin = account.ordersMargin;
    this.#budget = Math.min(
      limits.maxMarginUsage * account.totalCollateral,
      account.totalCollateral - account.ordersMargin - limits.minFreeCollateral,
    );
    return this;
  }

  /** A position held, or reserved by a claim in flight (signed); a symbol's quantities are summed. */
  hold(symbol: string, params: SymbolMargin, mark: number, qty: number): this {
    const i = this.#line(symbol, params, mark);
    this.#held[i] = (this.#held[i] as number) + qty;
    return this;
  }

  /**
   * The line's initial margin is at least that of `absQty` at `mark`: claims in flight on the other
   * side may all fail, leaving that position, so the worst case is the larger (still convex).
   */
  floor(symbol: string, params: SymbolMargin, mark: number, absQty: number): this {
    const i = this.#line(symbol, params, mark);
    this.#floorAt(i, absQty);
    return this;
  }

  /**
   * `hold(symbol, params, mark, qty)` then `floor(symbol, params, mark, otherEnd)` for a symbol that
   * has no line yet in this check (the caller knows: one call per distinct symbol right after
   * `reset`), without looking for its line.
   */
  holdNew(symbol: string, params: SymbolMargin, mark: number, qty: number, otherEnd: number): this {
    const i = this.#newLine(symbol, params, mark);
    this.#held[i] = 0 + qty;
    this.#floorAt(i, otherEnd);
    return this;
  }

  #floorAt(i: number, absQty: number): void {
    const im = this.#im(i, Math.abs(absQty) * (this.#marks[i] as number));
    if (im > (this.#floor[i] as number)) this.#floor[i] = im;
  }

  /** Initial margin of line `i`'s symbol at this notional: margin.ts symbolInitialMargin, the flat rate under its bound. */
  #im(i: number, notional: number): number {
    const n = Math.abs(notional);
    if (n === 0) return 0;
    const p = this.#params[i] as SymbolMargin;
    if (this.#ratesFor[i] !== p) {
      this.#flat[i] = flatImrRate(p, p.leverage);
      this.#below[i] = flatImrBelow(p, p.leverage);
      this.#ratesFor[i] = p;
    }
    return n < (this.#below[i] as number) ? n * (this.#flat[i] as number) : n * imrRate(p, n, p.leverage);
  }

  /** Initial margin that no ratio changes (a position the claim does not land in). */
  fixed(im: number): this {
    this.#fixed += im;
    return this;
  }

  /**
   * Remember the lines and fixed margin as they are (held and floors, no candidate added yet), so a
   * later check of the same held and in-flight positions can `restore` them instead of refilling.
   * What is kept does not depend on the limits, the collateral or the orders' margin (`reset`'s).
   */
  keep(): this {
    const n = this.#lines;
    this.#keptLines = n;
    this.#keptFixed = this.#fixed;
    for (let i = 0; i < n; i++) {
      this.#keptSymbols[i] = this.#symbols[i] as string;
      this.#keptParams[i] = this.#params[i] as SymbolMargin;
      this.#keptMarks[i] = this.#marks[i] as number;
      this.#keptHeld[i] = this.#held[i] as number;
      this.#keptFloor[i] = this.#floor[i] as number;
    }
    return this;
  }

  /** Right after `reset` with the same settings as when kept: the lines and fixed margin `keep` saw. */
  restore(): this {
    const n = this.#keptLines;
    this.#lines = n;
    this.#fixed = this.#keptFixed;
    for (let i = 0; i < n; i++) {
      this.#symbols[i] = this.#keptSymbols[i] as string;
      this.#params[i] = this.#keptParams[i] as SymbolMargin;
      this.#marks[i] = this.#keptMarks[i] as number;
      this.#held[i] = this.#keptHeld[i] as number;
      this.#add[i] = 0;
      this.#floor[i] = this.#keptFloor[i] as number;
    }
    return this;
  }

  /** The candidate claim's signed quantity of `symbol` at ratio 1 (the liquidation's `position_qty`). */
  add(symbol: string, params: SymbolMargin, mark: number, qty: number): this {
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
      const im = this.#im(i, Math.abs(q) * (this.#marks[i] as number));
      const floor = this.#floor[i] as number;
      sum += im > floor ? im : floor;
    }
    return sum;
  }

  /** Free collateral after the candidate at `thousandths`. */
  freeCollateralAt(thousandths: number): number {
    return this.#total - this.initialMarginAt(thousandths) - this.#ordersMargin;
  }

  /** Whether the candidate at `thousandths` keeps both limits and every symbol it grows within its `max_notional`. */
  fits(thousandths: number): boolean {
    return this.initialMarginAt(thousandths) <= this.#budget && this.#withinMaxNotional(thousandths);
  }

  /**
   * Whether no symbol the candidate adds to ends past its `max_notional` at `thousandths`, unless it
   * ends no larger than it was (a position already past it may shrink, never grow: the venue's rule
   * for an order that reduces risk).
   */
  #withinMaxNotional(thousandths: number): boolean {
    for (let i = 0; i < this.#lines; i++) {
      const add = this.#add[i] as number;
      const cap = (this.#params[i] as SymbolMargin).maxNotional;
      if (add === 0 || cap === Number.POSITIVE_INFINITY) continue;
      const held = this.#held[i] as number;
      // The venue's position after the claim: the sum rounded to 1e-9 as it books it (quantize.ts).
      const q = Math.abs(roundQty(held + roundQty((add * thousandths) / RATIO_QUANTA)));
      if (q * (this.#marks[i] as number) > cap && q > Math.abs(held)) return false;
    }
    return true;
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

  #line(symbol: string, params: SymbolMargin, mark: number): number {
    for (let i = 0; i < this.#lines; i++) {
      if (this.#symbols[i] === symbol) {
        this.#params[i] = params;
        this.#marks[i] = mark;
        return i;
      }
    }
    return this.#newLine(symbol, params, mark);
  }

  #newLine(symbol: string, params: SymbolMargin, mark: number): number {
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
