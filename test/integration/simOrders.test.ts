/**
 * The simulated venue's order side over real signed HTTP on port 0 (docs/protocol.md §6): placing,
 * looking up by id and client id, cancelling, listing; positions, holding, client info, the order
 * book and one symbol's info; the per-route limits; an order applied whose answer is lost.
 */
import { afterEach, describe, expect, it } from "vitest";
import { signedSim } from "../support/signedSim.js";

const ETH = "PERP_ETH_USDC";
const venue = signedSim({ seed: 5, marks: { [ETH]: 2_000 } });
const { clock, call } = venue;
const hold = (qty: number): Promise<void> => venue.hold(ETH, qty);
afterEach(() => {
  venue.sim.core.trading.faults.clear();
  clock.t += 61_000; // a fresh window for every limit, client info's 60 s included
});

const data = <T>(a: { json: Record<string, unknown> }): T => a.json.data as T;

describe("orders over HTTP", () => {
  it("places a reduce-only IOC, finds it by id and by client id, lists it; positions and holding agree", async () => {
    await hold(1);
    const placed = await call("POST", "/v1/order", {
      symbol: ETH,
      client_order_id: "t-1",
      order_type: "IOC",
      side: "SELL",
      order_price: 1_990,
      order_quantity: 0.4,
      reduce_only: true,
    });
    expect(placed.status).toBe(200);
    const ack = data<{ order_id: number; client_order_id: string }>(placed);
    expect(ack.client_order_id).toBe("t-1");
    const byId = data<Record<string, unknown>>(await call("GET", `/v1/order/${ack.order_id}`));
    const byClient = data<Record<string, unknown>>(await call("GET", "/v1/client/order/t-1"));
    expect(byClient).toEqual(byId);
    expect(byId).toMatchObject({ status: "FILLED", total_executed_quantity: 0.4, reduce_only: true, fee_asset: "USDC", type: "IOC" });
    const list = data<{ meta: { total: number }; rows: { order_id: number }[] }>(
      await call("GET", `/v1/orders?status=COMPLETED&symbol=${ETH}`),
    );
    expect(list.rows.map((r) => r.order_id)).toContain(ack.order_id);
    const positions = data<{
      rows: { symbol: string; position_qty: number; cost_position: number; mark_price: number; unsettled_pnl: number }[];
    }>(await call("GET", "/v1/positions"));
    const eth = positions.rows.find((r) => r.symbol === ETH);
    expect(eth?.position_qty).toBeCloseTo(0.6, 9);
    expect(eth?.unsettled_pnl).toBeCloseTo((eth?.position_qty ?? 0) * (eth?.mark_price ?? 0) - (eth?.cost_position ?? 0), 9);
    const holding = data<{ holding: { token: string; holding: number }[] }>(await call("GET", "/v1/client/holding"));
    expect(holding.holding[0]?.token).toBe("USDC");
    expect(data<Record<string, unknown>>(await call("GET", "/v1/client/info"))).toMatchObject({
      futures_taker_fee_rate: 5,
      futures_maker_fee_rate: 2,
    });
  });

  it("unknown orders are -1006; a resting LIMIT is cancelled once, then -1006; a client id open twice is -1007", async () => {
    expect((await call("GET", "/v1/client/order/nope")).json.code).toBe(-1006);
    expect((await call("GET", "/v1/order/999999")).json.code).toBe(-1006);
    const body = { symbol: ETH, client_order_id: "rest-1", order_type: "LIMIT", side: "BUY", order_price: 1_950, order_quantity: 0.1 };
    const rest = data<{ order_id: number }>(await call("POST", "/v1/order", body));
    expect((await call("POST", "/v1/order", body)).json.code).toBe(-1007);
    const open = data<{ rows: { order_id: number }[] }>(await call("GET", "/v1/orders?status=INCOMPLETE"));
    expect(open.rows.map((r) => r.order_id)).toEqual([rest.order_id]);
    expect(data<{ status: string }>(await call("DELETE", `/v1/order?order_id=${rest.order_id}&symbol=${ETH}`)).status).toBe("CANCEL_SENT");
    expect((await call("DELETE", `/v1/order?order_id=${rest.order_id}&symbol=${ETH}`)).json.code).toBe(-1006);
    // Closed, its client id may be used again.
    expect((await call("POST", "/v1/order", body)).status).toBe(200);
  });

  it("the book, one symbol's info and the filters' codes", async () => {
    const book = data<{ asks: { price: number; quantity: number }[]; bids: { price: number }[] }>(
      await call("GET", `/v1/orderbook/${ETH}?max_level=3`),
    );
    expect(book.asks).toHaveLength(3);
    expect(book.asks[0]?.price).toBeGreaterThan(2_000);
    expect(book.bids[0]?.price).toBeLessThan(2_000);
    const info = data<Record<string, number>>(await call("GET", `/v1/public/info/${ETH}`));
    expect(info).toMatchObject({ quote_tick: 0.01, price_range: 0.03 });
    expect((await call("GET", "/v1/public/info/PERP_NOPE_USDC")).json.code).toBe(-1005);
    const order = { symbol: ETH, order_type: "IOC", side: "BUY", order_price: 2_010, order_quantity: 0.1 };
    expect((await call("POST", "/v1/order", { ...order, order_price: 2_100 })).json.code).toBe(-1105);
    expect((await call("POST", "/v1/order", { ...order, order_quantity: 0.00001 })).json.code).toBe(-1104);
    expect((await call("POST", "/v1/order", { ...order, order_quantity: 0.001 })).json.code).toBe(-1102);
  });

  it("10 orders a second per account: the 11th is -1003", async () => {
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) {
      const r = await call("POST", "/v1/order", { symbol: ETH, order_type: "IOC", side: "BUY", order_price: 1_950, order_quantity: 0.01 });
      codes.push(r.status === 200 ? 0 : (r.json.code as number));
    }
    expect(codes.slice(0, 10).every((c) => c === 0)).toBe(true);
    expect(codes[10]).toBe(-1003);
  });

  it("faults: refused orders, and an order applied whose answer is lost (the lookup finds it)", async () => {
    await hold(1);
    venue.sim.core.trading.faults.refuseOrders(1, -1011);
    const order = { symbol: ETH, order_type: "IOC", side: "SELL", order_price: 1_990, order_quantity: 0.1, reduce_only: true };
    expect((await call("POST", "/v1/order", { ...order, client_order_id: "f-1" })).json.code).toBe(-1011);
    venue.sim.core.trading.faults.loseAnswers(1);
    await expect(call("POST", "/v1/order", { ...order, client_order_id: "f-2" })).rejects.toThrow();
    expect(data<{ status: string }>(await call("GET", "/v1/client/order/f-2")).status).toBe("FILLED");
    venue.sim.core.trading.faults.partialFills(0.5, { symbol: ETH, times: 1 });
    const half = data<{ order_id: number }>(await call("POST", "/v1/order", { ...order, order_quantity: 0.2 }));
    expect(data<{ total_executed_quantity: number }>(await call("GET", `/v1/order/${half.order_id}`)).total_executed_quantity).toBeCloseTo(
      0.1,
      9,
    );
  });
});
