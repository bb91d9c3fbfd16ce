/**
 * Capacity (src/engine/capacity.ts): the notional the account could still claim on one side of a
 * symbol, from the decision's own pieces. Checked against `decide` itself: a claim of the capacity
 * is taken whole, one a little larger is cut or skipped, on random accounts, books and policies.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Capacity } from "../../src/engine/capacity.js";
import { type ClaimDecision, decide } from "../../src/engine/policy.js";
import { type CtxOptions, liq, makeCtx, NOW, PRICES, symbolsWithMargin } from "./engine.fixtures.js";

const BTC = "PERP_BTC_USDC";
const ETH = "PERP_ETH_USDC";
const SOL = "PERP_SOL_USDC";

const capacity = new Capacity();

describe("Capacity", () => {
  it("without the account's collateral known: the exposure caps' room, global and the symbol's", () => {
    const ctx = makeCtx({ held: { [ETH]: 50 }, policy: { max_total_exposure: 250_000 } });
    // 100,000 of ETH held of 250,000.
    expect(capacity.of(ctx, BTC, "long")).toBeCloseTo(150_000, 6);
    // ETH short first takes back the 100,000 held long, then 250,000 short: the whole cap, on that side alone.
    expect(capacity.of(ctx, ETH, "short")).toBeCloseTo(350_000, 6);
    const capped = makeCtx({ policy: { per_symbol: { [SOL]: { max_total_exposure: 5_000 } } } });
    expect(capacity.of(capped, SOL, "long")).toBeCloseTo(5_000, 6);
  });

  it("with the margin checked: the budget's room at the symbol's rate (IM 10 %: 1,000 of room is 10,000)", () => {
    const ctx = makeCtx({
      symbols: symbolsWithMargin(),
      account: { collateral: 2_000, maxLeverage: 20 },
      policy: { max_total_exposure: 1e9 },
    });
    expect(capacity.of(ctx, BTC, "long")).toBeCloseTo(10_000, -1);
    expect(capacity.of(ctx, BTC, "long")).toBeLessThanOrEqual(10_000);
  });

  it("is none for a symbol the policy does not allow, or without a mark", () => {
    expect(capacity.of(makeCtx({ policy: { symbols: { allow: [], deny: [BTC] } } }), BTC, "long")).toBe(0);
    expect(capacity.of(makeCtx({ marks: { [BTC]: null } }), BTC, "long")).toBe(0);
    expect(capacity.of(makeCtx(), "PERP_XRP_USDC", "long")).toBe(0);
  });

  it("agrees with decide: a claim of the capacity is taken whole, one 1 % larger is not", () => {
    const SYMS = [BTC, ETH, SOL];
    fc.assert(
      fc.property(
        fc.double({ min: 500, max: 500_000, noNaN: true }),
        fc.double({ min: 0.1, max: 1, noNaN: true }),
        fc.double({ min: 20_000, max: 2_000_000, noNaN: true }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.double({ min: -1, max: 1, noNaN: true })), { maxLength: 3 }),
        fc.integer({ min: 0, max: 2 }),
        fc.constantFrom(1, -1),
        (collateral, usage, cap, held, s, side) => {
          const heldMap: Record<string, number> = {};
          for (const [i, share] of held) heldMap[SYMS[i] as string] = (share * cap * 0.3) / (PRICES[SYMS[i] as string] as number);
          const options: CtxOptions = {
            symbols: symbolsWithMargin(),
            account: { collateral, maxLeverage: 20 },
            held: heldMap,
            policy: { max_margin_usage: usage, max_total_exposure: cap, max_claim_notional: 1e12, min_fee: 0 },
          };
          const symbol = SYMS[s] as string;
          const c = capacity.of(makeCtx(options), symbol, side === 1 ? "long" : "short");
          const price = PRICES[symbol] as number;
          const claim = (notional: number) => decide(liq(7, [symbol, (side * notional) / price]), makeCtx(options), NOW);
          // Large enough that a partial claim is allowed (the full-take thresholds are 10,000 / 5,000).
          if (c < 20_000) return;
          const whole = claim(c * 0.999);
          expect(whole.action).toBe("claim");
          expect((whole as ClaimDecision).ratio).toBe(1);
          const more = claim(c * 1.01);
          expect(more.action === "skip" || (more as ClaimDecision).ratio < 1).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
