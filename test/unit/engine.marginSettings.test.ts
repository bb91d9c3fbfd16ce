/**
 * MarginSettings (docs/protocol.md §10): a symbol's own leverage over the account-wide one, isolated over
 * cross, the account's imr_factor over the public one, max_notional; one object per symbol while
 * nothing changes (decisions keep what they computed by identity); unusable values read as absent.
 */
import { describe, expect, it } from "vitest";
import { MarginSettings, UNKNOWN_LEVERAGE_FOR_TESTS } from "../../src/engine/marginSettings.js";

const PUB = { baseImr: 0.1, baseMmr: 0.05, imrFactor: 2.1e-6 };
const ETH = "PERP_ETH_USDC";
const ARB = "PERP_ARB_USDC";

describe("MarginSettings", () => {
  it("resolves a symbol: its own leverage, else the account's; its own imr_factor, else the public; max_notional", () => {
    const s = new MarginSettings({
      defaultLeverage: 10,
      leverage: new Map([[ETH, 4]]),
      isolatedLeverage: new Map([[ETH, 2]]),
      imrFactor: new Map([[ARB, 2e-4]]),
      maxNotional: new Map([[ETH, 30_000]]),
    });
    expect(s.symbolMargin(ETH, PUB)).toEqual({ ...PUB, leverage: 4, maxNotional: 30_000 });
    expect(s.symbolMargin(ETH, PUB, "ISOLATED").leverage).toBe(2);
    expect(s.symbolMargin(ARB, PUB)).toEqual({ ...PUB, imrFactor: 2e-4, leverage: 10, maxNotional: Number.POSITIVE_INFINITY });
    expect(s.leverageOf(ARB, "ISOLATED")).toBe(10);
  });

  it("the same object while nothing changed; a new one for new public parameters or new settings", () => {
    const s = MarginSettings.uniform(10);
    const a = s.symbolMargin(ETH, PUB);
    expect(s.symbolMargin(ETH, PUB)).toBe(a);
    expect(s.symbolMargin(ETH, { ...PUB })).not.toBe(a);
    const t = s.with({ leverage: new Map([[ETH, 20]]) });
    expect(t).not.toBe(s);
    expect(t.symbolMargin(ETH, PUB).leverage).toBe(20);
    expect(t.defaultLeverage).toBe(10);
    expect(s.with({ defaultLeverage: undefined }).known).toBe(false);
  });

  it("nothing known: not checkable; a symbol with no leverage while others have one is at 1×", () => {
    expect(MarginSettings.NONE.known).toBe(false);
    const s = new MarginSettings({ leverage: new Map([[ETH, 4]]) });
    expect(s.known).toBe(true);
    expect(s.symbolMargin(ARB, PUB).leverage).toBe(UNKNOWN_LEVERAGE_FOR_TESTS);
  });

  it("unusable values read as absent", () => {
    const s = new MarginSettings({
      defaultLeverage: -1,
      leverage: new Map([
        [ETH, Number.NaN],
        [ARB, 0],
      ]),
      imrFactor: new Map([[ETH, -1]]),
      maxNotional: new Map([[ETH, 0]]),
    });
    expect(s.known).toBe(false);
    expect(s.symbolMargin(ETH, PUB)).toEqual({ ...PUB, leverage: UNKNOWN_LEVERAGE_FOR_TESTS, maxNotional: Number.POSITIVE_INFINITY });
  });
});
