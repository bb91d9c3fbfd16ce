/**
 * The simulated venue's REST API over real HTTP on port 0, signed by the project's own node:crypto
 * Signer and verified by the simulator with @noble/ed25519 (a cross-implementation check).
 * The venue clock is injected so rate-limit windows and the 300 s rule do not depend on machine speed.
 */

import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { type SimulatorHandle, startSimulator } from "../../src/sim/startSimulator.js";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";

interface Answer {
  status: number;
  json: Record<string, unknown>;
}

const clock = { t: Date.now() };
let sim: SimulatorHandle;
let signer: Signer;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, now: () => clock.t, scenario: { ...QUIET_SCENARIO, markIntervalMs: 0 } });
  signer = new Signer({ secret: sim.secret, accountId: sim.accountId });
});

afterAll(async () => {
  await sim.close();
});

afterEach(() => {
  sim.faults.rest.clear();
  sim.core.claimProcessingDelayMs = 0;
  // Every test starts in a fresh rate-limit window.
  clock.t += 5000;
});

async function call(
  method: "GET" | "POST",
  pathWithQuery: string,
  opts: {
    body?: string;
    sign?: Signer | false;
    ts?: number;
    headers?: Record<string, string>;
    mutateSigned?: (h: Record<string, string>) => void;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const s = opts.sign === undefined ? (pathWithQuery.startsWith("/v1/public") ? false : signer) : opts.sign;
  if (s !== false) Object.assign(headers, s.headers(method, pathWithQuery, opts.body, opts.ts ?? clock.t));
  opts.mutateSigned?.(headers);
  Object.assign(headers, opts.headers);
  const res = await request(`${sim.baseUrl}${pathWithQuery}`, { method, headers, ...(opts.body !== undefined ? { body: opts.body } : {}) });
  const text = await res.body.text();
  return { status: res.statusCode, json: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

function claimBody(id: number, ratio = 1, slack = 0.05): string {
  const liq = sim.core.book.get(id);
  const limit: Record<string, number> = {};
  for (const p of liq?.positions ?? []) {
    const m = sim.core.mark(p.symbol)!;
    limit[p.symbol] = p.positionQty > 0 ? m * (1 + slack) : m * (1 - slack);
  }
  return JSON.stringify({ liquidation_id: id, ratio_qty_request: ratio, limit_price: limit });
}

function expectRefusal(a: Answer, status: number, code: number): void {
  expect(a.status).toBe(status);
  expect(a.json).toEqual({ success: false, code, message: expect.any(String) });
  expect((a.json.message as string).length).toBeGreaterThan(0);
}

describe("public reads", () => {
  it.each([
    ["/v1/public/trading_rewards/epoch_info", ["current_epoch", "rows"]],
    [
      "/v1/public/trading_rewards/epoch_data",
      ["current_epoch", "rows", "total_released_trading_rewards_escrow", "total_released_trading_rewards_native"],
    ],
    ["/v1/public/futures", ["rows"]],
    ["/v1/public/info", ["rows"]],
    ["/v1/public/liquidation", ["meta", "rows"]],
  ])("%s answers the success envelope with the server timestamp", async (path, keys) => {
    const a = await call("GET", path);
    expect(a.status).toBe(200);
    expect(a.json.success).toBe(true);
    expect(a.json.timestamp).toBe(clock.t);
    expect(Object.keys(a.json.data as object).sort()).toEqual([...keys].sort());
  });

  it("info lists both tiers with fee, tick and min notional", async () => {
    const rows = ((await call("GET", "/v1/public/info")).json.data as { rows: Record<string, unknown>[] }).rows;
    expect(new Set(rows.map((r) => r.liquidation_tier))).toEqual(new Set([1, 2]));
    for (const r of rows) {
      expect(r.symbol).toMatch(/^PERP_[A-Z0-9]+_[A-Z0-9]+$/);
      for (const k of ["liquidator_fee", "quote_tick", "base_tick", "min_notional"]) expect(r[k]).toBeGreaterThan(0);
    }
  });

  it("liquidation list: open ids with remaining quantities, paging and time filter", async () => {
    const ids = [1, 2, 3].map(() => {
      clock.t += 10;
      return sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 5 }] });
    });
    const page = (qs: string) =>
      call("GET", `/v1/public/liquidation${qs}`).then(
        (a) => a.json.data as { meta: Record<string, number>; rows: { liquidation_id: number }[] },
      );
    const first = await page("?size=2&page=1");
    expect(first.meta).toEqual({ total: sim.core.openLiquidations().length, records_per_page: 2, current_page: 1 });
    expect(first.rows.map((r) => r.liquidation_id)).toEqual([ids[2], ids[1]]);
    const since = await page(`?start_t=${sim.core.book.get(ids[1]!)!.timestamp}`);
    expect(since.rows.map((r) => r.liquidation_id)).toEqual([ids[2], ids[1]]);
    expect((await page("")).meta.records_per_page).toBe(60);
    for (const id of ids) sim.core.removeLiquidation(id);
    expect((await page("")).rows.map((r) => r.liquidation_id)).not.toContain(ids[0]);
  });

  it.each([
    ["/v1/public/futures?x=1", 400, -1004],
    ["/v1/public/liquidation?size=501", 400, -1005],
    ["/v1/public/liquidation?start_t=123", 400, -1005],
    ["/v1/public/campaign/user?account_id=x", 400, -1005],
    ["/v1/public/campaign/user?campaign_id=2", 400, -1005],
    ["/v1/public/campaign/user?campaign_id=424242&account_id=x", 400, -1006],
  ])("%s → HTTP %s, code %s", async (path, status, code) => {
    expectRefusal(await call("GET", path), status, code);
  });

  it("campaign statistics of a seeded user", async () => {
    const a = await call("GET", `/v1/public/campaign/user?campaign_id=2&account_id=${sim.orderUsers[0]}`);
    expect(a.status).toBe(200);
    expect(Object.keys(a.json.data as object).sort()).toEqual(
      [
        "end_account_value",
        "filled_order_count",
        "new_invited_referee",
        "new_traded_referee",
        "pnl",
        "start_account_value",
        "total_deposit_amount",
        "total_staked_esnative",
        "total_staked_native",
        "total_withdrawal_amount",
        "updated_time",
        "volume",
      ].sort(),
    );
  });

  it("unknown paths are 404 and wrong methods 405, with the error body", async () => {
    const nf = await call("GET", "/v1/public/nothing");
    expect(nf.status).toBe(404);
    expect(nf.json).toMatchObject({ success: false, code: -1000 });
    const na = await call("POST", "/v1/public/info", { body: "{}", sign: false });
    expect(na.status).toBe(405);
  });
});

describe("rate limits (sliding windows, docs/protocol.md §4)", () => {
  it("the 11th public request within 1 s is HTTP 429 / -1003; after the window it is accepted", async () => {
    for (let i = 0; i < 10; i++) expect((await call("GET", "/v1/public/futures")).status).toBe(200);
    expectRefusal(await call("GET", "/v1/public/futures"), 429, -1003);
    // Limits are per endpoint: another public endpoint still answers.
    expect((await call("GET", "/v1/public/info")).status).toBe(200);
    clock.t += 999;
    expectRefusal(await call("GET", "/v1/public/futures"), 429, -1003);
    clock.t += 1;
    expect((await call("GET", "/v1/public/futures")).status).toBe(200);
  });

  it("claims: the 6th within 1 s per account is refused", async () => {
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 100 }] });
    const codes: number[] = [];
    for (let i = 0; i < 6; i++) {
      const a = await call("POST", "/v1/liquidation", { body: claimBody(id, 0.01) });
      codes.push(a.json.success === true ? 0 : (a.json.code as number));
    }
    expect(codes).toEqual([0, 0, 0, 0, 0, -1003]);
    clock.t += 1000;
    expect((await call("POST", "/v1/liquidation", { body: claimBody(id, 0.01) })).status).toBe(200);
  });

  // The venue counts a claim when it arrives, not once its signature has been checked: on a busy
  // machine that check (and here an injected delay) ends later for one claim than for the next, and
  // claims that arrived more than 200 ms apart must not bunch into one window.
  it.each([
    ["arrived 210 ms apart: all admitted", 210, [0, 0, 0, 0, 0, 0]],
    ["arrived 198 ms apart: the one checked last is the 6th within 1 s", 198, [-1003, 0, 0, 0, 0, 0]],
  ])("claims checked out of order are counted at arrival (%s)", async (_name, gapMs, expected) => {
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 100 }] });
    const code = (a: Answer): number => (a.json.success === true ? 0 : (a.json.code as number));
    // The first claim is held 1.5 s (real time) after it arrived, before its signature is checked.
    sim.faults.rest.delay(1_500, { path: "/v1/liquidation", method: "POST", times: 1 });
    const injected = sim.faults.rest.injected;
    const first = call("POST", "/v1/liquidation", { body: claimBody(id, 0.01) });
    await expect.poll(() => sim.faults.rest.injected, { interval: 5 }).toBe(injected + 1); // it arrived at the venue's t0
    const codes: number[] = [];
    for (let i = 1; i < 6; i++) {
      clock.t += gapMs;
      codes.push(code(await call("POST", "/v1/liquidation", { body: claimBody(id, 0.01) })));
    }
    expect([code(await first), ...codes]).toEqual(expected);
  });

  it("admin orders: the 11th within 1 s per account is refused", async () => {
    const path = `/v1/admin/orders?user_account=${sim.orderUsers[0]}&size=1`;
    for (let i = 0; i < 10; i++) expect((await call("GET", path)).status).toBe(200);
    expectRefusal(await call("GET", path), 429, -1003);
  });
});

describe("signed requests (verified with @noble/ed25519)", () => {
  const ordersPath = () => `/v1/admin/orders?user_account=${sim.orderUsers[0]}&size=5&sort_by=CREATED_TIME_ASC`;

  it("a request signed by the Signer is accepted", async () => {
    const a = await call("GET", ordersPath());
    expect(a.status).toBe(200);
    const data = a.json.data as { meta: Record<string, number>; rows: { created_time: number }[] };
    expect(data.meta.records_per_page).toBe(5);
    expect(data.rows).toHaveLength(5);
  });

  it("tampered body → 401 / -1001, and the claim is not applied", async () => {
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    const signed = claimBody(id);
    const headers = signer.headers("POST", "/v1/liquidation", signed, clock.t);
    const res = await request(`${sim.baseUrl}/v1/liquidation`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: signed.replace('"ratio_qty_request":1', '"ratio_qty_request":1.0'),
    });
    expectRefusal({ status: res.statusCode, json: (await res.body.json()) as Record<string, unknown> }, 401, -1001);
    expect(sim.core.claims(id)).toEqual([]);
  });

  it("tampered query → 401 / -1001", async () => {
    const path = ordersPath();
    const a = await call("GET", path, {
      mutateSigned: () => undefined,
      sign: false,
      headers: signer.headers("GET", path.replace("size=5", "size=6"), undefined, clock.t),
    });
    expectRefusal(a, 401, -1001);
  });

  it("an unregistered key → 401 / -1002", async () => {
    const stranger = new Signer({ secret: generateKeyPair().secret, accountId: sim.accountId });
    expectRefusal(await call("GET", ordersPath(), { sign: stranger }), 401, -1002);
  });

  it("a key registered for another account → 401 / -1002", async () => {
    const other = generateKeyPair();
    sim.core.accounts.add({ accountId: "0xother", admin: true, collateral: 1 });
    sim.core.accounts.registerKey("0xother", other.publicKey);
    const wrong = new Signer({ secret: other.secret, accountId: sim.accountId });
    expectRefusal(await call("GET", ordersPath(), { sign: wrong }), 401, -1002);
  });

  it.each([
    ["301 s old", -301_000],
    ["301 s ahead", 301_000],
  ])("a timestamp %s → 401 / -1002; 299 s is fine", async (_name, skew) => {
    expectRefusal(await call("GET", ordersPath(), { ts: clock.t + skew }), 401, -1002);
    expect((await call("GET", ordersPath(), { ts: clock.t + Math.sign(skew) * 299_000 })).status).toBe(200);
  });

  it.each([
    ["padded base64url", (s: string) => `${s}==`],
    ["standard base64", (s: string) => Buffer.from(s, "base64url").toString("base64")],
  ])("accepts a %s signature", async (_name, recode) => {
    const a = await call("GET", ordersPath(), { mutateSigned: (h) => (h["service-signature"] = recode(h["service-signature"]!)) });
    expect(a.status).toBe(200);
  });

  it("missing headers → 401 / -1001", async () => {
    expectRefusal(await call("GET", ordersPath(), { sign: false }), 401, -1001);
  });

  it("a non-admin account cannot list orders (-1002)", async () => {
    const k = generateKeyPair();
    sim.core.accounts.add({ accountId: "0xplain", collateral: 1 });
    sim.core.accounts.registerKey("0xplain", k.publicKey);
    expectRefusal(await call("GET", ordersPath(), { sign: new Signer({ secret: k.secret, accountId: "0xplain" }) }), 401, -1002);
  });

  it.each([
    ["size=501", 400, -1005],
    ["size=500", 200, 0],
    ["bogus=1", 400, -1004],
    ["status=OPEN", 400, -1005],
  ])("admin orders %s → %s %s", async (qs, status, code) => {
    const a = await call("GET", `/v1/admin/orders?user_account=${sim.orderUsers[0]}&${qs}`);
    if (code === 0) expect(a.status).toBe(status);
    else expectRefusal(a, status, code);
  });

  it("admin orders without a target user → -1005, unknown user → -1006", async () => {
    expectRefusal(await call("GET", "/v1/admin/orders?size=5"), 400, -1005);
    expectRefusal(await call("GET", "/v1/admin/orders?user_account=0xnobody"), 400, -1006);
  });

  it("honours a custom header prefix", async () => {
    const other = await startSimulator({ seed: 3, headerPrefix: "orderly", scenario: { ...QUIET_SCENARIO, markIntervalMs: 0 } });
    try {
      const s = new Signer({ secret: other.secret, accountId: other.accountId, headerPrefix: "orderly" });
      const path = `/v1/admin/orders?user_account=${other.orderUsers[0]}`;
      const res = await request(`${other.baseUrl}${path}`, { headers: s.headers("GET", path) });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
    } finally {
      await other.close();
    }
  });
});

describe("claims over HTTP", () => {
  it("answers docs/protocol.md §A.2.6 data and updates the open liquidation", async () => {
    sim.core.setMark("PERP_SOL_USDC", 200);
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_SOL_USDC", position_qty: -100 }] }); // 20,000
    const a = await call("POST", "/v1/liquidation", { body: claimBody(id, 0.25) });
    expect(a.status).toBe(200);
    expect(a.json.timestamp).toBe(clock.t);
    const data = a.json.data as { liquidation_id: number; type: string; timestamp: number; positions_by_perp: Record<string, number>[] };
    expect(data.liquidation_id).toBe(id);
    expect(typeof data.type).toBe("string");
    const [t] = data.positions_by_perp;
    expect(t).toMatchObject({ symbol: "PERP_SOL_USDC", position_qty: -25, liquidator_fee: 0.01 });
    expect(t!.transfer_price).toBe(200);
    expect(t!.cost_position_transfer).toBeCloseTo(-25 * 200, 9);
    expect(t!.abs_liquidator_fee).toBeCloseTo(25 * 200 * 0.01, 9);
    expect(sim.core.book.get(id)!.positions[0]!.positionQty).toBe(-75);
  });

  it.each([
    ["no content type", { "content-type": "text/plain" }, undefined, 400, -1005],
    ["invalid JSON", {}, "{not json", 400, -1005],
    ["unknown field", {}, JSON.stringify({ liquidation_id: 1, ratio_qty_request: 1, limit_price: {}, hello: 1 }), 400, -1004],
    ["unknown id", {}, JSON.stringify({ liquidation_id: 987654321, ratio_qty_request: 1, limit_price: {} }), 400, -1202],
  ])("%s → %s %s", async (_name, headers, raw, status, code) => {
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    const body = raw ?? claimBody(id);
    expectRefusal(await call("POST", "/v1/liquidation", { body, headers }), status, code);
  });

  it("a query string on the claim → -1004; a body over 64 KiB → -1005", async () => {
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    expectRefusal(await call("POST", "/v1/liquidation?dry=1", { body: claimBody(id) }), 400, -1004);
    const huge = JSON.stringify({ liquidation_id: id, ratio_qty_request: 1, limit_price: {}, pad: "x".repeat(70_000) });
    expectRefusal(await call("POST", "/v1/liquidation", { body: huge }), 400, -1005);
    expect(sim.core.claims(id)).toEqual([]);
  });

  it("two claims racing on one id: one wins, the other gets -1012", async () => {
    sim.core.claimProcessingDelayMs = 1000;
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    const body = claimBody(id);
    const [a, b] = await Promise.all([call("POST", "/v1/liquidation", { body }), call("POST", "/v1/liquidation", { body })]);
    const codes = [a, b].map((x) => (x.json.success === true ? 0 : x.json.code)).sort();
    expect(codes).toEqual([-1012, 0]);
    expectRefusal(a.status === 200 ? b : a, 400, -1012);
    expect(sim.core.claims(id)).toHaveLength(1);
  });

  it("the claim log records every request with its receive time, and the push time of the id", async () => {
    const before = sim.core.claimRequests().length;
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    const pushedAt = clock.t;
    clock.t += 7;
    await call("POST", "/v1/liquidation", { body: claimBody(id) });
    await call("POST", "/v1/liquidation", {
      body: claimBody(id),
      sign: new Signer({ secret: generateKeyPair().secret, accountId: sim.accountId }),
    });
    const log = sim.core.claimRequests().slice(before);
    expect(log.map((e) => [e.liquidationId, e.code])).toEqual([
      [id, 0],
      [id, -1002],
    ]);
    expect(log[0]!.receivedAt - sim.core.liquidationEmittedAt(id)!).toBe(7);
    expect(sim.core.liquidationEmittedAt(id)).toBe(pushedAt);
  });
});

describe("REST faults", () => {
  it.each([
    ["envelope", 503, "application/json"],
    ["html", 502, "text/html"],
    ["empty", 500, "text/plain"],
  ] as const)("serverError with a %s body", async (body, status, type) => {
    sim.faults.rest.serverError(status, { path: "/v1/public/futures", times: 1, body });
    const res = await request(`${sim.baseUrl}/v1/public/futures`);
    expect(res.statusCode).toBe(status);
    expect(res.headers["content-type"]).toBe(type);
    await res.body.dump();
    expect((await call("GET", "/v1/public/futures")).status).toBe(200); // times: 1
  });

  it("venueError answers -1011 (HTTP 400) without processing the claim", async () => {
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    sim.faults.rest.venueError(-1011, { path: "/v1/liquidation", method: "POST", times: 1 });
    expectRefusal(await call("POST", "/v1/liquidation", { body: claimBody(id) }), 400, -1011);
    expect(sim.core.claims(id)).toEqual([]);
    expect((await call("POST", "/v1/liquidation", { body: claimBody(id) })).status).toBe(200);
  });

  it("a 429 storm refuses everything matched until cleared", async () => {
    const stop = sim.faults.rest.rateLimitStorm();
    for (const path of ["/v1/public/info", "/v1/public/futures", "/v1/public/trading_rewards/epoch_info"]) {
      expectRefusal(await call("GET", path), 429, -1003);
    }
    stop();
    expect((await call("GET", "/v1/public/info")).status).toBe(200);
  });

  it("delay holds the answer at least as long as asked", async () => {
    sim.faults.rest.delay(300, { path: "/v1/public/info", times: 1 });
    const started = performance.now();
    expect((await call("GET", "/v1/public/info")).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("reset before processing: the connection drops and the claim is not applied", async () => {
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    sim.faults.rest.reset({ path: "/v1/liquidation", times: 1 });
    await expect(call("POST", "/v1/liquidation", { body: claimBody(id) })).rejects.toThrow();
    expect(sim.core.claims(id)).toEqual([]);
  });

  it("reset after processing: the connection drops but the claim was applied (unknown outcome)", async () => {
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    sim.faults.rest.reset({ path: "/v1/liquidation", times: 1, phase: "after" });
    await expect(call("POST", "/v1/liquidation", { body: claimBody(id) })).rejects.toThrow();
    expect(sim.core.claims(id)).toHaveLength(1);
    expectRefusal(await call("POST", "/v1/liquidation", { body: claimBody(id) }), 400, -1202);
  });

  it("faults expire after forMs", async () => {
    sim.faults.rest.venueError(-1011, { forMs: 1000 });
    expectRefusal(await call("GET", "/v1/public/info"), 400, -1011);
    clock.t += 1000;
    expect((await call("GET", "/v1/public/info")).status).toBe(200);
  });
});
