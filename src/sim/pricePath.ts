/**
 * The position-driven market's marks (positionMarket.ts): a seeded path per symbol with the shapes
 * that make liquidations cluster in a real market — quiet spells, ordinary hours, trends and
 * turbulent bursts (one market-wide regime, a Markov chain in virtual time), a common market factor
 * that moves the correlated symbols together, and jumps: fast moves of a few percent spread over
 * seconds (a real crash takes seconds, not one tick). A faint pull back to the start price keeps a
 * run of days near its start.
 *
 * The path keeps exact log prices; positionMarket rounds them to each symbol's tick for the marks.
 * Deterministic: the same seed and the same sequence of `step(dt)` calls give the same prices.
 */
import type { Prng } from "./prng.js";
import type { SymbolSpec } from "./symbols.js";

export type Regime = "quiet" | "normal" | "trend" | "turbulent";

interface RegimeShape {
  /** Multiplies every symbol's volatility. */
  vol: number;
  /** Mean time in the regime, s. */
  meanS: number;
  /** Multiplies the jump rate. */
  jumps: number;
}

/** Simulator's choice, shaped after crypto perps: mostly ordinary or quiet, trends now and then, short bursts. */
const REGIMES: Readonly<Record<Regime, RegimeShape>> = {
  quiet: { vol: 0.45, meanS: 40 * 60, jumps: 0.5 },
  normal: { vol: 1, meanS: 60 * 60, jumps: 1 },
  trend: { vol: 1.2, meanS: 25 * 60, jumps: 1 },
  turbulent: { vol: 2, meanS: 8 * 60, jumps: 3 },
};

/** Where a regime goes when it ends (weights). */
const NEXT: Readonly<Record<Regime, readonly [Regime, number][]>> = {
  quiet: [
    ["normal", 0.7],
    ["trend", 0.3],
  ],
  normal: [
    ["quiet", 0.45],
    ["trend", 0.4],
    ["turbulent", 0.15],
  ],
  trend: [
    ["normal", 0.6],
    ["turbulent", 0.25],
    ["quiet", 0.15],
  ],
  turbulent: [
    ["normal", 0.6],
    ["trend", 0.4],
  ],
};

export interface PricePathOptions {
  /** Market-wide jumps per day in an ordinary regime (default 6). */
  jumpsPerDay: number;
  /** Standard deviation of a jump's size, as a log return (default 0.012). */
  jumpSigma: number;
  /** A jump's move is spread over this many seconds, uniform in the range (default 5–30). */
  jumpSpreadS: readonly [number, number];
  /** A trend's drift of the market factor, per hour, uniform in the range of magnitudes (default 1–4 %). */
  trendPerHour: readonly [number, number];
  /** Half-life of the pull back to the start price, s (default one day). */
  pullHalfLifeS: number;
  /** A symbol's beta to the market factor (default: by volatility, see `defaultBeta`). */
  beta: (spec: SymbolSpec) => number;
}

/**
 * Crypto moves together, FX and stocks mostly on their own. The symbol table has no asset class, so
 * the beta follows the tier and the volatility: tier 1 (the majors) and volatile tier 2 (memecoins)
 * follow the market factor, calm tier 2 (FX, stocks) barely.
 */
function defaultBeta(spec: SymbolSpec): number {
  if (spec.tier === 1) return 0.9;
  return spec.volatilityPerSec >= 0.0005 ? 0.8 : 0.1;
}

const DEFAULT_OPTIONS: PricePathOptions = {
  jumpsPerDay: 6,
  jumpSigma: 0.012,
  jumpSpreadS: [5, 30],
  trendPerHour: [0.01, 0.04],
  pullHalfLifeS: 86_400,
  beta: defaultBeta,
};

interface SymbolPath {
  spec: SymbolSpec;
  logStart: number;
  logPrice: number;
  beta: number;
  /** Share of the volatility that is the symbol's own: sqrt(1 − beta²) keeps its total volatility. */
  own: number;
}

/** A move being spread over time: `rate` log return per second until `untilS`. */
interface Ramp {
  symbol: string | undefined; // undefined: the market factor
  rate: number;
  untilS: number;
}

export class PricePath {
  readonly options: PricePathOptions;
  readonly #prng: Prng;
  readonly #paths: SymbolPath[];
  readonly #bySymbol = new Map<string, SymbolPath>();
  #regime: Regime = "normal";
  #regimeLeftS: number;
  /** The market factor's drift while trending, log return per second. */
  #drift = 0;
  #ramps: Ramp[] = [];
  #clockS = 0;

  constructor(prng: Prng, specs: readonly SymbolSpec[], options: Partial<PricePathOptions> = {}) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    const o = this.options;
    if (!(o.jumpsPerDay >= 0 && o.jumpSigma >= 0 && o.pullHalfLifeS > 0)) throw new RangeError("price path options out of range");
    this.#prng = prng;
    this.#paths = specs.map((spec) => {
      const beta = Math.min(1, Math.max(0, o.beta(spec)));
      return { spec, logStart: Math.log(spec.startPrice), logPrice: Math.log(spec.startPrice), beta, own: Math.sqrt(1 - beta * beta) };
    });
    for (const p of this.#paths) this.#bySymbol.set(p.spec.symbol, p);
    this.#regimeLeftS = this.#prng.exponential(1 / REGIMES.normal.meanS);
  }

  get regime(): Regime {
    return this.#regime;
  }

  price(symbol: string): number | undefined {
    const p = this.#bySymbol.get(symbol);
    return p === undefined ? undefined : Math.exp(p.logPrice);
  }

  /** Advance every price by `dtSec` seconds (one call per mark tick; 1 s in the simulator), every move × `scale`. */
  step(dtSec: number, scale = 1): void {
    if (!(dtSec > 0)) return;
    const prng = this.#prng;
    this.#clockS += dtSec;
    this.#advanceRegime(dtSec);
    const shape = REGIMES[this.#regime];
    // Jumps: market-wide, and now and then one symbol alone (a third as often).
    const jumpRate = (this.options.jumpsPerDay * shape.jumps) / 86_400;
    if (prng.chance(jumpRate * dtSec)) this.#jump(undefined);
    if (prng.chance((jumpRate / 3) * dtSec)) this.#jump(prng.pick(this.#paths).spec.symbol);

    const sqrtDt = Math.sqrt(dtSec);
    const market = prng.normal();
    let marketRamp = 0;
    for (const r of this.#ramps) if (r.symbol === undefined) marketRamp += r.rate * dtSec;
    const pull = (Math.LN2 / this.options.pullHalfLifeS) * dtSec;
    for (const p of this.#paths) {
      const sigma = p.spec.volatilityPerSec * shape.vol * sqrtDt;
      let own = 0;
      for (const r of this.#ramps) if (r.symbol === p.spec.symbol) own += r.rate * dtSec;
      const shock = sigma * (p.beta * market + p.own * prng.normal());
      p.logPrice += scale * (shock + p.beta * (this.#drift * dtSec + marketRamp) + own) + pull * (p.logStart - p.logPrice);
    }
    this.#ramps = this.#ramps.filter((r) => r.untilS > this.#clockS);
  }

  /** A move of the log price of `symbol` (a liquidation's impact, a test's shock). */
  nudge(symbol: string, logReturn: number): void {
    const p = this.#bySymbol.get(symbol);
    if (p !== undefined && Number.isFinite(logReturn)) p.logPrice += logReturn;
  }

  #advanceRegime(dtSec: number): void {
    this.#regimeLeftS -= dtSec;
    if (this.#regimeLeftS > 0) return;
    const prng = this.#prng;
    const options = NEXT[this.#regime];
    let u = prng.next();
    let next: Regime = options[0]?.[0] ?? "normal";
    for (const [r, w] of options) {
      if (u < w) {
        next = r;
        break;
      }
      u -= w;
    }
    this.#regime = next;
    this.#regimeLeftS = prng.exponential(1 / REGIMES[next].meanS);
    const [lo, hi] = this.options.trendPerHour;
    this.#drift = next === "trend" ? ((prng.chance(0.5) ? 1 : -1) * prng.uniform(lo, hi)) / 3600 : 0;
  }

  #jump(symbol: string | undefined): void {
    const prng = this.#prng;
    const size = this.options.jumpSigma * prng.normal();
    const [lo, hi] = this.options.jumpSpreadS;
    const spread = Math.max(1, prng.uniform(lo, hi));
    this.#ramps.push({ symbol, rate: size / spread, untilS: this.#clockS + spread });
  }
}
