/**
 * One place that turns what node-postgres throws into the project's typed errors, by SQLSTATE or by
 * the kind of transport failure, never by SQL text: callers branch on `code` (LIQ_FENCED,
 * LIQ_DUPLICATE, LIQ_DATABASE_UNAVAILABLE, LIQ_DATABASE).
 */
import pg from "pg";
import { DuplicateClaimError, FencedError, LiquidatorError } from "../../errors.js";
import { DatabaseError, DatabaseUnavailableError } from "../storeErrors.js";

/** SQLSTATEs raised by the store's own functions (migrations.ts). */
const SQLSTATE_FENCED = "LQ001";
const SQLSTATE_DUPLICATE = "LQ002";

/**
 * Server answers that mean "not now" rather than "no": the server is shutting down or starting, out
 * of connection slots, or a timeout of ours cancelled the statement. Class 08 is added below.
 */
const UNAVAILABLE_STATES = new Set([
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "57P05", // idle_session_timeout
  "53300", // too_many_connections
  "57014", // query_canceled (statement_timeout)
  "55P03", // lock_not_available (lock_timeout)
  "25P03", // idle_in_transaction_session_timeout
]);

/** Failures below SQL: the socket, the connect, node-postgres's own timeouts and closed clients. */
const TRANSPORT_MESSAGE =
  /connect|connection|terminat|timeout|socket|closed|not queryable|ECONN|EPIPE|EHOST|ENET|ETIMEDOUT|EAI_AGAIN|ENOTFOUND/i;

export interface StoreErrorContext {
  /** Where (redacted), for the message: `host:port/db`. */
  target: string;
  accountId?: string;
  /** The fence term of an intent, for FencedError. */
  term?: number;
}

/** The typed error for `err`; an error that is not the database's (a bug of ours) is returned as is. */
export function toStoreError(err: unknown, ctx: StoreErrorContext): unknown {
  if (err instanceof LiquidatorError) return err;
  if (err instanceof pg.DatabaseError) {
    const state = err.code;
    if (state === SQLSTATE_FENCED) return new FencedError(ctx.accountId ?? "?", ctx.term ?? -1, err.message);
    if (state === SQLSTATE_DUPLICATE) return new DuplicateClaimError(err.message, err.detail ?? "unknown");
    if (state !== undefined && (state.startsWith("08") || UNAVAILABLE_STATES.has(state))) {
      return new DatabaseUnavailableError(`database ${ctx.target} unavailable: ${err.message} (SQLSTATE ${state})`, { cause: err });
    }
    return new DatabaseError(`database ${ctx.target} refused: ${err.message}`, state, { cause: err });
  }
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    if ((typeof code === "string" && code.startsWith("E")) || TRANSPORT_MESSAGE.test(err.message)) {
      return new DatabaseUnavailableError(`database ${ctx.target} unavailable: ${err.message}`, { cause: err });
    }
  }
  return err;
}

/** True when `err` (typed) means the connection it came from must not be reused. */
export function isConnectionFailure(err: unknown): boolean {
  return err instanceof DatabaseUnavailableError;
}
