/** Errors of the state store (file journal or PostgreSQL): what a refused or failed intent means. */
import { LiquidatorError } from "../errors.js";

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
