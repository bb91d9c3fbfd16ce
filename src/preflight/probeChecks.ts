/**
 * The probes: what the venue answers where its codes are not published (docs/protocol.md §9).
 * `claim_probe` claims an id that cannot exist, `order_lookup_probe` looks up a client order id
 * that was never used, and (only with --probe-orders) `order_probe` rests a post-only order that
 * cannot fill, far below the market, then cancels it. Nothing else is sent; no money moves.
 */
import { randomBytes } from "node:crypto";
import { ceilToTick, floorToTick } from "../engine/quantize.js";
import { lookupFailureAction, VenueError } from "../venue/errors.js";
import { type Check, errorCode, errorText, fail, pass, warn } from "./check.js";

/** The venue refused the key or the signature (the failure table's kinds): nothing signed gets through. */
const refusedAuth = (err: unknown): boolean => err instanceof VenueError && (err.kind === "bad_signature" || err.kind === "unauthorized");

/** Far above any id the venue has issued: a claim on it can only be refused. */
const IMPOSSIBLE_LIQUIDATION_ID = 999_999_999_999;

export const claimProbeCheck: Check = async (ctx) => {
  const first = ctx.symbols?.values().next();
  const symbol = first === undefined || first.done ? "PERP_BTC_USDC" : first.value.symbol;
  const price = ctx.marks?.get(symbol) ?? 1;
  try {
    await ctx.rest.claimLiquidation(
      { liquidation_id: IMPOSSIBLE_LIQUIDATION_ID, ratio_qty_request: 1, limit_price: { [symbol]: price } },
      { signal: ctx.signal },
    );
  } catch (err) {
    const code = errorCode(err);
    ctx.observed.claim_probe = { liquidation_id: IMPOSSIBLE_LIQUIDATION_ID, code, message: errorText(err) };
    // The failure table says what the daemon makes of the answer: "gone" is what it expects here.
    if (err instanceof VenueError && err.meaning.claim === "gone")
      return pass(`claim on id ${IMPOSSIBLE_LIQUIDATION_ID} refused with ${code} (${err.meaning.kind}), as the daemon expects`);
    if (typeof code === "number" && !refusedAuth(err)) {
      return warn(
        `claim on id ${IMPOSSIBLE_LIQUIDATION_ID} refused with ${code}, not the code the daemon reads as "gone"`,
        "attach --json to a bug report",
      );
    }
    return fail(
      `claim on id ${IMPOSSIBLE_LIQUIDATION_ID} failed: ${errorText(err)}`,
      "a signed POST does not get through: check the key and account",
    );
  }
  ctx.observed.claim_probe = { liquidation_id: IMPOSSIBLE_LIQUIDATION_ID, code: "accepted" };
  return fail(
    `a claim on id ${IMPOSSIBLE_LIQUIDATION_ID} was accepted`,
    "the venue accepted an impossible claim: do not go live, report it",
  );
};

export const orderLookupProbeCheck: Check = async (ctx) => {
  const clientOrderId = `preflight-${randomBytes(8).toString("hex")}`;
  try {
    await ctx.orders.orderByClientId(clientOrderId, { signal: ctx.signal });
  } catch (err) {
    const code = errorCode(err);
    const status = (err as { status?: unknown }).status;
    ctx.observed.order_lookup_probe = { client_order_id: clientOrderId, code, http_status: status ?? null };
    if (lookupFailureAction(err) === "absent")
      return pass(`unknown client order id answered with ${code} (HTTP ${String(status)}), as the daemon expects`);
    if (typeof code === "number" && !refusedAuth(err)) {
      return warn(
        `unknown client order id answered with ${code} (HTTP ${String(status)}), not the "not found" the daemon expects: it settles such lookups through the order list`,
        "attach --json to a bug report",
      );
    }
    return fail(`order lookup failed: ${errorText(err)}`, "a signed read does not get through: check the key and account");
  }
  ctx.observed.order_lookup_probe = { client_order_id: clientOrderId, code: "found" };
  return fail(`a never-used client order id ${clientOrderId} was found`, "report this venue answer");
};

export const orderProbeCheck: Check = async (ctx) => {
  const s = [...(ctx.symbols?.values() ?? [])].find((x) => x.orderFilters !== undefined && ctx.marks?.has(x.symbol));
  if (s === undefined || s.orderFilters === undefined) return fail("no symbol with order filters and a mark", "the symbols check says why");
  const mark = ctx.marks?.get(s.symbol) as number;
  const f = s.orderFilters;
  // Inside the allowed band (mark × (1 − price_range)) but far below the bid: a post-only buy rests.
  const price = floorToTick(mark * (1 - f.priceRange * 0.8), s.priceTick, s.priceDecimals);
  const minQty = Math.max(f.qtyMin, s.minNotional / price);
  const quantity = ceilToTick(minQty, f.qtyTick, s.qtyDecimals ?? 8);
  const clientOrderId = `preflight-${randomBytes(8).toString("hex")}`;
  const order = {
    symbol: s.symbol,
    client_order_id: clientOrderId,
    order_type: "POST_ONLY" as const,
    side: "BUY" as const,
    order_price: price,
    order_quantity: quantity,
  };
  let orderId: number;
  try {
    orderId = Number((await ctx.orders.placeOrder(order, { signal: ctx.signal })).order_id);
  } catch (err) {
    ctx.observed.order_probe = { order, code: errorCode(err) };
    return fail(`post-only order refused: ${errorText(err)}`, "unwind orders would be refused too: check the key's scope and the account");
  }
  try {
    await ctx.orders.cancelOrder(orderId, s.symbol, { signal: ctx.signal });
  } catch (err) {
    ctx.observed.order_probe = { order, order_id: orderId, cancel_code: errorCode(err) };
    return fail(`order ${orderId} placed but its cancel failed: ${errorText(err)}`, `cancel order ${orderId} on the venue by hand`);
  }
  ctx.observed.order_probe = { order, order_id: orderId, cancelled: true };
  return pass(`post-only BUY ${quantity} ${s.symbol} at ${price} placed (order ${orderId}) and cancelled`);
};
