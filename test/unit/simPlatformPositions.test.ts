/** Platform positions' money as decimal strings (src/sim/platformPositions.ts): the number rounded, never an exponent. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decimalString } from "../../src/sim/platformPositions.js";

describe("decimalString", () => {
  it("spells the number rounded to its decimals, with no exponent and no trailing zeros", () => {
    fc.assert(
      fc.property(fc.double({ min: -1e12, max: 1e12, noNaN: true }), fc.integer({ min: 0, max: 12 }), (x, d) => {
        const s = decimalString(x, d);
        expect(s).toMatch(/^-?\d+(\.\d*[1-9])?$/);
        // Rounded to d decimals (a tie may go either way).
        expect(Math.abs(Number(s) - x)).toBeLessThanOrEqual(0.5 * 10 ** -d * (1 + 1e-9) + Math.abs(x) * 1e-15);
      }),
      { numRuns: 2000 },
    );
    expect(decimalString(0.0000001234, 10)).toBe("0.0000001234");
    expect(decimalString(-0.00000001, 6)).toBe("0");
    expect(decimalString(104250.5, 3)).toBe("104250.5");
  });
});
