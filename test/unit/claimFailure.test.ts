/**
 * A failed claim's next step is decided by error code (docs/architecture.md rule 5), never by message text:
 * every venue code of docs/protocol.md §3 and every local failure maps to one action and one pair of
 * bounded metric labels.
 */
import { describe, expect, test } from "vitest";
import { type ClaimFailureAction, classifyClaimFailure, JOURNAL_RESULT_OF } from "../../src/core/claimFailure.js";
import { CLAIM_OUTCOME_RESULTS } from "../../src/core/journalRecords.js";
import { AbortedError } from "../../src/errors.js";
import { CLAIM_RESULTS } from "../../src/observe/failureLabels.js";
import { BadResponseError, TimeoutError, TransportError, VENUE_CODES, VenueError } from "../../src/venue/errors.js";

function venue(code: number, status = VENUE_CODES.get(code)?.status ?? 400, message = "whatever the venue says"): VenueError {
  return new VenueError({ venueCode: code, status, venueMessage: message, endpoint: "/v1/liquidation" });
}

describe("classifyClaimFailure", () => {
  const cases: [string, unknown, ClaimFailureAction, string, string][] = [
    ["-1202 gone or fully claimed", venue(-1202), "gone", "rejected", "-1202"],
    ["-1012 another claim in process", venue(-1012), "retry_racing", "rejected", "-1012"],
    ["-1011 internal network error", venue(-1011), "retry_transient", "error", "-1011"],
    ["-1003 rate limited", venue(-1003), "backoff", "error", "-1003"],
    ["-1203 price moved past the limit", venue(-1203), "reevaluate", "rejected", "-1203"],
    ["-1101 insufficient margin", venue(-1101), "reread_account", "rejected", "-1101"],
    ["-1201 ratio too small", venue(-1201), "rejected", "rejected", "-1201"],
    ["-1005 bad parameter", venue(-1005), "rejected", "error", "-1005"],
    ["-1004 unknown parameter", venue(-1004), "rejected", "error", "-1004"],
    ["-1006 not found", venue(-1006), "rejected", "error", "-1006"],
    ["-1007 duplicate", venue(-1007, 409), "rejected", "error", "-1007"],
    ["-1001 bad signature", venue(-1001), "rejected", "error", "-1001"],
    ["-1002 unauthorized", venue(-1002), "rejected", "error", "-1002"],
    // A 5xx is ambiguous for a write: the venue may have applied it before failing.
    ["-1000 unknown error (HTTP 500)", venue(-1000, 500), "unknown", "unknown", "-1000"],
    ["an unmapped code on a 502", venue(-9999, 502), "unknown", "unknown", "other"],
    // Not in the failure table (the real venue's limit_price code is unpublished): re-decided while open.
    ["an unmapped code on a 400", venue(-9999, 400), "redecide", "error", "other"],
    ["transport failure after the request was written", new TransportError("socket hang up", true), "unknown", "unknown", "LIQ_TRANSPORT"],
    [
      "transport failure before anything left",
      new TransportError("connect ECONNREFUSED", false),
      "retry_transient",
      "error",
      "LIQ_TRANSPORT",
    ],
    ["timeout", new TimeoutError("no answer in 5000 ms"), "unknown", "unknown", "LIQ_TIMEOUT"],
    ["an unreadable 2xx answer", new BadResponseError("/v1/liquidation", "body is not JSON"), "unknown", "unknown", "LIQ_BAD_RESPONSE"],
    ["aborted by shutdown", new AbortedError(), "unknown", "unknown", "LIQ_ABORTED"],
    ["anything else", new Error("boom"), "unknown", "unknown", "other"],
  ];
  test.each(cases)("%s", (_name, err, action, result, code) => {
    expect(classifyClaimFailure(err)).toEqual({ action, result, code });
  });

  test.each(cases)("%s: the journal says unknown exactly when the next step waits on an unknown outcome", (_name, err, action) => {
    const journaled = JOURNAL_RESULT_OF[classifyClaimFailure(err).result];
    expect(journaled).toBe(action === "unknown" ? "unknown" : "rejected");
  });

  test("every metric label has a journal word, and every journal word but not_accepted and given_up is some label's", () => {
    expect(Object.keys(JOURNAL_RESULT_OF).sort()).toEqual([...CLAIM_RESULTS].sort());
    const words = new Set(Object.values(JOURNAL_RESULT_OF));
    // Both are later resolutions of an unknown outcome (the venue's record, the bound): no answer, no count.
    expect(CLAIM_OUTCOME_RESULTS.filter((w) => !words.has(w))).toEqual(["not_accepted", "given_up"]);
  });

  test("decided by code, not message: the same text under different codes maps differently", () => {
    expect(classifyClaimFailure(venue(-1202, 400, "rate limit exceeded")).action).toBe("gone");
    expect(classifyClaimFailure(venue(-1003, 429, "liquidation gone")).action).toBe("backoff");
  });

  test("every venue code of docs/protocol.md §3 has a bounded code label", () => {
    for (const code of VENUE_CODES.keys()) expect(classifyClaimFailure(venue(code)).code).toBe(String(code));
  });
});
