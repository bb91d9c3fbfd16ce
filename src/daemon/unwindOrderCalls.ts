/**
 * What the unwinder's two venue calls mean for the order in hand: a placement that failed (lost,
 * refused for a reason the venue code names, or not sent at all) and a lookup by client order id
 * (over, still working, never there, or not answered). Pure reading of errors and records, so the
 * unwinder's state machine deals in outcomes, not in transport and venue error types.
 */
import { lookupFailureAction, type OrderFailureAction, TimeoutError, TransportError, VenueError } from "../venue/errors.js";
import type { OrderRecord } from "../venue/orderSchemas.js";
import { TERMINAL_STATUSES } from "../venue/wireOrders.js";

export type PlacementFailure =
  /** The request may have reached the venue: look the order up, never resend it blindly. */
  | { kind: "maybe_applied" }
  /** The venue refused it; `action` is what its code means for an order (venue/errors.ts). */
  | { kind: "refused"; code: number | undefined; action: OrderFailureAction };

export function placementFailure(err: unknown): PlacementFailure {
  const maybeApplied =
    err instanceof TimeoutError ||
    (err instanceof TransportError && err.maybeDelivered) ||
    (err instanceof VenueError && err.status >= 500) ||
    !(err instanceof VenueError || err instanceof TransportError);
  if (maybeApplied) return { kind: "maybe_applied" };
  if (err instanceof VenueError) return { kind: "refused", code: err.venueCode, action: err.meaning.order };
  return { kind: "refused", code: undefined, action: "retry" };
}

export type Lookup =
  /** The venue has no order with this client id: it never arrived. */
  | { kind: "absent" }
  /** Over: the record's totals are final. */
  | { kind: "final"; record: OrderRecord }
  /** Still working (or the answer did not come): ask again later. */
  | { kind: "pending"; record: OrderRecord | undefined }
  /** An answer the failure table says the lookup cannot settle: settle it through the order list. */
  | { kind: "unresolved"; reason: string };

export async function lookUpOrder(get: (clientOrderId: string) => Promise<OrderRecord>, clientOrderId: string): Promise<Lookup> {
  let record: OrderRecord;
  try {
    record = await get(clientOrderId);
  } catch (err) {
    const action = lookupFailureAction(err);
    if (action === "absent") return { kind: "absent" };
    if (action === "retry") return { kind: "pending", record: undefined };
    return { kind: "unresolved", reason: err instanceof Error ? err.message : String(err) };
  }
  return TERMINAL_STATUSES.has(record.status) ? { kind: "final", record } : { kind: "pending", record };
}
