/**
 * Settling an unwind order whose lookup by client order id gave no usable answer (the real venue
 * documents -1000 "data does not exist" with HTTP 500 for an order it does not know, docs/protocol.md §9): the
 * account's orders of the symbol, from shortly before the order was sent, are listed through
 * `GET /v1/orders` and matched by client order id. Pure reading of pages; the unwinder acts on it.
 */
import type { OrderRecord, OrdersPage } from "../../venue/orderSchemas.js";
import { skippedRowsOf } from "../../venue/tolerantRows.js";
import { TERMINAL_STATUSES } from "../../venue/wireOrders.js";

export type ListSettlement =
  /** Found and over: the record's totals are final. */
  | { kind: "final"; record: OrderRecord }
  /** Found and still working. */
  | { kind: "working"; record: OrderRecord }
  /** Every page read whole and no order with this client id: it never reached the venue. */
  | { kind: "absent" }
  /** The list could not say (a failed read, or more pages than read). */
  | { kind: "unreadable"; reason: string };

/** Pages of 500 read at most per settlement: an unwinder sends one order per symbol at a time. */
const MAX_LIST_PAGES = 4;

/** How far before the order's intent the list starts: the venue's clock may run behind ours. */
export const LIST_SLACK_MS = 5 * 60_000;

export async function findInOrderList(page: (n: number) => Promise<OrdersPage>, clientOrderId: string): Promise<ListSettlement> {
  // Rows left out as unreadable (tolerantRows.ts) on the pages read: any of them may be this order.
  let unread = 0;
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
    const skipped = skippedRowsOf(data).length;
    unread += skipped;
    // The page's length counts the rows left out too: they were on it.
    const length = data.rows.length + skipped;
    const size = data.meta.records_per_page > 0 ? data.meta.records_per_page : length;
    if (length === 0 || length < size || n * size >= data.meta.total) {
      // Absence is only read from pages read whole: otherwise "never placed" could be an order that works.
      return unread === 0 ? { kind: "absent" } : { kind: "unreadable", reason: `${unread} row(s) of the order list could not be read` };
    }
  }
  return { kind: "unreadable", reason: `more than ${MAX_LIST_PAGES} pages of orders` };
}
