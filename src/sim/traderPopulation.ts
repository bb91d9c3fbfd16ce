/**
 * The simulated market's traders (positionMarket.ts): accounts with positions, each position with
 * its leverage and margin mode, opened at the mark of their time and closed after a while. How they
 * trade is what makes liquidations cluster as on a real venue: entries bunch where the price spent
 * time, leverage comes in a few popular settings (so liquidation prices sit at the same distances),
 * and traders follow the recent move (late longs in a rally are the next drop's liquidations).
 *
 * Seeded; no clock (the market passes `now`); the margin arithmetic is traderMargin.ts's.
 */
import { Calendar } from "./calendar.js";
import type { Prng } from "./prng.js";
import { type ListedSymbols, roundToStep } from "./symbols.js";
import { isLiquidatable, type MarginPool, type MarkOf, type TraderPosition } from "./traderMargin.js";

export type TraderMarginMode = "CROSS" | "ISOLATED";

export interface TraderPool extends MarginPool {
  owner: Trader;
  mode: TraderMarginMode;
  positions: TraderPosition[];
  /** When the market next checks its margin (market clock, ms; positionMarket.ts). */
  checkAt: number;
}

export interface Trader {
  accountId: string;
  address: string;
  /** The cross pool (possibly empty), then one pool per isolated position. */
  pools: TraderPool[];
}

export interface PopulationOptions {
  /** New traders per second (each opens one to three positions). */
  arrivalsPerSec: number;
  /** Mean holding time of a position, s (exponential, at least a minute). */
  meanHoldS: number;
  /** Share of positions opened in isolated margin. */
  isolatedShare: number;
  /** Notional of a position, log-uniform in this range (quote); `whaleShare` of them in `whale` instead. */
  notional: readonly [number, number];
  whale: readonly [number, number];
  whaleShare: number;
}

const DEFAULT_POPULATION: PopulationOptions = {
  arrivalsPerSec: 0.5,
  meanHoldS: 3 * 3600,
  isolatedShare: 0.15,
  notional: [200, 150_000],
  whale: [150_000, 2_000_000],
  whaleShare: 0.04,
};

/** Popular leverage settings and how often each is chosen (capped at the symbol's 1 / base_imr). */
const LEVERAGES: readonly [number, number][] = [
  [2, 4],
  [3, 5],
  [5, 14],
  [10, 24],
  [20, 20],
  [25, 9],
  [50, 14],
  [75, 4],
  [100, 6],
];

/** How often each default symbol is traded; others get the weight of an alt. */
const POPULARITY: Readonly<Record<string, number>> = {
  PERP_BTC_USDC: 30,
  PERP_ETH_USDC: 22,
  PERP_SOL_USDC: 12,
  PERP_BNB_USDC: 6,
  PERP_DOGE_USDC: 7,
  PERP_WIF_USDC: 5,
  PERP_1000PEPE_USDC: 5,
  PERP_NVDA_USDC: 4,
  PERP_TSLA_USDC: 4,
  PERP_EUR_USDC: 2,
  PERP_GBP_USDC: 1,
};

function weighted<T>(prng: Prng, items: readonly (readonly [T, number])[]): T {
  let total = 0;
  for (const [, w] of items) total += w;
  let u = prng.uniform(0, total);
  for (const [v, w] of items) {
    if (u < w) return v;
    u -= w;
  }
  return (items[items.length - 1] as readonly [T, number])[0];
}

/** What an opening trader needs to know of the market: marks, and each symbol's recent trend. */
export interface MarketView {
  mark: MarkOf;
  /** The symbol's log return over the last ten minutes, in units of its usual ten-minute move. */
  trend(symbol: string): number;
}

export class TraderPopulation {
  readonly options: PopulationOptions;
  readonly #prng: Prng;
  readonly #symbols: ListedSymbols;
  readonly #traders = new Map<string, Trader>();
  /** Each position at its trader's closing time (ten-second buckets: a close is a few seconds late at worst). */
  readonly #closes = new Calendar<{ pool: TraderPool; position: TraderPosition }>(10_000);
  readonly #popular: [string, number][];
  /** Each symbol's place in the table (a position's `symbolIndex`). */
  readonly #index: Map<string, number>;
  #nextPositionId = 1;

  constructor(prng: Prng, symbols: ListedSymbols, options: Partial<PopulationOptions> = {}) {
    this.options = { ...DEFAULT_POPULATION, ...options };
    const o = this.options;
    if (!(o.arrivalsPerSec >= 0 && o.meanHoldS > 0 && o.isolatedShare >= 0 && o.isolatedShare <= 1)) {
      throw new RangeError("population options out of range");
    }
    this.#prng = prng;
    this.#symbols = symbols;
    this.#popular = symbols.names().map((s) => [s, POPULARITY[s] ?? 4]);
    this.#index = new Map(symbols.names().map((s, i) => [s, i]));
  }

  get size(): number {
    return this.#traders.size;
  }

  traders(): IterableIterator<Trader> {
    return this.#traders.values();
  }

  get(accountId: string): Trader | undefined {
    return this.#traders.get(accountId);
  }

  /**
   * A population as if the market had run for a while: positions of every age, each opened at a
   * price the symbol could have had then (its volatility over the age), none already liquidatable.
   */
  seed(count: number, view: MarketView, now: number): Trader[] {
    const prng = this.#prng;
    const seeded: Trader[] = [];
    for (let i = 0; i < count; i++) {
      const ageS = Math.min(prng.exponential(1 / this.options.meanHoldS), 4 * this.options.meanHoldS);
      for (let attempt = 0; attempt < 5; attempt++) {
        const entryOf = (symbol: string, mark: number): number => {
          const sigma = (this.#symbols.get(symbol)?.volatilityPerSec ?? 0) * Math.sqrt(ageS);
          return mark * Math.exp(sigma * prng.normal());
        };
        const t = this.#open(view, now - ageS * 1000, now, entryOf);
        if (t === undefined) break;
        if (!t.pools.some((p) => isLiquidatable(p, (s) => this.#symbols.get(s), view.mark))) {
          seeded.push(t);
          break;
        }
        this.#forget(t);
      }
    }
    return seeded;
  }

  /** Traders arriving during `dtSec` open their positions at the marks; the traders who arrived. */
  arrive(dtSec: number, view: MarketView, now: number): Trader[] {
    const arrived: Trader[] = [];
    const rate = this.options.arrivalsPerSec * dtSec;
    // Poisson arrivals in the step: at most a few per second at the rates used.
    for (let u = this.#prng.exponential(1); u < rate; u += this.#prng.exponential(1)) {
      const t = this.#open(view, now, now, (_s, mark) => mark);
      if (t !== undefined) arrived.push(t);
    }
    return arrived;
  }

  /** Positions whose holding time is over are closed at the mark. Returns how many. */
  closeDue(now: number, mark: MarkOf): number {
    let closed = 0;
    for (const { pool, position } of this.#closes.due(now)) {
      const i = pool.positions.indexOf(position);
      if (i === -1) continue; // liquidated in full meanwhile
      if (position.closeAt > now) {
        this.#closes.add(position.closeAt, { pool, position });
        continue;
      }
      pool.holding += position.qty * ((mark(position.symbol) ?? position.entry) - position.entry);
      pool.positions.splice(i, 1);
      closed++;
      this.prune(pool.owner);
    }
    return closed;
  }

  /** Drops a trader's empty isolated pools, and the trader once nothing is left. */
  prune(t: Trader): void {
    if (t.pools.length > 1 && t.pools.some((p, i) => i > 0 && p.positions.length === 0))
      t.pools = t.pools.filter((p, i) => i === 0 || p.positions.length > 0);
    if (t.pools.every((p) => p.positions.length === 0)) this.#forget(t);
  }

  #forget(t: Trader): void {
    this.#traders.delete(t.accountId);
    for (const pool of t.pools) pool.positions.length = 0;
  }

  /** A trader with one to three positions opened at `openedAt`; each is closed a memoryless holding time after `now`. */
  #open(view: MarketView, openedAt: number, now: number, entryOf: (symbol: string, mark: number) => number): Trader | undefined {
    const prng = this.#prng;
    const o = this.options;
    const count = prng.chance(0.72) ? 1 : prng.chance(0.8) ? 2 : 3;
    const trader: Trader = { accountId: `0x${prng.hex(32)}`, address: `0x${prng.hex(20)}`, pools: [] };
    const cross: TraderPool = { owner: trader, mode: "CROSS", holding: 0, positions: [], checkAt: 0 };
    trader.pools.push(cross);
    // A cross trader often keeps more than the margin; an isolated position carries exactly its own.
    const buffer = prng.chance(0.4) ? prng.uniform(1.02, 1.12) : prng.logUniform(1.12, 4);
    const taken = new Set<string>();
    for (let i = 0; i < count; i++) {
      const symbol = weighted(
        prng,
        this.#popular.filter(([s]) => !taken.has(s)),
      );
      taken.add(symbol);
      const spec = this.#symbols.get(symbol);
      const mark = view.mark(symbol);
      if (spec === undefined || mark === undefined) continue;
      const maxLeverage = Math.floor(1 / (spec.baseImr ?? (spec.tier === 1 ? 0.01 : 0.1)));
      const leverage = Math.min(maxLeverage, weighted(prng, LEVERAGES));
      const notional = prng.chance(o.whaleShare) ? prng.logUniform(o.whale[0], o.whale[1]) : prng.logUniform(o.notional[0], o.notional[1]);
      const entry = entryOf(symbol, mark);
      const size = roundToStep(notional / entry, spec.qtyStep);
      if (!(size > 0) || size * entry < spec.minNotional) continue;
      // Traders follow the move: after a rally most new positions are longs.
      const longOdds = 0.5 + 0.3 * Math.tanh(view.trend(symbol) / 2);
      const side = prng.chance(longOdds) ? 1 : -1;
      const holdS = Math.max(60, prng.exponential(1 / o.meanHoldS));
      const position: TraderPosition = {
        positionId: this.#nextPositionId++,
        symbol,
        symbolIndex: this.#index.get(symbol) as number,
        qty: side * size,
        entry,
        leverage,
        openedAt,
        closeAt: now + holdS * 1000,
      };
      const margin = (size * entry) / leverage;
      if (prng.chance(o.isolatedShare)) {
        const pool: TraderPool = {
          owner: trader,
          mode: "ISOLATED",
          holding: margin * prng.uniform(1, 1.05),
          positions: [position],
          checkAt: 0,
        };
        trader.pools.push(pool);
        this.#closes.add(position.closeAt, { pool, position });
      } else {
        cross.positions.push(position);
        cross.holding += margin * buffer;
        this.#closes.add(position.closeAt, { pool: cross, position });
      }
    }
    if (trader.pools.every((p) => p.positions.length === 0)) return undefined;
    this.#traders.set(trader.accountId, trader);
    return trader;
  }
}
