/**
 * policy.extra_liquidation_ratio (docs/protocol.md §10): a whole claim (ratio 1, no `symbols`) asks for up to
 * that fraction more, as far as max_claim_notional, the exposure caps and margin allow at (1 + extra);
 * it reserves the most it may take; a cut claim, a per-symbol claim and the default 0 ask for nothing;
 * the body carries it only with ratio 1.
 */
import { describe, expect, it } from "vitest";
import { decide } from "../../src/engine/policy.js";
import type { ClaimDecision } from "../../src/engine/types.js";
import { claimRequestBody } from "../../src/venue/mapping.js";
import { liq, makeCtx, NOW, symbolsWithMargin } from "./engine.fixtures.js";

const ETH = "PERP_ETH_USDC";
const SOL = "PERP_SOL_USDC";
const DOGE = "PERP_DOGE_USDC";

const claimOf = (d: ReturnType<typeof decide>): ClaimDecision => {
  if (d.action !== "claim") throw new Error(`skipped: ${d.reason}`);
  return d;
};

describe("extra_liquidation_ratio", () => {
  it("0 (the default): nothing asked", () => {
    const d = claimOf(decide(liq(1, [ETH, 2]), makeCtx(), NOW));
    expect(d.extraRatio).toBeUndefined();
    expect(claimRequestBody(d).extra_liquidation_ratio).toBeUndefined();
  });

  it("a whole claim asks for the extra the caps leave: all of it, or cut by max_claim_notional", () => {
    // 2 ETH = 4,000; max_claim_notional 50,000: the whole 0.2 fits.
    const d = claimOf(decide(liq(1, [ETH, 2]), makeCtx({ policy: { extra_liquidation_ratio: 0.2 } }), NOW));
    expect(d).toMatchObject({ ratio: 1, extraRatio: 0.2, notional: 4_000 });
    expect(d.perSymbolQty[ETH]).toBeCloseTo(2.4, 9); // reserved: the most it may take
    expect(claimRequestBody(d)).toMatchObject({ ratio_qty_request: 1, extra_liquidation_ratio: 0.2 });
    // max_claim_notional 4,400: 10 % more at most.
    const cut = claimOf(decide(liq(1, [ETH, 2]), makeCtx({ policy: { extra_liquidation_ratio: 0.2, max_claim_notional: 4_400 } }), NOW));
    expect(cut.extraRatio).toBe(0.1);
  });

  it("the exposure caps and margin bound it too", () => {
    // Held 1 ETH (2,000) under a 7,000 cap: 2 ETH more + 0.25 × 2 = 5,000 fills it.
    const exp = claimOf(
      decide(liq(1, [ETH, 2]), makeCtx({ policy: { extra_liquidation_ratio: 0.5, max_total_exposure: 7_000 }, held: { [ETH]: 1 } }), NOW),
    );
    expect(exp.extraRatio).toBe(0.25);
    // Margin: 10 % IMR, collateral 1,000 at usage 0.5 → 500 of margin = 5,000 of ETH: 2 ETH + 0.25.
    const margin = claimOf(
      decide(
        liq(1, [ETH, 2]),
        makeCtx({
          policy: { extra_liquidation_ratio: 0.5, max_margin_usage: 0.5 },
          symbols: symbolsWithMargin(),
          account: { collateral: 1_000, maxLeverage: 10 },
        }),
        NOW,
      ),
    );
    expect(margin.extraRatio).toBe(0.25);
  });

  it("a cut claim and a per-symbol claim ask for nothing (the venue takes it with ratio 1 only)", () => {
    const cut = claimOf(decide(liq(1, [ETH, 50]), makeCtx({ policy: { extra_liquidation_ratio: 0.2 } }), NOW));
    expect(cut.ratio).toBeLessThan(1);
    expect(cut.extraRatio).toBeUndefined();
    // SOL whole, DOGE denied: `symbols` names SOL alone at 1, so no extra.
    const per = claimOf(
      decide(
        liq(1, [SOL, 10], [DOGE, -1_000]),
        makeCtx({ policy: { extra_liquidation_ratio: 0.2, symbols: { allow: [], deny: [DOGE] } } }),
        NOW,
      ),
    );
    expect(per.symbols).toEqual([{ symbol: SOL, ratio: 1 }]);
    expect(per.extraRatio).toBeUndefined();
    // Every open symbol whole: no `symbols`, so the extra applies.
    const whole = claimOf(decide(liq(1, [SOL, 10], [DOGE, -1_000]), makeCtx({ policy: { extra_liquidation_ratio: 0.2 } }), NOW));
    expect(whole).toMatchObject({ symbols: undefined, extraRatio: 0.2 });
  });
});
