/**
 * Lists read row by row (issue #34): a page of the open list with one malformed row still yields every
 * other row, `type` kept on each; the left-out row is handed to `onSkippedRows` with its shape, and
 * the daemon's reporter counts every one and logs each new shape once. A row without `type` or
 * `timestamp` (both optional in the venue's OpenAPI) is kept. The leverages list, the account's
 * orders, the trading-rewards epochs and the venue's record of our claims read the same way.
 */
import { Registry } from "prom-client";
import { afterEach, describe, expect, test } from "vitest";
import { skippedRowsReporter } from "../../src/observe/skippedRowsLog.js";
import { createVenueMetrics } from "../../src/observe/venueMetrics.js";
import { readLiquidatorRecord } from "../../src/venue/liquidatorRecord.js";
import { OrderApi } from "../../src/venue/orderApi.js";
import { RestClient } from "../../src/venue/rest.js";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";
import type { SkippedRow } from "../../src/venue/tolerantRows.js";
import { type FakeVenueServer, ok, startFakeVenue } from "../support/fakeVenue.js";

const row = (id: number, extra: Record<string, unknown> = {}) => ({
  liquidation_id: id,
  timestamp: 1_700_000_000_000 + id,
  type: id === 3 ? "claim" : "liquidated",
  positions_by_perp: [{ symbol: "PERP_ETH_USDC", position_qty: 1.5, liquidator_fee: 0.008 }],
  ...extra,
});

let venue: FakeVenueServer | undefined;
afterEach(async () => {
  await venue?.close();
  venue = undefined;
});

describe("lists read row by row", () => {
  test("a page with one malformed row yields every other row, type kept; the row is reported with its shape", async () => {
    venue = await startFakeVenue();
    const pages = [
      [row(1), row(2, { positions_by_perp: [{ symbol: "PERP_ETH_USDC", position_qty: "abc", liquidator_fee: 0.008 }] }), row(3)],
      [{ liquidation_id: 4, positions_by_perp: [{ symbol: "PERP_SOL_USDC", position_qty: -2, liquidator_fee: 0.01 }] }, "not a row"],
    ];
    venue.route("GET", "/v1/public/liquidation", (req) => {
      const page = Number(req.query.get("page") ?? 1);
      return ok({ meta: { total: 5, records_per_page: 3, current_page: page }, rows: pages[page - 1] ?? [] });
    });
    const skipped: [string, readonly SkippedRow[]][] = [];
    const rest = new RestClient({ baseUrl: venue.baseUrl, onSkippedRows: (endpoint, rows) => skipped.push([endpoint, rows]) });
    try {
      const rows = await rest.allOpenLiquidations();
      expect(rows.map((r) => [r.liquidation_id, r.type])).toEqual([
        [1, "liquidated"],
        [3, "claim"],
        [4, undefined],
      ]);
      expect(rows[2]?.timestamp).toBe(0); // absent: ties only
      expect(skipped).toEqual([
        [
          "/v1/public/liquidation",
          [
            {
              index: 1,
              problem: expect.stringContaining("positions_by_perp.0.position_qty"),
              shape:
                "{liquidation_id:number,timestamp:number,type:string,positions_by_perp:array<{symbol:string,position_qty:string,liquidator_fee:number}>}",
            },
          ],
        ],
        ["/v1/public/liquidation", [{ index: 1, problem: expect.any(String), shape: "string" }]],
      ]);
    } finally {
      await rest.close();
    }
  });

  test("the daemon's reporter: every row counted per endpoint, each new shape logged once", () => {
    const registry = new Registry();
    const metrics = createVenueMetrics(registry, "liquidator_");
    const logged: object[] = [];
    const report = skippedRowsReporter(metrics.restRowsSkipped, { warn: (obj) => logged.push(obj) });
    const a: SkippedRow = { index: 0, problem: "x", shape: "{a:string}" };
    const b: SkippedRow = { index: 1, problem: "y", shape: "{b:number}" };
    report("/v1/public/liquidation", [a, a]);
    report("/v1/public/liquidation", [a, b]);
    report("/v1/client/leverages", [a]);
    expect(logged).toEqual([
      { endpoint: "/v1/public/liquidation", shape: "{a:string}", problem: "x", index: 0 },
      { endpoint: "/v1/public/liquidation", shape: "{b:number}", problem: "y", index: 1 },
      { endpoint: "/v1/client/leverages", shape: "{a:string}", problem: "x", index: 0 },
    ]);
    return registry.getSingleMetricAsString("liquidator_rest_rows_skipped_total").then((text) => {
      expect(text).toContain('liquidator_rest_rows_skipped_total{endpoint="/v1/public/liquidation"} 4');
      expect(text).toContain('liquidator_rest_rows_skipped_total{endpoint="/v1/client/leverages"} 1');
    });
  });

  test("the leverages list: a row that cannot be read is left out, the others read (a decimal string too)", async () => {
    venue = await startFakeVenue();
    venue.route("GET", "/v1/client/leverages", () =>
      ok({
        rows: [
          { symbol: "PERP_ETH_USDC", margin_mode: "CROSS", leverage: 4 },
          { symbol: "PERP_BTC_USDC", margin_mode: "CROSS", leverage: "twenty" },
          { symbol: "PERP_SOL_USDC", leverage: "10" },
        ],
      }),
    );
    const skipped: string[] = [];
    const rest = new RestClient({
      baseUrl: venue.baseUrl,
      signer: new Signer({ secret: generateKeyPair().secret, accountId: "0xabc" }),
      onSkippedRows: (endpoint, rows) => skipped.push(...rows.map((r) => `${endpoint} ${r.index}`)),
    });
    try {
      const rows = (await rest.leverages()).data.rows;
      expect(rows.map((r) => [r.symbol, r.leverage, r.margin_mode ?? null])).toEqual([
        ["PERP_ETH_USDC", 4, "CROSS"],
        ["PERP_SOL_USDC", 10, null],
      ]);
      expect(skipped).toEqual(["/v1/client/leverages 1"]);
    } finally {
      await rest.close();
    }
  });

  /** A signed client against the fake venue whose skipped rows are kept as `endpoint index shape`. */
  function signedClient(skipped: string[]): RestClient {
    return new RestClient({
      baseUrl: (venue as FakeVenueServer).baseUrl,
      signer: new Signer({ secret: generateKeyPair().secret, accountId: "0xabc" }),
      onSkippedRows: (endpoint, rows) => skipped.push(...rows.map((r) => `${endpoint} ${r.index} ${r.shape}`)),
    });
  }

  test("the account's orders: an order that cannot be read is left out, the others read and the row reported", async () => {
    venue = await startFakeVenue();
    const order = (id: number, status: string) => ({
      order_id: id,
      symbol: "PERP_ETH_USDC",
      side: "SELL",
      status,
      client_order_id: `u-${id}`,
    });
    venue.route("GET", "/v1/orders", () =>
      ok({ meta: { total: 3, records_per_page: 500, current_page: 1 }, rows: [order(1, "FILLED"), order(2, "EXPIRED"), order(3, "NEW")] }),
    );
    const skipped: string[] = [];
    const rest = signedClient(skipped);
    try {
      const page = await new OrderApi(rest).ordersOf("PERP_ETH_USDC", { startT: 1 });
      expect(page.rows.map((r) => [r.order_id, r.status])).toEqual([
        [1, "FILLED"],
        [3, "NEW"],
      ]);
      expect(skipped).toEqual(["/v1/orders 1 {order_id:number,symbol:string,side:string,status:string,client_order_id:string}"]);
    } finally {
      await rest.close();
    }
  });

  test("the trading-rewards epochs: a row that cannot be read is left out of epoch_info and epoch_data", async () => {
    venue = await startFakeVenue();
    const info = (id: number) => ({
      ...{ epoch_id: id, start_time: 1, end_time: 2, power_fees_paid_major: 1, power_fees_paid_alts: 1, power_staked_major: 1 },
      ...{ power_staked_alts: 1, epoch_token: "ORDER", max_reward_amount: 1, k_constant_major: 1, k_constant_alts: 1 },
    });
    const data = (id: number) => ({
      ...{ epoch_id: id, total_trader_score_major: 1, total_trader_score_alts: 1, epoch_token: "ORDER" },
      ...{ reward_status: "Ongoing", r_major: 1, r_alts: 1 },
    });
    venue.route("GET", "/v1/public/trading_rewards/epoch_info", () =>
      ok({ current_epoch: 3, rows: [info(1), { ...info(2), epoch_id: "two" }, info(3)] }),
    );
    venue.route("GET", "/v1/public/trading_rewards/epoch_data", () =>
      ok({
        ...{ total_released_trading_rewards_native: 1, total_released_trading_rewards_escrow: 1, current_epoch: 3 },
        rows: [null, data(2), data(3)],
      }),
    );
    const skipped: string[] = [];
    const rest = signedClient(skipped);
    try {
      expect((await rest.epochInfo()).rows.map((r) => r.epoch_id)).toEqual([1, 3]);
      expect((await rest.epochData()).rows.map((r) => r.epoch_id)).toEqual([2, 3]);
      expect(skipped).toEqual([
        expect.stringMatching(/^\/v1\/public\/trading_rewards\/epoch_info 1 \{epoch_id:string,/),
        "/v1/public/trading_rewards/epoch_data 0 null",
      ]);
    } finally {
      await rest.close();
    }
  });

  test("the venue's record of our claims: each unreadable row reported by its shape, the others read", async () => {
    venue = await startFakeVenue();
    const claim = (id: number, qty: unknown) => ({
      liquidation_id: id,
      timestamp: 1_700_000_000_000 + id,
      type: "liquidated",
      positions_by_perp: [{ symbol: "PERP_ETH_USDC", position_qty: qty, transfer_price: 2000, abs_liquidator_fee: 1 }],
    });
    venue.route("GET", "/v1/client/liquidator_liquidations", () =>
      ok({ meta: { total: 4, records_per_page: 500, current_page: 1 }, rows: [claim(1, 1), claim(2, "x"), claim(3, 2), claim(4, "y")] }),
    );
    const skipped: string[] = [];
    const rest = signedClient(skipped);
    try {
      const page = await readLiquidatorRecord(rest, { startT: 0, endT: 1_800_000_000_000, page: 1 });
      expect(page.claims.map((c) => c.liquidationId)).toEqual([1, 3]);
      expect(page.skipped).toBe(2);
      const shape =
        "{liquidation_id:number,timestamp:number,type:string,positions_by_perp:array<{symbol:string,position_qty:string,transfer_price:number,abs_liquidator_fee:number}>}";
      expect(skipped).toEqual([`/v1/client/liquidator_liquidations 1 ${shape}`, `/v1/client/liquidator_liquidations 3 ${shape}`]);
    } finally {
      await rest.close();
    }
  });
});
