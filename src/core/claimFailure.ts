/**
 * What a failed claim means for the next step, decided by error code (venue/errors.ts's table),
 * never by message text, with the `claims_result_total` labels the journal agrees with. Pure: the
 * claimer acts on the answer.
 */
import { type ClaimResultLabel, claimOutcomeLabels } from "../observe/failureLabels.js";
import { type ClaimFailureAction, claimFailureAction } from "../venue/errors.js";
import type { ClaimOutcomeResult } from "./journalRecords.js";

export type { ClaimFailureAction } from "../venue/errors.js";

export interface ClaimFailure {
  action: ClaimFailureAction;
  /** `result` and `code` labels of claims_result_total (observe/failureLabels.ts defines the sets). */
  result: ClaimResultLabel;
  code: string;
}

/**
 * The journal's word (`outcome.result`) for each `claims_result_total{result}` label: the one place the
 * two vocabularies meet. They differ on purpose, and both are kept because dashboards, alerts and old
 * journals read them: the metric counts answers and splits a refusal into `rejected` (competition or
 * the market explains it) and `error` (a fault to fix), while the journal records what the claim is
 * now — refused either way is `rejected`, its code says why — and has `not_accepted`, the later
 * resolution of an unknown outcome, which is no answer and so no count.
 */
export const JOURNAL_RESULT_OF: Readonly<Record<ClaimResultLabel, ClaimOutcomeResult>> = {
  success: "accepted",
  rejected: "rejected",
  error: "rejected",
  unknown: "unknown",
  confirmed: "confirmed",
  dry_run: "dry_run",
};

export function classifyClaimFailure(err: unknown): ClaimFailure {
  const action = claimFailureAction(err);
  const labels = claimOutcomeLabels(err);
  // The metric says what the journal says: whatever may have been applied is "unknown".
  return { action, code: labels.code, result: action === "unknown" ? "unknown" : labels.result };
}
