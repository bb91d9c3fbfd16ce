/**
 * Settling an unwind order whose answer or final report did not come: it is looked up by its client
 * order id; an answer the lookup cannot settle (failureTable.ts: -1000/HTTP 500, an unknown code), or
 * none for several rounds, goes to the order list (orderSettlement.ts); after `maxSettleRounds` the
 * order is given up. Where the order may have traded unseen (not in the list, or given up), the
 * positions are read first, so that the next slice is planned on what the account holds. The unwinder
 * (unwinder.ts) owns the order and acts on the verdict.
 */

import type { WorkingOrder } from "../../core/ownOrders.js";
import { sleep } from "../../sleep.js";
import type { OrderApi } from "../../venue/orderApi.js";
import type { OrderRecord } from "../../venue/orderSchemas.js";
import { findInOrderList, LIST_SLACK_MS } from "./orderSettlement.js";
import { lookUpOrder } from "./unwindOrderCalls.js";

/** The order in hand: its fills so far, the venue's id once known, when it was sent, lookups made. */
export type HeldOrder = WorkingOrder & { orderId: number | undefined; sentAt: number; rounds: number };

/** Lookups still answered "working" or not at all after this many rounds go to the order list too. */
const LIST_AFTER_ROUNDS = 3;

export type SettlementVerdict =
  /** Over: the venue's record has its final totals. */
  | { kind: "final"; record: OrderRecord }
  /** The venue never had it (the positions were read first where it may have been applied after all). */
  | { kind: "not_placed" }
  /** Not settled yet: look it up again after `ms`. */
  | { kind: "again"; ms: number }
  /** Neither the lookup nor the list settles it: given up (an alert), the positions read. */
  | { kind: "given_up" }
  /** Settled meanwhile by a report, or the unwinder stopped: nothing to do. */
  | { kind: "moot" };

export interface OrderLookupSettlementOptions {
  orders: Pick<OrderApi, "orderByClientId" | "ordersOf">;
  /** Read `GET /v1/positions` now and apply it; resolves once applied. */
  readPositions: (signal: AbortSignal) => Promise<void>;
  /** Aborted when the unwinder stops: every call and wait here ends with it. */
  signal: AbortSignal;
  /** An order neither its lookup nor the order list could settle (an alert). */
  unsettled(symbol: string): void;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void };
  /** Between lookups of an order not yet settled, doubling up to 8× (the first of them). */
  lookupRetryMs: number;
  /** Lookups (each with the order list once the lookup cannot say) before the order is given up. */
  maxSettleRounds: number;
}

export class OrderLookupSettlement {
  readonly #options: OrderLookupSettlementOptions;

  constructor(options: OrderLookupSettlementOptions) {
    this.#options = options;
  }

  /** One round of settling `order`; `current()` is false once a report settled it meanwhile. */
  async settle(order: HeldOrder, current: () => boolean): Promise<SettlementVerdict> {
    const { orders, signal, logger } = this.#options;
    const { symbol, clientOrderId } = order;
    order.rounds++;
    const found = await lookUpOrder((id) => orders.orderByClientId(id, { signal }), clientOrderId);
    if (!current() || signal.aborted) return { kind: "moot" };
    // Never reached the venue: nothing to settle; the next slice gets a new id.
    if (found.kind === "absent") return { kind: "not_placed" };
    if (found.kind === "final") return { kind: "final", record: found.record };
    let reason = found.kind === "unresolved" ? found.reason : "lookup not settled";
    if (found.kind === "pending" && found.record !== undefined) order.orderId = found.record.order_id;
    if (found.kind === "unresolved" || order.rounds >= LIST_AFTER_ROUNDS) {
      const startT = order.sentAt - LIST_SLACK_MS;
      const listed = await findInOrderList((page) => orders.ordersOf(symbol, { startT, page, signal }), clientOrderId);
      if (!current() || signal.aborted) return { kind: "moot" };
      if (listed.kind === "final") return { kind: "final", record: listed.record };
      if (listed.kind === "absent") {
        // Not in the venue's list: never placed. The positions are read first, so that the next slice
        // is planned on what the account holds even if the venue applied it after all.
        logger.info({ symbol, clientOrderId, reason }, "unwind order not in the venue's order list: not placed");
        await this.#confirmPositions();
        return current() ? { kind: "not_placed" } : { kind: "moot" };
      }
      if (listed.kind === "working") order.orderId = listed.record.order_id;
      reason = listed.kind === "working" ? `still ${listed.record.status}` : listed.reason;
    }
    if (order.rounds < this.#options.maxSettleRounds) {
      return { kind: "again", ms: this.#options.lookupRetryMs * 2 ** Math.min(order.rounds - 1, 3) };
    }
    // Neither the lookup nor the list settles it: stop asking (an alert), re-read the positions and go on
    // from what the account holds. Reduce-only orders cannot flip the position, even if this one still works.
    this.#options.unsettled(symbol);
    logger.error(
      { symbol, clientOrderId, rounds: order.rounds, reason },
      "unwind order could not be settled: given up, positions re-read, unwinding goes on from what the account holds",
    );
    await this.#confirmPositions();
    return current() ? { kind: "given_up" } : { kind: "moot" };
  }

  /** A positions read applied, retried with backoff while the venue does not answer (until stopped). */
  async #confirmPositions(): Promise<void> {
    const { readPositions, signal, logger } = this.#options;
    for (let failures = 0; !signal.aborted; failures++) {
      try {
        return await readPositions(signal);
      } catch (err) {
        if (failures === 0) logger.warn({ err: (err as Error).message }, "positions read for an unsettled order failed; retrying");
        await sleep(Math.min(5_000, 500 * 2 ** Math.min(failures, 4)), signal);
      }
    }
  }
}
