/**
 * The traders' margin (src/sim/traderMargin.ts): liquidation below maintenance, the share that
 * brings an account back to its initial margin, bankruptcy, the estimated liquidation price, and the
 * market's fast maintenance check against the generic one.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_SYMBOLS, ListedSymbols } from "../../src/sim/symbols.js";
import {
  estimatedLiquidationPrice,
  initialMarginForTests,
  isLiquidatable,
  liquidationFeesForTests,
  liquidationShare,
  MaintenanceCheck,
  type MarginPool,
  maintenanceMarginForTests,
  type TraderPosition,
  totalCollateral,
} from "../../src/sim/traderMargin.js";

const table = new ListedSymbols();
const names = table.names();
const spec = (s: string) => table.get(s);

function position(symbol: string, qty: number, entry: number, leverage: number, positionId = 1): TraderPosition {
  return { positionId, symbol, symbolIndex: names.indexOf(symbol), qty, entry, leverage, openedAt: 0, closeAt: Number.POSITIVE_INFINITY };
}

const marks = (m: Record<string, number>) => (s: string) => m[s];

describe("liquidation share", () => {
  // One BTC long at 100,000, 20× (IMR 5 %), collateral 5,000: liquidated below MMR 0.6 % of the notional.
  const pool = (holding: number): MarginPool => ({ holding, positions: [position("PERP_BTC_USDC", 1, 100_000, 20)] });

  it("is liquidatable exactly when the collateral falls below the maintenance margin", () => {
    const p = pool(5_000);
    expect(isLiquidatable(p, spec, marks({ PERP_BTC_USDC: 96_000 }))).toBe(false);
    // C = 5,000 − 4,450 = 550; MM = 95,550 × 0.006 = 573.3.
    expect(isLiquidatable(p, spec, marks({ PERP_BTC_USDC: 95_550 }))).toBe(true);
  });

  it("takes the smallest share (in thousandths) after which the collateral, less the fees, covers the initial margin of the rest", () => {
    // DOGE at 10×: IMR 10 %, MMR 5 %, fee 2 %: liquidated at the maintenance margin, about 5/8 of it
    // restores the initial margin ((IMR − MMR) / (IMR − fee)). With BTC's fee equal to its MMR the
    // whole position goes (the test below).
    const p: MarginPool = { holding: 1_000, positions: [position("PERP_DOGE_USDC", 45_147, 0.2215, 10)] };
    const mark = marks({ PERP_DOGE_USDC: 0.2215 * 0.947 });
    expect(isLiquidatable(p, spec, mark)).toBe(true);
    const share = liquidationShare(p, spec, mark);
    expect(share.kind).toBe("share");
    const k = share.kind === "share" ? share.share : Number.NaN;
    const fits = (s: number) =>
      totalCollateral(p, mark) - liquidationFeesForTests(p, spec, mark, s) >= initialMarginForTests(p, spec, mark, 1 - s);
    expect(fits(k)).toBe(true);
    expect(fits(k - 0.001)).toBe(false);
    expect(k).toBeGreaterThan(0.6);
    expect(k).toBeLessThan(0.7);
  });

  it("takes everything when no share restores the margin, and is bankrupt once the collateral is gone", () => {
    const p = pool(5_000);
    // C = 550 below MM 573: the whole position's fee (0.6 % of 95,550 = 573) is more than what is left.
    expect(liquidationShare(p, spec, marks({ PERP_BTC_USDC: 95_550 }))).toEqual({ kind: "share", share: 1 });
    expect(liquidationShare(p, spec, marks({ PERP_BTC_USDC: 94_000 }))).toEqual({ kind: "bankrupt" });
  });
});

describe("estimated liquidation price", () => {
  it("is where a single position's collateral meets its maintenance margin (long and short)", () => {
    for (const qty of [2, -2]) {
      const p: MarginPool = { holding: 10_000, positions: [position("PERP_ETH_USDC", qty * 10, 3_850, 10)] };
      const est = estimatedLiquidationPrice(p, p.positions[0] as TraderPosition, spec, marks({ PERP_ETH_USDC: 3_850 })) as number;
      expect(est).not.toBeNull();
      const side = Math.sign(qty);
      expect(isLiquidatable(p, spec, marks({ PERP_ETH_USDC: est * (1 + side * 1e-6) }))).toBe(false);
      expect(isLiquidatable(p, spec, marks({ PERP_ETH_USDC: est * (1 - side * 1e-6) }))).toBe(true);
    }
  });

  it("counts the other positions of a cross account at their marks", () => {
    const btc = position("PERP_BTC_USDC", 1, 100_000, 20, 1);
    const eth = position("PERP_ETH_USDC", -10, 3_850, 20, 2);
    const p: MarginPool = { holding: 8_000, positions: [btc, eth] };
    const m = { PERP_BTC_USDC: 100_000, PERP_ETH_USDC: 3_850 };
    const est = estimatedLiquidationPrice(p, btc, spec, marks(m)) as number;
    expect(isLiquidatable(p, spec, marks({ ...m, PERP_BTC_USDC: est * 1.000001 }))).toBe(false);
    expect(isLiquidatable(p, spec, marks({ ...m, PERP_BTC_USDC: est * 0.999999 }))).toBe(true);
  });

  it("is null for a long no positive price liquidates", () => {
    const p: MarginPool = { holding: 1_000_000, positions: [position("PERP_BTC_USDC", 1, 100_000, 2)] };
    expect(estimatedLiquidationPrice(p, p.positions[0] as TraderPosition, spec, marks({ PERP_BTC_USDC: 100_000 }))).toBeNull();
  });
});

describe("MaintenanceCheck", () => {
  it("agrees with isLiquidatable, and its slack bounds the move that can liquidate", () => {
    const check = new MaintenanceCheck(DEFAULT_SYMBOLS);
    const arb = fc.record({
      holding: fc.double({ min: 0, max: 200_000, noNaN: true }),
      positions: fc.array(
        fc.record({
          i: fc.integer({ min: 0, max: names.length - 1 }),
          notional: fc.double({ min: 10, max: 5_000_000, noNaN: true }),
          side: fc.constantFrom(1, -1),
          drift: fc.double({ min: -0.2, max: 0.2, noNaN: true }),
          move: fc.double({ min: -1, max: 1, noNaN: true }),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    });
    fc.assert(
      fc.property(arb, (a) => {
        const m: Record<string, number> = {};
        const seen = new Set<number>();
        const positions = a.positions
          .filter((p) => !seen.has(p.i) && seen.add(p.i))
          .map((p, k) => {
            const s = DEFAULT_SYMBOLS[p.i] as (typeof DEFAULT_SYMBOLS)[number];
            m[s.symbol] = s.startPrice;
            return position(s.symbol, (p.side * p.notional) / s.startPrice, s.startPrice * (1 + p.drift), 10, k);
          });
        const pool: MarginPool = { holding: a.holding, positions };
        DEFAULT_SYMBOLS.forEach((s, i) => {
          check.setMark(i, m[s.symbol] ?? s.startPrice);
        });
        const slack = check.slack(pool);
        expect(check.liquidatable(pool)).toBe(isLiquidatable(pool, spec, marks(m)));
        expect(slack < 0).toBe(totalCollateral(pool, marks(m)) < maintenanceMarginForTests(pool, spec, marks(m)));
        if (slack < 0) return;
        // Every mark moved by at most the slack (each its own way): still not liquidatable.
        const moved: Record<string, number> = {};
        a.positions.forEach((p) => {
          const s = DEFAULT_SYMBOLS[p.i] as (typeof DEFAULT_SYMBOLS)[number];
          if (m[s.symbol] !== undefined) moved[s.symbol] = (m[s.symbol] as number) * Math.exp(Math.min(slack, 0.5) * p.move);
        });
        expect(isLiquidatable(pool, spec, marks(moved))).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});
