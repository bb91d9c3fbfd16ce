import { describe, expect, it } from "vitest";
import { AccountBook } from "../../src/engine/accountBook.js";
import { MarkBook } from "../../src/engine/marks.js";

const BTC = "PERP_BTC_USDC";
const ETH = "PERP_ETH_USDC";
const params = () => ({ baseImr: 0.01, baseMmr: 0.006, imrFactor: 3.8e-7 });

function marks(btc: number, eth: number): MarkBook {
  const m = new MarkBook();
  m.set(BTC, btc, 0);
  m.set(ETH, eth, 0);
  return m;
}

describe("AccountBook", () => {
  it("the holding is the reported total less the rows' unsettled P&L; the total then follows the marks", () => {
    const a = new AccountBook();
    const m = marks(100_000, 2_000);
    expect(a.totalCollateral(m)).toBeUndefined();
    // 1 BTC bought at 99,000 (cost 99,000, unsettled +1,000), 10 ETH short at 2,100 (cost −21,000, unsettled +1,000).
    a.applySnapshot({ totalCollateral: 52_000, freeCollateral: 40_000, marginRatio: 0.43 }, [
      { symbol: BTC, marginMode: "CROSS", positionQty: 1, costPosition: 99_000, unsettledPnl: 1_000, markPrice: 100_000 },
      { symbol: ETH, marginMode: "CROSS", positionQty: -10, costPosition: -21_000, unsettledPnl: 1_000, markPrice: 2_000 },
    ]);
    expect(a.totalCollateral(m)).toBe(52_000);
    m.set(BTC, 98_000, 1); // −2,000 on the BTC long
    expect(a.totalCollateral(m)).toBe(50_000);
    expect(a.reported.freeCollateral).toBe(40_000);
  });

  it("margin needs the max leverage; then usage, free collateral and ratio at the marks", () => {
    const a = new AccountBook();
    const m = marks(100_000, 2_000);
    a.applySnapshot({ totalCollateral: 50_000 }, [{ symbol: BTC, marginMode: "CROSS", positionQty: 1, costPosition: 100_000 }]);
    expect(a.marginAccount(m)).toBeUndefined();
    expect(a.marginUsage(params, m)).toBeUndefined();
    a.setMaxLeverage(10);
    expect(a.initialMarginHeld(params, m)).toBeCloseTo(10_000, 9);
    expect(a.freeCollateral(params, m)).toBeCloseTo(40_000, 9);
    expect(a.marginUsage(params, m)).toBeCloseTo(0.2, 12);
    expect(a.marginRatio(m)).toBeCloseTo(0.5, 12);
    expect(a.marginAccount(m)).toMatchObject({ totalCollateral: 50_000, ordersMargin: 0 });
    expect(a.marginAccount(m)?.settings.leverageOf("PERP_ETH_USDC")).toBe(10);
  });

  it("pushes: a balance moves the holding and the orders' margin, a position delta replaces its row", () => {
    const a = new AccountBook();
    const m = marks(100_000, 2_000);
    a.setMaxLeverage(20);
    a.applySnapshot({ totalCollateral: 10_000 }, []);
    a.applyBalance(10_600, 250); // a claim's fee credited; an order holds 250
    expect(a.totalCollateral(m)).toBe(10_600);
    expect(a.ordersMargin).toBe(250);
    a.applyPush([{ symbol: ETH, marginMode: "CROSS", positionQty: -5, costPosition: -10_500, markPrice: 2_000 }]);
    expect(a.totalCollateral(m)).toBe(10_600 + 500);
    expect(a.freeCollateral(params, m)).toBeCloseTo(11_100 - 500 - 250, 9);
    // Closed at 2,000: flat, the realized 500 stays in the cost until settled.
    a.applyPush([{ symbol: ETH, marginMode: "CROSS", positionQty: 0, costPosition: -500, markPrice: 2_000 }]);
    expect(a.totalCollateral(m)).toBe(11_100);
    expect(a.initialMarginHeld(params, m)).toBe(0);
    a.setMaxLeverage(0); // ignored
    expect(a.maxLeverage).toBe(20);
    a.applyBalance(Number.NaN);
    expect(a.totalCollateral(m)).toBe(11_100);
  });

  it("docs/protocol.md §10: each symbol at its own leverage, the account's own imr_factor and max_notional", () => {
    const a = new AccountBook();
    const m = marks(100_000, 2_000);
    a.applySnapshot({ totalCollateral: 50_000 }, [
      { symbol: BTC, marginMode: "CROSS", positionQty: 0.1, costPosition: 10_000 },
      { symbol: ETH, marginMode: "CROSS", positionQty: 5, costPosition: 10_000 },
    ]);
    // Every leverage read at once: 4× on ETH, 20× on BTC.
    a.setLeverages([
      { symbol: ETH, marginMode: "CROSS", leverage: 4 },
      { symbol: BTC, marginMode: "CROSS", leverage: 20 },
    ]);
    expect(a.initialMarginHeld(params, m)).toBeCloseTo(10_000 / 4 + 10_000 / 20, 9);
    const before = a.settings;
    a.setLeverages([
      { symbol: ETH, marginMode: "CROSS", leverage: 4 },
      { symbol: BTC, marginMode: "CROSS", leverage: 20 },
    ]);
    expect(a.settings).toBe(before); // nothing changed: the same settings (decisions keep what they computed)
    // The account's own imr_factor on ETH, far above the public one: 10,000^0.8 × 3e-4 = 47.5 % (over 4×'s 25 %).
    a.setClientMargin({ imrFactor: new Map([[ETH, 3e-4]]), maxNotional: new Map([[BTC, 30_000]]) });
    expect(a.settings).not.toBe(before);
    expect(a.initialMarginHeld(params, m)).toBeCloseTo(10_000 * 10_000 ** 0.8 * 3e-4 + 10_000 / 20, 6);
    expect(a.marginAccount(m)?.settings.maxNotionalOf(BTC)).toBe(30_000);
    expect(a.marginAccount(m)?.settings.maxNotionalOf(ETH)).toBe(Number.POSITIVE_INFINITY);
    // A position push's leverage is the symbol's setting too.
    a.applyPush([{ symbol: BTC, marginMode: "CROSS", positionQty: 0.1, costPosition: 10_000, leverage: 10 }]);
    expect(a.settings.leverageOf(BTC)).toBe(10);
    expect(a.initialMarginHeld(params, m)).toBeCloseTo(10_000 * 10_000 ** 0.8 * 3e-4 + 10_000 / 10, 6);
  });

  it("a symbol with no leverage of its own: client info's max_leverage, else 1× once any leverage is known", () => {
    const a = new AccountBook();
    const m = marks(100_000, 2_000);
    a.applySnapshot({ totalCollateral: 50_000 }, [{ symbol: BTC, marginMode: "CROSS", positionQty: 0.1, costPosition: 10_000 }]);
    a.setLeverages([{ symbol: ETH, marginMode: "CROSS", leverage: 4 }]);
    expect(a.marginAccount(m)).toBeDefined();
    expect(a.initialMarginHeld(params, m)).toBeCloseTo(10_000, 9); // BTC unknown: its whole notional
    a.setMaxLeverage(10);
    expect(a.initialMarginHeld(params, m)).toBeCloseTo(1_000, 9);
  });
});
