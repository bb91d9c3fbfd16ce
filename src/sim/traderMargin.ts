/**
 * The margin of the simulated market's traders (docs/protocol.md §7, §10), pure: an account's total
 * collateral and its maintenance and initial margin at given marks; when it is liquidated (total
 * collateral below the maintenance margin: the margin ratio below the maintenance ratio); how much
 * of it a liquidation takes (the smallest share, the same for every position, after which the
 * account is back at its initial margin with the liquidator fees paid); whether it is bankrupt
 * (it cannot pay even the fees of a whole liquidation: the insurance fund takes everything); and
 * each position's estimated liquidation price, the `est_liq_price` of platform positions.
 *
 * Cross positions share the account's collateral; an isolated position carries its own margin and
 * is a one-position account of its own here.
 */
import { imr, marginOf, mmr, type SymbolMargin } from "./margin.js";
import type { SymbolSpec } from "./symbols.js";

export interface TraderPosition {
  /** Increasing: the venue's position id (platform positions sort by it, newest first). */
  positionId: number;
  symbol: string;
  /** The symbol's place in the symbol table (MaintenanceCheck's arrays). */
  symbolIndex: number;
  /** Signed base quantity. */
  qty: number;
  /** Average open price. */
  entry: number;
  /** The account's leverage setting for the symbol (docs/protocol.md §10): IMR is at least 1 / this. */
  leverage: number;
  openedAt: number;
  /** When its trader closes it (market clock, ms). */
  closeAt: number;
}

/** A set of positions sharing one collateral: an account's cross positions, or one isolated position. */
export interface MarginPool {
  /** Holding (cross) or the isolated margin, quote: collateral before unsettled P&L. */
  holding: number;
  positions: readonly TraderPosition[];
}

export type SpecOf = (symbol: string) => SymbolSpec | undefined;
export type MarkOf = (symbol: string) => number | undefined;

function markOrEntry(p: TraderPosition, mark: MarkOf): number {
  return mark(p.symbol) ?? p.entry;
}

/** Holding + unsettled P&L at the marks. */
export function totalCollateral(pool: MarginPool, mark: MarkOf): number {
  let c = pool.holding;
  for (const p of pool.positions) c += p.qty * (markOrEntry(p, mark) - p.entry);
  return c;
}

/** A symbol without margin parameters is charged its whole notional. */
const UNKNOWN: SymbolMargin = { baseImr: 1, baseMmr: 1, imrFactor: 0 };

/**
 * A symbol's margin parameters and the notional under which its MMR is the flat `base_mmr` (the
 * 4/5 power is then not taken): the maintenance check runs for every account at every mark tick.
 */
interface MaintenanceShape {
  params: SymbolMargin;
  flatBelow: number;
}

const shapes = new WeakMap<SymbolSpec, MaintenanceShape>();

function shapeOf(spec: SpecOf, symbol: string): MaintenanceShape {
  const s = spec(symbol);
  if (s === undefined) return { params: UNKNOWN, flatBelow: Number.POSITIVE_INFINITY };
  let shape = shapes.get(s);
  if (shape === undefined) {
    const params = marginOf(s);
    const slope = (params.baseMmr / params.baseImr) * params.imrFactor;
    // slope × n^(4/5) ≤ base_mmr ⇔ n ≤ (base_mmr / slope)^(5/4); a millionth under, as engine/margin.ts does.
    const flatBelow = slope > 0 ? (params.baseMmr / slope) ** 1.25 * (1 - 1e-6) : Number.POSITIVE_INFINITY;
    shape = { params, flatBelow };
    shapes.set(s, shape);
  }
  return shape;
}

function marginParams(spec: SpecOf, symbol: string): SymbolMargin {
  return shapeOf(spec, symbol).params;
}

/** Σ |notional| × MMR at the marks (each position at `scale` of its size). */
function maintenanceMargin(pool: MarginPool, spec: SpecOf, mark: MarkOf, scale = 1): number {
  let sum = 0;
  for (const p of pool.positions) {
    const n = Math.abs(p.qty * scale) * markOrEntry(p, mark);
    if (n === 0) continue;
    const shape = shapeOf(spec, p.symbol);
    sum += n * (n < shape.flatBelow ? shape.params.baseMmr : mmr(shape.params, n));
  }
  return sum;
}

/** Σ |notional| × IMR at the marks, each with its own leverage (each position at `scale` of its size). */
function initialMargin(pool: MarginPool, spec: SpecOf, mark: MarkOf, scale = 1): number {
  let sum = 0;
  for (const p of pool.positions) {
    const n = Math.abs(p.qty * scale) * markOrEntry(p, mark);
    if (n > 0) sum += n * imr(marginParams(spec, p.symbol), n, p.leverage);
  }
  return sum;
}

/** docs/protocol.md §7: the margin ratio is below the maintenance ratio, i.e. collateral below the maintenance margin. */
export function isLiquidatable(pool: MarginPool, spec: SpecOf, mark: MarkOf): boolean {
  return pool.positions.length > 0 && totalCollateral(pool, mark) < maintenanceMargin(pool, spec, mark);
}

/** The liquidator fees of liquidating `share` of every position at the marks (each symbol's `liquidator_fee`). */
function liquidationFees(pool: MarginPool, spec: SpecOf, mark: MarkOf, share: number): number {
  let fee = 0;
  for (const p of pool.positions) fee += Math.abs(p.qty * share) * markOrEntry(p, mark) * (spec(p.symbol)?.liquidatorFee ?? 0);
  return fee;
}

export type LiquidationShare = { kind: "share"; share: number } | { kind: "bankrupt" };

/**
 * The share of every position a liquidation takes: the smallest (in thousandths) after which the
 * collateral, less the liquidator fees the account pays, covers the initial margin of what is left;
 * all of it when no share does (the fees of the whole exceed what is left: the account pays what it
 * has). `bankrupt` when the total collateral is gone (docs/protocol.md §10: the fund takes the account
 * over). The initial margin of what is left is convex and falls with the share, the fees grow
 * linearly: the shares that restore the margin form one interval ending at 1, found by bisection.
 */
export function liquidationShare(pool: MarginPool, spec: SpecOf, mark: MarkOf): LiquidationShare {
  const c = totalCollateral(pool, mark);
  if (!(c > 0)) return { kind: "bankrupt" };
  const fits = (k: number): boolean => c - liquidationFees(pool, spec, mark, k / 1000) >= initialMargin(pool, spec, mark, 1 - k / 1000);
  if (!fits(1000)) return { kind: "share", share: 1 };
  let lo = 0; // does not fit (the account is liquidatable, so its collateral is below even the maintenance margin)
  let hi = 1000;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return { kind: "share", share: hi / 1000 };
}

/**
 * The mark of `target`, the other marks fixed, at which the pool's collateral meets its maintenance
 * margin: `C + q (p − m) = MM_others + |q| p MMR(|q| p)`. Solved with MMR at the current size, then
 * again at the size there (the 4/5 term moves little between them). Null when no positive price
 * liquidates it (a long backed by more than its notional) or the pool has no such position.
 */
export function estimatedLiquidationPrice(pool: MarginPool, target: TraderPosition, spec: SpecOf, mark: MarkOf): number | null {
  const q = target.qty;
  if (q === 0) return null;
  const m = markOrEntry(target, mark);
  const c = totalCollateral(pool, mark);
  let others = 0;
  for (const p of pool.positions) {
    if (p === target) continue;
    const n = Math.abs(p.qty) * markOrEntry(p, mark);
    if (n > 0) others += n * mmr(marginParams(spec, p.symbol), n);
  }
  const params = marginParams(spec, target.symbol);
  let price = m;
  for (let i = 0; i < 3; i++) {
    const r = mmr(params, Math.abs(q) * price);
    const denominator = q * (1 - Math.sign(q) * r);
    if (denominator === 0) return null;
    price = (others - c + q * m) / denominator;
    if (!(price > 0) || !Number.isFinite(price)) return null;
  }
  return price;
}

/**
 * `isLiquidatable` for every pool at every mark tick (positionMarket.ts), on arrays by symbol index:
 * the same arithmetic without a lookup per position. `test/unit/simTraderMargin.test.ts` holds the
 * two equal.
 */
export class MaintenanceCheck {
  readonly #marks: Float64Array;
  readonly #baseMmr: Float64Array;
  readonly #slope: Float64Array;
  readonly #flatBelow: Float64Array;

  /** `specs` in the order of the positions' `symbolIndex`. */
  constructor(specs: readonly SymbolSpec[]) {
    const n = specs.length;
    this.#marks = new Float64Array(n);
    this.#baseMmr = new Float64Array(n);
    this.#slope = new Float64Array(n);
    this.#flatBelow = new Float64Array(n);
    specs.forEach((spec, i) => {
      const shape = shapeOf(() => spec, spec.symbol);
      this.#baseMmr[i] = shape.params.baseMmr;
      this.#slope[i] = (shape.params.baseMmr / shape.params.baseImr) * shape.params.imrFactor;
      this.#flatBelow[i] = shape.flatBelow;
    });
  }

  setMark(index: number, price: number): void {
    this.#marks[index] = price;
  }

  liquidatable(pool: MarginPool): boolean {
    return this.slack(pool) < 0;
  }

  /**
   * How far every mark of the pool may move against it, as a share, before it can be liquidated
   * (negative: it is now). Collateral falls by at most Σ|q||Δm| and the maintenance margin, whose
   * slope in the notional is under 0.4 while MMR is under 0.2, rises by less than that again: with
   * every mark within δ of now, the slack C − MM shrinks by less than 1.4 δ Σ|notional|; halving
   * slack / Σ|notional| covers that with room for compounding.
   */
  slack(pool: MarginPool): number {
    const positions = pool.positions;
    if (positions.length === 0) return Number.POSITIVE_INFINITY;
    let c = pool.holding;
    let mm = 0;
    let notional = 0;
    for (let j = 0; j < positions.length; j++) {
      const p = positions[j] as TraderPosition;
      const i = p.symbolIndex;
      const m = this.#marks[i] as number;
      c += p.qty * (m - p.entry);
      const n = Math.abs(p.qty) * m;
      if (n === 0) continue;
      notional += n;
      const base = this.#baseMmr[i] as number;
      mm += n * (n < (this.#flatBelow[i] as number) ? base : Math.max(base, (this.#slope[i] as number) * n ** 0.8));
    }
    if (c < mm) return -1;
    return notional > 0 ? (c - mm) / (2 * notional) : Number.POSITIVE_INFINITY;
  }
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export {
  initialMargin as initialMarginForTests,
  liquidationFees as liquidationFeesForTests,
  maintenanceMargin as maintenanceMarginForTests,
};
