import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { backoffCeiling, fullJitterDelay } from "../../src/venue/backoff.js";

describe("full-jitter backoff", () => {
  test("every delay lies in [0, min(max, initial·2^n)]", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, initial, extra, r) => {
          const max = initial + extra;
          const d = fullJitterDelay(attempt, initial, max, () => r);
          const ceiling = Math.min(max, initial * 2 ** Math.min(attempt, 60));
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(Math.round(ceiling));
          expect(Number.isInteger(d)).toBe(true);
        },
      ),
    );
  });

  test("the jitter is full: the random draw spans the whole range", () => {
    expect(fullJitterDelay(3, 100, 10_000, () => 0)).toBe(0);
    expect(fullJitterDelay(3, 100, 10_000, () => 1)).toBe(800);
    expect(fullJitterDelay(3, 100, 10_000, () => 0.5)).toBe(400);
  });

  test("a misbehaving random source is clamped, never yields NaN or out-of-range delays", () => {
    expect(fullJitterDelay(2, 100, 1000, () => Number.NaN)).toBe(0);
    expect(fullJitterDelay(2, 100, 1000, () => -3)).toBe(0);
    expect(fullJitterDelay(2, 100, 1000, () => 7)).toBe(400);
  });

  test("ceilings double and then stay at the cap, even for huge attempt counts", () => {
    const ceilings = [0, 1, 2, 3, 4, 5, 6].map((n) => backoffCeiling(n, 100, 2_000));
    expect(ceilings).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
    expect(backoffCeiling(10_000, 100, 2_000)).toBe(2_000);
    expect(backoffCeiling(Number.MAX_SAFE_INTEGER, 1, 5)).toBe(5);
  });
});
