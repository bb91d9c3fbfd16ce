/**
 * Errors of the PostgreSQL store: the database away or answering an error. What a refused intent
 * means for the claim (fenced, a duplicate) is in errors.ts: the trading core reads those.
 */
import { LiquidatorError } from "../errors.js";

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
