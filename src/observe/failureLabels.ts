/**
 * Bounded label values for failures: a claim's `{result, code}`, a venue or local error code, and a
 * REST status. Unknown values fold into "other" or "error", so a label never grows without limit.
 */
import { isErrorCode, LiquidatorError } from "../errors.js";
import { TimeoutError, TransportError, VENUE_CODES, VenueError } from "../venue/errors.js";

/**
 * `claims_result_total{result}`: success; rejected = the venue refused for a business reason that
 * competition or the market explains (gone, racing, price moved, ratio, margin); error = anything
 * that should not happen (auth, rate limit, bad parameter, 5xx, invalid answer, undelivered);
 * unknown = the request may have reached the venue but no answer came (outcome unknown);
 * confirmed = an unknown outcome later confirmed by the private stream; dry_run = decided, not sent.
 */
export const CLAIM_RESULTS = ["success", "rejected", "error", "unknown", "confirmed", "dry_run"] as const;
export type ClaimResultLabel = (typeof CLAIM_RESULTS)[number];

/**
 * Bounded `code` label: a venue code of the venue's table as its decimal text, a local error code
 * (`LIQ_*`, errors.ts) as is, "none" for no code, "other" for anything else.
 */
function codeLabel(code: number | string | undefined): string {
  if (code === undefined) return "none";
  if (typeof code === "number") return VENUE_CODES.has(code) ? String(code) : "other";
  return isErrorCode(code) ? code : "other";
}

/** `{result, code}` of a claim: `undefined` for success, else the error it failed with. */
export function claimOutcomeLabels(err: unknown): { result: ClaimResultLabel; code: string } {
  if (err === undefined) return { result: "success", code: "none" };
  if (err instanceof VenueError) return { result: err.meaning.result, code: codeLabel(err.venueCode) };
  if (err instanceof TimeoutError) return { result: "unknown", code: err.code };
  if (err instanceof TransportError) return { result: err.maybeDelivered ? "unknown" : "error", code: err.code };
  if (err instanceof LiquidatorError) return { result: "error", code: codeLabel(err.code) };
  return { result: "error", code: "other" };
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { codeLabel as codeLabelForTests };
