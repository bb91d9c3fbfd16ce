/**
 * The simulator's `real` flavor (src/sim/flavor.ts) over real HTTP: each variant the real venue may
 * answer with (docs/protocol.md §9), checked against a `spec` simulator of the same seed and clock, so each
 * test shows both what changed and that nothing else did.
 */

import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectVenue } from "../../src/app/venueConnection.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { REAL_LIMIT_PRICE_CODE_FOR_TESTS } from "../../src/sim/flavor.js";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { type SimulatorHandle, startSimulator } from "../../src/sim/startSimulator.js";
import { VENUE_CODES } from "../../src/venue/errors.js";
import { Signer } from "../../src/venue/signer.js";

interface Answer {
  status: number;
  json: Record<string, unknown>;
  data: Record<string, unknown>;
}

type Venue = { sim: SimulatorHandle; signer: Signer };

const clock = { t: Date.now() };
let spec: Venue;
let real: Venue;

async function venue(flavor: "spec" | "real" | undefined): Promise<Venue> {
  const sim = await startSimulator({
    seed: 11,
    now: () => clock.t,
    rateLimits: false,
    scenario: { ...QUIET_SCENARIO, markIntervalMs: 0 },
    ...(flavor === undefined ? {} : { flavor }),
  });
  return { sim, signer: new Signer({ secret: sim.secret, accountId: sim.accountId }) };
}

beforeAll(async () => {
  spec = await venue(undefined);
  real = await venue("real");
});

afterAll(async () => {
  await spec?.sim.close();
  await real?.sim.close();
});

async function call(v: Venue, method: "GET" | "POST", path: string, body?: unknown): Promise<Answer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = path.startsWith("/v1/public") ? {} : v.signer.headers(method, path, text, clock.t);
  if (text !== undefined) headers["content-type"] = "application/json";
  const res = await request(`${v.sim.baseUrl}${path}`, { method, headers, ...(text !== undefined ? { body: text } : {}) });
  const json = (await res.body.json()) as Record<string, unknown>;
  return { status: res.statusCode, json, data: (json.data ?? {}) as Record<string, unknown> };
}

/** Both venues' answers to one request. */
async function both(method: "GET" | "POST", path: string, body?: unknown): Promise<{ s: Answer; r: Answer }> {
  return { s: await call(spec, method, path, body), r: await call(real, method, path, body) };
}

/** A claim of all of `id` whose limit price is `slack` on the liquidator's side of the mark (negative: past it). */
function claimBody(v: Venue, id: number, slack = 0.05): Record<string, unknown> {
  const limit: Record<string, number> = {};
  for (const p of v.sim.core.book.get(id)?.positions ?? []) {
    const m = v.sim.core.mark(p.symbol) as number;
    limit[p.symbol] = p.positionQty > 0 ? m * (1 + slack) : m * (1 - slack);
  }
  return { liquidation_id: id, ratio_qty_request: 1, limit_price: limit };
}

describe("the real flavor answers the real venue's variants; spec answers as before", () => {
  it("the handle and the default say which flavor answers", () => {
    expect(spec.sim.flavor).toBe("spec");
    expect(real.sim.flavor).toBe("real");
  });

  it("the success envelope's timestamp is a decimal string of the same venue time", async () => {
    const { s, r } = await both("GET", "/v1/public/futures");
    expect(s.json.timestamp).toBe(clock.t);
    expect(r.json.timestamp).toBe(String(clock.t));
    expect(r.data).toEqual(s.data);
  });

  it("/v1/public/info rows carry liquidation_tier as a string, every other field unchanged", async () => {
    const { s, r } = await both("GET", "/v1/public/info");
    const sRows = s.data.rows as Record<string, unknown>[];
    const rRows = r.data.rows as Record<string, unknown>[];
    expect(rRows).toHaveLength(sRows.length);
    expect(new Set(rRows.map((row) => row.liquidation_tier))).toEqual(new Set(["1", "2"]));
    rRows.forEach((row, i) => {
      expect(row).toEqual({ ...sRows[i], liquidation_tier: String(sRows[i]?.liquidation_tier) });
    });
    const one = await both("GET", "/v1/public/info/PERP_ETH_USDC");
    expect(typeof one.s.data.liquidation_tier).toBe("number");
    expect(one.r.data).toEqual({ ...one.s.data, liquidation_tier: String(one.s.data.liquidation_tier) });
  });

  it("order records: reduce_only null, a digits-only client order id as a number; the order ack too", async () => {
    const place = (cid: string, reduceOnly: boolean) => ({
      symbol: "PERP_ETH_USDC",
      client_order_id: cid,
      order_type: "MARKET",
      side: "BUY",
      order_quantity: 0.01,
      reduce_only: reduceOnly,
    });
    const digits = await both("POST", "/v1/order", place("123456", false));
    expect(digits.s.status).toBe(200);
    expect(digits.s.data.client_order_id).toBe("123456");
    expect(digits.r.data.client_order_id).toBe(123456);
    const named = await both("POST", "/v1/order", place("lqx-1", false));
    expect(named.r.data.client_order_id).toBe("lqx-1");
    // A reduce-only one (the daemon's kind): sells part of what the first order bought.
    const reducing = await both("POST", "/v1/order", { ...place("lqx-2", true), side: "SELL", order_quantity: 0.005 });
    expect(reducing.s.status).toBe(200);
    expect(reducing.r.status).toBe(200);

    for (const [path, cid] of [
      ["/v1/client/order/123456", 123456],
      ["/v1/client/order/lqx-1", "lqx-1"],
      [`/v1/order/${named.r.data.order_id as number}`, "lqx-1"],
      ["/v1/client/order/lqx-2", "lqx-2"],
    ] as const) {
      const { s, r } = await both("GET", path);
      expect(typeof s.data.reduce_only).toBe("boolean");
      expect(r.data).toEqual({ ...s.data, client_order_id: cid, reduce_only: null });
    }
    const list = await both("GET", "/v1/orders");
    const sRows = list.s.data.rows as Record<string, unknown>[];
    const rRows = list.r.data.rows as Record<string, unknown>[];
    expect(rRows.length).toBe(3);
    expect(rRows.map((o) => o.reduce_only)).toEqual([null, null, null]);
    expect(rRows.map((o) => o.client_order_id).sort()).toEqual([123456, "lqx-1", "lqx-2"].sort());
    expect(rRows.map((o) => ({ ...o, client_order_id: 0, reduce_only: 0 }))).toEqual(
      sRows.map((o) => ({ ...o, client_order_id: 0, reduce_only: 0 })),
    );
  });

  it("an order it does not know, by client order id or by order id: -1000 'data does not exist', HTTP 500", async () => {
    for (const path of ["/v1/client/order/never-sent-1", "/v1/order/987654321"]) {
      const { s, r } = await both("GET", path);
      expect(s.status).toBe(400);
      expect(s.json).toMatchObject({ success: false, code: -1006 });
      expect(r.status).toBe(500);
      expect(r.json).toEqual({ success: false, code: -1000, message: "data does not exist" });
    }
  });

  it("a claim answer without the optional per-symbol fields; the venue applied the same claim", async () => {
    const ids = [spec, real].map((v) =>
      v.sim.core.addLiquidation({
        positions: [
          { symbol: "PERP_ETH_USDC", position_qty: 1 },
          { symbol: "PERP_BTC_USDC", position_qty: -0.02 },
        ],
      }),
    );
    expect(ids[0]).toBe(ids[1]);
    const s = await call(spec, "POST", "/v1/liquidation", claimBody(spec, ids[0] as number));
    const r = await call(real, "POST", "/v1/liquidation", claimBody(real, ids[1] as number));
    expect(s.status).toBe(200);
    expect(r.status).toBe(200);
    const sRows = s.data.positions_by_perp as Record<string, unknown>[];
    expect(Object.keys(sRows[0] ?? {}).length).toBeGreaterThan(2);
    expect(r.data).toEqual({
      liquidation_id: s.data.liquidation_id,
      timestamp: s.data.timestamp,
      type: s.data.type,
      positions_by_perp: sRows.map((p) => ({ symbol: p.symbol, position_qty: p.position_qty })),
    });
    // Lean on the wire only: the venue's record of the claim has every transfer field.
    const logged = real.sim.core.claims().at(-1);
    expect(logged?.transfers.map((t) => t.transferPrice)).toEqual(sRows.map((p) => p.transfer_price));
  });

  it("a claim refused by its limit price: a code the daemon's table does not know, same status; the log keeps the rule's", async () => {
    expect(VENUE_CODES.has(REAL_LIMIT_PRICE_CODE_FOR_TESTS)).toBe(false);
    const ids = [spec, real].map((v) => v.sim.core.addLiquidation({ positions: [{ symbol: "PERP_SOL_USDC", position_qty: 30 }] }));
    const s = await call(spec, "POST", "/v1/liquidation", claimBody(spec, ids[0] as number, -0.05));
    const r = await call(real, "POST", "/v1/liquidation", claimBody(real, ids[1] as number, -0.05));
    expect(s.status).toBe(400);
    expect(s.json).toMatchObject({ success: false, code: -1203 });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ success: false, code: REAL_LIMIT_PRICE_CODE_FOR_TESTS, message: s.json.message });
    expect(real.sim.core.claimRequests().at(-1)).toMatchObject({ liquidationId: ids[1], code: -1203 });
    // Other refusals keep their codes (here: gone).
    const gone = await both("POST", "/v1/liquidation", { liquidation_id: 999_999_999, ratio_qty_request: 1, limit_price: {} });
    expect(gone.r.json).toEqual(gone.s.json);
    // And the same claim at a price that fits is taken (on both, so the venues stay alike).
    for (const [i, v] of [spec, real].entries())
      expect((await call(v, "POST", "/v1/liquidation", claimBody(v, ids[i] as number))).status).toBe(200);
  });

  it("trading rewards: the real *_order names, the same values", async () => {
    const epochs = await both("GET", "/v1/public/trading_rewards/epoch_data");
    const { total_released_trading_rewards_native: released, ...rest } = epochs.s.data;
    expect(typeof released).toBe("number");
    expect(epochs.r.data).toEqual({ total_released_trading_rewards_order: released, ...rest });
    expect(Object.keys(epochs.r.data)).toEqual(Object.keys(epochs.s.data).map((k) => k.replace(/_native$/, "_order")));

    const campaign = await both("GET", `/v1/public/campaign/user?campaign_id=2&account_id=${spec.sim.accountId}`);
    expect(campaign.s.status).toBe(200);
    const { total_staked_native: staked, total_staked_esnative: esStaked, ...others } = campaign.s.data;
    expect(campaign.r.data).toEqual({ ...others, total_staked_order: staked, total_staked_esorder: esStaked });
    expect(campaign.r.data).not.toHaveProperty("total_staked_native");
  });
});

describe("the embedded simulated venue of `liquidator run` (venue.mode: simulator)", () => {
  it.each([
    [{}, "number"],
    [{ LIQUIDATOR_SIM_FLAVOR: "spec" }, "number"],
    [{ LIQUIDATOR_SIM_FLAVOR: "real" }, "string"],
  ])("with %j answers envelope timestamps as a %s", async (env, type) => {
    const venue = await connectVenue(await loadConfig({ env }));
    try {
      const res = await request(`${venue.baseUrl}/v1/public/futures`);
      expect(typeof ((await res.body.json()) as { timestamp: unknown }).timestamp).toBe(type);
    } finally {
      await venue.close();
    }
  });
});
