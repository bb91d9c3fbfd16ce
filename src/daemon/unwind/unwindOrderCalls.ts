/**
 * What a lookup of an order by client order id means for the order in hand (over, still working,
 * never there, or not answered); a failed placement is core/placementFailure.ts. Pure reading of
 * errors and records, so the unwinder's state machine deals in outcomes, not in error types.
 */
import { lookupFailureAction } from "../../venue/errors.js";
import type { OrderRecord } from "../../venue/orderSchemas.js";
import { TERMINAL_STATUSES } from "../../venue/wireOrders.js";

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
