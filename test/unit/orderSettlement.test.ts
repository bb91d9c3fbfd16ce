/**
 * Settling an unwind order through `GET /v1/orders` when the page has a row the daemon cannot read
 * (issue #34 item 4): the readable rows still settle it, but "not in the list" is only concluded from
 * pages read whole. An unreadable row may be the very order: its absence from the readable rows says
 * nothing, so the order stays unsettled (looked up again), never "not placed" (a second slice sent
 * beside an order that may be working).
 */
import { describe, expect, test } from "vitest";
import { type HeldOrder, OrderLookupSettlement } from "../../src/daemon/unwind/orderLookupSettlement.js";
import { findInOrderList } from "../../src/daemon/unwind/orderSettlement.js";
import { VenueError } from "../../src/venue/errors.js";
import { type OrdersPage, ordersPageSchema } from "../../src/venue/orderSchemas.js";

const ETH = "PERP_ETH_USDC";
const order = (id: number, clientOrderId: string, status = "FILLED") => ({
  order_id: id,
  client_order_id: clientOrderId,
  symbol: ETH,
  side: "SELL",
  status,
  quantity: 1,
  total_executed_quantity: 1,
  average_executed_price: 2000,
});
/** A row the daemon cannot read: its status is one it does not know. */
const odd = (id: number, clientOrderId: string) => ({ ...order(id, clientOrderId), status: "PARTIALLY_CANCELLED" });

/** One page as the REST client hands it over: parsed by the list's schema. */
function page(rows: unknown[], total = rows.length): OrdersPage {
  return ordersPageSchema.parse({ meta: { total, records_per_page: 500, current_page: 1 }, rows });
}

describe("the order list with a row the daemon cannot read", () => {
  test("the page's other rows are read", () => {
    const p = page([order(1, "u-1"), odd(2, "u-2"), order(3, "u-3")]);
    expect(p.rows.map((r) => r.order_id)).toEqual([1, 3]);
  });

  test("the order among the readable rows settles it", async () => {
    const listed = await findInOrderList(async () => page([odd(2, "u-2"), order(3, "u-3")]), "u-3");
    expect(listed).toMatchObject({ kind: "final", record: { order_id: 3 } });
  });

  test("not among the readable rows: unreadable, never absent", async () => {
    const listed = await findInOrderList(async () => page([order(1, "u-1"), odd(2, "u-2")]), "u-2");
    expect(listed).toEqual({ kind: "unreadable", reason: "1 row(s) of the order list could not be read" });
  });

  test("a page read whole without the order still says absent", async () => {
    expect((await findInOrderList(async () => page([order(1, "u-1")]), "u-2")).kind).toBe("absent");
  });

  test("the unwinder's settlement: looked up again, not 'not placed', and no positions read as if it never traded", async () => {
    let positionsRead = 0;
    const settlement = new OrderLookupSettlement({
      orders: {
        // -1000 / HTTP 500: the lookup cannot settle it; the order list is asked.
        orderByClientId: async () => {
          throw new VenueError({ status: 500, venueCode: -1000, venueMessage: "data does not exist", endpoint: "x" });
        },
        ordersOf: async () => page([order(1, "u-1"), odd(2, "u-2")]),
      },
      readPositions: async () => {
        positionsRead++;
      },
      signal: new AbortController().signal,
      unsettled: () => {},
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      lookupRetryMs: 100,
      maxSettleRounds: 5,
    });
    const held: HeldOrder = {
      ...{ clientOrderId: "u-2", symbol: ETH, side: "SELL", marginMode: "CROSS", mark: 2000, filled: 0, notional: 0, fee: 0 },
      ...{ orderId: undefined, sentAt: 1_700_000_000_000, rounds: 0 },
    };
    const verdict = await settlement.settle(held, () => true);
    expect(verdict.kind).toBe("again");
    expect(positionsRead).toBe(0);
  });
});
