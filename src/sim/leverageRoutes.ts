/**
 * The leverage routes of the simulated venue (leverage.ts says what they answer): `GET
 * /v1/client/leverages`, `GET /v1/client/leverage`, `POST /v1/client/leverages`, `GET
 * /v1/public/leverage`. Apart from leverage.ts so the venue core (venueCore.ts), which uses the
 * rules, does not import the routes that take it.
 */
import type { SimAccount } from "./accounts.js";
import { LEVERAGE_RANGE, leverageOf, SIM_MAX_FUTURES_LEVERAGE, symbolMaxLeverage } from "./leverage.js";
import { enumParam, readParams } from "./queryParams.js";
import { jsonBody, type RequestContext, type Route } from "./restRoute.js";
import type { Signatory } from "./signatureCheck.js";
import type { VenueCore } from "./venueCore.js";
import { type Checked, ok, refused } from "./venueRefusal.js";

/** The rows of `GET /v1/client/leverages`: every listed symbol, cross. */
function leverageRows(core: VenueCore, account: SimAccount): { symbol: string; margin_mode: "CROSS"; leverage: number }[] {
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
