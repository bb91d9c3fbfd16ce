/**
 * The simulated venue's order side as a client meets it, over real signed HTTP and a real private
 * socket on port 0 (docs/protocol.md §6): every refusal code with the HTTP status the daemon's code
 * table expects, answers read by the daemon's own parsers, one rate window per operation, the empty
 * book and refusal faults through the simulator handle, and the executionreport / position / balance
 * pushes of a claim and its unwind.
 */
import { afterEach, describe, expect, it } from "vitest";
import { VENUE_CODES } from "../../src/venue/errors.js";
import { clientInfoSchema, orderAckSchema, orderRecordSchema, ordersPageSchema } from "../../src/venue/orderSchemas.js";
import { positionsSchema } from "../../src/venue/restSchemas.js";
import { parsePositions } from "../../src/venue/wire.js";
import { parseBalance, parseExecutionReport } from "../../src/venue/wireOrders.js";
import { signedSim } from "../support/signedSim.js";
import { type Frame, TestClient } from "./simStreamsHarness.js";

const ETH = "PERP_ETH_USDC";
const venue = signedSim({ seed: 11, marks: { [ETH]: 2_000 } });
const { clock, call } = venue;
const hold = (qty: number): Promise<void> => venue.hold(ETH, qty);
afterEach(() => {
  venue.sim.faults.orders.clear();
  venue.sim.core.setCollateral(venue.sim.accountId, 1_000_000);
  clock.t += 61_000; // a fresh window for every limit
});

/** Every test starts flat. */
function flatten(): void {
  venue.sim.core.closePositions(venue.sim.accountId);
}

const sell = { symbol: ETH, order_type: "IOC", side: "SELL", order_price: 1_990, order_quantity: 0.1, reduce_only: true };

describe("every refusal code of POST /v1/order, with its HTTP status", () => {
  it.each([
    ["an unknown field", -1004, { ...sell, iceberg: true }],
    ["a missing side", -1005, { ...sell, side: undefined }],
    ["an unknown symbol", -1005, { ...sell, symbol: "PERP_NOPE_USDC" }],
    ["a quantity off the grid", -1104, { ...sell, order_quantity: 0.00015 }],
    ["a price outside the band", -1105, { ...sell, order_price: 1_900 }],
    ["a notional below min_notional", -1102, { ...sell, order_quantity: 0.001, reduce_only: false }],
    ["reduce-only on the growing side", -1106, { ...sell, side: "BUY", order_price: 2_010 }],
  ])("%s → %i", async (_name, code, body) => {
    await hold(1);
    const r = await call("POST", "/v1/order", body);
    expect(r.json).toMatchObject({ success: false, code });
    expect(r.status).toBe(VENUE_CODES.get(code)?.status);
    flatten();
  });

  it("-1005 for a body that is not JSON, -1004 for a query string, -1106 with no position", async () => {
    expect((await call("POST", "/v1/order", undefined, "{not json")).json.code).toBe(-1005);
    expect((await call("POST", "/v1/order?x=1", sell)).json.code).toBe(-1004);
    expect((await call("POST", "/v1/order", sell)).json.code).toBe(-1106);
  });

  it("-1007 for a client id open already (409), -1101 for an order the margin cannot carry, -1006 for a cancel of no open order", async () => {
    const rest = { symbol: ETH, client_order_id: "dup-1", order_type: "LIMIT", side: "BUY", order_price: 1_950, order_quantity: 0.1 };
    const first = orderAckSchema.parse((await call("POST", "/v1/order", rest)).json.data);
    const dup = await call("POST", "/v1/order", rest);
    expect([dup.status, dup.json.code]).toEqual([409, -1007]);
    await call("DELETE", `/v1/order?order_id=${first.order_id}&symbol=${ETH}`);
    venue.sim.core.setCollateral(venue.sim.accountId, 10);
    const broke = await call("POST", "/v1/order", { ...rest, client_order_id: "dup-2" });
    expect([broke.status, broke.json.code]).toEqual([VENUE_CODES.get(-1101)?.status, -1101]);
    expect((await call("DELETE", `/v1/order?order_id=${first.order_id}&symbol=${ETH}`)).json.code).toBe(-1006);
  });

  it("-1011 and -1012 from the fault controls, the order not applied", async () => {
    await hold(1);
    venue.sim.faults.orders.refuseOrders(1, -1011);
    venue.sim.faults.orders.refuseOrders(1, -1012);
    expect((await call("POST", "/v1/order", { ...sell, client_order_id: "r-1" })).json.code).toBe(-1011);
    expect((await call("POST", "/v1/order", { ...sell, client_order_id: "r-2" })).json.code).toBe(-1012);
    expect((await call("GET", "/v1/client/order/r-1")).json.code).toBe(-1006);
    expect((await call("GET", "/v1/client/order/r-2")).json.code).toBe(-1006);
    expect((await call("POST", "/v1/order", { ...sell, client_order_id: "r-3" })).status).toBe(200);
    flatten();
  });
});

describe("answers the daemon's parsers read", () => {
  it("ack, order by id and by client id, the list, positions and client info", async () => {
    await hold(0.5);
    const ack = orderAckSchema.parse((await call("POST", "/v1/order", { ...sell, client_order_id: "p-1", order_quantity: 0.2 })).json.data);
    const record = orderRecordSchema.parse((await call("GET", `/v1/order/${ack.order_id}`)).json.data);
    expect(record).toMatchObject({ order_id: ack.order_id, client_order_id: "p-1", status: "FILLED", total_executed_quantity: 0.2 });
    expect(orderRecordSchema.parse((await call("GET", "/v1/client/order/p-1")).json.data)).toEqual(record);
    const page = ordersPageSchema.parse((await call("GET", `/v1/orders?status=FILLED&symbol=${ETH}&size=500`)).json.data);
    expect(page.rows.map((r) => r.order_id)).toContain(ack.order_id);
    expect((await call("GET", "/v1/orders?size=501")).json.code).toBe(-1005);
    // The creation-time window the unwinder settles a lost order with (docs/protocol.md §9).
    const created = record.created_time as number;
    const since = ordersPageSchema.parse((await call("GET", `/v1/orders?symbol=${ETH}&start_t=${created}&size=500`)).json.data);
    expect(since.rows.map((r) => r.client_order_id)).toContain("p-1");
    const later = ordersPageSchema.parse((await call("GET", `/v1/orders?symbol=${ETH}&start_t=${created + 1}&size=500`)).json.data);
    expect(later.rows.map((r) => r.client_order_id)).not.toContain("p-1");
    expect((await call("GET", "/v1/orders?start_t=12")).json.code).toBe(-1005);
    const positions = positionsSchema.parse((await call("GET", "/v1/positions")).json.data);
    expect(positions.rows.find((r) => r.symbol === ETH)?.position_qty).toBeCloseTo(0.3, 9);
    expect(clientInfoSchema.parse((await call("GET", "/v1/client/info")).json.data)).toMatchObject({
      futures_taker_fee_rate: 5,
      futures_maker_fee_rate: 2,
    });
    const info = (await call("GET", `/v1/public/info/${ETH}`)).json.data as Record<string, number>;
    for (const k of ["quote_min", "quote_max", "quote_tick", "base_min", "base_max", "base_tick", "min_notional", "price_range"])
      expect(typeof info[k]).toBe("number");
    flatten();
  });
});

describe("one rate window per operation (docs/protocol.md §6)", () => {
  async function codes(n: number, send: () => Promise<{ status: number; json: Record<string, unknown> }>): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const r = await send();
      out.push(r.status === 429 ? -1003 : 0);
    }
    return out;
  }
  const limited = (n: number, of: number) => [...new Array<number>(n).fill(0), ...new Array<number>(of - n).fill(-1003)];

  it("orders 10/s, and cancels, lookups and holding each 10/s of their own", async () => {
    const rest = { symbol: ETH, order_type: "LIMIT", side: "BUY", order_price: 1_950, order_quantity: 0.01 };
    expect(await codes(11, () => call("POST", "/v1/order", rest))).toEqual(limited(10, 11));
    // Cancels are not orders: the order window being full does not stop them.
    const open = ordersPageSchema.parse((await call("GET", "/v1/orders?status=INCOMPLETE&size=500")).json.data).rows;
    expect(await codes(10, async () => call("DELETE", `/v1/order?order_id=${open.pop()?.order_id}&symbol=${ETH}`))).toEqual(
      limited(10, 10),
    );
    expect((await call("DELETE", `/v1/order?order_id=1&symbol=${ETH}`)).status).toBe(429);
    expect(await codes(11, () => call("GET", "/v1/order/1"))).toEqual(limited(10, 11));
    expect(await codes(11, () => call("GET", "/v1/client/holding"))).toEqual(limited(10, 11));
    expect(await codes(11, () => call("GET", `/v1/orderbook/${ETH}`))).toEqual(limited(10, 11));
  });

  it("positions 30 per 10 s, client info 10 per 60 s", async () => {
    expect(await codes(31, () => call("GET", "/v1/positions"))).toEqual(limited(30, 31));
    clock.t += 10_000;
    expect((await call("GET", "/v1/positions")).status).toBe(200);
    expect(await codes(11, () => call("GET", "/v1/client/info"))).toEqual(limited(10, 11));
    clock.t += 30_000;
    expect((await call("GET", "/v1/client/info")).status).toBe(429);
    clock.t += 30_000;
    expect((await call("GET", "/v1/client/info")).status).toBe(200);
  });
});

describe("faults over HTTP", () => {
  it("an empty book shows no level and fills nothing until it is back", async () => {
    await hold(1);
    venue.sim.faults.orders.emptyBook(ETH, 5_000);
    const book = (await call("GET", `/v1/orderbook/${ETH}?max_level=5`)).json.data as { asks: unknown[]; bids: unknown[] };
    expect([book.asks.length, book.bids.length]).toEqual([0, 0]);
    const none = orderAckSchema.parse((await call("POST", "/v1/order", sell)).json.data);
    expect(orderRecordSchema.parse((await call("GET", `/v1/order/${none.order_id}`)).json.data)).toMatchObject({
      status: "CANCELLED",
      total_executed_quantity: 0,
    });
    clock.t += 5_000;
    const back = orderAckSchema.parse((await call("POST", "/v1/order", sell)).json.data);
    expect(orderRecordSchema.parse((await call("GET", `/v1/order/${back.order_id}`)).json.data).status).toBe("FILLED");
    flatten();
  });
});

describe("private pushes over a real socket", () => {
  it("a claim pushes position and balance; an unwind pushes executionreport per state and fill, and the position flat", async () => {
    const c = await TestClient.open(`${venue.sim.wsPrivateUrl}/v2/ws/private/stream/${venue.sim.accountId}`);
    try {
      c.send({ id: "auth-1", event: "auth", params: venue.signer.wsAuthParams(clock.t) });
      expect(await c.answer("auth-1")).toMatchObject({ success: true });
      for (const topic of ["executionreport", "position", "balance"]) expect(await c.subscribe(topic)).toMatchObject({ success: true });
      const holdingBefore = venue.sim.core.accounts.get(venue.sim.accountId)?.collateral as number;
      // A flat position keeps the cost of its closed trades (unsettled until settled): the claim adds to it.
      const costBefore = venue.sim.core.trading.booksOf(venue.sim.accountId).get(ETH)?.costPosition ?? 0;
      await hold(1);
      const afterClaim = await c.waitFor((f) => f.topic === "position", "position after the claim");
      expect(parsePositions(afterClaim.data)?.positions).toEqual([
        {
          symbol: ETH,
          positionQty: 1,
          averageOpenPrice: 2_000,
          markPrice: 2_000,
          costPosition: costBefore + 2_000,
          marginMode: "CROSS",
          leverage: 10, // docs/protocol.md §10: the symbol's leverage rides on the push
        },
      ]);
      const balance = await c.waitFor((f) => f.topic === "balance", "balance after the claim");
      expect(parseBalance(balance.data)?.holding).toBeCloseTo(holdingBefore + 2_000 * 0.008, 9);

      const ack = orderAckSchema.parse((await call("POST", "/v1/order", { ...sell, client_order_id: "w-1", order_quantity: 1 })).json.data);
      const isSymbol = (s: unknown): s is string => s === ETH;
      const mine = (f: Frame) => f.topic === "executionreport" && (f.data as { orderId?: number }).orderId === ack.order_id;
      await c.waitFor((f) => mine(f) && (f.data as { status?: string }).status === "FILLED", "the FILLED report");
      const reports = c
        .data("executionreport")
        .filter(mine)
        .map((f) => parseExecutionReport(f.data, isSymbol));
      expect(reports.every((r) => r !== undefined)).toBe(true);
      expect(reports[0]).toMatchObject({ status: "NEW", tradeId: "", clientOrderId: "w-1", reduceOnly: true });
      const fills = reports.filter((r) => r?.tradeId !== "");
      expect(fills.reduce((a, r) => a + (r?.executedQuantity ?? 0), 0)).toBeCloseTo(1, 9);
      expect(reports.at(-1)).toMatchObject({ status: "FILLED", totalExecutedQuantity: 1 });
      const flat = await c.waitFor(
        (f) => f.topic === "position" && (f.data as { positions: { positionQty: number }[] }).positions[0]?.positionQty === 0,
        "the flat position",
      );
      expect(parsePositions(flat.data)?.positions[0]).toMatchObject({ symbol: ETH, positionQty: 0 });
    } finally {
      c.close();
    }
  });
});
