/**
 * The state of a claim (per liquidation id) or an order (per client order id) in the store, derived
 * from the file journal's outcomes, and which states admit a new intent for the same key.
 *
 * Claims:
 * - `intent`: written, no outcome yet: in flight, or the sender died. May have been applied.
 * - `accepted` / `confirmed`: the venue applied it. Final.
 * - `rejected`: refused for good (gone, fully claimed, any refusal not marked retryable). Final.
 * - `retryable`: refused without being processed (the caller marks it: -1011, -1012, -1003, -1203,
 *   -1101, a request that never left), so the id may be claimed again.
 * - `unknown`: may have been applied; blocked until resolved as `confirmed` or `not_accepted`.
 * - `not_accepted`: an unknown one shown not applied (open list, timeout): may be claimed again.
 * - `dry_run`: decided, nothing sent: may be claimed for real.
 * - `imported`: claimed under the file backend (importFileJournal): never again.
 * - `given_up`: unknown, and the venue's record could not settle it in its bound: never again
 *   (a late confirmation may still move it to `confirmed`).
 * Orders use the same words, with `filled` / `cancelled` (final) in place of `confirmed`.
 */
import type { OrderResult, OutcomeRecord } from "../../core/journalRecords.js";

export const CLAIM_STATES = [
  "intent",
  "accepted",
  "confirmed",
  "rejected",
  "retryable",
  "unknown",
  "not_accepted",
  "dry_run",
  "imported",
  "given_up",
] as const;
export type ClaimState = (typeof CLAIM_STATES)[number];

export const ORDER_STATES = [
  "intent",
  "accepted",
  "filled",
  "cancelled",
  "rejected",
  "retryable",
  "unknown",
  "not_accepted",
  "dry_run",
] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** States in which a new intent for the same key is accepted (attempt + 1). */
export const RECLAIMABLE_STATES: readonly (ClaimState & OrderState)[] = ["retryable", "not_accepted", "dry_run"];

/** States no later outcome may change: the venue's "applied" is the last word. */
export const SETTLED_CLAIM_STATES: readonly ClaimState[] = ["accepted", "confirmed", "imported"];
export const SETTLED_ORDER_STATES: readonly OrderState[] = ["filled", "cancelled"];

export function claimStateOf(result: OutcomeRecord["result"], reclaimable: boolean): ClaimState {
  return result === "rejected" && reclaimable ? "retryable" : result;
}

export function orderStateOf(result: OrderResult, reclaimable: boolean): OrderState {
  return result === "rejected" && reclaimable ? "retryable" : result;
}
