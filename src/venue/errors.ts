/**
 * Errors of talking to the venue, and what each venue code means (docs/protocol.md §3). The
 * table `VENUE_CODES` is the one place that says, per code, what a read does (retry or fail), what a
 * claim does next, what an unwind order does next, and how the claim metric labels it; everything
 * else derives from it.
 */
import { LiquidatorError } from "../errors.js";

/** What a claim refused with a venue code does next (daemon/claimOutcome.ts acts on it). */
export type ClaimFailureAction =
  /** Gone or fully claimed: forget it. */
  | "gone"
  /** Another claim on the id is in process: try once more a little later. */
  | "retry_racing"
  /** Not processed (retry in a few seconds, or the request never left): try again later. */
  | "retry_transient"
  /** The claim window is full: put it back and hold every claim for one window. */
  | "backoff"
  /** The mark moved past our limit: re-decide once on fresh marks. */
  | "reevaluate"
  /** Not enough margin: stop claiming for a while and say so. */
  | "pause_margin"
  /** The request may have reached the venue and no answer came: never resent blindly. */
  | "unknown"
  /** Any other refusal: record it and move on. */
  | "rejected";

/** What an unwind order refused with a venue code does next (daemon/unwinder.ts acts on it). */
export type OrderFailureAction =
  /** The position is smaller than thought (or gone): re-read positions before the next slice. */
  | "reread_positions"
  /** The price is out of the allowed band: re-price on a fresh mark. */
  | "reprice"
  /** Not processed: retry with backoff. */
  | "retry"
  /** The order limit is full: wait one window. */
  | "backoff"
  /** Must not happen to a reduce-only order: stop unwinding that symbol and alert. */
  | "halt_symbol"
  /** Anything else: count it, retry the slice later. */
  | "rejected";

export type VenueErrorKind =
  | "unknown"
  | "bad_signature"
  | "unauthorized"
  | "rate_limited"
  | "unknown_param"
  | "bad_param"
  | "not_found"
  | "duplicate"
  | "retry_later"
  | "claim_in_process"
  | "insufficient_margin"
  | "price_filter"
  | "ratio_too_small"
  | "liquidation_gone"
  | "price_moved"
  | "min_notional"
  | "quantity_filter"
  | "reduce_only_refused"
  | "unmapped";

export interface VenueCodeMeaning {
  readonly kind: VenueErrorKind;
  /** The HTTP status the venue pairs it with. */
  readonly status: number;
  readonly text: string;
  /** A GET answered with it may be retried. */
  readonly retryRead: boolean;
  readonly claim: ClaimFailureAction;
  readonly order: OrderFailureAction;
  /**
   * `claims_result_total{result}` of a claim refused with it: `rejected` when competition or the
   * market explains it, `error` when it should not happen.
   */
  readonly result: "rejected" | "error";
}

const row = (
  kind: VenueErrorKind,
  status: number,
  text: string,
  claim: ClaimFailureAction,
  order: OrderFailureAction,
  result: "rejected" | "error",
  retryRead = false,
): VenueCodeMeaning => ({ kind, status, text, retryRead, claim, order, result });

/** docs/protocol.md §3: every code the venue answers, and what it means here. */
export const VENUE_CODES: ReadonlyMap<number, VenueCodeMeaning> = new Map([
  [-1000, row("unknown", 500, "unknown error", "rejected", "retry", "error")],
  [-1001, row("bad_signature", 401, "signature or key in wrong format", "rejected", "rejected", "error")],
  [-1002, row("unauthorized", 401, "key not authorised or timestamp out of range", "rejected", "rejected", "error")],
  [-1003, row("rate_limited", 429, "rate limit exceeded", "backoff", "backoff", "error", true)],
  [-1004, row("unknown_param", 400, "unknown parameter", "rejected", "rejected", "error")],
  [-1005, row("bad_param", 400, "parameter in wrong format or out of range", "rejected", "rejected", "error")],
  [-1006, row("not_found", 400, "data not found", "rejected", "rejected", "error")],
  [-1007, row("duplicate", 409, "duplicate request", "rejected", "rejected", "error")],
  [-1011, row("retry_later", 400, "internal network error, retry later", "retry_transient", "retry", "error", true)],
  [-1012, row("claim_in_process", 400, "another request is in process", "retry_racing", "retry", "rejected")],
  [-1101, row("insufficient_margin", 400, "insufficient margin", "pause_margin", "halt_symbol", "rejected")],
  [-1102, row("min_notional", 400, "order value below the minimum notional", "rejected", "rejected", "error")],
  [-1104, row("quantity_filter", 400, "quantity outside the symbol's filters", "rejected", "reread_positions", "error")],
  [-1103, row("price_filter", 400, "price outside the quote bounds or off the tick", "rejected", "reprice", "error")],
  [-1105, row("price_filter", 400, "price outside the allowed range", "rejected", "reprice", "error")],
  [-1106, row("reduce_only_refused", 400, "reduce-only order would not reduce the position", "rejected", "reread_positions", "error")],
  [-1201, row("ratio_too_small", 400, "claim ratio too small", "rejected", "rejected", "rejected")],
  [-1202, row("liquidation_gone", 400, "liquidation gone or fully claimed", "gone", "rejected", "rejected")],
  [-1203, row("price_moved", 400, "claim rejected by limit_price", "reevaluate", "reprice", "rejected")],
]);

/** The meaning of a code the table does not know: an error, never retried, never a retry of a claim. */
export const UNMAPPED_CODE: VenueCodeMeaning = row("unmapped", 400, "unmapped venue code", "rejected", "rejected", "error");

export function venueCodeMeaning(code: number): VenueCodeMeaning {
  return VENUE_CODES.get(code) ?? UNMAPPED_CODE;
}

export class VenueError extends LiquidatorError {
  readonly venueCode: number;
  readonly status: number;
  readonly kind: VenueErrorKind;
  readonly meaning: VenueCodeMeaning;
  readonly venueMessage: string;
  readonly endpoint: string;
  constructor(p: { venueCode: number; status: number; venueMessage: string; endpoint: string }) {
    const meaning = venueCodeMeaning(p.venueCode);
    super("LIQ_VENUE", `venue refused ${p.endpoint}: ${p.venueCode} ${p.venueMessage} (HTTP ${p.status})`);
    this.venueCode = p.venueCode;
    this.status = p.status;
    this.kind = meaning.kind;
    this.meaning = meaning;
    this.venueMessage = p.venueMessage;
    this.endpoint = p.endpoint;
  }
}

/**
 * Failure below HTTP. `maybeDelivered` is true when the request bytes may have reached the venue
 * (the failure came after the request was written): a claim or order in that state has an unknown
 * outcome and must not be resent blindly.
 */
/**
 * Error codes raised before a request could be written (httpTransport.ts, claimConnection.ts): the venue cannot have seen it, so even a
 * claim that failed this way may be re-decided. Anything else after the socket existed may have been
 * delivered (docs/architecture.md "The journal and the hot path": a claim in that state has an unknown outcome).
 */
export const NOT_DELIVERED_CODES = new Set<string>([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED", // the pool was closed before this request was dispatched
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
]);

export class TransportError extends LiquidatorError {
  readonly maybeDelivered: boolean;
  constructor(message: string, maybeDelivered: boolean, options?: { cause?: unknown }) {
    super("LIQ_TRANSPORT", message, options);
    this.maybeDelivered = maybeDelivered;
  }
}

export class TimeoutError extends LiquidatorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("LIQ_TIMEOUT", message, options);
  }
}

export class BadResponseError extends LiquidatorError {
  readonly endpoint: string;
  constructor(endpoint: string, detail: string, options?: { cause?: unknown }) {
    super("LIQ_BAD_RESPONSE", `invalid response from ${endpoint}: ${detail}`, options);
    this.endpoint = endpoint;
  }
}

/** True for failures a GET may be retried on: the table's retryable codes, any 5xx, transport and timeouts. */
export function isRetryableRead(err: unknown): boolean {
  if (err instanceof VenueError) return err.meaning.retryRead || err.status >= 500;
  return err instanceof TransportError || err instanceof TimeoutError;
}

/** What a refused or failed claim does next. */
export function claimFailureAction(err: unknown): ClaimFailureAction {
  if (err instanceof VenueError) {
    const action = err.meaning.claim;
    // A 5xx is ambiguous for a write: the venue may have applied the claim before failing.
    return action === "rejected" && err.status >= 500 ? "unknown" : action;
  }
  if (err instanceof TransportError) return err.maybeDelivered ? "unknown" : "retry_transient";
  // Timeout, shutdown's hard deadline, an unreadable 2xx answer, anything unexpected: it may have
  // been applied, so it is unknown and never resent blindly.
  return "unknown";
}
