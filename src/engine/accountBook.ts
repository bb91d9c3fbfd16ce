/**
 * The account as margin sees it (docs/protocol.md §7, §10): the USDC holding, every position's quantity
 * and cost (its unsettled P&L follows the marks), the margin open orders hold (`frozen`) and the
 * account's margin settings (marginSettings.ts: leverage per symbol, its own `imr_factor` and
 * `max_notional`). Total collateral = holding + unsettled P&L; free collateral = total − initial
 * margin of the positions − the orders' margin. Pure data with update functions: the daemon feeds it
 * `GET /v1/positions`, the `position` and `balance` pushes, `GET /v1/client/info` and
 * `GET /v1/client/leverages`; a position row's or push's `leverage` is the symbol's setting too.
 *
 * `GET /v1/positions` says the total but not the holding: the holding is the total less the rows'
 * unsettled P&L, and the pushes move it from there.
 */
import { accountMarginRatio, type MarginParams, notionalOf, symbolInitialMargin } from "./margin.js";
import type { MarginAccount } from "./marginFit.js";
import { MarginSettings } from "./marginSettings.js";
import type { MarginMode, PriceSource } from "./types.js";

/** A position row of a snapshot or a push, in domain form. */
export interface AccountPositionInput {
  readonly symbol: string;
  readonly marginMode: MarginMode;
  readonly positionQty: number;
  /** Signed cash in the position (`cost_position`); unsettled P&L = qty × mark − cost. */
  readonly costPosition?: number | undefined;
  /** What the venue said the unsettled P&L was (used when the cost is not given). */
  readonly unsettledPnl?: number | undefined;
  readonly markPrice?: number | undefined;
  /** The symbol's leverage setting in this margin mode, when the row carries it (docs/protocol.md §10). */
  readonly leverage?: number | undefined;
}

/** One row of `GET /v1/client/leverages` in domain form. */
export interface LeverageSetting {
  readonly symbol: string;
  readonly marginMode: MarginMode;
  readonly leverage: number;
}

/** What `GET /v1/client/info` says of the account's margin (docs/protocol.md §7, §10); absent parts are kept as they were. */
export interface ClientMargin {
  readonly maxLeverage?: number | undefined;
  readonly imrFactor?: ReadonlyMap<string, number> | undefined;
  readonly maxNotional?: ReadonlyMap<string, number> | undefined;
}

/** The account-level figures of `GET /v1/positions`, when the answer carries them. */
export interface AccountFigures {
  readonly totalCollateral?: number | undefined;
  readonly freeCollateral?: number | undefined;
  readonly marginRatio?: number | undefined;
}

interface Row {
  symbol: string;
  mode: MarginMode;
  qty: number;
  cost: number | undefined;
  unsettled: number;
  mark: number | undefined;
}

export class AccountBook {
  #holding: number | undefined;
  #ordersMargin = 0;
  #settings = MarginSettings.NONE;
  #reported: AccountFigures = {};
  readonly #rows = new Map<string, Row>();

  /** `GET /v1/positions`: every row replaces what was held; the figures give the holding. */
  applySnapshot(figures: AccountFigures, rows: readonly AccountPositionInput[]): void {
    this.#rows.clear();
    for (const r of rows) this.#set(r);
    this.#reported = figures;
    const total = figures.totalCollateral;
    if (total !== undefined && Number.isFinite(total)) {
      let unsettled = 0;
      for (const row of this.#rows.values()) unsettled += row.unsettled;
      this.#holding = total - unsettled;
    }
  }

  /** A `position` push: a delta per symbol and margin mode. */
  applyPush(rows: readonly AccountPositionInput[]): void {
    for (const r of rows) this.#set(r);
  }

  /** A `balance` push (or `GET /v1/client/holding`): the USDC holding and what open orders hold. */
  applyBalance(holding: number | undefined, frozen?: number | undefined): void {
    if (holding !== undefined && Number.isFinite(holding)) this.#holding = holding;
    if (frozen !== undefined && Number.isFinite(frozen) && frozen >= 0) this.#ordersMargin = frozen;
  }

  /** `max_leverage` of `GET /v1/client/info`; a value that is not a positive number is ignored. */
  setMaxLeverage(maxLeverage: number | undefined): void {
    this.setClientMargin({ maxLeverage });
  }

  /**
   * `GET /v1/client/info`: the account-wide leverage (of symbols with no setting of their own), and
   * the account's own `imr_factor` and `max_notional` per symbol, each map replacing the last one read.
   */
  setClientMargin(c: ClientMargin): void {
    const lev = c.maxLeverage;
    const change: { defaultLeverage?: number; imrFactor?: ReadonlyMap<string, number>; maxNotional?: ReadonlyMap<string, number> } = {};
    if (lev !== undefined && Number.isFinite(lev) && lev > 0 && lev !== this.#settings.defaultLeverage) change.defaultLeverage = lev;
    if (c.imrFactor !== undefined && !sameMap(c.imrFactor, this.#settings.imrFactors)) change.imrFactor = c.imrFactor;
    if (c.maxNotional !== undefined && !sameMap(c.maxNotional, this.#settings.maxNotionals)) change.maxNotional = c.maxNotional;
    if (Object.keys(change).length > 0) this.#settings = this.#settings.with(change);
  }

  /** `GET /v1/client/leverages`: every symbol's setting, replacing what was known (cross and isolated apart). */
  setLeverages(rows: readonly LeverageSetting[]): void {
    const cross = new Map<string, number>();
    const isolated = new Map<string, number>();
    for (const r of rows) {
      if (!(Number.isFinite(r.leverage) && r.leverage > 0)) continue;
      (r.marginMode === "ISOLATED" ? isolated : cross).set(r.symbol, r.leverage);
    }
    if (sameMap(cross, this.#settings.leverages) && sameMap(isolated, this.#settings.isolatedLeverages)) return;
    this.#settings = this.#settings.with({ leverage: cross, isolatedLeverage: isolated });
  }

  /** The account-wide leverage of client info, when read. */
  get maxLeverage(): number | undefined {
    return this.#settings.defaultLeverage;
  }

  /** The account's margin settings now (a new object whenever one of them changed). */
  get settings(): MarginSettings {
    return this.#settings;
  }

  /** The USDC holding, once a positions read or a balance push said it. */
  get holding(): number | undefined {
    return this.#holding;
  }

  get ordersMargin(): number {
    return this.#ordersMargin;
  }

  /** The figures of the last `GET /v1/positions` (as the venue computed them then). */
  get reported(): AccountFigures {
    return this.#reported;
  }

  /** Holding + unsettled P&L at the current marks; undefined until the holding is known. */
  totalCollateral(prices: PriceSource): number | undefined {
    if (this.#holding === undefined) return undefined;
    let total = this.#holding;
    for (const row of this.#rows.values()) total += this.#unsettled(row, prices);
    return total;
  }

  /** Initial margin of every position held (each symbol's public parameters from `params`, the account's settings over them). */
  initialMarginHeld(params: (symbol: string) => MarginParams, prices: PriceSource): number | undefined {
    if (!this.#settings.known) return undefined;
    let sum = 0;
    for (const row of this.#rows.values()) {
      const mark = prices.price(row.symbol) ?? row.mark;
      if (row.qty === 0) continue;
      if (mark === undefined) return undefined;
      sum += symbolInitialMargin(this.#settings.symbolMargin(row.symbol, params(row.symbol), row.mode), notionalOf(row.qty, mark));
    }
    return sum;
  }

  /** Total − initial margin held − orders' margin; undefined until collateral and leverage are known. */
  freeCollateral(params: (symbol: string) => MarginParams, prices: PriceSource): number | undefined {
    const total = this.totalCollateral(prices);
    const im = this.initialMarginHeld(params, prices);
    return total === undefined || im === undefined ? undefined : total - im - this.#ordersMargin;
  }

  /** Initial margin held ÷ total collateral (`margin_usage_ratio`). */
  marginUsage(params: (symbol: string) => MarginParams, prices: PriceSource): number | undefined {
    const total = this.totalCollateral(prices);
    const im = this.initialMarginHeld(params, prices);
    if (total === undefined || im === undefined) return undefined;
    if (total <= 0) return im > 0 ? Number.POSITIVE_INFINITY : 0;
    return im / total;
  }

  /** Total collateral ÷ Σ |notional| (10 with no position). */
  marginRatio(prices: PriceSource): number | undefined {
    const total = this.totalCollateral(prices);
    if (total === undefined) return undefined;
    let notional = 0;
    for (const row of this.#rows.values()) {
      const mark = prices.price(row.symbol) ?? row.mark;
      if (mark !== undefined) notional += notionalOf(row.qty, mark);
    }
    return accountMarginRatio(total, notional);
  }

  /**
   * What `MarginFit.reset` needs, or undefined while the account cannot be margin-checked: until the
   * holding (first positions read or balance push) and a leverage (the leverages read, a position's,
   * or client info's `max_leverage`) are known.
   */
  marginAccount(prices: PriceSource): MarginAccount | undefined {
    const total = this.totalCollateral(prices);
    if (total === undefined || !this.#settings.known) return undefined;
    return { totalCollateral: total, settings: this.#settings, ordersMargin: this.#ordersMargin };
  }

  #set(r: AccountPositionInput): void {
    if (!Number.isFinite(r.positionQty)) return;
    const key = `${r.symbol} ${r.marginMode}`;
    const mark = r.markPrice !== undefined && r.markPrice > 0 ? r.markPrice : undefined;
    const cost = r.costPosition !== undefined && Number.isFinite(r.costPosition) ? r.costPosition : undefined;
    let unsettled = r.unsettledPnl !== undefined && Number.isFinite(r.unsettledPnl) ? r.unsettledPnl : undefined;
    if (unsettled === undefined && cost !== undefined && mark !== undefined) unsettled = r.positionQty * mark - cost;
    if (unsettled === undefined) unsettled = r.positionQty === 0 ? 0 : (this.#rows.get(key)?.unsettled ?? 0);
    this.#rows.set(key, { symbol: r.symbol, mode: r.marginMode, qty: r.positionQty, cost, unsettled, mark });
    const lev = r.leverage;
    if (lev !== undefined && Number.isFinite(lev) && lev > 0 && this.#settings.leverageOf(r.symbol, r.marginMode) !== lev) {
      const cross = r.marginMode === "CROSS";
      const next = new Map(cross ? this.#settings.leverages : this.#settings.isolatedLeverages);
      next.set(r.symbol, lev);
      this.#settings = this.#settings.with(cross ? { leverage: next } : { isolatedLeverage: next });
    }
  }

  #unsettled(row: Row, prices: PriceSource): number {
    const mark = prices.price(row.symbol);
    return row.cost !== undefined && mark !== undefined ? row.qty * mark - row.cost : row.unsettled;
  }
}

function sameMap(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}
