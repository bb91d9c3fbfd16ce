/**
 * The project's errors. Every error thrown on purpose is a `LiquidatorError` with a stable `code`
 * from `ERROR_CODES`; callers decide retry / skip / fatal by code (and, for venue refusals, by the
 * venue code's entry in venue/errors.ts), never by message text. The code list is declared once:
 * the type, the metric labels (`codeLabel`) and the exit statuses (`exitStatusFor`) derive from it.
 * Messages are for humans and never carry a secret.
 */

/** Exit statuses (sysexits.h): 64 usage, 78 configuration, 1 anything else. */
export const EXIT_USAGE = 64;
const EXIT_CONFIG = 78;
export const EXIT_FAILURE = 1;
/** sysexits.h EX_DATAERR: an input file (a capture) is malformed. */
const EXIT_DATA = 65;
/**
 * A safe stop (SIGUSR2) that ended with claimed positions above dust still open (dry run,
 * `unwind.mode: off`, held symbols, a halted symbol): the process stopped as asked, but not flat.
 */
export const EXIT_POSITIONS_OPEN = 3;

export const ERROR_CODES = {
  /** The venue answered with an error envelope (VenueError; its venue code says which). */
  LIQ_VENUE: EXIT_FAILURE,
  /** A request failed below HTTP (connect, reset, socket closed). */
  LIQ_TRANSPORT: EXIT_FAILURE,
  /** No complete answer within the configured time. */
  LIQ_TIMEOUT: EXIT_FAILURE,
  /** The caller's AbortSignal fired. */
  LIQ_ABORTED: EXIT_FAILURE,
  /** The venue answered, but not with a valid envelope or payload. */
  LIQ_BAD_RESPONSE: EXIT_FAILURE,
  /** A secret or public key that cannot be parsed. */
  LIQ_BAD_KEY: EXIT_FAILURE,
  /** Invalid configuration: the operator fixes a key or a variable. */
  LIQ_CONFIG: EXIT_CONFIG,
  /** The claims journal cannot be written: claiming must stop. */
  LIQ_JOURNAL: EXIT_FAILURE,
  /** A capture file that cannot be read: truncated, corrupt, or of an unknown format version. */
  LIQ_CAPTURE: EXIT_DATA,
  /** A command-line mistake by the user. */
  LIQ_USAGE: EXIT_USAGE,
  /** A programmer's mistake (a bad option, a call out of order): a bug, not an operator's error. */
  LIQ_INVALID_ARGUMENT: EXIT_FAILURE,
  /** A newer leader holds the lease: this replica may not write intents (HA). */
  LIQ_FENCED: EXIT_FAILURE,
  /** The database refused a second intent for one liquidation id or order (HA). */
  LIQ_DUPLICATE: EXIT_FAILURE,
  /** The database could not be reached or did not answer in time (HA). */
  LIQ_DATABASE_UNAVAILABLE: EXIT_FAILURE,
  /** The database answered with an error this project did not expect (HA). */
  LIQ_DATABASE: EXIT_FAILURE,
} as const;

export type LiquidatorErrorCode = keyof typeof ERROR_CODES;

export class LiquidatorError extends Error {
  readonly code: LiquidatorErrorCode;
  constructor(code: LiquidatorErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

export function exitStatusFor(err: LiquidatorError): number {
  return ERROR_CODES[err.code];
}

export function isErrorCode(code: string): code is LiquidatorErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** `key` is the config path (e.g. `policy.min_fee`) or variable so the operator knows what to fix. */
export class ConfigError extends LiquidatorError {
  readonly key: string;
  constructor(key: string, problem: string) {
    super("LIQ_CONFIG", `config ${key}: ${problem}`);
    this.key = key;
  }
}

export class UsageError extends LiquidatorError {
  constructor(message: string) {
    super("LIQ_USAGE", message);
  }
}

/** A bad argument or option from code (undici's InvalidArgumentError): always a bug. */
export class InvalidArgumentError extends LiquidatorError {
  constructor(message: string) {
    super("LIQ_INVALID_ARGUMENT", message);
  }
}

export class AbortedError extends LiquidatorError {
  constructor(message = "operation aborted", options?: { cause?: unknown }) {
    super("LIQ_ABORTED", message, options);
  }
}

export class KeyFormatError extends LiquidatorError {
  constructor(message: string) {
    super("LIQ_BAD_KEY", message);
  }
}

/** The journal could not record an intent or outcome; no claim may be sent without its intent. */
export class JournalError extends LiquidatorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("LIQ_JOURNAL", message, options);
  }
}

/** A capture file (docs/policy-lab.md) that cannot be replayed; the message names the file and line. */
export class CaptureError extends LiquidatorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("LIQ_CAPTURE", message, options);
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
