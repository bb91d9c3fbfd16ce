/**
 * The simulated venue's markets: a realistic mix of low-risk (tier 1) and high-risk (tier 2) perps,
 * including the memecoin, FX and stock perps of the 2026 release notes (docs/protocol.md §A.9). Field meanings
 * per docs/protocol.md §4.2: `liquidator_fee` is a fraction, `baseTick` the price tick (served as `quote_tick`),
 * `qtyStep` the quantity step (served as `base_tick` and `base_min`), `min_notional` in quote.
 */
/** The synthetic order book of a symbol (orderBook.ts `SyntheticBook`). */
export interface BookSpec {
  /** Distance between the best bid and the best ask, bps of the mark. */
  spreadBps: number;
  /** Levels per side. */
  levels: number;
  /** Distance between two levels, bps of the mark. */
  stepBps: number;
  /** Notional (quote, at the mark) resting at each level when full. */
  levelNotional: number;
  /** Share of what is missing at a level that comes back each second. */
  refillPerSec: number;
}

export type LiquidationTier = 1 | 2;

export interface SymbolSpec {
  symbol: string;
  /** 1 = low risk, 2 = high risk (claimable one symbol at a time through `symbols`). */
  tier: LiquidationTier;
  liquidatorFee: number;
  /** Price tick. */
  baseTick: number;
  /** Quantity step used when the simulator sizes liquidations and orders. */
  qtyStep: number;
  minNotional: number;
  startPrice: number;
  /** Standard deviation of the mark's log return over one second. */
  volatilityPerSec: number;
  /** Smallest order quantity (`base_min`); default `qtyStep`. Quantities lie on `base_min + k × qtyStep`. */
  baseMin?: number;
  /** Largest order quantity (`base_max`); default 1e9. */
  baseMax?: number;
  /** Lowest order price (`quote_min`); default 0. Prices lie on `quote_min + k × baseTick`. */
  quoteMin?: number;
  /** Highest order price (`quote_max`); default 100 × `startPrice`. */
  quoteMax?: number;
  /** An order price must lie within mark × (1 ± priceRange) (`price_range`); default 0.03. */
  priceRange?: number;
  /** Margin parameters (docs/protocol.md §7, `base_imr`, `base_mmr`, `imr_factor`); default by tier (margin.ts `marginOf`). */
  baseImr?: number;
  baseMmr?: number;
  imrFactor?: number;
  /** `claim_insurance_fund_discount` (docs/protocol.md §10); default half `liquidatorFee` (insuranceFund.ts). */
  claimInsuranceFundDiscount?: number;
  /** The synthetic order book; default by symbol and tier (orderBook.ts `defaultBookSpec`). */
  book?: BookSpec;
}

export const DEFAULT_SYMBOLS: readonly SymbolSpec[] = [
  {
    symbol: "PERP_BTC_USDC",
    tier: 1,
    liquidatorFee: 0.006,
    baseTick: 0.1,
    qtyStep: 0.00001,
    minNotional: 10,
    startPrice: 104250,
    volatilityPerSec: 0.0002,
    baseImr: 0.01,
    baseMmr: 0.006,
    imrFactor: 3.8e-7,
  },
  {
    symbol: "PERP_ETH_USDC",
    tier: 1,
    liquidatorFee: 0.008,
    baseTick: 0.01,
    qtyStep: 0.0001,
    minNotional: 10,
    startPrice: 3850,
    volatilityPerSec: 0.0003,
    baseImr: 0.01,
    baseMmr: 0.006,
    imrFactor: 3.8e-7,
  },
  {
    symbol: "PERP_SOL_USDC",
    tier: 1,
    liquidatorFee: 0.01,
    baseTick: 0.001,
    qtyStep: 0.01,
    minNotional: 10,
    startPrice: 182.5,
    volatilityPerSec: 0.0004,
    baseImr: 0.02,
    baseMmr: 0.012,
    imrFactor: 7.6e-7,
  },
  {
    symbol: "PERP_BNB_USDC",
    tier: 1,
    liquidatorFee: 0.01,
    baseTick: 0.01,
    qtyStep: 0.001,
    minNotional: 10,
    startPrice: 690,
    volatilityPerSec: 0.0003,
    baseImr: 0.02,
    baseMmr: 0.012,
    imrFactor: 7.6e-7,
  },
  {
    symbol: "PERP_DOGE_USDC",
    tier: 2,
    liquidatorFee: 0.02,
    baseTick: 0.00001,
    qtyStep: 1,
    minNotional: 10,
    startPrice: 0.2215,
    volatilityPerSec: 0.0008,
    baseImr: 0.1,
    baseMmr: 0.05,
    imrFactor: 2.1e-6,
  },
  {
    symbol: "PERP_WIF_USDC",
    tier: 2,
    liquidatorFee: 0.025,
    baseTick: 0.0001,
    qtyStep: 0.1,
    minNotional: 10,
    startPrice: 1.85,
    volatilityPerSec: 0.001,
    baseImr: 0.1,
    baseMmr: 0.05,
    imrFactor: 2.1e-6,
  },
  {
    symbol: "PERP_1000PEPE_USDC",
    tier: 2,
    liquidatorFee: 0.025,
    baseTick: 0.000001,
    qtyStep: 1,
    minNotional: 10,
    startPrice: 0.0125,
    volatilityPerSec: 0.001,
    baseImr: 0.1,
    baseMmr: 0.05,
    imrFactor: 2.1e-6,
  },
  {
    symbol: "PERP_EUR_USDC",
    tier: 2,
    liquidatorFee: 0.005,
    baseTick: 0.00001,
    qtyStep: 1,
    minNotional: 10,
    startPrice: 1.0845,
    volatilityPerSec: 0.00005,
    baseImr: 0.02,
    baseMmr: 0.012,
    imrFactor: 3.8e-7,
  },
  {
    symbol: "PERP_GBP_USDC",
    tier: 2,
    liquidatorFee: 0.005,
    baseTick: 0.00001,
    qtyStep: 1,
    minNotional: 10,
    startPrice: 1.2712,
    volatilityPerSec: 0.00005,
    baseImr: 0.02,
    baseMmr: 0.012,
    imrFactor: 3.8e-7,
  },
  {
    symbol: "PERP_NVDA_USDC",
    tier: 2,
    liquidatorFee: 0.012,
    baseTick: 0.01,
    qtyStep: 0.01,
    minNotional: 10,
    startPrice: 181.2,
    volatilityPerSec: 0.0002,
    baseImr: 0.1,
    baseMmr: 0.05,
    imrFactor: 2.1e-6,
  },
  {
    symbol: "PERP_TSLA_USDC",
    tier: 2,
    liquidatorFee: 0.012,
    baseTick: 0.01,
    qtyStep: 0.01,
    minNotional: 10,
    startPrice: 322.4,
    volatilityPerSec: 0.0003,
    baseImr: 0.1,
    baseMmr: 0.05,
    imrFactor: 2.1e-6,
  },
];

/** Number of decimals of a step such as 0.001 (3) or 1 (0), for dust-free rounding. */
function decimalsOf(step: number): number {
  if (step >= 1) return 0;
  return Math.max(0, Math.ceil(-Math.log10(step) - 1e-9));
}

/** Round `value` to a multiple of `step` without float dust (0.1 + 0.2 style tails). */
export function roundToStep(value: number, step: number): number {
  const d = decimalsOf(step);
  return Number((Math.round(value / step) * step).toFixed(d));
}

/**
 * `value` rounded toward zero to the quantity grid `k × step` (no float dust): a claimed share of a
 * position, as the simulator assigns it (docs/protocol.md §11). Values within 1e-9 of a step below
 * it count as on it (0.3 = 2.9999999… steps of 0.1).
 */
export function floorToStep(value: number, step: number): number {
  const units = Math.abs(value) / step;
  // A grid finer than a double resolves at this size: the value is on it as far as anyone can tell.
  if (units > 2 ** 50) return roundQty(value);
  const n = Math.floor(units + 1e-9);
  const q = Number((n * step).toFixed(decimalsOf(step)));
  return q === 0 ? 0 : Math.sign(value) * q;
}

/** Round to 1e-9: the precision at which the venue cuts quantities (docs/protocol.md §11) to avoid float dust. */
export function roundQty(value: number): number {
  const r = Math.round(value * 1e9) / 1e9;
  return r === 0 ? 0 : r; // no -0 on the wire
}

/** Lookup by symbol name, validated at construction (no duplicates, sane numbers). */
export class ListedSymbols {
  readonly #bySymbol = new Map<string, SymbolSpec>();

  constructor(specs: readonly SymbolSpec[] = DEFAULT_SYMBOLS) {
    for (const s of specs) {
      if (!/^PERP_[A-Z0-9]+_[A-Z0-9]+$/.test(s.symbol)) throw new RangeError(`bad symbol name ${s.symbol}`);
      if (this.#bySymbol.has(s.symbol)) throw new RangeError(`duplicate symbol ${s.symbol}`);
      for (const [k, v] of [
        ["liquidatorFee", s.liquidatorFee],
        ["baseTick", s.baseTick],
        ["qtyStep", s.qtyStep],
        ["startPrice", s.startPrice],
      ] as const) {
        if (!(Number.isFinite(v) && v > 0)) throw new RangeError(`${s.symbol}: ${k} must be a positive number`);
      }
      if (s.liquidatorFee >= 1) throw new RangeError(`${s.symbol}: liquidatorFee must be below 1`);
      for (const [k, v] of [
        ["baseMin", s.baseMin],
        ["baseMax", s.baseMax],
        ["quoteMin", s.quoteMin],
        ["quoteMax", s.quoteMax],
        ["priceRange", s.priceRange],
        ["imrFactor", s.imrFactor],
        ["claimInsuranceFundDiscount", s.claimInsuranceFundDiscount],
      ] as const) {
        if (v !== undefined && !(Number.isFinite(v) && v >= 0)) throw new RangeError(`${s.symbol}: ${k} must be a number ≥ 0`);
      }
      for (const [k, v] of [
        ["baseImr", s.baseImr],
        ["baseMmr", s.baseMmr],
      ] as const) {
        if (v !== undefined && !(Number.isFinite(v) && v > 0 && v <= 1)) throw new RangeError(`${s.symbol}: ${k} must be in (0, 1]`);
      }
      if ((s.baseMin ?? s.qtyStep) > (s.baseMax ?? 1e9)) throw new RangeError(`${s.symbol}: baseMin above baseMax`);
      if ((s.quoteMin ?? 0) >= (s.quoteMax ?? s.startPrice * 100)) throw new RangeError(`${s.symbol}: quoteMin not below quoteMax`);
      this.#bySymbol.set(s.symbol, s);
    }
    if (this.#bySymbol.size === 0) throw new RangeError("at least one symbol is required");
  }

  get(symbol: string): SymbolSpec | undefined {
    return this.#bySymbol.get(symbol);
  }

  has(symbol: string): boolean {
    return this.#bySymbol.has(symbol);
  }

  all(): SymbolSpec[] {
    return [...this.#bySymbol.values()];
  }

  names(): string[] {
    return [...this.#bySymbol.keys()];
  }
}
