/**
 * The one registry of typed errors. Callers decide retry / skip / fatal by `code` (and, for venue
 * refusals, by `kind`), never by message text. Messages are for humans and never carry a secret.
 */

/** Stable codes of every error this project throws on purpose. */
export type LiquidatorErrorCode =
  | "LIQ_VENUE" // the venue answered with an error envelope (see VenueError.kind)
  | "LIQ_TRANSPORT" // the request failed below HTTP (connect, reset, socket closed)
  | "LIQ_TIMEOUT" // no complete answer within the configured time
  | "LIQ_ABORTED" // the caller's AbortSignal fired
  | "LIQ_BAD_RESPONSE" // the venue answered, but not with a valid envelope/payload
  | "LIQ_BAD_KEY" // a secret or public key that cannot be parsed
  | "LIQ_CONFIG" // configuration invalid (exit status 78)
  | "LIQ_JOURNAL" // the claims journal cannot be written: claiming must stop
  | "LIQ_FENCED" // an intent under a term that no longer holds the lease: this replica must not send
  | "LIQ_DUPLICATE" // an intent for an id the store already holds in a state that forbids another
  | "LIQ_DATABASE_UNAVAILABLE" // the database could not be reached or did not answer in time
  | "LIQ_DATABASE" // the database answered with an error this project did not expect
  | "LIQ_USAGE"; // a command-line mistake by the user

export class LiquidatorError extends Error {
  readonly code: LiquidatorErrorCode;
  constructor(code: LiquidatorErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Venue error kinds, one per code of PROTOCOL.md §3, plus `unmapped` for anything else. */
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
  | "ratio_too_small"
  | "liquidation_gone"
  | "price_moved"
  | "unmapped";

/** PROTOCOL.md §3: venue code → kind and the HTTP status the venue pairs it with. */
export const VENUE_CODES: ReadonlyMap<number, { kind: VenueErrorKind; status: number; text: string }> = new Map([
  [-1000, { kind: "unknown", status: 500, text: "unknown error" }],
  [-1001, { kind: "bad_signature", status: 401, text: "signature or key in wrong format" }],
  [-1002, { kind: "unauthorized", status: 401, text: "key not authorised or timestamp out of range" }],
  [-1003, { kind: "rate_limited", status: 429, text: "rate limit exceeded" }],
  [-1004, { kind: "unknown_param", status: 400, text: "unknown parameter" }],
  [-1005, { kind: "bad_param", status: 400, text: "parameter in wrong format or out of range" }],
  [-1006, { kind: "not_found", status: 400, text: "data not found" }],
  [-1007, { kind: "duplicate", status: 409, text: "duplicate request" }],
  [-1011, { kind: "retry_later", status: 400, text: "internal network error, retry later" }],
  [-1012, { kind: "claim_in_process", status: 400, text: "another claim is in process for this id" }],
  [-1101, { kind: "insufficient_margin", status: 400, text: "insufficient margin" }],
  [-1201, { kind: "ratio_too_small", status: 400, text: "claim ratio too small" }],
  [-1202, { kind: "liquidation_gone", status: 400, text: "liquidation gone or fully claimed" }],
  [-1203, { kind: "price_moved", status: 400, text: "claim rejected by limit_price" }],
]);

export class VenueError extends LiquidatorError {
  readonly venueCode: number;
  readonly status: number;
  readonly kind: VenueErrorKind;
  readonly venueMessage: string;
  readonly endpoint: string;
  constructor(p: { venueCode: number; status: number; venueMessage: string; endpoint: string }) {
    const kind = VENUE_CODES.get(p.venueCode)?.kind ?? "unmapped";
    super("LIQ_VENUE", `venue refused ${p.endpoint}: ${p.venueCode} ${p.venueMessage} (HTTP ${p.status})`);
    this.venueCode = p.venueCode;
    this.status = p.status;
    this.kind = kind;
    this.venueMessage = p.venueMessage;
    this.endpoint = p.endpoint;
  }
}

/**
 * Failure below HTTP. `maybeDelivered` is true when the request bytes may have reached the venue
 * (the failure came after the request was written): a claim in that state has an unknown outcome and
 * must not be resent blindly.
 */
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

export class AbortedError extends LiquidatorError {
  constructor(message = "operation aborted", options?: { cause?: unknown }) {
    super("LIQ_ABORTED", message, options);
  }
}

export class BadResponseError extends LiquidatorError {
  readonly endpoint: string;
  constructor(endpoint: string, detail: string, options?: { cause?: unknown }) {
    super("LIQ_BAD_RESPONSE", `invalid response from ${endpoint}: ${detail}`, options);
    this.endpoint = endpoint;
  }
}

export class KeyFormatError extends LiquidatorError {
  constructor(message: string) {
    super("LIQ_BAD_KEY", message);
  }
}

/** `key` is the config path (e.g. `policy.min_fee`) so the operator knows what to fix. */
export class ConfigError extends LiquidatorError {
  readonly key: string;
  constructor(key: string, problem: string) {
    super("LIQ_CONFIG", `config ${key}: ${problem}`);
    this.key = key;
  }
}

/** The journal could not record an intent or outcome; no claim may be sent without its intent. */
export class JournalError extends LiquidatorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("LIQ_JOURNAL", message, options);
  }
}

/**
 * The store refused an intent because `term` (and this replica as holder) no longer hold an unexpired
 * lease: another replica leads, or this one's lease ran out. Nothing was written; do not send.
 */
export class FencedError extends LiquidatorError {
  readonly accountId: string;
  readonly term: number;
  constructor(accountId: string, term: number, detail: string) {
    super("LIQ_FENCED", `intent fenced for account ${accountId} at term ${term}: ${detail}`);
    this.accountId = accountId;
    this.term = term;
  }
}

/**
 * The store already holds an intent for this key (liquidation id or client order id) in `state`, a
 * state that allows no new intent. Nothing was written; do not send.
 */
export class DuplicateClaimError extends LiquidatorError {
  readonly key: string;
  readonly state: string;
  constructor(key: string, state: string) {
    super("LIQ_DUPLICATE", `an intent for ${key} already exists (state ${state}); not sent again`);
    this.key = key;
    this.state = state;
  }
}

/**
 * The database was not reached, or did not answer within the configured timeouts. For a write, its
 * fate is unknown: an intent that failed this way must be treated as not written (nothing is sent),
 * yet may have committed (its id then stays blocked in state `intent`, never claimed twice).
 */
export class DatabaseUnavailableError extends LiquidatorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("LIQ_DATABASE_UNAVAILABLE", message, options);
  }
}

/** The database answered with an error (SQLSTATE in `sqlState`) this project does not expect. */
export class DatabaseError extends LiquidatorError {
  readonly sqlState: string | undefined;
  constructor(message: string, sqlState: string | undefined, options?: { cause?: unknown }) {
    super("LIQ_DATABASE", message, options);
    this.sqlState = sqlState;
  }
}

export class UsageError extends LiquidatorError {
  constructor(message: string) {
    super("LIQ_USAGE", message);
  }
}

/** True for failures a GET may be retried on: -1003, -1011, any 5xx, and transport/timeouts. */
export function isRetryableRead(err: unknown): boolean {
  if (err instanceof VenueError) {
    return err.venueCode === -1003 || err.venueCode === -1011 || err.status >= 500;
  }
  return err instanceof TransportError || err instanceof TimeoutError;
}
