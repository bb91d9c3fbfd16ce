/** `npm start` shows both supplies: the fund is on by default on the embedded venue only (app/embeddedFund.ts). */
import { describe, expect, test } from "vitest";
import { fundOnEmbedded } from "../../src/app/embeddedFund.js";
import { defaultConfig } from "../support/defaultConfig.js";

describe("the insurance fund on the embedded venue", () => {
  test("on when the key was not given", () => {
    const c = defaultConfig();
    expect(fundOnEmbedded(c, new Set(), true)).toBe(true);
    expect(c.insurance_fund.enabled).toBe(true);
  });

  test("left as given (false in the file or the environment stays false)", () => {
    const c = defaultConfig();
    expect(fundOnEmbedded(c, new Set(["insurance_fund.enabled"]), true)).toBe(false);
    expect(c.insurance_fund.enabled).toBe(false);
  });

  test("a real venue keeps the default, off", () => {
    const c = defaultConfig();
    expect(fundOnEmbedded(c, new Set(), false)).toBe(false);
    expect(c.insurance_fund.enabled).toBe(false);
  });
});
