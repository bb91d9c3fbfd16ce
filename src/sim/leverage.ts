/**
 * Leverage per symbol (PROTOCOL §10), as the simulated venue keeps and serves it: an account's setting
 * of each symbol (its `maxLeverage` for a symbol it never set), the venue's maximum of each symbol, and
 * the routes that read and change them:
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
import { jsonBody } from "./orderRoutes.js";
import { enumParam, readParams } from "./queryParams.js";
import type { RequestContext, Route } from "./restRoute.js";
import type { Signatory } from "./signatureCheck.js";
import type { SymbolSpec } from "./symbols.js";
import type { VenueCore } from "./venueCore.js";
import { type Checked, ok, refused } from "./venueRefusal.js";

/** An account's margin settings of its own, per symbol (a scenario's or `simulate`'s flags). */
export interface SimAccountMargin {
  leverage?: Readonly<Record<string, number>>;
  imrFactor?: Readonly<Record<string, number>>;
  maxNotional?: Readonly<Record<string, number>>;
}

/**
 * The account of the cascade (PROTOCOL §10): ETH at 4×, NEAR at 5×, every other symbol at 10×,
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

/** PROTOCOL §10: a leverage setting is an integer in [1, 100]. */
const LEVERAGE_RANGE = [1, 100] as const;

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
 * none of a symbol's own), and its own `imr_factor` and `max_notional` per symbol (PROTOCOL §10).
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
 * `max_notional` of `symbol` at `mark` (PROTOCOL §10: refused with -1101; one already past may shrink).
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

/** The rows of `GET /v1/client/leverages`: every listed symbol, cross. */
export function leverageRows(core: VenueCore, account: SimAccount): { symbol: string; margin_mode: "CROSS"; leverage: number }[] {
  return core.symbols.all().map((s) => ({ symbol: s.symbol, margin_mode: "CROSS" as const, leverage: leverageOf(account, s.symbol) }));
}

interface SetRequest {
  symbol: string | undefined;
  leverage: number;
}

function parseSet(body: unknown): Checked<SetRequest> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return refused(-1005, "body must be a JSON object");
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) if (!["symbol", "leverage", "margin_mode"].includes(key)) return refused(-1004, key);
  const lev = typeof b.leverage === "string" && /^\d+$/.test(b.leverage) ? Number(b.leverage) : b.leverage;
  if (typeof lev !== "number" || !Number.isInteger(lev) || lev < LEVERAGE_RANGE[0] || lev > LEVERAGE_RANGE[1])
    return refused(-1005, `leverage must be an integer in [${LEVERAGE_RANGE[0]}, ${LEVERAGE_RANGE[1]}]`);
  if (b.margin_mode !== undefined && b.margin_mode !== null && b.margin_mode !== "CROSS")
    return refused(-1005, "margin_mode: the simulator sets CROSS leverage only");
  if (b.symbol !== undefined && b.symbol !== null && typeof b.symbol !== "string") return refused(-1005, "symbol must be a symbol name");
  return ok({ symbol: (b.symbol as string | null | undefined) ?? undefined, leverage: lev });
}

/** Applies the settings if the account can carry its positions and orders at them (all or nothing). */
function setLeverage(core: VenueCore, account: SimAccount, req: SetRequest): Checked<unknown> {
  const next = new Map<string, number>();
  if (req.symbol !== undefined) {
    const spec = core.symbols.get(req.symbol);
    if (spec === undefined) return refused(-1005, `symbol ${req.symbol}`);
    const max = symbolMaxLeverage(spec);
    if (req.leverage > max) return refused(-1005, `leverage ${req.leverage} is above ${req.symbol}'s maximum ${max}`);
    next.set(req.symbol, req.leverage);
  } else {
    for (const spec of core.symbols.all()) next.set(spec.symbol, Math.min(req.leverage, symbolMaxLeverage(spec)));
  }
  const before = new Map(account.leverage);
  for (const [s, lev] of next) account.leverage.set(s, lev);
  const id = account.accountId;
  if (core.trading.initialMargin(id) + core.trading.frozen(id) > core.trading.totalCollateral(id)) {
    account.leverage.clear();
    for (const [s, lev] of before) account.leverage.set(s, lev);
    return refused(-1101, "the account's positions cannot be carried at this leverage");
  }
  return ok({ rows: [...next].map(([symbol, leverage]) => ({ symbol, margin_mode: "CROSS", leverage })) });
}

const accountOf = (core: VenueCore, ctx: RequestContext): SimAccount =>
  core.accounts.get((ctx.signatory as Signatory).accountId) as SimAccount;

export function leverageRoutes(core: VenueCore): [string, Route][] {
  return [
    [
      "/v1/client/leverages",
      {
        method: "GET",
        limit: "account",
        signed: true,
        handler: (ctx) => {
          const p = readParams(ctx.search, []);
          return p.ok ? ok({ rows: leverageRows(core, accountOf(core, ctx)) }) : p;
        },
      },
    ],
    [
      "/v1/client/leverages",
      {
        method: "POST",
        limit: "leverageSet",
        signed: true,
        handler: (ctx) => {
          const body = jsonBody(ctx);
          if (!body.ok) return body;
          const req = parseSet(body.value);
          return req.ok ? setLeverage(core, accountOf(core, ctx), req.value) : req;
        },
      },
    ],
    [
      "/v1/client/leverage",
      {
        method: "GET",
        limit: "leverageOne",
        signed: true,
        handler: (ctx) => {
          const p = readParams(ctx.search, ["symbol", "margin_mode"]);
          if (!p.ok) return p;
          const mode = enumParam(p.value, "margin_mode", ["CROSS", "ISOLATED"] as const);
          if (!mode.ok) return mode;
          const symbol = p.value.get("symbol");
          if (symbol === undefined || core.symbols.get(symbol) === undefined) return refused(-1005, `symbol ${symbol ?? "is required"}`);
          return ok({ symbol, margin_mode: mode.value ?? "CROSS", leverage: leverageOf(accountOf(core, ctx), symbol) });
        },
      },
    ],
    [
      "/v1/public/leverage",
      {
        method: "GET",
        limit: "public",
        signed: false,
        handler: (ctx) => {
          const p = readParams(ctx.search, []);
          return p.ok ? ok({ max_futures_leverage: String(SIM_MAX_FUTURES_LEVERAGE) }) : p;
        },
      },
    ],
  ];
}
