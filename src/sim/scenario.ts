/**
 * The scripted market: marks walk and are pushed every second, liquidations arrive as a Poisson
 * process, cascades burst now and then, competing liquidators take some ids first, and rewards
 * epochs advance. All timers stop when the AbortSignal fires.
 *
 * `market: "positions"` replaces the walk, the Poisson arrivals and the cascades by the
 * position-driven market (positionMarket.ts): liquidations follow from traders' positions and the
 * marks' path. The generator stays the default here, for tests that need exact control.
 */
import type { Logger } from "pino";
import type { InsuranceFund } from "./insuranceFund.js";
import { CLAIM_ROW_TYPE } from "./liquidationBook.js";
import { PositionMarket, type PositionMarketOptions } from "./positionMarket.js";
import type { SimPush } from "./simPush.js";
import type { VenueCore } from "./venueCore.js";

export interface ScenarioOptions {
  /**
   * `generator` (default): marks walk and liquidations come from the seeded generator below (exact
   * control for tests). `positions`: the position-driven market; `liquidationsPerSec` then sizes its
   * population (the mean rate it is sized for), and the cascade settings are unused.
   */
  market: "generator" | "positions";
  /** The position-driven market's population and path (positionMarket.ts). */
  positions: Partial<PositionMarketOptions>;
  /** Unclaimed liquidations move to the insurance fund at their TTL (insuranceFund.ts, docs/protocol.md §10). */
  insuranceFund: boolean;
  /** Mark pushes (`markprices` + `${symbol}@markprice`) every this many ms; 0 disables (docs/protocol.md §5: 1 s). */
  markIntervalMs: number;
  /** Multiplier of each symbol's volatility; 0 keeps marks still (they are still pushed). */
  volatilityScale: number;
  /** Mean liquidations per second (Poisson arrivals); 0 disables. */
  liquidationsPerSec: number;
  /** A cascade every this many ms; 0 disables. */
  cascadeIntervalMs: number;
  /** Liquidations per cascade. */
  cascadeSize: number;
  /** Chance that a competitor goes after a new liquidation. */
  competitorProbability: number;
  /** Competitor's reaction time, uniform in [min, max] ms. */
  competitorDelayMs: readonly [number, number];
  /** Rewards epoch advance every this many ms; 0 disables. */
  epochAdvanceMs: number;
  /** How often expired liquidations are handed to the insurance fund and pushed as gone. */
  expirySweepMs: number;
  /**
   * Every this many ms, accounts with a registered key (the liquidators, not the simulated
   * competitors) close their positions at mark (paying the taker fee); 0 disables (the default: the
   * daemon's unwinder closes what it claims with reduce-only orders).
   */
  unwindIntervalMs: number;
  /**
   * A market that runs against each assignment (for protections): after every claim a liquidator
   * with a registered key wins, each claimed symbol's mark moves this many bps against the position
   * it took (down after a long, up after a short) and is pushed at once; 0 disables.
   */
  adverseMoveBps: number;
  /** How long after the claim the adverse move comes (0: at once, before the claimant can unwind). */
  adverseDelayMs: number;
}

const DEFAULT_SCENARIO: ScenarioOptions = {
  market: "generator",
  positions: {},
  insuranceFund: false,
  markIntervalMs: 1000,
  volatilityScale: 1,
  liquidationsPerSec: 0.5,
  cascadeIntervalMs: 45_000,
  cascadeSize: 8,
  competitorProbability: 0.3,
  competitorDelayMs: [300, 3000],
  epochAdvanceMs: 300_000,
  expirySweepMs: 250,
  unwindIntervalMs: 0,
  adverseMoveBps: 0,
  adverseDelayMs: 0,
};

/**
 * The embedded simulator's market (`npm start` with `venue.mode: simulator`): the default market with
 * cascades big enough to exhaust the liquidator's collateral (`MARGIN_CASCADE_COLLATERAL`). One
 * cascade of 24 liquidations (one or two positions of 1,000–60,000 each) is ~800,000 of notional,
 * ~80,000 of initial margin at the simulator's 10× leverage: several times the 20,000 that
 * `policy.max_margin_usage` [0.5] of 40,000 lets the daemon carry (and below the default
 * `max_total_exposure`, so margin binds first): margin, not the rate limit, decides what a cascade
 * is worth, and unwinding what was claimed is what lets claiming go on.
 */
export const MARGIN_CASCADE_SCENARIO: Partial<ScenarioOptions> = { cascadeIntervalMs: 60_000, cascadeSize: 24 };

/** The liquidator account's collateral (quote) in the embedded simulator's margin-bound market. */
export const MARGIN_CASCADE_COLLATERAL = 40_000;

/**
 * The default market of `npm start` (app/venueConnection.ts): the position-driven market with the
 * insurance fund, competitors taking some liquidations first.
 */
export const POSITION_MARKET_SCENARIO: Partial<ScenarioOptions> = { market: "positions", insuranceFund: true, liquidationsPerSec: 0.2 };

/**
 * Liquidations (and fund takeovers) per arriving trader in the position-driven market, measured on
 * seeds 1–3 over 12 simulated hours at one arrival a second (0.162, 0.187, 0.169): how `liquidationsPerSec`
 * becomes an arrival rate.
 */
const LIQUIDATIONS_PER_ARRIVAL = 0.18;

/** Marks pushed but still; nothing else happens unless a test makes it happen. */
export const QUIET_SCENARIO: Partial<ScenarioOptions> = {
  market: "generator",
  volatilityScale: 0,
  liquidationsPerSec: 0,
  cascadeIntervalMs: 0,
  competitorProbability: 0,
  epochAdvanceMs: 0,
  unwindIntervalMs: 0,
};

function resolveScenario(partial: Partial<ScenarioOptions> = {}): ScenarioOptions {
  const o = { ...DEFAULT_SCENARIO, ...partial };
  const nonNegative: (keyof ScenarioOptions)[] = [
    "markIntervalMs",
    "volatilityScale",
    "liquidationsPerSec",
    "cascadeIntervalMs",
    "epochAdvanceMs",
    "unwindIntervalMs",
    "adverseMoveBps",
    "adverseDelayMs",
  ];
  for (const k of nonNegative) {
    const v = o[k];
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) throw new RangeError(`scenario.${k} must be a number ≥ 0`);
  }
  if (!Number.isInteger(o.cascadeSize) || o.cascadeSize < 1) throw new RangeError("scenario.cascadeSize must be a positive integer");
  if (!(o.competitorProbability >= 0 && o.competitorProbability <= 1))
    throw new RangeError("scenario.competitorProbability must be in [0, 1]");
  const [lo, hi] = o.competitorDelayMs;
  if (!(lo >= 0 && hi >= lo)) throw new RangeError("scenario.competitorDelayMs must be [min, max] with 0 ≤ min ≤ max");
  if (!(o.expirySweepMs > 0)) throw new RangeError("scenario.expirySweepMs must be positive");
  if (o.market !== "generator" && o.market !== "positions") throw new RangeError("scenario.market must be generator or positions");
  return o;
}

export class Scenario {
  readonly options: ScenarioOptions;
  /** The position-driven market, when `market` is `positions`. */
  readonly market: PositionMarket | undefined;
  readonly #core: VenueCore;
  readonly #logger: Logger | undefined;
  readonly #seen = new Set<number>();

  /** `fund`: with `insuranceFund` on, it takes the position-driven market's bankrupt accounts (the caller attaches it for the expired liquidations). */
  constructor(core: VenueCore, options: Partial<ScenarioOptions> = {}, logger?: Logger, fund?: InsuranceFund) {
    this.#core = core;
    this.options = resolveScenario(options);
    this.#logger = logger;
    const o = this.options;
    if (o.market === "positions") {
      const population = { arrivalsPerSec: o.liquidationsPerSec / LIQUIDATIONS_PER_ARRIVAL, ...o.positions.population };
      // Without the fund, a bankrupt account is liquidated whole like any other.
      this.market = new PositionMarket(core, core.prng.fork(), o.insuranceFund ? fund : undefined, { ...o.positions, population });
    }
  }

  /** The adverse market: the claimed symbols' marks move against the claimant, once its claim is applied. */
  #adverse(push: SimPush, after: (ms: number, fn: () => void) => void): void {
    if (push.scope !== "private" || push.topic !== "liquidatorliquidations") return;
    const core = this.#core;
    if ((core.accounts.get(push.accountId)?.keys.size ?? 0) === 0) return;
    const rows = (push.data as { positionsByPerp: { symbol: string; positionQty: number }[] }).positionsByPerp;
    const move = this.options.adverseMoveBps / 10_000;
    // After the claim's answer and pushes: the claimant holds the position when its mark moves.
    after(this.options.adverseDelayMs, () => {
      for (const { symbol, positionQty } of rows) {
        const mark = core.mark(symbol);
        if (mark === undefined || positionQty === 0) continue;
        this.#guard(() => core.setMark(symbol, mark * (1 - Math.sign(positionQty) * move)));
      }
    });
  }

  /** Start every timer; they all stop when `signal` aborts. */
  start(signal: AbortSignal): void {
    if (signal.aborted) return;
    const o = this.options;
    const core = this.#core;
    const timers = new Set<NodeJS.Timeout>();
    const after = (ms: number, fn: () => void): void => {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!signal.aborted) fn();
      }, ms);
      timers.add(t);
    };
    const every = (ms: number, fn: () => void): void => {
      const t = setInterval(() => {
        if (!signal.aborted) this.#guard(fn);
      }, ms);
      timers.add(t);
    };
    const unsubscribeAdverse = o.adverseMoveBps > 0 ? core.onPush((push) => this.#adverse(push, after)) : () => undefined;
    const unsubscribe = core.onPush((push) => {
      if (push.scope !== "public" || push.topic !== "liquidation" || o.competitorProbability === 0) return;
      for (const row of push.data as { liquidationId: number; type: string; positionsByPerp: unknown[] }[]) {
        // The fund's rows are a supply no competitor uses (the liquidators studied in issue 35 do not).
        if (this.#seen.has(row.liquidationId) || row.positionsByPerp.length === 0 || row.type === CLAIM_ROW_TYPE) continue;
        this.#seen.add(row.liquidationId);
        if (this.#seen.size > 100_000) this.#seen.clear();
        if (!core.prng.chance(o.competitorProbability)) continue;
        const delay = core.prng.uniform(o.competitorDelayMs[0], o.competitorDelayMs[1]);
        after(delay, () => void this.#compete(row.liquidationId));
      }
    });

    signal.addEventListener(
      "abort",
      () => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        unsubscribe();
        unsubscribeAdverse();
      },
      { once: true },
    );

    const market = this.market;
    if (o.markIntervalMs > 0) {
      every(o.markIntervalMs, () => {
        if (market !== undefined) market.step(o.markIntervalMs / 1000, o.volatilityScale);
        else core.stepMarket(o.markIntervalMs / 1000, o.volatilityScale);
        core.publishMarks();
      });
    }
    every(o.expirySweepMs, () => core.expireDue());
    if (market === undefined && o.liquidationsPerSec > 0) {
      const next = (): void => {
        after(core.prng.exponential(o.liquidationsPerSec) * 1000, () => {
          this.#guard(() => core.addRandomLiquidation());
          next();
        });
      };
      next();
    }
    if (market === undefined && o.cascadeIntervalMs > 0) {
      every(o.cascadeIntervalMs, () => {
        const ids = core.cascade(o.cascadeSize, { shock: core.prng.uniform(-0.02, 0.02) });
        this.#logger?.info({ count: ids.length, first: ids[0] }, "sim cascade");
      });
    }
    if (o.unwindIntervalMs > 0) {
      every(o.unwindIntervalMs, () => {
        for (const a of core.accounts.all()) if (a.keys.size > 0) core.closePositions(a.accountId);
      });
    }
    if (o.epochAdvanceMs > 0) {
      every(o.epochAdvanceMs, () => {
        core.advanceEpoch();
        this.#logger?.info({ epoch: core.rewards.currentEpoch }, "sim epoch advanced");
      });
    }
  }

  /** A competitor takes all, or a share (all when the notional rule demands it). */
  async #compete(id: number): Promise<void> {
    const core = this.#core;
    const ratio = core.prng.chance(0.5) ? 1 : Math.round(core.prng.uniform(0.2, 0.8) * 1000) / 1000;
    let result = await core.competitorClaim(id, ratio);
    if (!result.ok && result.refusal.code === -1201 && ratio < 1) result = await core.competitorClaim(id, 1);
    this.#logger?.debug({ id, ok: result.ok, code: result.ok ? 0 : result.refusal.code }, "sim competitor claim");
  }

  #guard(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.#logger?.error({ err }, "sim scenario step failed");
    }
  }
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { resolveScenario as resolveScenarioForTests };
