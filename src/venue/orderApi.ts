/**
 * Orders and the account (docs/protocol.md §6), on the request machinery of restCore.ts.
 * Orders have a limiter of their own (`orders`, 10/s) and use the read connections: a claim never
 * waits for an order, and never shares a lane with one.
 */
import {
  type ClientInfo,
  cancelAckSchema,
  clientInfoSchema,
  type OrderAck,
  type OrderRecord,
  type OrderRequest,
  type OrdersPage,
  orderAckSchema,
  orderRecordSchema,
  ordersPageSchema,
} from "./orderSchemas.js";
import { buildQuery, type CallOptions, dataOf, type RestCore } from "./restCore.js";

const ORDER_ENDPOINTS = {
  order: "/v1/order",
  orderByClientId: "/v1/client/order/{client_order_id}",
  orders: "/v1/orders",
  clientInfo: "/v1/client/info",
} as const;

/** docs/protocol.md §6.1: letters, digits and `-` (not first), at most 36. */
const CLIENT_ORDER_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,35}$/;

export class OrderApi {
  readonly #rest: RestCore;

  constructor(rest: RestCore) {
    this.#rest = rest;
  }

  /** One attempt, never retried: a lost answer is settled by `orderByClientId`, never by resending. */
  placeOrder(body: OrderRequest, opts: CallOptions = {}): Promise<OrderAck> {
    if (!CLIENT_ORDER_ID.test(body.client_order_id))
      throw new RangeError(`client_order_id ${body.client_order_id} is not a valid venue client order id`);
    const path = this.#rest.basePath + ORDER_ENDPOINTS.order;
    return this.#rest
      .attempt("POST", ORDER_ENDPOINTS.order, "orders", path, JSON.stringify(body), orderAckSchema, true, opts.signal)
      .then(dataOf);
  }

  /** The order with this client id; a VenueError -1006 when the venue never saw it. */
  orderByClientId(clientOrderId: string, opts: CallOptions = {}): Promise<OrderRecord> {
    if (!CLIENT_ORDER_ID.test(clientOrderId)) throw new RangeError(`client_order_id ${clientOrderId} is not a valid venue client order id`);
    const endpoint = ORDER_ENDPOINTS.orderByClientId;
    return this.#rest.get(endpoint, "account_reads", "", orderRecordSchema, true, opts, `/v1/client/order/${clientOrderId}`).then(dataOf);
  }

  /** Orders still open (NEW or PARTIAL_FILLED), one page of up to 500. */
  openOrders(opts: CallOptions & { symbol?: string } = {}): Promise<OrdersPage> {
    const q = buildQuery({ status: "INCOMPLETE", symbol: opts.symbol, size: 500 });
    return this.#rest.get(ORDER_ENDPOINTS.orders, "account_reads", q, ordersPageSchema, true, opts).then(dataOf);
  }

  /**
   * One page (of up to 500) of the account's orders of `symbol` in any status, created at or after
   * `startT` (ms): what settles an order whose lookup by client order id had no usable answer.
   */
  ordersOf(symbol: string, opts: CallOptions & { startT?: number; page?: number } = {}): Promise<OrdersPage> {
    const q = buildQuery({ symbol, start_t: opts.startT, page: opts.page ?? 1, size: 500 });
    return this.#rest.get(ORDER_ENDPOINTS.orders, "account_reads", q, ordersPageSchema, true, opts).then(dataOf);
  }

  /** DELETE /v1/order: one attempt; a VenueError -1006 when the order is not open. */
  cancelOrder(orderId: number, symbol: string, opts: CallOptions = {}): Promise<unknown> {
    const path = `${this.#rest.basePath}${ORDER_ENDPOINTS.order}?${buildQuery({ order_id: orderId, symbol })}`;
    return this.#rest.attempt("DELETE", ORDER_ENDPOINTS.order, "orders", path, undefined, cancelAckSchema, true, opts.signal).then(dataOf);
  }

  clientInfo(opts: CallOptions = {}): Promise<ClientInfo> {
    return this.#rest.get(ORDER_ENDPOINTS.clientInfo, "account_reads", "", clientInfoSchema, true, opts).then(dataOf);
  }
}
