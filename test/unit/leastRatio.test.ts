/**
 * -1201 naming a ratio (issue #34): the ratio is read out of the venue's message, the refusal is
 * decided once more with it as a floor (a claim below it becomes a skip), the claim sender keeps it
 * for that one decision and makes a second -1201 on the same id final.
 */
import { describe, expect, it } from "vitest";
import { ClaimSender } from "../../src/daemon/claim/claimSender.js";
import { LeastRatios, ratioNamedIn, withLeastRatio } from "../../src/engine/leastRatio.js";
import type { ClaimDecision } from "../../src/engine/types.js";
import { claimFailureAction, VenueError } from "../../src/venue/errors.js";

const refusal = (code: number, message: string, status = 400) =>
  new VenueError({ venueCode: code, status, venueMessage: message, endpoint: "/v1/liquidation" });

const claim = (ratio: number, symbols?: { symbol: string; ratio: number }[]): ClaimDecision => ({
  action: "claim",
  liquidationId: 7,
  ratio,
  symbols,
  limitPrice: { PERP_ETH_USDC: 2_000 },
  expectedFee: 1,
  notional: 100,
  perSymbolQty: { PERP_ETH_USDC: 0.05 },
});

describe("the least ratio of a -1201", () => {
  it.each([
    ["least request ratio should be 0.25", 0.25],
    ["notional 4000.00 is below 10000: ratio_qty_request must be 1", 1],
    ["PERP_DOGE_USDC notional 4000.00 is below 5000: its ratio_qty_request must be 1", 1],
    ["ratio should be at least 0.5", 0.5],
    ["least request ratio should be the specified value", undefined],
    ["least request ratio should be 1.5", undefined],
    ["", undefined],
  ])("%j → %s", (message, want) => {
    expect(ratioNamedIn(message)).toBe(want);
  });

  it("a claim at or above the floor stands; below it (or a symbol below it) it is skipped; skips pass through", () => {
    expect(withLeastRatio(claim(0.5), undefined)).toEqual(claim(0.5));
    expect(withLeastRatio(claim(1), 1)).toEqual(claim(1));
    expect(withLeastRatio(claim(0.5), 1)).toMatchObject({
      action: "skip",
      reason: "over_caps",
      detail: expect.stringContaining("at least 1"),
    });
    const perSymbol = claim(1, [
      { symbol: "PERP_DOGE_USDC", ratio: 1 },
      { symbol: "PERP_WIF_USDC", ratio: 0.3 },
    ]);
    expect(withLeastRatio(perSymbol, 0.5)).toMatchObject({ action: "skip" });
    const skip = { action: "skip" as const, liquidationId: 7, reason: "margin" as const, detail: undefined };
    expect(withLeastRatio(skip, 1)).toBe(skip);
  });

  it("a -1201 naming a ratio is re-decided; one naming none, or answered with a 5xx, is not", () => {
    expect(claimFailureAction(refusal(-1201, "ratio_qty_request must be 1"))).toBe("redecide");
    expect(claimFailureAction(refusal(-1201, "least request ratio should be the specified value"))).toBe("rejected");
    expect(claimFailureAction(refusal(-1201, "ratio_qty_request must be 1", 500))).toBe("unknown");
    // Only -1201 carries a least ratio.
    expect(refusal(-1005, "ratio_qty_request must be 1").leastRatio).toBeUndefined();
  });

  it("the claim sender keeps the ratio for one decision made again; a second -1201 on the id is final", async () => {
    const ratios = new LeastRatios();
    const sender = new ClaimSender(
      { claimLiquidation: () => Promise.reject(refusal(-1201, "ratio_qty_request must be 1")) },
      false,
      ratios,
    );
    const body = { liquidation_id: 7, ratio_qty_request: 0.5, limit_price: { PERP_ETH_USDC: 2_000 } };
    const first = await sender.send(body).catch((e: unknown) => e as VenueError);
    expect(claimFailureAction(first)).toBe("redecide");
    expect(ratios.get(7)).toBe(1);
    const second = await sender.send(body).catch((e: unknown) => e as VenueError);
    expect(claimFailureAction(second)).toBe("rejected");
    // Without a place to keep it (a sender not wired for it), every -1201 is final, as before.
    const plain = new ClaimSender({ claimLiquidation: () => Promise.reject(refusal(-1201, "must be 1")) }, false);
    expect(claimFailureAction(await plain.send(body).catch((e: unknown) => e))).toBe("rejected");
  });

  it("LeastRatios forgets the oldest past its bound", () => {
    const r = new LeastRatios(2);
    r.set(1, 1);
    r.set(2, 0.5);
    r.set(3, 0.25);
    expect([r.has(1), r.get(2), r.get(3)]).toEqual([false, 0.5, 0.25]);
  });
});
