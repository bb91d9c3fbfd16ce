/**
 * Errors of talking to the venue, and what a failed call means next, read off the failure table
 * (failureTable.ts: one row per venue code, and one for a code it does not know).
 */
import { ratioNamedIn } from "../engine/leastRatio.js";
import { LiquidatorError } from "../errors.js";
import {
  type ClaimFailureAction,
  claimActionAt,
  type LookupFailureAction,
  RATIO_TOO_SMALL_CODE,
  type VenueCodeMeaning,
  type VenueErrorKind,
  venueCodeMeaning,
} from "./failureTable.js";

export {
  type ClaimFailureAction,
  type ClaimRetry,
  isKnownVenueCode,
  type LookupFailureAction,
  type OrderFailureAction,
  UNKNOWN_CODE,
  VENUE_CODES,
  type VenueCodeMeaning,
  type VenueErrorKind,
  venueCodeMeaning,
} from "./failureTable.js";

export class VenueError extends LiquidatorError {
  readonly venueCode: number;
  readonly status: number;
  readonly kind: VenueErrorKind;
  readonly meaning: VenueCodeMeaning;
  readonly venueMessage: string;
  readonly endpoint: string;
  /**
   * A -1201's least ratio, when its message names one (engine/leastRatio.ts): the claim is decided
   * once more with it. The claim sender clears it when the id had one already (then it is final).
   */
  leastRatio: number | undefined;
  constructor(p: { venueCode: number; status: number; venueMessage: string; endpoint: string }) {
    const meaning = venueCodeMeaning(p.venueCode);
    super("LIQ_VENUE", `venue refused ${p.endpoint}: ${p.venueCode} ${p.venueMessage} (HTTP ${p.status})`);
    this.venueCode = p.venueCode;
    this.status = p.status;
    this.kind = meaning.kind;
    this.meaning = meaning;
    this.venueMessage = p.venueMessage;
    this.endpoint = p.endpoint;
    this.leastRatio = p.venueCode === RATIO_TOO_SMALL_CODE ? ratioNamedIn(p.venueMessage) : undefined;
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
  // -1201 naming the least ratio the venue takes: decided once more with it (engine/leastRatio.ts).
  if (err instanceof VenueError && err.leastRatio !== undefined && err.status < 500) return "redecide";
  if (err instanceof VenueError) return claimActionAt(err.meaning, err.status);
  if (err instanceof TransportError) return err.maybeDelivered ? "unknown" : "retry_transient";
  // Timeout, shutdown's hard deadline, an unreadable 2xx answer, anything unexpected: it may have
  // been applied, so it is unknown and never resent blindly.
  return "unknown";
}

/**
 * What a failed lookup of an order by client order id means: the table's answer for a venue code;
 * a transport failure or a timeout is asked again; anything else (an unreadable record) is settled
 * through the order list.
 */
export function lookupFailureAction(err: unknown): LookupFailureAction {
  if (err instanceof VenueError) return err.meaning.lookup;
  return err instanceof TransportError || err instanceof TimeoutError ? "retry" : "settle";
}
