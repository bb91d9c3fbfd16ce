/**
 * The position-driven simulated market (the default of `npm start`): liquidations follow from
 * positions and prices instead of falling from a random generator. Each step (one mark tick) the
 * marks move along a seeded path (pricePath.ts), traders close what they meant to and new ones
 * open positions (traderPopulation.ts), and every account whose margin ratio fell below maintenance
 * is liquidated by the venue's rules (traderMargin.ts, docs/protocol.md §7): the same share of each of
 * its positions, the smallest that brings it back to its initial margin with the liquidator fees
 * paid, offered in one liquidation with each symbol's `liquidator_fee`; a bankrupt account (it
 * cannot pay even a whole liquidation's fees) goes to the insurance fund whole (insuranceFund.ts).
 * Cascades come from clustered liquidation prices: nothing else schedules them.
 *
 * The market keeps its own clock, advanced by each step's `dtSec`, for everything the traders do:
 * the same seed and steps give the same market however late a timer fires (the venue's own clock
 * only stamps what it publishes).
 */
import { Calendar } from "./calendar.js";
import type { InsuranceFund } from "./insuranceFund.js";
import type { AddLiquidationInput } from "./liquidations.js";
import { PricePath, type PricePathOptions } from "./pricePath.js";
import type { Prng } from "./prng.js";
import { roundQty, roundToStep } from "./symbols.js";
import { liquidationShare, MaintenanceCheck, type MarkOf, type TraderPosition, totalCollateral } from "./traderMargin.js";
import { type MarketView, type PopulationOptions, type Trader, type TraderPool, TraderPopulation } from "./traderPopulation.js";
import type { VenueCore } from "./venueCore.js";

export interface PositionMarketOptions {
  population: Partial<PopulationOptions>;
  path: Partial<PricePathOptions>;
  /** Traders at the start (default: about what the arrivals and holding times keep in steady state). */
  initialTraders?: number;
  /** `every`: check every pool at every step (the reference the default schedule is tested against). */
  scan?: "scheduled" | "every";
}

/** One liquidation the market made: who was liquidated (the venue knows; the wire does not say). */
export interface MarketLiquidation {
  liquidationId: number;
  accountId: string;
  /** Venue time it was opened and pushed, ms. */
  at: number;
  mode: TraderPool["mode"];
  positions: { symbol: string; qty: number }[];
  /** True when the fund took the account over (no liquidation was offered). */
  bankrupt: boolean;
}

export interface StepReport {
  arrived: number;
  closed: number;
  liquidations: number;
  bankrupt: number;
}

/** Ten minutes of history at one sample a minute: the traders' sense of the trend. */
const TREND_SAMPLES = 11;
const TREND_EVERY_MS = 60_000;
/** A pool far from its maintenance margin is still checked every two minutes. */
const MAX_UNCHECKED_MS = 120_000;

export class PositionMarket {
  readonly path: PricePath;
  readonly population: TraderPopulation;
  readonly #core: VenueCore;
  readonly #fund: InsuranceFund | undefined;
  readonly #listeners = new Set<(l: MarketLiquidation) => void>();
  readonly #history = new Map<string, number[]>();
  readonly #view: MarketView;
  readonly #check: MaintenanceCheck;
  /** Per symbol, by index: the largest log move of one step the pools' check schedule allows for. */
  readonly #maxMove: number[];
  #fullScan = true;
  readonly #scanEvery: boolean;
  #clock: number;
  #nextSample: number;
  /** Each pool at the time its margin is next checked (one-second buckets). */
  readonly #checks = new Calendar<TraderPool>(1000);

  constructor(core: VenueCore, prng: Prng, fund: InsuranceFund | undefined, options: Partial<PositionMarketOptions> = {}) {
    this.#core = core;
    this.#fund = fund;
    const specs = core.symbols.all();
    this.#check = new MaintenanceCheck(specs);
    this.#scanEvery = options.scan === "every";
    // Five standard deviations of an ordinary second, at least 0.2 %: a turbulent or jumping second
    // past it is rare, and then every pool is checked.
    this.#maxMove = specs.map((s) => Math.max(0.002, 5 * s.volatilityPerSec));
    this.path = new PricePath(prng.fork(), specs, options.path);
    this.population = new TraderPopulation(prng.fork(), core.symbols, options.population);
    this.#clock = core.now();
    this.#nextSample = this.#clock;
    const mark: MarkOf = (s) => core.mark(s);
    this.#view = { mark, trend: (s) => this.#trend(s) };
    this.#publishPath();
    this.#sample();
    const o = this.population.options;
    const initial = options.initialTraders ?? Math.round(o.arrivalsPerSec * o.meanHoldS * 0.5);
    for (const t of this.population.seed(initial, this.#view, this.#clock)) for (const pool of t.pools) this.#schedule(pool, this.#clock);
  }

  /** Every liquidation and takeover the market makes, as it makes it; returns the unsubscribe function. */
  onLiquidation(listener: (l: MarketLiquidation) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The market's clock, ms: the venue's at the start plus every step's dt. */
  get clock(): number {
    return this.#clock;
  }

  /**
   * One mark tick of `dtSec` seconds; `volatility` scales the marks' moves (0: the marks stay where
   * they are, traders still come and go). The caller publishes the marks.
   */
  step(dtSec: number, volatility = 1): StepReport {
    const core = this.#core;
    this.#clock += dtSec * 1000;
    if (volatility > 0) this.path.step(dtSec, volatility);
    this.#publishPath();
    core.rewards.accrue(dtSec);
    if (this.#clock >= this.#nextSample) this.#sample();
    const mark: MarkOf = (s) => core.mark(s);
    const closed = this.population.closeDue(this.#clock, mark);
    const { liquidations, bankrupt } = this.#liquidate(mark, dtSec);
    const arrived = this.population.arrive(dtSec, this.#view, this.#clock);
    for (const t of arrived) for (const pool of t.pools) this.#schedule(pool, this.#clock + dtSec * 1000);
    return { arrived: arrived.length, closed, liquidations, bankrupt };
  }

  #publishPath(): void {
    const core = this.#core;
    const now = core.now();
    this.#fullScan = false;
    core.symbols.names().forEach((symbol, i) => {
      const before = core.mark(symbol) as number;
      const price = this.path.price(symbol);
      if (price !== undefined) core.market.set(symbol, price, now);
      const after = core.mark(symbol) as number;
      this.#check.setMark(i, after);
      if (Math.abs(Math.log(after / before)) > (this.#maxMove[i] as number)) this.#fullScan = true;
    });
    for (const symbol of core.symbols.names()) core.trading.onMark(symbol);
  }

  /**
   * How long a pool whose marks may move `slack` against it can go unchecked: every mark moves at
   * most its `#maxMove` a step (a step that moves one more rechecks every pool), so slack / that many
   * steps (at most two minutes).
   */
  #waitMs(pool: TraderPool, slack: number, dtSec: number): number {
    let rate = 0;
    for (const p of pool.positions) rate = Math.max(rate, this.#maxMove[p.symbolIndex] as number);
    const steps = rate > 0 ? Math.floor(slack / rate) : Number.POSITIVE_INFINITY;
    return Math.min(steps * dtSec * 1000, MAX_UNCHECKED_MS);
  }

  #sample(): void {
    for (const symbol of this.#core.symbols.names()) {
      const h = this.#history.get(symbol) ?? [];
      h.push(Math.log(this.#core.mark(symbol) ?? 1));
      if (h.length > TREND_SAMPLES) h.shift();
      this.#history.set(symbol, h);
    }
    this.#nextSample = this.#clock + TREND_EVERY_MS;
  }

  /** The last ten minutes' log return in units of the symbol's usual ten-minute move. */
  #trend(symbol: string): number {
    const h = this.#history.get(symbol);
    const spec = this.#core.symbols.get(symbol);
    if (h === undefined || h.length < 2 || spec === undefined) return 0;
    const usual = spec.volatilityPerSec * Math.sqrt(((h.length - 1) * TREND_EVERY_MS) / 1000);
    return usual > 0 ? ((h[h.length - 1] as number) - (h[0] as number)) / usual : 0;
  }

  #liquidate(mark: MarkOf, dtSec: number): { liquidations: number; bankrupt: number } {
    const core = this.#core;
    const spec = (s: string) => core.symbols.get(s);
    const inputs: AddLiquidationInput[] = [];
    const owners: { trader: Trader; mode: TraderPool["mode"]; positions: { symbol: string; qty: number }[] }[] = [];
    let bankrupt = 0;
    const touched: Trader[] = [];
    const every = this.#fullScan || this.#scanEvery;
    for (const pool of every ? this.#allPools() : this.#checks.due(this.#clock)) {
      {
        const trader = pool.owner;
        // An entry the schedule has moved (a full scan checked the pool since), or a pool gone.
        if (pool.positions.length === 0 || (!every && pool.checkAt > this.#clock)) continue;
        const slack = this.#check.slack(pool);
        if (slack >= 0) {
          this.#schedule(pool, this.#clock + Math.max(dtSec * 1000, this.#waitMs(pool, slack, dtSec)));
          continue;
        }
        // What is left is checked again at the next step.
        this.#schedule(pool, this.#clock + dtSec * 1000);
        const share = liquidationShare(pool, spec, mark);
        if (share.kind === "bankrupt" && this.#fund !== undefined) {
          const positions = pool.positions.map((p) => ({ symbol: p.symbol, position_qty: p.qty }));
          const id = this.#fund.takeOver(positions, totalCollateral(pool, mark));
          this.#emptyPool(pool);
          bankrupt++;
          if (touched[touched.length - 1] !== trader) touched.push(trader);
          if (id !== undefined)
            this.#emit({
              liquidationId: id,
              accountId: trader.accountId,
              at: core.now(),
              mode: pool.mode,
              positions: positions.map((p) => ({ symbol: p.symbol, qty: p.position_qty })),
              bankrupt: true,
            });
          continue;
        }
        const taken = this.#take(pool, share.kind === "share" ? share.share : 1, mark);
        if (taken.length === 0) continue;
        inputs.push({ positions: taken.map((t) => ({ symbol: t.symbol, position_qty: t.qty })) });
        owners.push({ trader, mode: pool.mode, positions: taken });
        if (touched[touched.length - 1] !== trader) touched.push(trader);
      }
    }
    for (const trader of touched) this.population.prune(trader);
    if (inputs.length > 0) {
      const ids = core.addLiquidations(inputs);
      const at = core.now();
      ids.forEach((liquidationId, i) => {
        const o = owners[i] as (typeof owners)[number];
        this.#emit({ liquidationId, accountId: o.trader.accountId, at, mode: o.mode, positions: o.positions, bankrupt: false });
      });
    }
    return { liquidations: inputs.length, bankrupt };
  }

  /**
   * Takes `share` of every position of the pool out of the account at the marks (the realised P&L
   * and the liquidator fees settled from its collateral); what is taken, signed as held. A part too
   * small to trade (under the minimum notional) goes with what is taken.
   */
  #take(pool: TraderPool, share: number, mark: MarkOf): { symbol: string; qty: number }[] {
    const core = this.#core;
    const taken: { symbol: string; qty: number }[] = [];
    for (let i = pool.positions.length - 1; i >= 0; i--) {
      const p = pool.positions[i] as TraderPosition;
      const s = core.symbols.get(p.symbol);
      const m = mark(p.symbol);
      if (s === undefined || m === undefined) continue;
      let q = share >= 1 ? p.qty : Math.sign(p.qty) * Math.max(s.qtyStep, roundToStep(Math.abs(p.qty) * share, s.qtyStep));
      if (Math.abs(q) > Math.abs(p.qty) || Math.abs(p.qty - q) * m < s.minNotional) q = p.qty;
      pool.holding += q * (m - p.entry) - Math.abs(q) * m * s.liquidatorFee;
      p.qty = roundQty(p.qty - q);
      if (p.qty === 0) {
        pool.positions.splice(i, 1);
      }
      taken.unshift({ symbol: p.symbol, qty: q });
    }
    return taken;
  }

  #schedule(pool: TraderPool, at: number): void {
    pool.checkAt = at;
    this.#checks.add(at, pool);
  }

  /** Every pool, for a step that checks them all (a mark moved more than the schedule allows for). */
  #allPools(): TraderPool[] {
    const out: TraderPool[] = [];
    for (const t of this.population.traders()) for (const pool of t.pools) out.push(pool);
    return out;
  }

  #emptyPool(pool: TraderPool): void {
    pool.positions.length = 0;
    pool.holding = 0;
  }

  #emit(l: MarketLiquidation): void {
    for (const listener of this.#listeners) listener(l);
  }
}
