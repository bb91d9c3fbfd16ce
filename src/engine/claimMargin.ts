/**
 * The margin step of the decision (policy.ts; docs/operations.md "Margin: what the account can carry"): the initial margin of
 * everything held plus claims in flight, after the claim, must stay within `max_margin_usage` of the
 * account's total collateral and leave `min_free_collateral` free (marginFit.ts turns both into one
 * budget). What is held and in flight is the exposure book (exposure.ts): a claim reserves its
 * quantities when it leaves and releases them on every outcome, so its margin is reserved and
 * released with them, and an accepted claim's quantities become the held position that carries it.
 *
 * In flight, a symbol's claims may each succeed or fail: its cross position ends anywhere between
 * held + short and held + long. The initial margin is convex in the position, so the worst case is
 * one of the two ends; the side the candidate claim adds to is the line that moves with the ratio,
 * the other end its floor. Isolated and not-yet-attributed positions are separate positions the
 * claim does not land in: their margin is fixed. Counting them apart never undercounts (the margin
 * of a sum is at least the sum of the margins: the rate only grows with the notional).
 *
 * Pure and allocation-free once warm: one instance is reused by every decision (decisions are
 * synchronous), its MarginFit refilled for each question.
 *
 * Each symbol's margin is the account's (marginSettings.ts: its leverage setting, own `imr_factor`
 * and `max_notional`, docs/protocol.md §10).
 *
 * The held + in-flight lines are the same for every question of a decision, and for every decision
 * on the same book, prices, symbol table and account settings whose claim adds to the same sides: many
 * decisions in a row are (a backtest's variants decide each liquidation on one state; a cascade
 * re-decides before anything settles). So the lines are filled once and kept (MarginFit keep /
 * restore) while the exposure book's and the prices' `version`s, the table, the settings and the
 * claim's symbols and sides are the ones they were filled for; prices with no version are read
 * afresh by each decision.
 */
import type { Exposure } from "./exposure.js";
import { marginParamsOf, type SymbolMargin, symbolInitialMargin } from "./margin.js";
import { type MarginAccount, MarginFit, type MarginLimits } from "./marginFit.js";
import type { MarginSettings } from "./marginSettings.js";
import { RATIO_QUANTA, roundQty } from "./quantize.js";
import type { SymbolTable } from "./symbolInfo.js";
import type { LiquidationPosition, PriceSource } from "./types.js";

/** The account as the decision reads it: AccountBook (the daemon) or the lab's account. */
export interface MarginSource {
  /** Undefined while the account cannot be margin-checked (collateral or every leverage unknown). */
  marginAccount(prices: PriceSource): MarginAccount | undefined;
}

/** What the margin step reads besides the legs. */
interface MarginInputs {
  limits: MarginLimits;
  symbols: SymbolTable;
  exposure: Exposure;
  marks: PriceSource;
}

/** A leg of the claim being decided: its position, mark and the ratio given so far (thousandths). */
export interface MarginLeg {
  readonly pos: LiquidationPosition;
  readonly mark: number;
  k: number;
}

/** The margin step's answer to `begin`: not checked, checkable, or a held symbol cannot be valued. */
export type MarginState = "off" | "ready" | "unpriced";

export class ClaimMargin {
  readonly #fit = new MarginFit();
  #account: MarginAccount | undefined;
  /** The inputs of the decision in progress (one object, refilled: a decision allocates nothing here). */
  readonly #inputs: MarginInputs = {
    limits: { maxMarginUsage: 0, minFreeCollateral: 0 },
    symbols: undefined as never,
    exposure: undefined as never,
    marks: undefined as never,
  };
  #in: MarginInputs | undefined;
  /** What the kept lines were filled from (see the file's comment); `#kept` false: nothing kept. */
  #kept = false;
  #keptExposure: Exposure | undefined;
  #keptExposureVersion = 0;
  #keptMarks: PriceSource | undefined;
  #keptMarksVersion: number | undefined;
  #keptSymbols: SymbolTable | undefined;
  #keptSettings: MarginSettings | undefined;
  /** Whether the kept book had a symbol with no price (begin's answer "unpriced"). */
  #keptUnpriced = false;
  /** The claim's symbols and sides the kept lines were filled for. */
  readonly #keptLegSymbols: string[] = [];
  readonly #keptLegSides: number[] = [];
  #keptLegs = -1;
  readonly #reuse: boolean;

  /** `reuse` false: every question refills its lines (the reference the kept lines are tested against). */
  constructor(reuse = true) {
    this.#reuse = reuse;
  }

  /** Initial margin the claim adds at its final ratio (quote). */
  need = 0;
  /** Budget − initial margin of held + in flight before the claim (quote). */
  room = Number.POSITIVE_INFINITY;

  /** Start a decision's margin step. */
  begin(source: MarginSource | undefined, limits: MarginLimits, symbols: SymbolTable, exposure: Exposure, marks: PriceSource): MarginState {
    this.need = 0;
    this.room = Number.POSITIVE_INFINITY;
    this.#in = undefined;
    const account = source?.marginAccount(marks);
    if (account === undefined || !Number.isFinite(account.totalCollateral)) return "off";
    this.#account = account;
    const inputs = this.#inputs;
    inputs.limits = limits;
    inputs.symbols = symbols;
    inputs.exposure = exposure;
    inputs.marks = marks;
    this.#in = inputs;
    const marksVersion = marks.version;
    if (
      this.#reuse &&
      this.#kept &&
      marksVersion !== undefined &&
      marksVersion === this.#keptMarksVersion &&
      marks === this.#keptMarks &&
      exposure === this.#keptExposure &&
      exposure.version === this.#keptExposureVersion &&
      symbols === this.#keptSymbols &&
      account.settings === this.#keptSettings
    )
      return this.#keptUnpriced ? "unpriced" : "ready";
    this.#kept = true;
    this.#keptLegs = -1;
    this.#keptExposure = exposure;
    this.#keptExposureVersion = exposure.version;
    this.#keptMarks = marks;
    this.#keptMarksVersion = marksVersion;
    this.#keptSymbols = symbols;
    this.#keptSettings = account.settings;
    this.#keptUnpriced = false;
    for (let i = 0; i < exposure.symbolCount; i++) {
      const p = exposure.priceAt(i, marks);
      if (!(p > 0) || p === Number.POSITIVE_INFINITY) {
        this.#keptUnpriced = true;
        return "unpriced";
      }
    }
    return "ready";
  }

  /** Largest ratio (thousandths) at which every leg at that one ratio fits (a proportional claim). */
  fitAll(legs: readonly MarginLeg[]): number {
    const fit = this.#refill(legs, false);
    for (const leg of legs) this.#addLeg(fit, leg);
    return fit.largestFit();
  }

  /** Largest ratio (thousandths) of `leg` alone, with the legs already given a ratio held (a per-symbol claim). */
  fitLeg(legs: readonly MarginLeg[], leg: MarginLeg): number {
    const fit = this.#refill(legs, true);
    this.#addLeg(fit, leg);
    return fit.largestFit();
  }

  /**
   * Whether every leg at `thousandths` of its quantity (which may pass 1000: a claim that asks for
   * `extra_liquidation_ratio` more, extraRatio.ts) keeps the margin limits.
   */
  fitsAllAt(legs: readonly MarginLeg[], thousandths: number): boolean {
    const fit = this.#refill(legs, false);
    for (const leg of legs) this.#addLeg(fit, leg);
    return fit.fits(thousandths);
  }

  /** Sets `need` and `room` for the legs at their final ratios. */
  measure(legs: readonly MarginLeg[]): void {
    if (this.#in === undefined) return;
    const fit = this.#refill(legs, false);
    const before = fit.initialMarginAt(0);
    this.room = fit.budget - before;
    for (const leg of legs) if (leg.k > 0) fit.add(leg.pos.symbol, this.#params(leg.pos.symbol), leg.mark, qtyAt(leg));
    this.need = fit.initialMarginAt(RATIO_QUANTA) - before;
  }

  #addLeg(fit: MarginFit, leg: MarginLeg): void {
    fit.add(leg.pos.symbol, this.#params(leg.pos.symbol), leg.mark, leg.pos.positionQty);
  }

  /** The fit reset to held + in flight; with `granted` the legs given a ratio are held too. */
  #refill(legs: readonly MarginLeg[], granted: boolean): MarginFit {
    const inputs = this.#in as MarginInputs;
    const account = this.#account as MarginAccount;
    const fit = this.#fit.reset(account, inputs.limits);
    if (this.#reuse && this.#sameLegs(legs)) fit.restore();
    else this.#fill(fit, legs);
    if (granted) for (const leg of legs) if (leg.k > 0) fit.hold(leg.pos.symbol, this.#params(leg.pos.symbol), leg.mark, qtyAt(leg));
    return fit;
  }

  /** Whether the kept lines were filled for a claim of these symbols on these sides. */
  #sameLegs(legs: readonly MarginLeg[]): boolean {
    if (legs.length !== this.#keptLegs) return false;
    for (let i = 0; i < legs.length; i++) {
      const pos = (legs[i] as MarginLeg).pos;
      if (pos.symbol !== this.#keptLegSymbols[i] || Math.sign(pos.positionQty) !== this.#keptLegSides[i]) return false;
    }
    return true;
  }

  /** The lines of what is held and in flight, kept for the claim's symbols and sides. */
  #fill(fit: MarginFit, legs: readonly MarginLeg[]): void {
    const inputs = this.#in as MarginInputs;
    const ex = inputs.exposure;
    for (let i = 0; i < ex.symbolCount; i++) {
      const v = ex.viewAt(i);
      const price = ex.priceAt(i, inputs.marks);
      const params = this.#params(v.symbol);
      const side = sideOf(legs, v.symbol);
      const up = v.held + v.long;
      const down = v.held + v.short;
      const upSide = side > 0 || (side === 0 && Math.abs(up) >= Math.abs(down));
      // The exposure book holds one entry per symbol, so each is a new line of the fresh fit.
      fit.holdNew(v.symbol, params, price, upSide ? up : down, upSide ? down : up);
      const iso = v.isolated ?? 0;
      const pending = v.pending ?? 0;
      if (iso !== 0) fit.fixed(symbolInitialMargin(this.#params(v.symbol, "ISOLATED"), Math.abs(iso) * price));
      if (pending !== 0) fit.fixed(symbolInitialMargin(params, Math.abs(pending) * price));
    }
    fit.keep();
    this.#keptLegs = legs.length;
    for (let i = 0; i < legs.length; i++) {
      const pos = (legs[i] as MarginLeg).pos;
      this.#keptLegSymbols[i] = pos.symbol;
      this.#keptLegSides[i] = Math.sign(pos.positionQty);
    }
  }

  /** `symbol`'s margin as it applies to the account (its leverage, the account's own imr_factor and max_notional). */
  #params(symbol: string, mode: "CROSS" | "ISOLATED" = "CROSS"): SymbolMargin {
    const pub = marginParamsOf((this.#in as MarginInputs).symbols.get(symbol));
    return (this.#account as MarginAccount).settings.symbolMargin(symbol, pub, mode);
  }
}

/** The leg's quantity at its ratio, rounded like the venue (quantize.ts). */
function qtyAt(leg: MarginLeg): number {
  return leg.k === RATIO_QUANTA ? leg.pos.positionQty : roundQty((leg.pos.positionQty * leg.k) / RATIO_QUANTA);
}

/** The sign of what the claim adds to `symbol` (0: the claim does not touch it). */
function sideOf(legs: readonly MarginLeg[], symbol: string): number {
  for (const leg of legs) if (leg.pos.symbol === symbol) return Math.sign(leg.pos.positionQty);
  return 0;
}

/** A claim's rank when margin binds: expected fee per unit of the initial margin it adds. */
export function feePerMargin(expectedFee: number, marginNeed: number): number {
  // A claim that adds no margin (or frees some) costs nothing of what binds: it goes first.
  return marginNeed > 1e-12 ? expectedFee / marginNeed : expectedFee * 1e12;
}
