/**
 * Margin in the decision (claimMargin.ts via policy.ts): cut to fit, skipped with reason `margin`,
 * claims in flight counted, and a property: no sequence of decisions, each reserved as the claimer
 * reserves it, passes max_margin_usage on one account state.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { worstQty } from "../../src/engine/exposure.js";
import { initialMargin } from "../../src/engine/margin.js";
import { type ClaimDecision, decide } from "../../src/engine/policy.js";
import { type CtxOptions, liq, makeCtx, NOW, PRICES, symbolsWithMargin } from "./engine.fixtures.js";

const BTC = "PERP_BTC_USDC";
const ETH = "PERP_ETH_USDC";
const SOL = "PERP_SOL_USDC";
const AVAX = "PERP_AVAX_USDC";

// IM = notional / 10 (base_imr 10 %, leverage 20: 1/20 < 10 %). Budget = 0.5 × collateral by default.
const margin = (collateral: number, over: CtxOptions = {}): CtxOptions => ({
  symbols: symbolsWithMargin(),
  account: { collateral, maxLeverage: 20 },
  ...over,
});

const claimOf = (c: CtxOptions, l = liq(5, [BTC, 0.2])) => decide(l, makeCtx(c), NOW);

describe("margin in the decision", () => {
  it("cuts a claim to fit: 20,000 of BTC, 2,000 of collateral at 50 % → 10,000 (IM 1,000)", () => {
    const d = claimOf(margin(2_000)) as ClaimDecision;
    expect(d).toMatchObject({ action: "claim", ratio: 0.5, perSymbolQty: { [BTC]: 0.1 } });
    expect(d.marginNeed).toBeCloseTo(1_000, 6);
    expect(d.marginRoom).toBeCloseTo(1_000, 6);
  });

  it("is not checked while the account is unknown", () => {
    expect(claimOf({ symbols: symbolsWithMargin() })).toMatchObject({ action: "claim", ratio: 1 });
  });

  it("a full take that does not fit is skipped with reason margin", () => {
    // 5,000 of BTC (under 10,000: all or nothing) needs 500; the budget is 400.
    expect(claimOf(margin(800), liq(5, [BTC, 0.05]))).toMatchObject({ action: "skip", reason: "margin" });
    expect(claimOf(margin(1_000), liq(5, [BTC, 0.05]))).toMatchObject({ action: "claim", ratio: 1 });
  });

  it("what is held uses the room: 4,000 of ETH held (IM 400) leaves 600 → 6,000 of BTC", () => {
    expect(claimOf(margin(2_000, { held: { [ETH]: 2 } }))).toMatchObject({ action: "claim", ratio: 0.3 });
  });

  it("claims in flight reserve their margin; released, it is free again", () => {
    const ctx = makeCtx(margin(2_000, { reserved: [[1, { [BTC]: 0.1 }]] }));
    expect(decide(liq(5, [BTC, 0.2]), ctx, NOW)).toMatchObject({ action: "skip", reason: "margin" });
    ctx.exposure.release(1);
    expect(decide(liq(5, [BTC, 0.2]), ctx, NOW)).toMatchObject({ action: "claim", ratio: 0.5 });
  });

  it("a claim in flight on the other side never frees margin before it settles (it may fail)", () => {
    // Held 0.1 BTC long (IM 1,000 = the whole budget); a short claim in flight could land or not.
    const c = margin(2_000, { held: { [BTC]: 0.1 }, reserved: [[1, { [BTC]: -0.1 }]] });
    expect(claimOf(c, liq(5, [ETH, 5]))).toMatchObject({ action: "skip", reason: "margin" });
  });

  it("a claim that shrinks what is held fits even at the limit, and frees nothing until it settles", () => {
    const d = claimOf(margin(2_000, { held: { [BTC]: 0.1 } }), liq(5, [BTC, -0.1]));
    expect(d).toMatchObject({ action: "claim", ratio: 1 });
    expect((d as ClaimDecision).marginNeed).toBe(0);
  });

  it("min_free_collateral binds when it leaves less than the usage share", () => {
    const c = margin(2_000, { policy: { max_margin_usage: 1, min_free_collateral: 1_500 } });
    expect(claimOf(c)).toMatchObject({ action: "claim", ratio: 0.25 });
  });

  it("per symbol: the first leg takes the room, the next is left out for margin", () => {
    // SOL and AVAX, 10,000 each (high tier, claimed per symbol); room for 10,000 of notional.
    const d = claimOf(margin(2_000), liq(5, [SOL, 100], [AVAX, 500]));
    expect(d).toMatchObject({ action: "claim", symbols: [{ symbol: SOL, ratio: 1 }] });
    // Room 300: SOL 4,000 (all or nothing, IM 400) is left out, AVAX 3,000 (IM 300) fits.
    expect(claimOf(margin(600), liq(5, [SOL, 40], [AVAX, 150]))).toMatchObject({ action: "claim", symbols: [{ symbol: AVAX, ratio: 1 }] });
    expect(claimOf(margin(600), liq(5, [SOL, 40], [AVAX, 200]))).toMatchObject({ action: "skip", reason: "margin" });
  });

  it("a held symbol that cannot be valued stops claims (margin unknown is not margin free)", () => {
    const c = margin(1e9, { held: { PERP_XRP_USDC: 1 }, policy: { max_total_exposure: 1e12 } });
    expect(claimOf(c)).toMatchObject({ action: "skip" });
  });
});

describe("property: no sequence of decisions passes max_margin_usage", () => {
  const SYMS = [BTC, ETH, SOL, AVAX];
  /** Worst-case initial margin of everything held and reserved, from the formulas alone. */
  function worstIm(ctx: ReturnType<typeof makeCtx>, imr: number, lev: number): number {
    let im = 0;
    for (const v of ctx.exposure.snapshot()) {
      const p = PRICES[v.symbol] as number;
      const up = Math.abs(v.held + v.long);
      const down = Math.abs(v.held + v.short);
      im += Math.max(initialMargin({ baseImr: imr, baseMmr: imr / 2, imrFactor: 1e-6 }, Math.max(up, down) * p, lev));
      expect(worstQty(v)).toBeGreaterThanOrEqual(Math.max(up, down) - 1e-12);
    }
    return im;
  }

  it("holds for random accounts, held positions and claim sequences", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 100, max: 200_000, noNaN: true }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        fc.constantFrom(0.02, 0.1, 0.5),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.double({ min: -2, max: 2, noNaN: true })), { maxLength: 3 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.double({ min: -50, max: 50, noNaN: true }), fc.integer({ min: 0, max: 2 })), {
          minLength: 1,
          maxLength: 25,
        }),
        (collateral, usage, imr, held, claims) => {
          const heldMap: Record<string, number> = {};
          for (const [s, q] of held) heldMap[SYMS[s] as string] = q;
          const ctx = makeCtx({
            symbols: symbolsWithMargin(imr, 1e-6),
            account: { collateral, maxLeverage: 10 },
            held: heldMap,
            policy: { max_margin_usage: usage, max_total_exposure: 1e12, max_claim_notional: 1e12, min_fee: 0 },
          });
          const budget = usage * collateral;
          const before = worstIm(ctx, imr, 10);
          let id = 1;
          for (const [s, q, scale] of claims) {
            if (q === 0) continue;
            const sym = SYMS[s] as string;
            const d = decide(liq(id, [sym, q * 10 ** -scale]), ctx, NOW);
            if (d.action !== "claim") continue;
            ctx.exposure.reserve(id++, d.perSymbolQty);
            const after = worstIm(ctx, imr, 10);
            // A claim either fits or only lowers what was already over (a held book over the budget).
            expect(after <= Math.max(budget, before) * (1 + 1e-9) + 1e-6).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
