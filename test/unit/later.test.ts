import { describe, expect, it } from "vitest";
import { Later } from "../../src/app/later.js";

describe("Later", () => {
  it("refuses a use before its part is bound, then gives the part", () => {
    const later = new Later<{ n: number }>("the part");
    expect(() => later.get()).toThrow("the part is used before it is built");
    const part = { n: 1 };
    expect(later.bind(part)).toBe(part);
    expect(later.get()).toBe(part);
  });

  it("refuses a second binding (one part per slot)", () => {
    const later = new Later<number>("the part");
    later.bind(1);
    expect(() => later.bind(2)).toThrow("bound twice");
    expect(later.get()).toBe(1);
  });
});
