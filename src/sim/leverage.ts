/**
 * Leverage per symbol (docs/protocol.md §10), as the simulated venue keeps and serves it: an account's setting
 * of each symbol (its `maxLeverage` for a symbol it never set), the venue's maximum of each symbol, and
 * the routes that read and change them (leverageRoutes.ts):
 *
 * - `GET /v1/client/leverages` (10/s): every listed symbol's setting, `{rows:[{symbol, margin_mode, leverage}]}`;
 * - `GET /v1/client/leverage?symbol=&margin_mode=` (1/s): one row;
 * - `POST /v1/client/leverages` (5 per 60 s): `{symbol?, leverage (1–100), margin_mode?}`; with a
 *   symbol, a leverage above its maximum is refused (-1005); without, every symbol is set to
 *   `min(leverage, its maximum)` at once; a change the account's positions could not carry at the
 *   new leverage is refused whole (-1101);
 * - `GET /v1/public/leverage` (public): `{max_futures_leverage: "50"}`, a string as the OpenAPI has it.
 *
 * A symbol's maximum is `min(max_futures_leverage, 1 / base_imr)`: a setting past `1 / base_imr` would
 * change nothing (the IMR's floor is base_imr). The simulator sets cross leverage only; isolated
 * positions use the symbol's cross setting.
 */
import type { SimAccount } from "./accounts.js";
import { type AccountMargin, marginOf } from "./margin.js";
import type { SymbolSpec } from "./symbols.js";

/** An account's margin settings of its own, per symbol (a scenario's or `simulate`'s flags). */
export interface SimAccountMargin {
  leverage?: Readonly<Record<string, number>>;
  imrFactor?: Readonly<Record<string, number>>;
  maxNotional?: Readonly<Record<string, number>>;
}

/**
 * The account of the cascade (docs/protocol.md §10): ETH at 4×, NEAR at 5×, every other symbol at 10×,
 * its own `imr_factor` larger than the public one on NEAR and ARB. A test or the bench sets it with
 * `startSimulator({ maxLeverage: 10, accountMargin: LEVERAGE_CASCADE_ACCOUNT })`.
 */
export const LEVERAGE_CASCADE_ACCOUNT: SimAccountMargin = {
  leverage: { PERP_ETH_USDC: 4, PERP_NEAR_USDC: 5 },
  // At the cascade's sizes (a few thousand of notional) these bind over the leverage: 5,000 of NEAR
  // needs 27 %, of ARB 18 %, where the public factors would leave 20 % (5×) and 10 %.
  imrFactor: { PERP_NEAR_USDC: 3e-4, PERP_ARB_USDC: 2e-4 },
};

/** NEAR and ARB, which the default market does not list: tier 2, the venue's alt margin (ARB: its published example). */
export const LEVERAGE_CASCADE_SYMBOLS: readonly SymbolSpec[] = [
  {
    symbol: "PERP_NEAR_USDC",
    tier: 2,
    liquidatorFee: 0.015,
    baseTick: 0.001,
    qtyStep: 0.1,
    minNotional: 10,
    startPrice: 2.5,
    volatilityPerSec: 0.0006,
    baseImr: 0.05,
    baseMmr: 0.025,
    imrFactor: 1.05e-6,
  },
  {
    symbol: "PERP_ARB_USDC",
    tier: 2,
    liquidatorFee: 0.02,
    baseTick: 0.0001,
    qtyStep: 1,
    minNotional: 10,
    startPrice: 0.42,
    volatilityPerSec: 0.0008,
    baseImr: 0.1,
    baseMmr: 0.05,
    imrFactor: 2.1e-6,
  },
];

/** The venue's maximum leverage setting (`GET /v1/public/leverage`). */
export const SIM_MAX_FUTURES_LEVERAGE = 50;

/** docs/protocol.md §10: a leverage setting is an integer in [1, 100]. */
export const LEVERAGE_RANGE = [1, 100] as const;

/** A symbol's maximum leverage: `min(max_futures_leverage, ⌊1 / base_imr⌋)`. */
export function symbolMaxLeverage(spec: SymbolSpec): number {
  return Math.max(1, Math.min(SIM_MAX_FUTURES_LEVERAGE, Math.floor(1 / marginOf(spec).baseImr + 1e-9)));
}

/** The account's leverage of `symbol`: its own setting, else its `maxLeverage` up to the symbol's maximum. */
export function leverageOf(account: SimAccount, symbol: string): number {
  const own = account.leverage.get(symbol);
  if (own !== undefined) return own;
  const max = account.symbolMax(symbol);
  return max === undefined ? account.maxLeverage : Math.min(account.maxLeverage, max);
}

/** What the account's own settings make of margin (margin.ts). */
export function accountMargin(account: SimAccount): AccountMargin {
  return { leverage: (s) => leverageOf(account, s), imrFactor: (s) => account.imrFactor.get(s) };
}

/**
 * What `GET /v1/client/info` says of the account's margin: `max_leverage` (its leverage where it set
 * none of a symbol's own), and its own `imr_factor` and `max_notional` per symbol (docs/protocol.md §10).
 */
export function clientMargin(account: SimAccount): {
  max_leverage: number;
  imr_factor: Record<string, number>;
  max_notional: Record<string, number>;
} {
  return {
    max_leverage: account.maxLeverage,
    imr_factor: Object.fromEntries(account.imrFactor),
    max_notional: Object.fromEntries(account.maxNotional),
  };
}

/**
 * Whether a position going from `before` to `after` (signed quantities) grows past the account's
 * `max_notional` of `symbol` at `mark` (docs/protocol.md §10: refused with -1101; one already past may shrink).
 */
export function growsPastMaxNotional(
  account: SimAccount,
  symbol: string,
  before: number,
  after: number,
  mark: number | undefined,
): boolean {
  const cap = account.maxNotional.get(symbol);
  const a = Math.abs(after);
  return cap !== undefined && mark !== undefined && a * mark > cap && a > Math.abs(before);
}
