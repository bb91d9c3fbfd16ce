/**
 * The REST routes of docs/protocol.md §6: orders (place, cancel, by id, by client id, list), positions,
 * holding, client info, one symbol's info and the order book. Answers are read off `core.trading`
 * (trading.ts); limits: orders 10/s, other account reads 10/s, positions 30 per 10 s, client info
 * 10 per 60 s (restServer.ts counts them).
 */

import { unsettledPnl } from "./accounting.js";
import type { SimAccount } from "./accounts.js";
import type { WireFlavor } from "./flavor.js";
import { clientMargin, leverageOf } from "./leverage.js";
import { intParam, readParams, timeParam } from "./queryParams.js";
import { jsonBody, type RequestContext, type Route } from "./restRoute.js";
import type { Signatory } from "./signatureCheck.js";
import type { SimOrder } from "./tradingShapes.js";
import type { VenueCore } from "./venueCore.js";
import { infoRow } from "./venueReads.js";
import { type Checked, ok, refused } from "./venueRefusal.js";

const accountOf = (ctx: RequestContext): string => (ctx.signatory as Signatory).accountId;
const signedGet = (handler: Route["handler"], limit: Route["limit"] = "account"): Route => ({
  method: "GET",
  limit,
  signed: true,
  handler,
});

const withParams = <T>(search: URLSearchParams, allowed: readonly string[], f: (p: Map<string, string>) => Checked<T>): Checked<T> => {
  const p = readParams(search, allowed);
  return p.ok ? f(p.value) : p;
};

function orderList(core: VenueCore, flavor: WireFlavor, ctx: RequestContext): Checked<unknown> {
  return withParams(ctx.search, ["status", "symbol", "start_t", "end_t", "page", "size"], (p) => {
    const status = p.get("status");
    const open = (o: SimOrder) => o.status === "NEW" || o.status === "PARTIAL_FILLED";
    const keep: (o: SimOrder) => boolean =
      status === undefined
        ? () => true
        : status === "INCOMPLETE"
          ? open
          : status === "COMPLETED"
            ? (o) => !open(o)
            : (o) => o.status === status;
    if (status !== undefined && !["INCOMPLETE", "COMPLETED", "NEW", "PARTIAL_FILLED", "FILLED", "CANCELLED", "REJECTED"].includes(status))
      return refused(-1005, `status ${status}`);
    const symbol = p.get("symbol");
    if (symbol !== undefined && !core.symbols.has(symbol)) return refused(-1005, `symbol ${symbol}`);
    const page = intParam(p, "page", 1, 1, 1_000_000);
    const size = intParam(p, "size", 25, 1, 500);
    // The venue's creation-time window (ms), both ends inclusive.
    const from = timeParam(p, "start_t");
    const to = timeParam(p, "end_t");
    if (!page.ok) return page;
    if (!size.ok) return size;
    if (!from.ok) return from;
    if (!to.ok) return to;
    const inWindow = (o: SimOrder) =>
      (from.value === undefined || o.created_time >= from.value) && (to.value === undefined || o.created_time <= to.value);
    const rows = core.trading
      .ordersOf(accountOf(ctx))
      .filter((o) => keep(o) && inWindow(o) && (symbol === undefined || o.symbol === symbol));
    const first = (page.value - 1) * size.value;
    return ok({
      meta: { total: rows.length, records_per_page: size.value, current_page: page.value },
      rows: rows.slice(first, first + size.value).map(flavor.orderRecord),
    });
  });
}

/** GET /v1/positions: every position (symbol and margin mode) the account has held, flat ones with `position_qty` 0. */
function positionsData(core: VenueCore, accountId: string): unknown {
  const now = core.now();
  const account = core.accounts.get(accountId) as SimAccount;
  const rows = (["CROSS", "ISOLATED"] as const).flatMap((mode) =>
    [...core.trading.booksOf(accountId, mode)].map(([symbol, b]) => {
      const mark = core.mark(symbol) ?? b.averageOpenPrice;
      return {
        symbol,
        position_qty: b.qty,
        cost_position: b.costPosition,
        average_open_price: b.averageOpenPrice,
        mark_price: mark,
        unsettled_pnl: unsettledPnl(b, mark),
        timestamp: now,
        margin_mode: mode,
        leverage: leverageOf(account, symbol),
      };
    }),
  );
  const unsettled = rows.reduce((a, r) => a + r.unsettled_pnl, 0);
  const notional = rows.reduce((a, r) => a + Math.abs(r.position_qty * r.mark_price), 0);
  const total = account.collateral + unsettled;
  return {
    total_collateral_value: total,
    free_collateral: total - core.trading.initialMargin(accountId) - core.trading.frozen(accountId),
    margin_ratio: notional === 0 ? 10 : total / notional,
    rows,
  };
}

/** The routes, their answers spelled by `flavor` (flavor.ts). */
export function orderRoutes(core: VenueCore, flavor: WireFlavor): [string, Route][] {
  const t = core.trading;
  return [
    [
      "/v1/order",
      {
        method: "POST",
        limit: "orders",
        signed: true,
        handler: (ctx) => {
          const body = jsonBody(ctx);
          if (!body.ok) return body;
          const placed = t.place(accountOf(ctx), body.value);
          return placed.ok ? ok(flavor.orderAck(placed.value)) : placed;
        },
        dropAnswer: () => t.faults.takeLostAnswer(),
      },
    ],
    [
      "/v1/order",
      {
        method: "DELETE",
        limit: "orders",
        signed: true,
        handler: (ctx) =>
          withParams(ctx.search, ["order_id", "symbol"], (p) => {
            const id = intParam(p, "order_id", -1, 0, Number.MAX_SAFE_INTEGER);
            const symbol = p.get("symbol");
            if (!id.ok) return id;
            if (id.value < 0 || symbol === undefined) return refused(-1005, "order_id and symbol are required");
            return t.cancel(accountOf(ctx), id.value, symbol);
          }),
      },
    ],
    [
      "/v1/order/{id}",
      signedGet((ctx) => {
        const id = /^\d{1,15}$/.test(ctx.param ?? "") ? Number(ctx.param) : undefined;
        const o = id === undefined ? undefined : t.order(accountOf(ctx), id);
        return o === undefined ? { ok: false, refusal: flavor.unknownOrder(`order ${ctx.param}`) } : ok(flavor.orderRecord(o));
      }),
    ],
    [
      "/v1/client/order/{id}",
      signedGet((ctx) => {
        const o = t.orderByClientId(accountOf(ctx), ctx.param ?? "");
        return o === undefined ? { ok: false, refusal: flavor.unknownOrder(`client order ${ctx.param}`) } : ok(flavor.orderRecord(o));
      }),
    ],
    ["/v1/orders", signedGet((ctx) => orderList(core, flavor, ctx))],
    ["/v1/positions", signedGet((ctx) => withParams(ctx.search, [], () => ok(positionsData(core, accountOf(ctx)))), "positions")],
    [
      "/v1/client/holding",
      signedGet((ctx) =>
        withParams(ctx.search, [], () => {
          const a = core.accounts.get(accountOf(ctx)) as SimAccount;
          const frozen = t.frozen(a.accountId);
          return ok({ holding: [{ token: "USDC", holding: a.collateral, frozen, pending_short: 0, updated_time: core.now() }] });
        }),
      ),
    ],
    [
      "/v1/client/info",
      signedGet(
        (ctx) =>
          withParams(ctx.search, [], () =>
            ok({
              account_id: accountOf(ctx),
              futures_taker_fee_rate: t.takerFeeBps,
              futures_maker_fee_rate: t.makerFeeBps,
              ...clientMargin(core.accounts.get(accountOf(ctx)) as SimAccount),
            }),
          ),
        "clientInfo",
      ),
    ],
    [
      "/v1/orderbook/{id}",
      signedGet((ctx) =>
        withParams(ctx.search, ["max_level"], (p) => {
          const symbol = ctx.param ?? "";
          const mark = core.mark(symbol);
          const book = t.book(symbol);
          if (mark === undefined || book === undefined) return refused(-1005, `symbol ${symbol}`);
          const max = intParam(p, "max_level", 100, 1, 500);
          if (!max.ok) return max;
          const now = core.now();
          const side = (s: "asks" | "bids") =>
            book
              .levels(s, mark, now)
              .filter((l) => l.quantity > 0)
              .slice(0, max.value);
          return ok({ asks: side("asks"), bids: side("bids"), timestamp: now });
        }),
      ),
    ],
    [
      "/v1/public/info/{id}",
      {
        method: "GET",
        limit: "public",
        signed: false,
        handler: (ctx) =>
          withParams(ctx.search, [], () => {
            const spec = core.symbols.get(ctx.param ?? "");
            return spec === undefined ? refused(-1005, `symbol ${ctx.param}`) : ok(flavor.infoRow(infoRow(spec)));
          }),
      },
    ],
  ];
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { positionsData as positionsDataForTests };
