/**
 * GET /v1/admin/orders as pure functions (docs/protocol.md §A.4.4): parameter checks, filters, the six sort
 * rules with their tie-breaks, and paging with `meta` as in docs/protocol.md §A.2.5.
 */
import { enumParam, intParam, rangeParams, readParams } from "./queryParams.js";
import { type Checked, ok, refused } from "./venueRefusal.js";

/** One order of the simulated venue's order history, as GET /v1/admin/orders returns it (docs/protocol.md §A.2.5, snake_case wire names). */
export interface StoredOrder {
  order_id: number;
  user_id: number;
  price: number;
  type: string;
  quantity: number;
  amount: number;
  total_executed_quantity: number;
  visible_quantity: number;
  symbol: string;
  side: "BUY" | "SELL";
  status: AdminOrderStatus;
  total_fee: number;
  fee_asset: string;
  client_order_id: number;
  average_executed_price: number;
  created_time: number;
  updated_time: number;
  realized_pnl: number;
  executed_quantity: number;
  visible: number;
  executed: number;
  reduce_only: boolean | null;
  order_tag: string | null;
  margin_mode: string;
}

/**
 * The venue's side of docs/protocol.md §A.3 (the client's is venue/restSchemas.ts: the simulator shares
 * no protocol code with the daemon, so a misreading on one side is not copied into the other).
 */
const ADMIN_ORDER_STATUSES = ["NEW", "CANCELLED", "PARTIAL_FILLED", "FILLED", "REJECTED", "INCOMPLETE", "COMPLETED"] as const;
export type AdminOrderStatus = (typeof ADMIN_ORDER_STATUSES)[number];
const SORT_BY = ["CREATED_TIME_DESC", "CREATED_TIME_ASC", "UPDATED_TIME_DESC", "UPDATED_TIME_ASC"] as const;
export type SortBy = (typeof SORT_BY)[number];

/** docs/protocol.md §A.4.4: size at most 500; the default is not published, 25 is the venue family's usual one. */
const MAX_ORDER_PAGE_SIZE = 500;
const DEFAULT_ORDER_PAGE_SIZE = 25;

const ADMIN_ORDER_PARAMS = [
  "symbol",
  "side",
  "order_type",
  "status",
  "order_tag",
  "start_t",
  "end_t",
  "update_start_t",
  "update_end_t",
  "page",
  "size",
  "sort_by",
  "user_account",
  "user_address",
] as const;

export interface OrderQuery {
  userAccount: string | undefined;
  userAddress: string | undefined;
  symbol: string | undefined;
  side: "BUY" | "SELL" | undefined;
  orderType: "LIMIT" | "MARKET" | undefined;
  status: AdminOrderStatus | undefined;
  orderTag: string | undefined;
  startT: number | undefined;
  endT: number | undefined;
  updateStartT: number | undefined;
  updateEndT: number | undefined;
  page: number;
  size: number;
  sortBy: SortBy | undefined;
}

export interface Page<T> {
  meta: { total: number; records_per_page: number; current_page: number };
  rows: T[];
}

export function parseOrderQuery(search: URLSearchParams): Checked<OrderQuery> {
  const p = readParams(search, ADMIN_ORDER_PARAMS);
  if (!p.ok) return p;
  const params = p.value;
  const userAccount = params.get("user_account");
  const userAddress = params.get("user_address");
  if (userAccount === undefined && userAddress === undefined) return refused(-1005, "user_account or user_address is required");
  const side = enumParam(params, "side", ["BUY", "SELL"] as const);
  if (!side.ok) return side;
  const orderType = enumParam(params, "order_type", ["LIMIT", "MARKET"] as const);
  if (!orderType.ok) return orderType;
  const status = enumParam(params, "status", ADMIN_ORDER_STATUSES);
  if (!status.ok) return status;
  const sortBy = enumParam(params, "sort_by", SORT_BY);
  if (!sortBy.ok) return sortBy;
  const created = rangeParams(params, "start_t", "end_t");
  if (!created.ok) return created;
  const updated = rangeParams(params, "update_start_t", "update_end_t");
  if (!updated.ok) return updated;
  const page = intParam(params, "page", 1, 1, 1_000_000_000);
  if (!page.ok) return page;
  const size = intParam(params, "size", DEFAULT_ORDER_PAGE_SIZE, 1, MAX_ORDER_PAGE_SIZE);
  if (!size.ok) return size;
  return ok({
    userAccount,
    userAddress,
    symbol: params.get("symbol"),
    side: side.value,
    orderType: orderType.value,
    status: status.value,
    orderTag: params.get("order_tag"),
    startT: created.value.start,
    endT: created.value.end,
    updateStartT: updated.value.start,
    updateEndT: updated.value.end,
    page: page.value,
    size: size.value,
    sortBy: sortBy.value,
  });
}

type Comparator = (a: StoredOrder, b: StoredOrder) => number;

const byCreatedDesc: Comparator = (a, b) => b.created_time - a.created_time || b.order_id - a.order_id;
const byCreatedAsc: Comparator = (a, b) => a.created_time - b.created_time || a.order_id - b.order_id;
const byUpdatedDesc: Comparator = (a, b) => b.updated_time - a.updated_time || b.order_id - a.order_id;
const byUpdatedAsc: Comparator = (a, b) => a.updated_time - b.updated_time || a.order_id - b.order_id;

/** The six sort rules of docs/protocol.md §A.4.4, in its order. */
function comparatorFor(q: Pick<OrderQuery, "sortBy" | "updateStartT" | "updateEndT">): Comparator {
  switch (q.sortBy) {
    case undefined:
      // Rules 1 and 2: an update-time window sorts by update time, anything else by creation time.
      return q.updateStartT !== undefined || q.updateEndT !== undefined ? byUpdatedDesc : byCreatedDesc;
    case "CREATED_TIME_DESC":
      return byCreatedDesc;
    case "CREATED_TIME_ASC":
      return byCreatedAsc;
    case "UPDATED_TIME_DESC":
      return byUpdatedDesc;
    case "UPDATED_TIME_ASC":
      return byUpdatedAsc;
  }
}

function matches(o: StoredOrder, q: OrderQuery): boolean {
  if (q.symbol !== undefined && o.symbol !== q.symbol) return false;
  if (q.side !== undefined && o.side !== q.side) return false;
  if (q.orderType !== undefined && o.type !== q.orderType) return false;
  if (q.status !== undefined && o.status !== q.status) return false;
  if (q.orderTag !== undefined && o.order_tag !== q.orderTag) return false;
  if (q.startT !== undefined && o.created_time < q.startT) return false;
  if (q.endT !== undefined && o.created_time > q.endT) return false;
  if (q.updateStartT !== undefined && o.updated_time < q.updateStartT) return false;
  if (q.updateEndT !== undefined && o.updated_time > q.updateEndT) return false;
  return true;
}

/** Filter, sort and cut one page. A page past the end is empty, with the true total in meta. */
export function queryOrders(orders: readonly StoredOrder[], q: OrderQuery): Page<StoredOrder> {
  const rows = orders.filter((o) => matches(o, q)).sort(comparatorFor(q));
  const start = (q.page - 1) * q.size;
  return {
    meta: { total: rows.length, records_per_page: q.size, current_page: q.page },
    rows: rows.slice(start, start + q.size).map((o) => ({ ...o })),
  };
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { comparatorFor as comparatorForForTests, DEFAULT_ORDER_PAGE_SIZE as DEFAULT_ORDER_PAGE_SIZE_FOR_TESTS };
