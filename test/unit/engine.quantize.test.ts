import { describe, expect, it } from "vitest";
import {
  canonicalTick,
  ceilToTick,
  floorToTick,
  ratioThousandthsDown,
  roundQty,
  safeLimitPrice,
  thousandthsToRatio,
  tickDecimals,
  ticksToPriceForTests,
} from "../../src/engine/quantize.js";
import { rawLimitPrice } from "../support/rawLimitPrice.js";

describe("ratio quantisation", () => {
  it.each([
    [1, 1000],
    [1.5, 1000],
    [0.999999, 999],
    [0.5, 500],
    [0.29, 290], // the double 0.29 is just below 29/100, but k/1000 is that same double: ≤ r holds
    [0.0015, 1],
    [0.001, 1],
    [0.000999, 0],
    [0, 0],
    [-0.5, 0],
    [Number.NaN, 0],
    [Number.POSITIVE_INFINITY, 1000],
    [50_000 / 60_000, 833],
  ])("%s → %s thousandths", (r, k) => {
    expect(ratioThousandthsDown(r)).toBe(k);
  });

  it("never rounds up: k/1000 ≤ r for many ratios", () => {
    for (let i = 1; i <= 100_000; i++) {
      const r = i / 100_000;
      const k = ratioThousandthsDown(r);
      expect(k / 1000 <= r).toBe(true);
      expect((k + 1) / 1000 > r || k === 1000).toBe(true);
    }
  });

  it("prints as the decimal, without float noise", () => {
    for (let k = 1; k <= 1000; k++) {
      const s = JSON.stringify(thousandthsToRatio(k));
      expect(s).toMatch(/^(0\.\d{1,3}|1)$/);
      expect(Number(s) * 1000).toBeCloseTo(k, 9);
    }
    expect(JSON.stringify(thousandthsToRatio(123))).toBe("0.123");
  });
});

describe("ticks", () => {
  it.each([
    [0.1, 1],
    [0.01, 2],
    [0.0001, 4],
    [1e-8, 8],
    [0.00025, 5],
    [0.5, 1],
    [1, 0],
    [5, 0],
    [0.1 + 0.2 - 0.2, 1], // 0.10000000000000003
  ])("tick %s has %s decimals", (tick, d) => {
    expect(tickDecimals(tick)).toBe(d);
  });

  it.each([[0], [-0.1], [Number.NaN], [Number.POSITIVE_INFINITY], [1e-13], [1 / 3]])("tick %s is refused", (tick) => {
    expect(tickDecimals(tick)).toBeUndefined();
  });

  it("canonical tick is the decimal", () => {
    expect(canonicalTick(0.1 + 0.2 - 0.2, 1)).toBe(0.1);
    expect(canonicalTick(1e-8, 8)).toBe(1e-8);
  });

  it.each([
    [3, 0.1, 1, "0.3"],
    [123_456_789, 0.01, 2, "1234567.89"],
    [12_345, 0.0001, 4, "1.2345"],
    [1_229, 1e-8, 8, "0.00001229"],
    [7, 0.00025, 5, "0.00175"],
  ])("%s ticks of %s print as %s", (n, tick, d, printed) => {
    expect(String(ticksToPriceForTests(n, tick, d))).toBe(printed);
  });

  it("the integer route gives the same double as parsing the decimal string", () => {
    let seed = 3;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (const [tick, d] of [
      [0.1, 1],
      [0.01, 2],
      [0.001, 3],
      [0.00025, 5],
      [0.00001, 5],
      [1e-6, 6],
      [1e-8, 8],
      [5, 0],
    ] as const) {
      for (let i = 0; i < 20_000; i++) {
        const n = Math.floor(rnd() * 10 ** Math.floor(1 + rnd() * 9));
        const units = Math.round(tick * 10 ** d);
        const decimal = (BigInt(n) * BigInt(units)).toString().padStart(d + 1, "0");
        const expected = Number(d === 0 ? decimal : `${decimal.slice(0, -d)}.${decimal.slice(-d)}`);
        expect(ticksToPriceForTests(n, tick, d)).toBe(expected);
      }
    }
    // Beyond 2^53 the string route still lands on a tick.
    expect(ticksToPriceForTests(2 ** 60, 1, 0)).toBe(2 ** 60);
  });

  const cases: [number, number, number, number, number][] = [
    // price, tick, decimals, floor, ceil
    [0.3, 0.1, 1, 0.3, 0.3], // 0.3 / 0.1 = 2.9999999999999996 must not floor to 0.2
    [100_500.05025, 0.1, 1, 100_500, 100_500.1],
    [1_990.122385, 0.01, 2, 1_990.12, 1_990.13],
    [1.23456789, 0.0001, 4, 1.2345, 1.2346],
    [0.0000122838, 1e-8, 8, 0.00001228, 0.00001229],
    [0.000004, 0.00001, 5, 0, 0.00001],
    [42, 5, 0, 40, 45],
    [0, 0.1, 1, 0, 0],
  ];
  it.each(cases)("%s on tick %s: floor %s, ceil %s", (price, tick, d, fl, ce) => {
    expect(floorToTick(price, tick, d)).toBe(fl);
    expect(ceilToTick(price, tick, d)).toBe(ce);
  });

  it("floor ≤ price ≤ ceil, one tick apart at most, printed without noise", () => {
    const ticks: [number, number][] = [
      [0.1, 1],
      [0.01, 2],
      [0.0001, 4],
      [1e-8, 8],
    ];
    let seed = 12345;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (const [tick, d] of ticks) {
      for (let i = 0; i < 5_000; i++) {
        const price = rnd() * 10 ** Math.floor(rnd() * 8 - 3);
        const f = floorToTick(price, tick, d);
        const c = ceilToTick(price, tick, d);
        expect(f <= price && price <= c).toBe(true);
        expect(Math.round(c / tick) - Math.round(f / tick)).toBeLessThanOrEqual(1);
        for (const v of [f, c]) {
          const s = String(v);
          // At most `d` decimals, and no 17-digit noise such as 0.30000000000000004.
          const decimals = s.includes("e-")
            ? Number(s.split("e-")[1]) + (s.split("e")[0]?.split(".")[1]?.length ?? 0)
            : (s.split(".")[1]?.length ?? 0);
          expect(decimals).toBeLessThanOrEqual(d);
        }
      }
    }
  });

  it("non-finite or negative prices give NaN", () => {
    for (const p of [Number.NaN, Number.POSITIVE_INFINITY, -1]) {
      expect(floorToTick(p, 0.1, 1)).toBeNaN();
      expect(ceilToTick(p, 0.1, 1)).toBeNaN();
    }
  });
});

describe("safeLimitPrice", () => {
  it("long: floor of mark × (1 + bps/10⁴), never below the mark", () => {
    expect(safeLimitPrice(1, 100_000, 10_050, 0.1, 1)).toBe(100_500);
    expect(safeLimitPrice(1, 100_000.05, 10_050, 0.1, 1)).toBe(100_500);
    expect(safeLimitPrice(1, 100_000.05, 10_000, 0.1, 1)).toBeNaN(); // 0 bps off the grid
    expect(safeLimitPrice(1, 100_000, 10_000, 0.1, 1)).toBe(100_000);
  });

  it("short: ceil of mark × (1 − bps/10⁴), never above the mark, at least one tick", () => {
    expect(safeLimitPrice(-1, 2_000, 9_950, 0.01, 2)).toBe(1_990);
    expect(safeLimitPrice(-1, 2_000.123, 9_950, 0.01, 2)).toBe(1_990.13);
    expect(safeLimitPrice(-1, 0.1, 0, 0.00001, 5)).toBe(0.00001);
    expect(safeLimitPrice(-1, 0.000004, 9_950, 0.00001, 5)).toBeNaN();
  });

  it("the raw limit (the property tests' bound, test/support/rawLimitPrice.ts) is exact, and on the grid it is the limit", () => {
    expect(rawLimitPrice(1, 100_000, 50)).toBe(100_500);
    expect(rawLimitPrice(-1, 100_000, 50)).toBe(99_500);
    expect(safeLimitPrice(1, 100_000, 10_050, 0.1, 1)).toBe(rawLimitPrice(1, 100_000, 50));
    expect(safeLimitPrice(-1, 100_000, 9_950, 0.1, 1)).toBe(rawLimitPrice(-1, 100_000, 50));
  });
});

describe("roundQty", () => {
  it("rounds to 1e-9 and never returns -0", () => {
    expect(roundQty((-30 * 833) / 1000)).toBe(-24.99);
    expect(roundQty(0.1 + 0.2)).toBe(0.3);
    expect(Object.is(roundQty(-1e-12), 0)).toBe(true);
  });
});
