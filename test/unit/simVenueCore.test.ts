import { describe, expect, it } from "vitest";
import type { SimPush } from "../../src/sim/simPush.js";
import { VenueCore } from "../../src/sim/venueCore.js";

const LIQUIDATOR = "0xliq";

function setup(options: { ttl?: number; delay?: number; collateral?: number } = {}) {
  const clock = { t: 1_760_000_000_000 };
  const core = new VenueCore({
    seed: 7,
    now: () => clock.t,
    orderCounts: [20],
    liquidationTtlMs: options.ttl ?? 60_000,
    claimProcessingDelayMs: options.delay ?? 0,
  });
  core.accounts.add({ accountId: LIQUIDATOR, admin: true, collateral: options.collateral ?? 1e7 });
  const pushes: SimPush[] = [];
  core.onPush((p) => pushes.push(p));
  return { core, clock, pushes };
}

function limits(core: VenueCore, id: number): Record<string, number> {
  const liq = core.book.get(id)!;
  return Object.fromEntries(
    liq.positions.map((p) => [p.symbol, p.positionQty > 0 ? core.mark(p.symbol)! * 1.1 : core.mark(p.symbol)! * 0.9]),
  );
}

const topic = (pushes: SimPush[], t: string) => pushes.filter((p) => p.topic === t);

describe("VenueCore liquidations and pushes", () => {
  it("addLiquidation pushes one camelCase row with the symbol's fee and records when it was pushed", () => {
    const { core, clock, pushes } = setup();
    const id = core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 3 }] });
    const [push] = topic(pushes, "liquidation");
    expect(push).toEqual({
      scope: "public",
      topic: "liquidation",
      data: [
        {
          liquidationId: id,
          timestamp: clock.t,
          type: "liquidated",
          positionsByPerp: [{ symbol: "PERP_ETH_USDC", positionQty: 3, liquidatorFee: core.symbols.get("PERP_ETH_USDC")!.liquidatorFee }],
        },
      ],
    });
    expect(core.liquidationEmittedAt(id)).toBe(clock.t);
  });

  it("refuses bad input to addLiquidation", () => {
    const { core } = setup();
    expect(() => core.addLiquidation({ positions: [] })).toThrow(RangeError);
    expect(() => core.addLiquidation({ positions: [{ symbol: "PERP_NOPE_USDC", position_qty: 1 }] })).toThrow(RangeError);
    expect(() => core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 0 }] })).toThrow(RangeError);
  });

  it("a cascade is one push carrying n new ids on one side", () => {
    const { core, pushes } = setup();
    const ids = core.cascade(12, { symbols: ["PERP_SOL_USDC", "PERP_WIF_USDC"], side: -1 });
    expect(new Set(ids).size).toBe(12);
    const liqPushes = topic(pushes, "liquidation");
    expect(liqPushes).toHaveLength(1);
    const rows = liqPushes[0]!.data as { liquidationId: number; positionsByPerp: { symbol: string; positionQty: number }[] }[];
    expect(rows.map((r) => r.liquidationId)).toEqual(ids);
    for (const r of rows)
      for (const p of r.positionsByPerp) {
        expect(["PERP_SOL_USDC", "PERP_WIF_USDC"]).toContain(p.symbol);
        expect(p.positionQty).toBeLessThan(0);
      }
  });

  it("a claim pushes liquidatorliquidations and position privately, and the remaining quantity publicly", async () => {
    const { core, pushes } = setup();
    core.setMark("PERP_BTC_USDC", 100_000);
    const id = core.addLiquidation({ positions: [{ symbol: "PERP_BTC_USDC", position_qty: 0.5 }] }); // 50,000 notional
    pushes.length = 0;
    const r = await core.submitClaim(LIQUIDATOR, { liquidation_id: id, ratio_qty_request: 0.3, limit_price: limits(core, id) }, core.now());
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.positions_by_perp[0]).toMatchObject({ symbol: "PERP_BTC_USDC", position_qty: 0.15, liquidator_fee: 0.006 });
    expect(r.value.positions_by_perp[0]!.transfer_price).toBe(100_000);

    const [pub] = topic(pushes, "liquidation");
    expect(pub!.data).toEqual([
      expect.objectContaining({
        liquidationId: id,
        positionsByPerp: [{ symbol: "PERP_BTC_USDC", positionQty: 0.35, liquidatorFee: 0.006 }],
      }),
    ]);
    const [assigned] = topic(pushes, "liquidatorliquidations");
    expect(assigned).toMatchObject({ scope: "private", accountId: LIQUIDATOR });
    expect(assigned!.data).toMatchObject({
      liquidationId: id,
      assigned: 1,
      positionsByPerp: [
        { symbol: "PERP_BTC_USDC", positionQty: 0.15, liquidatorFee: 0.006, transferPrice: r.value.positions_by_perp[0]!.transfer_price },
      ],
    });
    const [pos] = topic(pushes, "position");
    expect(pos).toMatchObject({
      scope: "private",
      accountId: LIQUIDATOR,
      data: { positions: [expect.objectContaining({ symbol: "PERP_BTC_USDC", positionQty: 0.15, markPrice: 100_000 })] },
    });
    expect(core.positionsOf(LIQUIDATOR)).toEqual([expect.objectContaining({ symbol: "PERP_BTC_USDC", qty: 0.15 })]);
    expect(core.claims(id)).toHaveLength(1);
  });

  it("the last claim removes the liquidation (pushed with empty positionsByPerp); later claims get -1202", async () => {
    const { core, pushes } = setup();
    const id = core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: -1 }] });
    pushes.length = 0;
    const first = await core.submitClaim(
      LIQUIDATOR,
      { liquidation_id: id, ratio_qty_request: 1, limit_price: limits(core, id) },
      core.now(),
    );
    expect(first.ok).toBe(true);
    expect(topic(pushes, "liquidation")[0]!.data).toEqual([expect.objectContaining({ liquidationId: id, positionsByPerp: [] })]);
    expect(core.openLiquidations().map((l) => l.liquidationId)).not.toContain(id);
    const again = await core.submitClaim(
      LIQUIDATOR,
      { liquidation_id: id, ratio_qty_request: 1, limit_price: { PERP_ETH_USDC: 1 } },
      core.now(),
    );
    expect(again.ok ? 0 : again.refusal.code).toBe(-1202);
  });

  it("an unclaimed liquidation expires after its TTL: pushed as gone, then -1202", async () => {
    const { core, clock, pushes } = setup({ ttl: 5000 });
    const id = core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    clock.t += 4999;
    expect(core.expireDue()).toEqual([]);
    clock.t += 1;
    expect(core.expireDue()).toEqual([id]);
    expect(topic(pushes, "liquidation").at(-1)!.data).toEqual([expect.objectContaining({ liquidationId: id, positionsByPerp: [] })]);
    const r = await core.submitClaim(
      LIQUIDATOR,
      { liquidation_id: id, ratio_qty_request: 1, limit_price: { PERP_ETH_USDC: 1e9 } },
      core.now(),
    );
    expect(r.ok ? 0 : r.refusal.code).toBe(-1202);
    expect(core.book.closedReason(id)).toBe("expired");
  });

  it("removeLiquidation pushes the removal", () => {
    const { core, pushes } = setup();
    const id = core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    expect(core.removeLiquidation(id)).toBe(true);
    expect(core.removeLiquidation(id)).toBe(false);
    expect(topic(pushes, "liquidation").at(-1)!.data).toEqual([expect.objectContaining({ liquidationId: id, positionsByPerp: [] })]);
  });

  it("a claim arriving while another for the same id is processed gets -1012", async () => {
    const { core } = setup({ delay: 50 });
    const id = core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 10 }] });
    const b = { liquidation_id: id, ratio_qty_request: 1, limit_price: limits(core, id) };
    const [a, c] = await Promise.all([core.submitClaim(LIQUIDATOR, b, core.now()), core.submitClaim(LIQUIDATOR, b, core.now())]);
    expect(a.ok).toBe(true);
    expect(c.ok ? 0 : c.refusal.code).toBe(-1012);
    expect(core.claims(id)).toHaveLength(1);
  });

  it("competitors take ids first; the liquidator then gets -1202, and the claim log says who took what", async () => {
    const { core } = setup();
    const id = core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    const limit = limits(core, id);
    const taken = await core.competitorClaim(id);
    expect(taken.ok).toBe(true);
    const mine = await core.submitClaim(LIQUIDATOR, { liquidation_id: id, ratio_qty_request: 1, limit_price: limit }, core.now());
    expect(mine.ok ? 0 : mine.refusal.code).toBe(-1202);
    expect(core.claims(id).map((c) => c.accountId)).toEqual([core.competitorIds[0]]);
    expect(
      core
        .claimRequests()
        .filter((e) => e.liquidationId === id)
        .map((e) => e.code),
    ).toEqual([0, -1202]);
  });

  it("-1101 leaves everything unchanged", async () => {
    const { core, pushes } = setup({ collateral: 10 });
    const id = core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    pushes.length = 0;
    const r = await core.submitClaim(LIQUIDATOR, { liquidation_id: id, ratio_qty_request: 1, limit_price: limits(core, id) }, core.now());
    expect(r.ok ? 0 : r.refusal.code).toBe(-1101);
    expect(pushes).toEqual([]);
    expect(core.positionsOf(LIQUIDATOR)).toEqual([]);
    expect(core.book.get(id)!.positions[0]!.positionQty).toBe(1);
    core.setCollateral(LIQUIDATOR, 1e6);
    const again = await core.submitClaim(
      LIQUIDATOR,
      { liquidation_id: id, ratio_qty_request: 1, limit_price: limits(core, id) },
      core.now(),
    );
    expect(again.ok).toBe(true);
  });

  it("closePositions flattens the account and pushes the flat position", async () => {
    const { core, pushes } = setup();
    const id = core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 2 }] });
    await core.submitClaim(LIQUIDATOR, { liquidation_id: id, ratio_qty_request: 1, limit_price: limits(core, id) }, core.now());
    pushes.length = 0;
    expect(core.closePositions(LIQUIDATOR)).toBe(1);
    expect(core.positionsOf(LIQUIDATOR)).toEqual([expect.objectContaining({ symbol: "PERP_ETH_USDC", qty: 0 })]);
    expect(pushes).toEqual([
      expect.objectContaining({
        scope: "private",
        accountId: LIQUIDATOR,
        topic: "position",
        data: { positions: [expect.objectContaining({ symbol: "PERP_ETH_USDC", positionQty: 0 })] },
      }),
    ]);
    expect(core.closePositions(LIQUIDATOR)).toBe(0);
  });

  it("the claim log keeps the receive time given by the transport", async () => {
    const { core, clock } = setup();
    const id = core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    const receivedAt = clock.t + 3;
    clock.t += 10;
    await core.submitClaim(LIQUIDATOR, { liquidation_id: id, ratio_qty_request: 1, limit_price: limits(core, id) }, receivedAt);
    const [entry] = core.claimRequests();
    expect(entry).toMatchObject({ receivedAt, decidedAt: clock.t, accountId: LIQUIDATOR, liquidationId: id, code: 0 });
    expect(entry!.receivedAt - core.liquidationEmittedAt(id)!).toBe(3);
  });
});

describe("VenueCore marks", () => {
  it("setMark rounds to the tick and pushes markprices and the symbol's topic", () => {
    const { core, pushes } = setup();
    core.setMark("PERP_ETH_USDC", 4000.123);
    expect(core.mark("PERP_ETH_USDC")).toBe(4000.12);
    expect(topic(pushes, "PERP_ETH_USDC@markprice").at(-1)!.data).toEqual({ symbol: "PERP_ETH_USDC", price: 4000.12 });
    const all = topic(pushes, "markprices").at(-1)!.data as { symbol: string; price: number }[];
    expect(all).toContainEqual({ symbol: "PERP_ETH_USDC", price: 4000.12 });
    expect(all).toHaveLength(core.symbols.names().length);
  });

  it("the random walk is reproducible from the seed and moves prices", () => {
    const a = setup().core;
    const b = setup().core;
    for (let i = 0; i < 100; i++) {
      a.stepMarket(1, 1);
      b.stepMarket(1, 1);
    }
    expect(a.market.rows().map((r) => r.markPrice)).toEqual(b.market.rows().map((r) => r.markPrice));
    expect(a.mark("PERP_BTC_USDC")).not.toBe(a.symbols.get("PERP_BTC_USDC")!.startPrice);
    for (const r of a.market.rows()) expect(r.markPrice).toBeGreaterThan(0);
  });

  it("volatility scale 0 keeps marks still", () => {
    const { core } = setup();
    const before = core.market.rows().map((r) => r.markPrice);
    core.stepMarket(10, 0);
    expect(core.market.rows().map((r) => r.markPrice)).toEqual(before);
  });
});
