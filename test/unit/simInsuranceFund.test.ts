/**
 * The simulated insurance fund's rules (src/sim/insuranceFund.ts, docs/protocol.md §10): body checks,
 * the limit price, the margin rule, a race on one id, the fund closing what nobody claims, and its
 * balance across a takeover and a claim.
 */
import { describe, expect, it } from "vitest";
import { InsuranceFund, parseFundClaimBodyForTests } from "../../src/sim/insuranceFund.js";
import type { SimPush } from "../../src/sim/simPush.js";
import { VenueCore } from "../../src/sim/venueCore.js";

function world(collateral = 1e9) {
  const clock = { t: Date.UTC(2026, 0, 5) };
  const core = new VenueCore({ seed: 3, now: () => clock.t, orderCounts: [1], liquidationTtlMs: 1_000 });
  core.accounts.add({ accountId: "0xme", collateral });
  const fund = new InsuranceFund(core, { holdMs: 60_000, balance: 1_000_000 });
  fund.attach();
  const pushes: SimPush[] = [];
  core.onPush((p) => pushes.push(p));
  return { clock, core, fund, pushes };
}

const claim = (claimId: number, qty: number, limit: number) => ({
  claim_id: claimId,
  symbol: "PERP_ETH_USDC",
  qty_request: qty,
  limit_price: { PERP_ETH_USDC: limit },
});

describe("InsuranceFund", () => {
  it("checks the body: unknown keys -1004, bad values -1005", () => {
    expect(parseFundClaimBodyForTests({ ...claim(1, 1, 1), extra: 1 })).toMatchObject({ ok: false, refusal: { code: -1004 } });
    for (const bad of [
      { ...claim(1, 0, 1) },
      { ...claim(0, 1, 1) },
      { ...claim(1, 1, 1), limit_price: {} },
      { ...claim(1, 1, 1), symbol: "" },
      [],
    ])
      expect(parseFundClaimBodyForTests(bad)).toMatchObject({ ok: false, refusal: { code: -1005 } });
    expect(parseFundClaimBodyForTests({ ...claim(7, 1, 1), qty_request: "0.25" })).toMatchObject({ ok: true, value: { qty: 0.25 } });
  });

  it("refuses a mark past the limit (-1203), a claim beyond the margin (-1101), a race on one id (-1012), and rows that are not the fund's (-1202)", async () => {
    const w = world();
    const liq = w.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 3 }] });
    w.clock.t += 1_001;
    w.core.expireDue();
    const row = w.core.openLiquidations().find((l) => l.type === "claim");
    const id = row?.liquidationId as number;
    const mark = w.core.mark("PERP_ETH_USDC") as number;
    expect(await w.fund.claim("0xme", claim(id, 1, mark - 1), w.clock.t)).toMatchObject({ ok: false, refusal: { code: -1203 } });
    const other = w.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    expect(await w.fund.claim("0xme", claim(other, 1, mark), w.clock.t)).toMatchObject({ ok: false, refusal: { code: -1202 } });
    expect(await w.fund.claim("0xme", claim(liq, 1, mark), w.clock.t)).toMatchObject({ ok: false, refusal: { code: -1202 } });
    w.core.setCollateral("0xme", 100); // ETH at 10× needs ~385 a unit
    expect(await w.fund.claim("0xme", claim(id, 1, mark), w.clock.t)).toMatchObject({ ok: false, refusal: { code: -1101 } });
    w.core.setCollateral("0xme", 1e9);
    w.core.claimProcessingDelayMs = 20;
    const [a, b] = await Promise.all([
      w.fund.claim("0xme", claim(id, 1, mark), w.clock.t),
      w.fund.claim("0xme", claim(id, 1, mark), w.clock.t),
    ]);
    expect([a.ok, b.ok].sort()).toEqual([false, true]);
    expect((a.ok ? b : a) as unknown).toMatchObject({ ok: false, refusal: { code: -1012 } });
    // Every refusal is in the claim log, as the venue's record of requests.
    expect(
      w.core
        .claimRequests()
        .filter((r) => r.code !== 0)
        .map((r) => r.code),
    ).toEqual([-1203, -1202, -1202, -1101, -1012]);
  });

  it("closes what nobody claims when its hold ends, and keeps its balance: takeover price against the sale and the discount paid", async () => {
    const w = world();
    w.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 2 }] });
    w.clock.t += 1_001;
    w.core.expireDue();
    const id = w.core.openLiquidations().find((l) => l.type === "claim")?.liquidationId as number;
    const taken = w.core.mark("PERP_ETH_USDC") as number;
    w.core.setMark("PERP_ETH_USDC", taken + 10);
    const sold = w.core.mark("PERP_ETH_USDC") as number;
    const r = await w.fund.claim("0xme", claim(id, 1, sold), w.clock.t);
    expect(r.ok).toBe(true);
    expect(w.fund.balance).toBeCloseTo(1_000_000 + (sold - taken) - sold * 0.004, 6);
    expect(w.fund.data()).toMatchObject({ rows: [{ symbol: "PERP_ETH_USDC", position_qty: 1, cost_position: taken }] });
    w.clock.t += 60_001;
    w.core.expireDue();
    expect(w.core.openLiquidations()).toEqual([]);
    expect(w.fund.data()).toMatchObject({ rows: [] });
    expect(w.fund.balance).toBeCloseTo(1_000_000 + 2 * (sold - taken) - sold * 0.004, 6);
    // The claim row's removal was pushed, like any liquidation's.
    const gone = w.pushes
      .filter((p) => p.topic === "liquidation")
      .flatMap((p) => p.data as { liquidationId: number; positionsByPerp: unknown[] }[]);
    expect(gone.some((g) => g.liquidationId === id && g.positionsByPerp.length === 0)).toBe(true);
  });

  it("takes a bankrupt account's positions and its (negative) collateral", () => {
    const w = world();
    const id = w.fund.takeOver([{ symbol: "PERP_BTC_USDC", position_qty: -0.5 }], -1_234);
    expect(w.fund.balance).toBe(1_000_000 - 1_234);
    expect(w.core.openLiquidations()).toEqual([
      expect.objectContaining({
        liquidationId: id,
        type: "claim",
        positions: [{ symbol: "PERP_BTC_USDC", positionQty: -0.5, liquidatorFee: 0.003 }],
      }),
    ]);
  });
});
