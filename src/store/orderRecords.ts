/**
 * Journal records of unwind orders, the order counterpart of the claim records of
 * src/daemon/journal.ts: an order intent is written (fenced, in the PostgreSQL store) before the
 * order is sent, keyed by its deterministic `clientOrderId`, and outcomes follow as the venue answers.
 */

/**
 * accepted: the venue took the order (fills follow). filled / cancelled: the order is over (an IOC's
 * unfilled rest is cancelled; `filledQty` says how much traded). rejected: refused (code says why).
 * unknown: may have reached the venue, no answer; look it up by client order id, never resend
 * blindly. not_accepted: an unknown one found not to exist. dry_run: decided, deliberately not sent.
 */
export type OrderResult = "accepted" | "filled" | "cancelled" | "rejected" | "unknown" | "not_accepted" | "dry_run";

export interface OrderIntentRecord {
  t: "order_intent";
  /** ≤ 36 chars of letters, digits and `-` (PROTOCOL.md, POST /v1/order). */
  clientOrderId: string;
  /** Wall clock, ms. */
  at: number;
  symbol: string;
  side: "BUY" | "SELL";
  orderType: "IOC" | "LIMIT" | "FOK" | "MARKET" | "POST_ONLY";
  price: number;
  quantity: number;
  reduceOnly: boolean;
  /** The claim whose assigned position this order unwinds, if any. */
  liquidationId?: number;
  dryRun?: boolean;
}

export interface OrderOutcomeRecord {
  t: "order_outcome";
  clientOrderId: string;
  at: number;
  result: OrderResult;
  orderId?: number;
  code?: number;
  /** Cumulative executed base quantity (signed like the order's side: + buy, − sell). */
  filledQty?: number;
  avgPrice?: number;
  fee?: number;
  venueTs?: number;
}

export interface OrderReplay {
  /** Last intent per client order id. */
  intents: Map<string, OrderIntentRecord>;
  /** Outcomes per client order id, in journal order. */
  outcomes: Map<string, OrderOutcomeRecord[]>;
}
