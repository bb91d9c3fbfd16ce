/**
 * What a failed claim means for the next step, decided by error code (venue/errors.ts's table),
 * never by message text, with the `claims_result_total` labels the journal agrees with. Pure: the
 * claimer acts on the answer.
 */
import { type ClaimResultLabel, claimOutcomeLabels } from "../observe/metrics.js";
import { type ClaimFailureAction, claimFailureAction } from "../venue/errors.js";

export type { ClaimFailureAction } from "../venue/errors.js";

export interface ClaimFailure {
  action: ClaimFailureAction;
  /** `result` and `code` labels of claims_result_total (observe/metrics.ts defines the sets). */
  result: ClaimResultLabel;
  code: string;
}

export function classifyClaimFailure(err: unknown): ClaimFailure {
  const action = claimFailureAction(err);
  const labels = claimOutcomeLabels(err);
  // The metric says what the journal says: whatever may have been applied is "unknown".
  return { action, code: labels.code, result: action === "unknown" ? "unknown" : labels.result };
}
