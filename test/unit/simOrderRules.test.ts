/**
 * The simulated venue's order rules, table-driven from docs/protocol.md §6: each rule refuses with its
 * code, the first failing rule decides, and a valid order of each type passes.
 */
import { describe, expect, test } from "vitest";
import { checkOrder, type OrderContext, orderFilters, parseOrder } from "../../src/sim/orderRules.js";
import type { SymbolSpec } from "../../src/sim/symbols.js";

const ETH: SymbolSpec = {
  symbol: "PERP_ETH_USDC",
  tier: 1,
  liquidatorFee: 0.008,
  baseTick: 0.01,
  qtyStep: 0.001,
  minNotional: 10,
  startPrice: 2_000,
  volatilityPerSec: 0,
  baseMax: 500,
  priceRange: 0.03,
};
const MARK = 2_000;

function ctx(o: { position?: number; openIds?: string[]; margin?: boolean } = {}): OrderContext {
  return {
    spec: (s) => (s === ETH.symbol ? ETH : undefined),
    mark: () => MARK,
    position: () => o.position ?? 0,
    clientIdOpen: (id) => (o.openIds ?? []).includes(id),
    marginFor: () => o.margin ?? true,
  };
}

const base = { symbol: ETH.symbol, order_type: "IOC", side: "SELL", order_price: 1_990, order_quantity: 0.5 };

function code(body: Record<string, unknown>, c: OrderContext = ctx({ position: 1 })): number {
  const parsed = parseOrder(body, c);
  if (!parsed.ok) return parsed.refusal.code;
  const checked = checkOrder(parsed.value, c);
  return checked.ok ? 0 : checked.refusal.code;
}

describe("order rules (docs/protocol.md §6)", () => {
  test.each([
    ["a valid reduce-only IOC", { ...base, reduce_only: true }, 0],
    ["numbers as decimal strings", { ...base, order_price: "1990.00", order_quantity: "0.5" }, 0],
    ["a valid LIMIT", { ...base, order_type: "LIMIT" }, 0],
    ["a valid MARKET with slippage", { symbol: ETH.symbol, order_type: "MARKET", side: "BUY", order_quantity: 0.5, slippage: 0.01 }, 0],
    ["an unknown field", { ...base, visible_quantity: 1 }, -1004],
    ["an unknown symbol", { ...base, symbol: "PERP_NOPE_USDC" }, -1005],
    ["no order_type", { ...base, order_type: undefined }, -1005],
    ["an unknown order_type", { ...base, order_type: "STOP" }, -1005],
    ["a bad side", { ...base, side: "sell" }, -1005],
    ["no price on a LIMIT", { ...base, order_type: "LIMIT", order_price: undefined }, -1005],
    ["a price that is not a number", { ...base, order_price: "1e3" }, -1005],
    ["reduce_only not a boolean", { ...base, reduce_only: "true" }, -1005],
    ["slippage on a non-MARKET order", { ...base, slippage: 0.01 }, -1005],
    ["a client order id with a bad character", { ...base, client_order_id: "a_b" }, -1005],
    ["a client order id of 37 characters", { ...base, client_order_id: "a".repeat(37) }, -1005],
    ["a client order id starting with -", { ...base, client_order_id: "-ab" }, -1005],
    ["a quantity below base_min", { ...base, order_quantity: 0.0005 }, -1104],
    ["a quantity off the base_tick grid", { ...base, order_quantity: 0.0015 }, -1104],
    ["a quantity above base_max", { ...base, order_quantity: 501 }, -1104],
    ["a price off the quote_tick grid", { ...base, order_price: 1_990.005 }, -1105],
    ["a price below mark × (1 − price_range)", { ...base, order_price: 1_939.99 }, -1105],
    ["a price above mark × (1 + price_range)", { ...base, order_price: 2_060.01, side: "BUY" }, -1105],
    ["a notional below min_notional", { ...base, order_quantity: 0.004 }, -1102],
  ])("%s → %i", (_name, body, expected) => {
    expect(code(body as Record<string, unknown>)).toBe(expected);
  });

  test("reduce-only: exempt from min_notional; refused with no position or on the growing side (-1106)", () => {
    expect(code({ ...base, order_quantity: 0.004, reduce_only: true })).toBe(0);
    expect(code({ ...base, reduce_only: true }, ctx({ position: 0 }))).toBe(-1106);
    expect(code({ ...base, side: "BUY", order_price: 2_010, reduce_only: true }, ctx({ position: 1 }))).toBe(-1106);
    expect(code({ ...base, reduce_only: true }, ctx({ position: -1 }))).toBe(-1106);
    // A quantity beyond the position is accepted (cut when it fills).
    expect(code({ ...base, order_quantity: 5, reduce_only: true }, ctx({ position: 1 }))).toBe(0);
  });

  test("a client order id open already: -1007; margin: -1101 for orders that may grow, never for reduce-only", () => {
    expect(code({ ...base, client_order_id: "u-1" }, ctx({ position: 1, openIds: ["u-1"] }))).toBe(-1007);
    expect(code({ ...base, client_order_id: "u-2" }, ctx({ position: 1, openIds: ["u-1"] }))).toBe(0);
    expect(code(base, ctx({ position: 1, margin: false }))).toBe(-1101);
    expect(code({ ...base, reduce_only: true }, ctx({ position: 1, margin: false }))).toBe(0);
  });

  test("the first failing rule decides: shape, then quantity, then price, then notional", () => {
    expect(code({ ...base, side: "X", order_quantity: 0.0001 })).toBe(-1005);
    expect(code({ ...base, order_quantity: 0.0001, order_price: 1 })).toBe(-1104);
    expect(code({ ...base, order_quantity: 0.001, order_price: 1 })).toBe(-1105);
  });

  test("the filters served in /v1/public/info are the ones checked", () => {
    expect(orderFilters(ETH)).toEqual({
      quoteMin: 0,
      quoteMax: 200_000,
      quoteTick: 0.01,
      baseMin: 0.001,
      baseMax: 500,
      baseTick: 0.001,
      priceRange: 0.03,
    });
  });
});
