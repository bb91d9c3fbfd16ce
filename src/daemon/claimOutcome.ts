/**
 * What a failed claim means for the next step, decided by error code (DESIGN.md rule 5), never by
 * message text. Pure: the claimer acts on the answer.
 */
import { type ClaimResult as ClaimResultLabel, claimOutcomeLabels } from "../observe/metrics.js";
import { TransportError, VenueError } from "../venue/errors.js";

export type ClaimFailureAction =
  /** -1202: gone or fully claimed; forget it. */
  | "gone"
  /** -1012: another claim on the id is in process; try once more a little later. */
  | "retry_racing"
  /** The venue did not process it (-1011, a failure before the request left): try once more later. */
  | "retry_transient"
  /** -1003: the claim window is full; put it back and hold every claim for one window. */
  | "backoff"
  /** -1203: the mark moved past our limit; re-decide once on fresh marks. */
  | "reevaluate"
  /** -1101: not enough margin; stop claiming for a while and say so. */
  | "pause_margin"
  /** The request may have reached the venue and no answer came: outcome unknown, never resent blindly. */
  | "unknown"
  /** Any other refusal: record it and move on. */
  | "rejected";

export interface ClaimFailure {
  action: ClaimFailureAction;
  /** `result` and `code` labels of claims_result_total (observe/metrics.ts defines the sets). */
  result: ClaimResultLabel;
  code: string;
}

export function classifyClaimFailure(err: unknown): ClaimFailure {
  const action = failureAction(err);
  const labels = claimOutcomeLabels(err);
  // The metric says what the journal says: whatever may have been applied is "unknown".
  return { action, code: labels.code, result: action === "unknown" ? "unknown" : labels.result };
}

function failureAction(err: unknown): ClaimFailureAction {
  if (err instanceof VenueError) {
    switch (err.kind) {
      case "liquidation_gone":
        return "gone";
      case "claim_in_process":
        return "retry_racing";
      case "retry_later":
        return "retry_transient";
      case "rate_limited":
        return "backoff";
      case "price_moved":
        return "reevaluate";
      case "insufficient_margin":
        return "pause_margin";
      default:
        // A 5xx is ambiguous for a write: the venue may have applied the claim before failing.
        return err.status >= 500 ? "unknown" : "rejected";
    }
  }
  if (err instanceof TransportError) return err.maybeDelivered ? "unknown" : "retry_transient";
  // Timeout, shutdown's hard deadline, an unreadable 2xx answer, anything unexpected: it may have
  // been applied, so it is unknown and never resent blindly.
  return "unknown";
}
