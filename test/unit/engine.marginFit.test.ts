/**
 * MarginFit: the largest ratio of a claim that keeps `initial margin after ≤ max_margin_usage ×
 * total collateral` and `free collateral after ≥ min_free_collateral`. Worked cases by hand, then a
 * property over random account states checked against a brute force written from the formulas
 * alone (every thousandth tried).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { initialMargin, type MarginParams, type SymbolMargin, UNKNOWN_MARGIN } from "../../src/engine/margin.js";
import { MarginFit } from "../../src/engine/marginFit.js";
import { MarginSettings } from "../../src/engine/marginSettings.js";

const BTC_MARGIN = { baseImr: 0.01, baseMmr: 0.006, imrFactor: 3.8e-7 };
const ARB_MARGIN = { baseImr: 0.1, baseMmr: 0.05, imrFactor: 2.1e-6 };
const BTC = "PERP_BTC_USDC";
const ETH = "PERP_ETH_USDC";
const ARB = "PERP_ARB_USDC";

const account = (totalCollateral: number, ordersMargin = 0) => ({ totalCollateral, settings: MarginSettings.NONE, ordersMargin });
/** A symbol's margin for the account: the public parameters at leverage `lev`, no max_notional unless given. */
const at = (p: MarginParams, leverage: number, maxNotional = Number.POSITIVE_INFINITY): SymbolMargin => ({ ...p, leverage, maxNotional });
const limits = (maxMarginUsage: number, minFreeCollateral = 0) => ({ maxMarginUsage, minFreeCollateral });

describe("MarginFit, worked by hand", () => {
  const fit = new MarginFit();

  it("cuts a claim to max_margin_usage: 1 BTC at 100,000, 10×, 10,000 of collateral, usage 0.5 → 0.5 BTC", () => {
    fit.reset(account(10_000), limits(0.5)).add(BTC, at(BTC_MARGIN, 10), 100_000, 1);
    expect(fit.budget).toBe(5_000);
    expect(fit.largestFit()).toBe(500);
    expect(fit.initialMarginAt(500)).toBeCloseTo(5_000, 9);
    expect(fit.fits(501)).toBe(false);
    expect(fit.freeCollateralAt(500)).toBeCloseTo(5_000, 9);
  });

  it("min_free_collateral and the orders' margin bind when they leave less than the usage share", () => {
    fit.reset(account(10_000), limits(1, 3_000)).add(BTC, at(BTC_MARGIN, 10), 100_000, 1);
    expect(fit.largestFit()).toBe(700);
    expect(fit.freeCollateralAt(700)).toBeCloseTo(3_000, 9);
    fit.reset(account(10_000, 1_000), limits(1)).add(BTC, at(BTC_MARGIN, 10), 100_000, 1);
    expect(fit.largestFit()).toBe(900);
  });

  it("what is held and reserved by claims in flight counts: 0.2 BTC held + 0.1 reserved leave 0.2 of 1 BTC", () => {
    fit
      .reset(account(10_000), limits(0.5))
      .hold(BTC, at(BTC_MARGIN, 10), 100_000, 0.2)
      .hold(BTC, at(BTC_MARGIN, 10), 100_000, 0.1)
      .add(BTC, at(BTC_MARGIN, 10), 100_000, 1);
    expect(fit.largestFit()).toBe(200);
  });

  it("the whole claim when it fits; nothing when even a thousandth does not", () => {
    fit.reset(account(1e6), limits(0.5)).add(ETH, at(BTC_MARGIN, 10), 2_000, -10);
    expect(fit.largestFit()).toBe(1000);
    fit.reset(account(10_000), limits(0.5)).hold(ETH, at(BTC_MARGIN, 10), 2_000, 250).add(BTC, at(BTC_MARGIN, 10), 100_000, 1);
    expect(fit.largestFit()).toBe(0);
    fit.reset(account(-5), limits(0.5)).add(BTC, at(BTC_MARGIN, 10), 100_000, 1);
    expect(fit.largestFit()).toBe(0);
  });

  it("the 4/5 term binds: ARB at 100× with 100,000 of collateral fits n where n × 2.1e-6 × n^0.8 = 100,000, not 1,000,000", () => {
    // At the base 10 % (or 1/lev) alone the whole 1,000,000 would need exactly 100,000 and fit.
    fit.reset(account(100_000), limits(1)).add(ARB, at(ARB_MARGIN, 100), 1, 1_000_000);
    const n = (100_000 / 2.1e-6) ** (1 / 1.8); // ≈ 854,600: solved by hand, no search
    expect(fit.largestFit()).toBe(Math.floor(n / 1_000));
    expect(fit.initialMarginAt(1000)).toBeCloseTo(132_501.04, 1);
  });

  it("a claim that shrinks a held position: over the budget now, it fits where the net is small", () => {
    // 2 BTC held at 10×: 20,000 of margin against a budget of 10,000. Claiming −4 BTC: net 2 − 4r,
    // |net| ≤ 1 for r in [0.25, 0.75] → the largest is 750.
    fit.reset(account(20_000), limits(0.5)).hold(BTC, at(BTC_MARGIN, 10), 100_000, 2).add(BTC, at(BTC_MARGIN, 10), 100_000, -4);
    expect(fit.fits(0)).toBe(false);
    expect(fit.largestFit()).toBe(750);
    // Growing it instead: nothing.
    fit.reset(account(20_000), limits(0.5)).hold(BTC, at(BTC_MARGIN, 10), 100_000, 2).add(BTC, at(BTC_MARGIN, 10), 100_000, 4);
    expect(fit.largestFit()).toBe(0);
  });

  it("several symbols of one claim scale together", () => {
    // 1 BTC (100,000) + 10 ETH (20,000) at 10 %: 12,000 at ratio 1; budget 6,000 → 500.
    fit.reset(account(12_000), limits(0.5)).add(BTC, at(BTC_MARGIN, 10), 100_000, 1).add(ETH, at(BTC_MARGIN, 10), 2_000, 10);
    expect(fit.largestFit()).toBe(500);
  });
});

describe("MarginFit, the account's own settings (docs/protocol.md §10)", () => {
  const fit = new MarginFit();

  it("each symbol at its own leverage: 4× on ETH needs 25 %, 10× on BTC 10 %", () => {
    // 10 ETH at 2,000 at 4× = 5,000; 0.1 BTC at 100,000 at 10× = 1,000; budget 6,000 → both whole.
    fit.reset(account(6_000), limits(1)).add(ETH, at(BTC_MARGIN, 4), 2_000, 10).add(BTC, at(BTC_MARGIN, 10), 100_000, 0.1);
    expect(fit.initialMarginAt(1000)).toBeCloseTo(6_000, 9);
    expect(fit.largestFit()).toBe(1000);
    // The same claim with ETH at 10× would need 3,000: at 4× a budget of 3,000 takes half.
    fit.reset(account(3_000), limits(1)).add(ETH, at(BTC_MARGIN, 4), 2_000, 10).add(BTC, at(BTC_MARGIN, 10), 100_000, 0.1);
    expect(fit.largestFit()).toBe(500);
  });

  it("max_notional cuts a claim that would grow a symbol past it; a position already past it may only shrink", () => {
    // 1 BTC at 100,000 with max_notional 30,000 and 0.1 BTC held: 0.2 more → 200.
    fit
      .reset(account(1e9), limits(1))
      .hold(BTC, at(BTC_MARGIN, 10, 30_000), 100_000, 0.1)
      .add(BTC, at(BTC_MARGIN, 10, 30_000), 100_000, 1);
    expect(fit.largestFit()).toBe(200);
    // Held 0.5 (past it): growing it fits nowhere; shrinking it fits, down to the other side's cap.
    fit
      .reset(account(1e9), limits(1))
      .hold(BTC, at(BTC_MARGIN, 10, 30_000), 100_000, 0.5)
      .add(BTC, at(BTC_MARGIN, 10, 30_000), 100_000, 0.1);
    expect(fit.largestFit()).toBe(0);
    fit
      .reset(account(1e9), limits(1))
      .hold(BTC, at(BTC_MARGIN, 10, 30_000), 100_000, 0.5)
      .add(BTC, at(BTC_MARGIN, 10, 30_000), 100_000, -1);
    // 0.5 − r ≥ −0.5 keeps |q| ≤ its size before: r ≤ 1 → the whole claim (net −0.5, no larger than 0.5).
    expect(fit.largestFit()).toBe(1000);
    // A symbol the claim does not touch may be past its cap: it does not stop a claim elsewhere.
    fit
      .reset(account(1e9), limits(1))
      .hold(ETH, at(BTC_MARGIN, 10, 1_000), 2_000, 10)
      .add(BTC, at(BTC_MARGIN, 10), 100_000, 1);
    expect(fit.largestFit()).toBe(1000);
  });
});

// ── property: maximal and within the limits, against a brute force ─────────────────────────────

const PARAMS: MarginParams[] = [BTC_MARGIN, ARB_MARGIN, UNKNOWN_MARGIN, { baseImr: 0.05, baseMmr: 0.025, imrFactor: 1e-5 }];
const roundQty = (q: number) => Math.round(q * 1e9) / 1e9;

const lineArb = fc.record({
  params: fc.constantFrom(...PARAMS),
  mark: fc.double({ min: 0.01, max: 200_000, noNaN: true }),
  held: fc.double({ min: -50, max: 50, noNaN: true }),
  reserved: fc.double({ min: -20, max: 20, noNaN: true }),
  add: fc.double({ min: -100, max: 100, noNaN: true }),
  /** docs/protocol.md §10: leverage is set per symbol; undefined: the state's one. */
  lev: fc.option(fc.constantFrom(1, 2, 4, 5, 10, 20, 50, 100), { nil: undefined }),
  /** The account's max_notional of the symbol (quote), often none. */
  cap: fc.option(fc.double({ min: 1, max: 5e6, noNaN: true }), { nil: undefined, freq: 2 }),
});
const stateArb = fc.record({
  lines: fc.array(lineArb, { minLength: 1, maxLength: 4 }),
  total: fc.double({ min: -1_000, max: 5e6, noNaN: true }),
  maxLeverage: fc.constantFrom(1, 2, 5, 10, 20, 50, 100),
  ordersMargin: fc.double({ min: 0, max: 50_000, noNaN: true }),
  usage: fc.double({ min: 0.01, max: 1, noNaN: true }),
  minFree: fc.double({ min: 0, max: 100_000, noNaN: true }),
});

type State = typeof stateArb extends fc.Arbitrary<infer T> ? T : never;

/**
 * The formulas, written out again: IM after at k thousandths (each symbol at its own leverage), the
 * limits, and max_notional: a symbol the claim adds to may not end past it, unless no larger than before.
 */
function bruteFits(s: State, k: number): boolean {
  let im = 0;
  for (const l of s.lines) {
    const before = l.held + l.reserved;
    const q = before + roundQty((l.add * k) / 1000);
    const n = Math.abs(q) * l.mark;
    im += n * Math.max(1 / (l.lev ?? s.maxLeverage), l.params.baseImr, l.params.imrFactor * n ** 0.8);
    const booked = Math.abs(roundQty(q)); // the position as the venue books it
    if (l.add !== 0 && l.cap !== undefined && booked * l.mark > l.cap && booked > Math.abs(before)) return false;
  }
  return im <= s.usage * s.total && s.total - im - s.ordersMargin >= s.minFree;
}

function fitOf(s: State): number {
  const fit = new MarginFit().reset(account(s.total, s.ordersMargin), limits(s.usage, s.minFree));
  s.lines.forEach((l, i) => {
    const symbol = `PERP_S${i}_USDC`;
    const p = at(l.params, l.lev ?? s.maxLeverage, l.cap);
    fit.hold(symbol, p, l.mark, l.held).hold(symbol, p, l.mark, l.reserved).add(symbol, p, l.mark, l.add);
  });
  return fit.largestFit();
}

describe("MarginFit, property", () => {
  it("the ratio returned fits and is the largest that does (every thousandth tried)", () => {
    fc.assert(
      fc.property(stateArb, (s) => {
        const k = fitOf(s);
        let best = 0;
        for (let j = 1000; j >= 1; j--) {
          if (bruteFits(s, j)) {
            best = j;
            break;
          }
        }
        expect(k).toBe(best);
        if (k > 0) expect(bruteFits(s, k)).toBe(true);
        if (k < 1000) expect(bruteFits(s, k + 1)).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it("no sequence of claims, each cut to fit and then reserved, passes the limits of one account state", () => {
    fc.assert(
      fc.property(stateArb, fc.array(lineArb, { minLength: 1, maxLength: 12 }), (s, claims) => {
        const fit = new MarginFit();
        const reserved: { symbol: string; params: SymbolMargin; mark: number; qty: number }[] = [];
        const acct = account(Math.abs(s.total), s.ordersMargin);
        for (const [i, c] of claims.entries()) {
          const symbol = `PERP_S${i % 3}_USDC`;
          const params = at(PARAMS[i % 3] as MarginParams, s.maxLeverage);
          const mark = 100 * ((i % 3) + 1);
          fit.reset(acct, limits(s.usage, s.minFree));
          for (const r of reserved) fit.hold(r.symbol, r.params, r.mark, r.qty);
          fit.add(symbol, params, mark, c.add);
          const k = fit.largestFit();
          if (k > 0) reserved.push({ symbol, params, mark, qty: roundQty((c.add * k) / 1000) });
          // Whatever was reserved so far fits, unless it already did not before any claim.
          fit.reset(acct, limits(s.usage, s.minFree));
          for (const r of reserved) fit.hold(r.symbol, r.params, r.mark, r.qty);
          if (reserved.length > 0) expect(fit.fits(0)).toBe(true);
        }
        const byLine = new Map<string, number>();
        for (const r of reserved) byLine.set(r.symbol, (byLine.get(r.symbol) ?? 0) + r.qty);
        let im = 0;
        for (const [symbol, qty] of byLine) {
          const i = Number(symbol.slice(6, 7));
          im += initialMargin(PARAMS[i] as MarginParams, Math.abs(qty) * 100 * (i + 1), s.maxLeverage);
        }
        if (reserved.length > 0) expect(im).toBeLessThanOrEqual(s.usage * Math.abs(s.total) + 1e-6);
      }),
      { numRuns: 300 },
    );
  });
});
