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
    ["a valid reduce-only IOC", 0, { ...base, reduce_only: true }],
    ["numbers as decimal strings", 0, { ...base, order_price: "1990.00", order_quantity: "0.5" }],
    ["a valid LIMIT", 0, { ...base, order_type: "LIMIT" }],
    ["a valid MARKET with slippage", 0, { symbol: ETH.symbol, order_type: "MARKET", side: "BUY", order_quantity: 0.5, slippage: 0.01 }],
    ["an unknown field", -1004, { ...base, visible_quantity: 1 }],
    ["an unknown symbol", -1005, { ...base, symbol: "PERP_NOPE_USDC" }],
    ["no order_type", -1005, { ...base, order_type: undefined }],
    ["an unknown order_type", -1005, { ...base, order_type: "STOP" }],
    ["a bad side", -1005, { ...base, side: "sell" }],
    ["no price on a LIMIT", -1005, { ...base, order_type: "LIMIT", order_price: undefined }],
    ["a price that is not a number", -1005, { ...base, order_price: "1e3" }],
    ["reduce_only not a boolean", -1005, { ...base, reduce_only: "true" }],
    ["slippage on a non-MARKET order", -1005, { ...base, slippage: 0.01 }],
    ["a client order id with a bad character", -1005, { ...base, client_order_id: "a_b" }],
    ["a client order id of 37 characters", -1005, { ...base, client_order_id: "a".repeat(37) }],
    ["a client order id starting with -", -1005, { ...base, client_order_id: "-ab" }],
    ["a quantity below base_min", -1104, { ...base, order_quantity: 0.0005 }],
    ["a quantity off the base_tick grid", -1104, { ...base, order_quantity: 0.0015 }],
    ["a quantity above base_max", -1104, { ...base, order_quantity: 501 }],
    ["a price off the quote_tick grid", -1105, { ...base, order_price: 1_990.005 }],
    ["a price below mark × (1 − price_range)", -1105, { ...base, order_price: 1_939.99 }],
    ["a price above mark × (1 + price_range)", -1105, { ...base, order_price: 2_060.01, side: "BUY" }],
    ["a notional below min_notional", -1102, { ...base, order_quantity: 0.004 }],
  ])("%s → %i", (_name, expected, body) => {
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

  test("grids start at base_min and quote_min: (q − base_min) a multiple of base_tick, (p − quote_min) of quote_tick", () => {
    const odd: SymbolSpec = { ...ETH, baseMin: 0.005, qtyStep: 0.002, quoteMin: 0.005, quoteMax: 3_000 };
    const c: OrderContext = { ...ctx({ position: 1 }), spec: (s) => (s === ETH.symbol ? odd : undefined) };
    const at = (order_quantity: number, order_price: number) => code({ ...base, order_quantity, order_price }, c);
    expect([at(0.007, 1_990.005), at(0.009, 1_990.005), at(0.011, 1_990.015)]).toEqual([0, 0, 0]);
    // On the grid from zero, off the grid from base_min / quote_min.
    expect([at(0.006, 1_990.005), at(0.004, 1_990.005)]).toEqual([-1104, -1104]);
    expect([at(0.007, 1_990), at(0.007, 1_990.01)]).toEqual([-1105, -1105]);
    expect(orderFilters(odd)).toMatchObject({ baseMin: 0.005, baseTick: 0.002, quoteMin: 0.005, quoteMax: 3_000 });
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
