/**
 * What a failed order placement means for the order in hand: lost (it may have reached the venue:
 * look it up, never resend), or refused for a reason its venue code names (the failure table).
 * Pure reading of errors, so the core and the unwinder deal in outcomes, not in error types.
 */
import { type OrderFailureAction, TimeoutError, TransportError, VenueError } from "../venue/errors.js";

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
