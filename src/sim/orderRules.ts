/**
 * `POST /v1/order` checked as docs/protocol.md §6 fixes it, one code per rule, in this order: the body's
 * shape (-1004 an unknown field, -1005 malformed, missing or an unknown symbol), the quantity filter
 * (-1104), the price filter (-1105), the minimum notional (-1102, reduce-only exempt), reduce-only
 * on no position or on the growing side (-1106), a client order id already open (-1007), and the
 * margin of a non-reduce-only order (-1101). Pure: the caller passes the account's state.
 * `margin_mode` (docs/protocol.md §9) names the position the order trades: a reduce-only order
 * reduces that position only. **simulator**: absent = CROSS (the venue's default is the symbol's).
 */
import type { SymbolSpec } from "./symbols.js";
import { type Checked, ok, VenueRefusal } from "./venueRefusal.js";

const ORDER_TYPES = ["LIMIT", "IOC", "FOK", "POST_ONLY", "MARKET"] as const;
export type OrderType = (typeof ORDER_TYPES)[number];
export type Side = "BUY" | "SELL";
const MARGIN_MODES = ["CROSS", "ISOLATED"] as const;
export type MarginMode = (typeof MARGIN_MODES)[number];

export interface OrderInput {
  symbol: string;
  clientOrderId: string | undefined;
  type: OrderType;
  side: Side;
  /** Undefined for MARKET. */
  price: number | undefined;
  qty: number;
  reduceOnly: boolean;
  marginMode: MarginMode;
  /** MARKET only: a fraction of the mark beyond which it does not fill. */
  slippage: number | undefined;
}

export interface OrderContext {
  spec(symbol: string): SymbolSpec | undefined;
  mark(symbol: string): number | undefined;
  /** The account's signed position in the symbol, in one margin mode. */
  position(symbol: string, mode: MarginMode): number;
  clientIdOpen(clientOrderId: string): boolean;
  /** Whether the account's margin carries `qty` (signed: + buy) more of `symbol` in `mode` (docs/protocol.md §7). */
  marginFor(symbol: string, mode: MarginMode, qty: number): boolean;
}

const FIELDS = new Set([
  "symbol",
  "client_order_id",
  "order_type",
  "side",
  "order_price",
  "order_quantity",
  "reduce_only",
  "slippage",
  "margin_mode",
]);
const CLIENT_ORDER_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,35}$/;
/** Share of a tick below which a price or quantity still counts as on the grid (float noise). */
const GRID_EPS = 1e-6;

/** JSON numbers or decimal strings (§6). */
function num(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return undefined;
}

function onGrid(value: number, origin: number, step: number): boolean {
  const k = (value - origin) / step;
  return Math.abs(k - Math.round(k)) < GRID_EPS;
}

const refuse = (code: number, detail: string): Checked<never> => ({ ok: false, refusal: new VenueRefusal(code, detail) });

/** The order's shape: every field there, of its type, for a known symbol. */
export function parseOrder(body: unknown, ctx: Pick<OrderContext, "spec">): Checked<OrderInput> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return refuse(-1005, "body must be a JSON object");
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b)) if (!FIELDS.has(k)) return refuse(-1004, k);
  if (typeof b.symbol !== "string" || ctx.spec(b.symbol) === undefined) return refuse(-1005, "symbol");
  const type = b.order_type;
  if (typeof type !== "string" || !(ORDER_TYPES as readonly string[]).includes(type)) return refuse(-1005, "order_type");
  if (b.side !== "BUY" && b.side !== "SELL") return refuse(-1005, "side");
  const qty = num(b.order_quantity);
  if (qty === undefined) return refuse(-1005, "order_quantity");
  const price = b.order_price === undefined || b.order_price === null ? undefined : num(b.order_price);
  if (type !== "MARKET" && price === undefined) return refuse(-1005, "order_price");
  if (b.order_price !== undefined && b.order_price !== null && price === undefined) return refuse(-1005, "order_price");
  if (b.reduce_only !== undefined && typeof b.reduce_only !== "boolean") return refuse(-1005, "reduce_only");
  const slippage = b.slippage === undefined ? undefined : num(b.slippage);
  if (b.slippage !== undefined && (slippage === undefined || slippage <= 0 || type !== "MARKET")) return refuse(-1005, "slippage");
  const mode = b.margin_mode === undefined || b.margin_mode === null ? "CROSS" : b.margin_mode;
  if (!(MARGIN_MODES as readonly unknown[]).includes(mode)) return refuse(-1005, "margin_mode");
  const cid = b.client_order_id;
  if (cid !== undefined && (typeof cid !== "string" || !CLIENT_ORDER_ID.test(cid))) return refuse(-1005, "client_order_id");
  return ok({
    symbol: b.symbol,
    clientOrderId: cid,
    type: type as OrderType,
    side: b.side,
    price: type === "MARKET" ? undefined : price,
    qty,
    reduceOnly: b.reduce_only === true,
    marginMode: mode as MarginMode,
    slippage,
  });
}

/** The filters and the account's state, after `parseOrder`. */
export function checkOrder(o: OrderInput, ctx: OrderContext): Checked<OrderInput> {
  const spec = ctx.spec(o.symbol) as SymbolSpec;
  const mark = ctx.mark(o.symbol);
  if (mark === undefined) return refuse(-1005, "no mark for the symbol");
  const f = orderFilters(spec);
  if (!(o.qty >= f.baseMin - GRID_EPS * f.baseTick && o.qty <= f.baseMax && onGrid(o.qty, f.baseMin, f.baseTick)))
    return refuse(-1104, `quantity must be in [${f.baseMin}, ${f.baseMax}] on steps of ${f.baseTick}`);
  if (o.price !== undefined) {
    const lo = mark * (1 - f.priceRange);
    const hi = mark * (1 + f.priceRange);
    if (!(o.price >= f.quoteMin && o.price <= f.quoteMax && onGrid(o.price, f.quoteMin, f.quoteTick)))
      return refuse(-1105, `price must be in [${f.quoteMin}, ${f.quoteMax}] on steps of ${f.quoteTick}`);
    if (o.price < lo || o.price > hi) return refuse(-1105, `price must lie within mark × (1 ± ${f.priceRange})`);
  }
  const notional = o.qty * (o.price ?? mark);
  if (!o.reduceOnly && notional < spec.minNotional) return refuse(-1102, `notional ${notional} below ${spec.minNotional}`);
  const position = ctx.position(o.symbol, o.marginMode);
  if (o.reduceOnly && (position === 0 || (o.side === "BUY") === position > 0))
    return refuse(-1106, position === 0 ? "no position to reduce" : "the order would grow the position");
  if (o.clientOrderId !== undefined && ctx.clientIdOpen(o.clientOrderId))
    return refuse(-1007, `client_order_id ${o.clientOrderId} is open`);
  if (!o.reduceOnly && !ctx.marginFor(o.symbol, o.marginMode, o.side === "BUY" ? o.qty : -o.qty))
    return refuse(-1101, "the account's margin cannot carry the order");
  return ok(o);
}

export interface OrderFilterValues {
  quoteMin: number;
  quoteMax: number;
  quoteTick: number;
  baseMin: number;
  baseMax: number;
  baseTick: number;
  priceRange: number;
}

/** §6 filter fields of a symbol (the simulator's `baseTick` is the price step, `qtyStep` the quantity step). */
export function orderFilters(spec: SymbolSpec): OrderFilterValues {
  return {
    quoteMin: spec.quoteMin ?? 0,
    quoteMax: spec.quoteMax ?? spec.startPrice * 100,
    quoteTick: spec.baseTick,
    baseMin: spec.baseMin ?? spec.qtyStep,
    baseMax: spec.baseMax ?? 1e9,
    baseTick: spec.qtyStep,
    priceRange: spec.priceRange ?? 0.03,
  };
}
