/**
 * The venue's margin formulas (docs/protocol.md §7) against values worked by hand from the published
 * parameters: BTC/ETH base IMR 1 %, base MMR 0.6 %, imr_factor 3.8e-7; ARB/OP base IMR 10 %, base
 * MMR 5 %, imr_factor 2.1e-6. Powers of ten make the 4/5 term exact by hand: (10^k)^(4/5) = 10^(0.8k).
 */
import { describe, expect, it } from "vitest";
import {
  accountMarginRatio,
  freeCollateral,
  imrRate,
  initialMargin,
  maintenanceMarginForTests,
  mmrRateForTests,
  notionalOf,
  UNKNOWN_MARGIN,
  validMarginParams,
} from "../../src/engine/margin.js";
import { initialMarginOf, maintenanceMarginOf } from "../support/marginOf.js";

const BTC_MARGIN = { baseImr: 0.01, baseMmr: 0.006, imrFactor: 3.8e-7 };
const ARB_MARGIN = { baseImr: 0.1, baseMmr: 0.05, imrFactor: 2.1e-6 };

describe("IMR and MMR (docs/protocol.md §7)", () => {
  it("BTC at 10,000 of notional: the base ratios bind (10^3.2 × 3.8e-7 = 0.000602)", () => {
    expect(imrRate(BTC_MARGIN, 10_000, 100)).toBe(0.01);
    expect(initialMargin(BTC_MARGIN, 10_000, 100)).toBeCloseTo(100, 9);
    expect(mmrRateForTests(BTC_MARGIN, 10_000)).toBe(0.006);
    expect(maintenanceMarginForTests(BTC_MARGIN, 10_000)).toBeCloseTo(60, 9);
  });

  it("BTC at 1,000,000: the 4/5 term binds (10^4.8 = 63,095.73 → IMR 2.3976 %, MMR 1.4386 %)", () => {
    expect(imrRate(BTC_MARGIN, 1e6, 100)).toBeCloseTo(0.0239763791, 9);
    expect(initialMargin(BTC_MARGIN, 1e6, 100)).toBeCloseTo(23_976.379, 2);
    // MMR = base_mmr / base_imr × imr_factor × n^(4/5) = 0.6 × 0.0239764
    expect(mmrRateForTests(BTC_MARGIN, 1e6)).toBeCloseTo(0.0143858275, 9);
    expect(maintenanceMarginForTests(BTC_MARGIN, 1e6)).toBeCloseTo(14_385.827, 2);
  });

  it("the account's max leverage binds over the base IMR: 10× means 10 % at any size below the 4/5 term", () => {
    expect(imrRate(BTC_MARGIN, 1e6, 10)).toBe(0.1);
    expect(initialMargin(BTC_MARGIN, 1e6, 10)).toBeCloseTo(100_000, 6);
    // ...and the 4/5 term binds over the leverage at 10^8: 10^6.4 × 3.8e-7 = 0.954517
    expect(imrRate(BTC_MARGIN, 1e8, 10)).toBeCloseTo(0.9545168, 6);
    // MMR does not depend on the leverage.
    expect(mmrRateForTests(BTC_MARGIN, 1e6)).toBeCloseTo(0.0143858275, 9);
  });

  it("ARB at 10,000: 10 % / 5 %; at 1,000,000: 10^4.8 × 2.1e-6 = 13.2501 %, MMR half of it", () => {
    expect(imrRate(ARB_MARGIN, 10_000, 20)).toBe(0.1);
    expect(initialMargin(ARB_MARGIN, 10_000, 20)).toBeCloseTo(1_000, 9);
    expect(maintenanceMarginForTests(ARB_MARGIN, 10_000)).toBeCloseTo(500, 9);
    expect(imrRate(ARB_MARGIN, 1e6, 20)).toBeCloseTo(0.1325010423, 9);
    expect(initialMargin(ARB_MARGIN, 1e6, 20)).toBeCloseTo(132_501.04, 1);
    expect(mmrRateForTests(ARB_MARGIN, 1e6)).toBeCloseTo(0.0662505212, 9);
    // 10^5.6 = 398,107.17 → 83.6025 %
    expect(imrRate(ARB_MARGIN, 1e7, 20)).toBeCloseTo(0.8360250582, 9);
  });

  it("the 4/5 term starts binding where imr_factor × n^0.8 = base_imr: n = (base_imr / imr_factor)^1.25", () => {
    const edge = (0.1 / 2.1e-6) ** 1.25; // ≈ 703,600 for ARB
    expect(imrRate(ARB_MARGIN, edge * 0.999, 100)).toBe(0.1);
    expect(imrRate(ARB_MARGIN, edge * 1.001, 100)).toBeGreaterThan(0.1);
    expect(edge).toBeGreaterThan(700_000);
    expect(edge).toBeLessThan(710_000);
  });

  it("the sign of a notional does not matter; zero notional needs no margin", () => {
    expect(initialMargin(ARB_MARGIN, -1e6, 20)).toBe(initialMargin(ARB_MARGIN, 1e6, 20));
    expect(initialMargin(BTC_MARGIN, 0, 10)).toBe(0);
    expect(maintenanceMarginForTests(BTC_MARGIN, 0)).toBe(0);
    expect(notionalOf(-5, 100_000)).toBe(500_000);
  });

  it("an unknown symbol is charged its whole notional", () => {
    expect(initialMargin(UNKNOWN_MARGIN, 12_345, 10)).toBe(12_345);
  });

  it("validMarginParams refuses what the formulas cannot use", () => {
    expect(validMarginParams(BTC_MARGIN)).toBe(true);
    expect(validMarginParams({ baseImr: 0, baseMmr: 0.006, imrFactor: 3.8e-7 })).toBe(false);
    expect(validMarginParams({ baseImr: 0.01, baseMmr: Number.NaN, imrFactor: 3.8e-7 })).toBe(false);
    expect(validMarginParams({ baseImr: 0.01, baseMmr: 0.006, imrFactor: -1 })).toBe(false);
    expect(validMarginParams({ baseImr: 1.5, baseMmr: 0.006, imrFactor: 0 })).toBe(false);
    expect(validMarginParams({ baseImr: 0.01, baseMmr: 0.006 })).toBe(false);
  });
});

describe("the account (docs/protocol.md §7)", () => {
  // 5 BTC long at 100,000 (notional 500,000: 10^5.69897^0.8 = 36,238.98 × 3.8e-7 = 1.3771 %)
  // and 20 ETH short at 2,500 (notional 50,000: 1 %), max leverage 100, total collateral 50,000.
  const held = [
    { params: BTC_MARGIN, qty: 5, mark: 100_000 },
    { params: BTC_MARGIN, qty: -20, mark: 2_500 },
  ];
  /** The positions with every symbol at leverage `lev`. */
  const at = (lev: number) => held.map((h) => ({ ...h, params: { ...h.params, leverage: lev, maxNotional: Number.POSITIVE_INFINITY } }));

  it("initial margin, free collateral and margin ratio of everything held", () => {
    const im = initialMarginOf(at(100));
    expect(im).toBeCloseTo(500_000 * 0.0137708 + 500, 0);
    expect(freeCollateral(50_000, im)).toBeCloseTo(50_000 - 7_385.4, 0);
    expect(freeCollateral(50_000, im, 1_000)).toBeCloseTo(50_000 - 8_385.4, 0);
    expect(accountMarginRatio(50_000, 550_000)).toBeCloseTo(0.090909, 6);
    expect(accountMarginRatio(50_000, 0)).toBe(10);
    // Maintenance: 0.6 × 1.3771 % of 500,000 + 0.6 % of 50,000
    expect(maintenanceMarginOf(held)).toBeCloseTo(500_000 * 0.6 * 0.0137708 + 300, 0);
  });

  it("at 10× leverage every position needs 10 %", () => {
    expect(initialMarginOf(at(10))).toBeCloseTo(55_000, 6);
    expect(freeCollateral(50_000, initialMarginOf(at(10)))).toBeCloseTo(-5_000, 6);
  });

  it("each symbol at its own leverage (docs/protocol.md §10): BTC at 100× and ETH at 4×", () => {
    const mixed = [
      { params: { ...BTC_MARGIN, leverage: 100, maxNotional: Number.POSITIVE_INFINITY }, qty: 5, mark: 100_000 },
      { params: { ...BTC_MARGIN, leverage: 4, maxNotional: Number.POSITIVE_INFINITY }, qty: -20, mark: 2_500 },
    ];
    expect(initialMarginOf(mixed)).toBeCloseTo(500_000 * 0.0137708 + 50_000 * 0.25, 0);
  });
});
