/**
 * The venue's wire at the edge (venue/mapping.ts): rows and frames to domain types, decisions to
 * request bodies.
 */
import { describe, expect, it } from "vitest";
import { type ClaimDecision, decide } from "../../src/engine/policy.js";
import { claimRequestBody, fundClaimRequestBody, liquidationFromRow, symbolInfoFromRow, withoutFundRows } from "../../src/venue/mapping.js";
import { fundOffersFromRow } from "../support/fundOffersFromRow.js";
import { liq, makeCtx, NOW } from "./engine.fixtures.js";

const BTC = "PERP_BTC_USDC";
const ETH = "PERP_ETH_USDC";
const SOL = "PERP_SOL_USDC";
const DOGE = "PERP_DOGE_USDC";

describe("rows to domain", () => {
  it("an open-list row becomes a liquidation with camelCase positions", () => {
    expect(
      liquidationFromRow({
        liquidation_id: 7,
        timestamp: 100,
        type: "liquidated",
        positions_by_perp: [{ symbol: ETH, position_qty: -2, liquidator_fee: 0.008 }],
      }),
    ).toEqual({
      liquidationId: 7,
      timestamp: 100,
      positions: [{ symbol: ETH, positionQty: -2, liquidatorFee: 0.008 }],
      type: "liquidated",
    });
  });

  it("a symbol info row: quote_tick is the price step, base_tick (the quantity step) is not", () => {
    const info = symbolInfoFromRow({
      symbol: BTC,
      liquidation_tier: 1,
      liquidator_fee: 0.006,
      quote_tick: 0.1,
      base_tick: 0.00001,
      min_notional: 10,
    });
    expect(info).toEqual({ symbol: BTC, tier: 1, liquidatorFee: 0.006, priceTick: 0.1, minNotional: 10 });
  });
});

describe("claimRequestBody", () => {
  it("proportional: no symbols field, numbers print without float noise", () => {
    const d = decide(liq(42, [ETH, -30]), makeCtx({ marks: { [ETH]: 2_000.123 } }), NOW) as ClaimDecision;
    const body = claimRequestBody(d);
    expect(body).toEqual({ liquidation_id: 42, ratio_qty_request: d.ratio, limit_price: d.limitPrice });
    expect("symbols" in body).toBe(false);
    // 50,000 / 60,003.69 = 0.83328… → 0.833; 2,000.123 × 0.995 = 1,990.122… → 1,990.13.
    expect(JSON.stringify(body)).toBe('{"liquidation_id":42,"ratio_qty_request":0.833,"limit_price":{"PERP_ETH_USDC":1990.13}}');
  });

  it("per symbol: symbols listed with their ratios", () => {
    const d = decide(liq(43, [SOL, 1_000], [DOGE, -100_000]), makeCtx(), NOW) as ClaimDecision;
    expect(JSON.stringify(claimRequestBody(d))).toBe(
      '{"liquidation_id":43,"ratio_qty_request":1,"limit_price":{"PERP_SOL_USDC":100.5,"PERP_DOGE_USDC":0.0995},' +
        '"symbols":[{"symbol":"PERP_SOL_USDC","ratio_qty_request":0.4},{"symbol":"PERP_DOGE_USDC","ratio_qty_request":1}]}',
    );
  });

  it("refuses a tampered decision", () => {
    const d = decide(liq(44, [BTC, 0.05]), makeCtx(), NOW) as ClaimDecision;
    expect(() => claimRequestBody({ ...d, ratio: 0 })).toThrow(RangeError);
    expect(() => claimRequestBody({ ...d, ratio: 1.5 })).toThrow(RangeError);
    expect(() => claimRequestBody({ ...d, limitPrice: { [BTC]: Number.NaN } })).toThrow(RangeError);
    expect(() => claimRequestBody({ ...d, limitPrice: { [BTC]: -1 } })).toThrow(RangeError);
    expect(() => claimRequestBody({ ...d, symbols: [{ symbol: BTC, ratio: Number.POSITIVE_INFINITY }] })).toThrow(RangeError);
  });
});

describe("the insurance fund's rows (docs/protocol.md §10)", () => {
  const row = {
    liquidation_id: 77,
    timestamp: 1,
    type: "claim",
    positions_by_perp: [
      { symbol: "PERP_ETH_USDC", position_qty: -2, liquidator_fee: 0.004 },
      { symbol: "PERP_BTC_USDC", position_qty: 0, liquidator_fee: 0.003 },
    ],
  };

  it("a type claim row's open symbols are offers at the fund's discount; any other row has none, and is what the daemon books", () => {
    expect(fundOffersFromRow(row)).toEqual([{ claimId: 77, symbol: "PERP_ETH_USDC", positionQty: -2, discount: 0.004 }]);
    expect(fundOffersFromRow({ ...row, type: "liquidated" })).toEqual([]);
    const liquidations = [{ ...row, type: "liquidated" }];
    expect(withoutFundRows(liquidations)).toBe(liquidations);
    expect(withoutFundRows([...liquidations, row])).toEqual(liquidations);
  });

  it("a claim's fee is the discount of its notional; the body names one symbol, a quantity within the offer and a limit price", () => {
    const [offer] = fundOffersFromRow(row);
    if (offer === undefined) throw new Error("no offer");
    expect(fundClaimRequestBody(offer, 1.5, 2_990)).toEqual({
      claim_id: 77,
      symbol: "PERP_ETH_USDC",
      qty_request: 1.5,
      limit_price: { PERP_ETH_USDC: 2_990 },
    });
    for (const [qty, limit] of [
      [0, 2_990],
      [2.5, 2_990],
      [Number.NaN, 2_990],
      [1, 0],
      [1, Number.POSITIVE_INFINITY],
    ] as const)
      expect(() => fundClaimRequestBody(offer, qty, limit)).toThrow(RangeError);
  });
});
