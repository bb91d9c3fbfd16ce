/**
 * The probes: what the venue answers where its codes are not published (docs/protocol.md §9).
 * `claim_probe` claims an id that cannot exist in each claim form the daemon sends (and the
 * OpenAPI's), recording every answer, `order_lookup_probe` looks up a client order id
 * that was never used, and (only with --probe-orders) `order_probe` rests a post-only order that
 * cannot fill, far below the market, then cancels it. Nothing else is sent; no money moves.
 */
import { randomBytes } from "node:crypto";
import { ceilToTick, floorToTick } from "../engine/quantize.js";
import { lookupFailureAction, VenueError } from "../venue/errors.js";
import type { ClaimRequest } from "../venue/restSchemas.js";
import {
  type Check,
  errorCode,
  errorText,
  fail,
  isUnreachable,
  type PreflightContext,
  pass,
  secretVar,
  unreachable,
  warn,
} from "./check.js";
import { type RouteAnswer, tryFundRoute } from "./fundProbe.js";

/** The venue refused the key or the signature (the failure table's kinds): nothing signed gets through. */
const refusedAuth = (err: unknown): boolean => err instanceof VenueError && (err.kind === "bad_signature" || err.kind === "unauthorized");

/**
 * An id no liquidation will have for years, inside the int32 range the OpenAPI may imply: a claim on
 * it can only be refused as gone, never for its format (the old probe's 999,999,999,999 could be
 * refused with -1005 for that alone, and a -1005 is also what a refused claim form gets).
 */
const IMPOSSIBLE_LIQUIDATION_ID = 2_147_483_647;

/**
 * The claim forms the daemon sends (docs/protocol.md §10): the top-level ratio alone (every claim of a
 * liquidation with a low-risk symbol, and of one whose symbols are all claimed at one ratio), and
 * `symbols` as an array (a high-risk liquidation with a symbol left out or ratios that differ). The
 * OpenAPI's single-object `symbols` is tried too, so the first testnet run says which the venue takes.
 */
type Form = "ratio" | "symbols_array" | "symbols_object";

type FormAnswer = RouteAnswer<Form | "insurance_fund">;

function body(form: Form, symbol: string, price: number): ClaimRequest {
  const base = { liquidation_id: IMPOSSIBLE_LIQUIDATION_ID, ratio_qty_request: 1, limit_price: { [symbol]: price } };
  if (form === "ratio") return base;
  const entry = { symbol, ratio_qty_request: 1 };
  // The object form is not the daemon's type: it is what the OpenAPI writes, sent to learn the answer.
  return { ...base, symbols: (form === "symbols_array" ? [entry] : entry) as ClaimRequest["symbols"] };
}

async function tryForm(ctx: PreflightContext, form: Form, symbol: string): Promise<FormAnswer> {
  try {
    await ctx.rest.claimLiquidation(body(form, symbol, ctx.marks?.get(symbol) ?? 1), { signal: ctx.signal });
    return { form, symbol, code: "accepted", message: "", gone: false, auth: false };
  } catch (err) {
    const gone = err instanceof VenueError && err.meaning.claim === "gone";
    const a: FormAnswer = { form, symbol, code: errorCode(err), message: errorText(err), gone, auth: refusedAuth(err) };
    if (isUnreachable(err)) a.unreachable = err;
    return a;
  }
}

export const claimProbeCheck: Check = async (ctx) => {
  const all = [...(ctx.symbols?.values() ?? [])];
  const low = all.find((s) => s.tier === 1)?.symbol ?? all[0]?.symbol ?? "PERP_BTC_USDC";
  const high = all.find((s) => s.tier === 2)?.symbol;
  const answers: FormAnswer[] = [await tryForm(ctx, "ratio", low)];
  const first = answers[0] as FormAnswer;
  if (first.unreachable !== undefined) return unreachable(ctx.venue.baseUrl, first.unreachable);
  if (high !== undefined && first.code !== "accepted") {
    answers.push(await tryForm(ctx, "symbols_array", high), await tryForm(ctx, "symbols_object", high));
  }
  const fund = first.code === "accepted" ? undefined : await tryFundRoute(ctx, IMPOSSIBLE_LIQUIDATION_ID, low);
  if (fund !== undefined) answers.push(fund);
  ctx.observed.claim_probe = {
    liquidation_id: IMPOSSIBLE_LIQUIDATION_ID,
    forms: answers.map(({ form, symbol, code, message }) => ({ form, symbol, code, message })),
    // Kept for tools that read the first answer.
    code: first.code,
  };
  const id = IMPOSSIBLE_LIQUIDATION_ID;
  if (answers.some((a) => a.code === "accepted"))
    return fail(`a claim on id ${id} was accepted`, "the venue accepted an impossible claim: do not go live, report it");
  if (!first.gone) {
    if (typeof first.code === "number" && !first.auth)
      return warn(
        `claim on id ${id} refused with ${first.code}, not the code the daemon reads as "gone"`,
        "the daemon re-decides an id it gets an unknown answer for (bounded): attach --json to a bug report",
        true,
      );
    return fail(
      `claim on id ${id} failed: ${first.message}`,
      first.auth
        ? `a signed POST is refused: check the key (registered for venue.account_id, trading scope, IP restriction) and ${secretVar(ctx)}`
        : "see the detail; attach --json to a bug report",
    );
  }
  const array = answers.find((a) => a.form === "symbols_array");
  const object = answers.find((a) => a.form === "symbols_object");
  const forms = answers.map((a) => `${a.form} ${a.code}`).join(", ");
  // With the fund off, the fund route's answer is recorded (and in the detail) for the day it goes on.
  if (fund !== undefined && !fund.gone && ctx.loaded.config.insurance_fund.enabled)
    return warn(
      `claim forms on id ${id}: ${forms}: the insurance fund's route does not answer "gone"`,
      "fund claims (insurance_fund.route: claim_insurance_fund) may be refused: try `route: liquidation`, or attach --json to a bug report",
      true,
    );
  if (array !== undefined && !array.gone)
    return warn(
      `claim forms on id ${id}: ${forms}: the venue refuses \`symbols\` as an array${object?.gone === true ? " and takes the single object" : ""}`,
      "claims of a high-risk liquidation with a symbol left out, or two ratios that differ, will be refused; every other claim is sent without `symbols`: attach --json to a bug report",
      true,
    );
  const fundNote = fund !== undefined && !fund.gone ? ` (the insurance fund's route, off here, answered ${fund.code}: not "gone")` : "";
  return pass(`claim forms on id ${id} refused as gone, as the daemon expects: ${forms}${fundNote}`);
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
        true,
      );
    }
    if (isUnreachable(err)) return unreachable(ctx.venue.baseUrl, err);
    return fail(
      `order lookup failed: ${errorText(err)}`,
      refusedAuth(err)
        ? `a signed read is refused: check the key (registered for venue.account_id, trading scope, IP restriction) and ${secretVar(ctx)}`
        : "see the detail; attach --json to a bug report",
    );
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
