/**
 * Lists read row by row (issue #34): a page of the open list with one malformed row still yields every
 * other row, `type` kept on each; the left-out row is handed to `onSkippedRows` with its shape, and
 * the daemon's reporter counts every one and logs each new shape once. A row without `type` or
 * `timestamp` (both optional in the venue's OpenAPI) is kept. The leverages list reads the same way.
 */
import { Registry } from "prom-client";
import { afterEach, describe, expect, test } from "vitest";
import { skippedRowsReporter } from "../../src/observe/skippedRowsLog.js";
import { createVenueMetrics } from "../../src/observe/venueMetrics.js";
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
});
