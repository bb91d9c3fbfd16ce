/**
 * Settling an unwind order whose lookup by client order id gave no usable answer (the real venue
 * documents -1000 "data does not exist" with HTTP 500 for an order it does not know, docs/protocol.md §9): the
 * account's orders of the symbol, from shortly before the order was sent, are listed through
 * `GET /v1/orders` and matched by client order id. Pure reading of pages; the unwinder acts on it.
 */
import type { OrderRecord, OrdersPage } from "../../venue/orderSchemas.js";
import { TERMINAL_STATUSES } from "../../venue/wireOrders.js";

export type ListSettlement =
  /** Found and over: the record's totals are final. */
  | { kind: "final"; record: OrderRecord }
  /** Found and still working. */
  | { kind: "working"; record: OrderRecord }
  /** Every page read and no order with this client id: it never reached the venue. */
  | { kind: "absent" }
  /** The list could not say (a failed read, or more pages than read). */
  | { kind: "unreadable"; reason: string };

/** Pages of 500 read at most per settlement: an unwinder sends one order per symbol at a time. */
const MAX_LIST_PAGES = 4;

/** How far before the order's intent the list starts: the venue's clock may run behind ours. */
export const LIST_SLACK_MS = 5 * 60_000;

export async function findInOrderList(page: (n: number) => Promise<OrdersPage>, clientOrderId: string): Promise<ListSettlement> {
  for (let n = 1; n <= MAX_LIST_PAGES; n++) {
    let data: OrdersPage;
    try {
      data = await page(n);
    } catch (err) {
      return { kind: "unreadable", reason: err instanceof Error ? err.message : String(err) };
    }
    // A numeric client order id (docs/protocol.md §9) compares by its text.
    const record = data.rows.find(
      (r) => r.client_order_id !== null && r.client_order_id !== undefined && String(r.client_order_id) === clientOrderId,
    );
    if (record !== undefined) return TERMINAL_STATUSES.has(record.status) ? { kind: "final", record } : { kind: "working", record };
    const size = data.meta.records_per_page > 0 ? data.meta.records_per_page : data.rows.length;
    if (data.rows.length === 0 || data.rows.length < size || n * size >= data.meta.total) return { kind: "absent" };
  }
  return { kind: "unreadable", reason: `more than ${MAX_LIST_PAGES} pages of orders` };
}
