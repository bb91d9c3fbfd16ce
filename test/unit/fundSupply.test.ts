/**
 * The insurance fund's supply in pieces: the feed's view of a fund row (the fund's discount, one
 * symbol on the fund's route, kept while it stays open), the body a fund claim sends, the intent's
 * `supply` (and an old intent without it read as a liquidation's), and the ledger's supply.
 */
import { describe, expect, it } from "vitest";
import { claimBodyOf, supplyOf } from "../../src/core/fundSupply.js";
import { parseRecord } from "../../src/core/journalRecords.js";
import { intentRecord } from "../../src/core/sentClaim.js";
import { FundFeed } from "../../src/daemon/feeds/fundFeed.js";
import { ledgerTotals } from "../../src/engine/ledgerTotals.js";
import { opportunityRows } from "../../src/engine/opportunities.js";
import type { ClaimDecision, Liquidation } from "../../src/engine/types.js";
import { OpportunityFold } from "../../src/store/opportunityFold.js";
import { fundDiscountsFromInfo } from "../../src/venue/fundRows.js";

const MARKS: Record<string, number> = { PERP_ETH_USDC: 4_000, PERP_BTC_USDC: 100_000 };
const row = (positions: [string, number][], id = 7): Liquidation => ({
  liquidationId: id,
  timestamp: 1,
  type: "claim",
  positions: positions.map(([symbol, positionQty]) => ({ symbol, positionQty, liquidatorFee: 0.015 })),
});

describe("FundFeed", () => {
  it("values each symbol at the fund's discount from the info rows, the row's own fee where the table has none", () => {
    const feed = new FundFeed({ route: "liquidation", price: (s) => MARKS[s] });
    feed.setDiscounts(fundDiscountsFromInfo([{ symbol: "PERP_ETH_USDC", claim_insurance_fund_discount: "0.0075" }, { symbol: "X" }, null]));
    const v = feed.view(
      row([
        ["PERP_ETH_USDC", 2],
        ["PERP_BTC_USDC", 0.1],
      ]),
    );
    expect(v.positions).toEqual([
      { symbol: "PERP_ETH_USDC", positionQty: 2, liquidatorFee: 0.0075 },
      { symbol: "PERP_BTC_USDC", positionQty: 0.1, liquidatorFee: 0.015 },
    ]);
    expect(v.type).toBe("claim");
  });

  it("on the fund's route offers one symbol, the most valuable when first seen, kept while open, the next once taken whole", () => {
    const marks = { ...MARKS };
    const feed = new FundFeed({ route: "claim_insurance_fund", price: (s) => marks[s] });
    expect(
      feed
        .view(
          row([
            ["PERP_ETH_USDC", 2],
            ["PERP_BTC_USDC", 0.1],
          ]),
        )
        .positions.map((p) => p.symbol),
    ).toEqual(["PERP_BTC_USDC"]);
    marks.PERP_ETH_USDC = 1_000_000; // ETH worth more now: the pick stays (the same view each time)
    expect(
      feed.view(
        row([
          ["PERP_ETH_USDC", 2],
          ["PERP_BTC_USDC", 0.05],
        ]),
      ).positions,
    ).toEqual([{ symbol: "PERP_BTC_USDC", positionQty: 0.05, liquidatorFee: 0.015 }]);
    expect(
      feed
        .view(
          row([
            ["PERP_ETH_USDC", 2],
            ["PERP_BTC_USDC", 0],
          ]),
        )
        .positions.map((p) => p.symbol),
    ).toEqual(["PERP_ETH_USDC"]);
    // A removal stays one, and the pick is forgotten.
    expect(feed.view(row([["PERP_ETH_USDC", 0]])).positions.every((p) => p.positionQty === 0)).toBe(true);
  });
});

describe("a fund claim's body and intent", () => {
  const d: ClaimDecision = {
    action: "claim",
    liquidationId: 7,
    ratio: 0.5,
    symbols: undefined,
    limitPrice: { PERP_ETH_USDC: 3_990 },
    expectedFee: 30,
    notional: 4_000,
    perSymbolQty: { PERP_ETH_USDC: 1 },
  };
  const fundRow = row([["PERP_ETH_USDC", 2]]);

  it("on the fund's route: {claim_id, symbol, qty_request, limit_price}; on the liquidation route: a liquidation's body", () => {
    const body = claimBodyOf(d, fundRow, "claim_insurance_fund");
    expect(body).toEqual({ claim_id: 7, symbol: "PERP_ETH_USDC", qty_request: 1, limit_price: { PERP_ETH_USDC: 3_990 } });
    expect(claimBodyOf(d, fundRow, "liquidation")).toEqual({
      liquidation_id: 7,
      ratio_qty_request: 0.5,
      limit_price: { PERP_ETH_USDC: 3_990 },
    });
    expect(claimBodyOf(d, { ...fundRow, type: "liquidated" }, "claim_insurance_fund")).toHaveProperty("liquidation_id", 7);
  });

  it("refuses a fund claim of two symbols (the endpoint takes one)", () => {
    const two = { ...d, perSymbolQty: { PERP_ETH_USDC: 1, PERP_BTC_USDC: 0.1 } };
    expect(() =>
      claimBodyOf(
        two,
        row([
          ["PERP_ETH_USDC", 2],
          ["PERP_BTC_USDC", 0.1],
        ]),
        "claim_insurance_fund",
      ),
    ).toThrow(RangeError);
  });

  it("the intent says supply insurance_fund; an old intent without it reads as a liquidation's", () => {
    const intent = {
      ...intentRecord(d, claimBodyOf(d, fundRow, "claim_insurance_fund"), 5, false, fundRow.positions, 1),
      supply: supplyOf(fundRow),
    };
    expect(parseRecord(JSON.stringify(intent))).toMatchObject({ t: "intent", id: 7, supply: "insurance_fund" });
    const old = parseRecord(
      '{"t":"intent","id":9,"at":1,"ratio":1,"limitPrice":{"PERP_ETH_USDC":1},"expectedFee":1,"perSymbolQty":{"PERP_ETH_USDC":1}}',
    );
    expect(old).toBeDefined();
    expect((old as { supply?: string }).supply).toBeUndefined();
  });
});

describe("the ledger's supply", () => {
  it("a fund row's facts and rows say insurance_fund; totals split by supply", () => {
    const fold = new OpportunityFold();
    fold.add({ t: "seen", id: 1, at: 1, fees: { PERP_ETH_USDC: 10 }, qty: { PERP_ETH_USDC: 1 } });
    fold.add({ t: "seen", id: 2, at: 1, fees: { PERP_ETH_USDC: 5 }, qty: { PERP_ETH_USDC: 1 }, supply: "insurance_fund" });
    fold.add({
      t: "intent",
      id: 2,
      at: 2,
      ratio: 1,
      limitPrice: { PERP_ETH_USDC: 1 },
      expectedFee: 5,
      perSymbolQty: { PERP_ETH_USDC: 1 },
      supply: "insurance_fund",
    });
    fold.add({ t: "outcome", id: 2, at: 3, result: "accepted", fills: [{ symbol: "PERP_ETH_USDC", qty: 1, price: 1, fee: 5 }] });
    fold.add({ t: "gone", id: 1, at: 4, wanted: false });
    const rows = [...fold.facts.values()].flatMap(opportunityRows);
    expect(rows.map((r) => [r.liquidation_id, r.supply, r.outcome])).toEqual([
      [1, "liquidation", "expired"],
      [2, "insurance_fund", "claimed"],
    ]);
    const t = ledgerTotals(rows);
    expect(t.by_supply.insurance_fund?.captured).toEqual({ count: 1, value: 5 });
    expect(t.by_supply.liquidation?.missed).toEqual({ count: 1, value: 10 });
  });
});
