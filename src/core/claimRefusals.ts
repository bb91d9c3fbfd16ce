/**
 * What a refusal leaves of an id's chances while it stays open: the failure table's budgets per
 * id (retries, re-pricings, re-decisions, account re-reads) and the delay before the next try; and
 * the refusal's log line — one warn per venue code the table does not know, later ones at info.
 */

import { VenueError } from "../venue/errors.js";
import type { ClaimFailureAction } from "../venue/failureTable.js";
import { claimRetryDelay, claimRetryOf } from "../venue/failureTable.js";
import type { ClaimFailure } from "./claimFailure.js";
import type { CoreLogger } from "./corePort.js";

/** Codes warned about once each; beyond this many distinct ones (a venue answering noise) only info lines. */
const MAX_UNKNOWN_CODES_LOGGED = 32;

/** Re-decisions spent per id while it is open. */
interface Budget {
  retries: number;
  repriced: number;
  redecided: number;
  rereads: number;
}

/** What a refusal means for the id next. */
export type NextTry = { kind: "gone" } | { kind: "later"; ms: number } | { kind: "requeue" } | { kind: "spent" };

export class ClaimRefusals {
  readonly #budgets = new Map<number, Budget>();
  readonly #unknownCodes = new Set<number>();
  readonly #bases: { retryMs: number; repriceMs: number };

  constructor(bases: { retryMs: number; repriceMs: number }) {
    this.#bases = bases;
  }

  /**
   * Gone; decided again after `ms` (the failure table's schedule for its attempt `n`); put back at
   * once (margin, after the account re-read); or its budget spent.
   */
  next(id: number, action: ClaimFailureAction): NextTry {
    if (action === "gone") return { kind: "gone" };
    const b = this.#budget(id);
    const n =
      action === "backoff"
        ? b.retries
        : action === "retry_racing" || action === "retry_transient"
          ? b.retries++
          : action === "reevaluate"
            ? b.repriced++
            : action === "redecide"
              ? b.redecided++
              : action === "reread_account"
                ? b.rereads++
                : Number.POSITIVE_INFINITY;
    const schedule = claimRetryOf(action);
    const ms = schedule === undefined || n === Number.POSITIVE_INFINITY ? undefined : claimRetryDelay(schedule, n, this.#bases);
    if (ms === undefined) return { kind: "spent" };
    return action === "reread_account" ? { kind: "requeue" } : { kind: "later", ms };
  }

  /** Bounded memory over months: the budgets of ids that `keep` no longer wants. */
  forget(keep: (id: number) => boolean): void {
    for (const id of this.#budgets.keys()) if (!keep(id)) this.#budgets.delete(id);
  }

  /** One warn line per code the failure table does not know (not one per claim); later ones at info. */
  log(logger: CoreLogger, id: number, f: ClaimFailure, err: unknown): void {
    const fields = { id, code: f.code, action: f.action, err: (err as Error).message };
    if (f.action !== "redecide" || !(err instanceof VenueError)) return logger.warn(fields, "claim not accepted");
    if (this.#unknownCodes.has(err.venueCode) || this.#unknownCodes.size >= MAX_UNKNOWN_CODES_LOGGED)
      return logger.info(fields, "claim not accepted");
    this.#unknownCodes.add(err.venueCode);
    logger.warn(
      { id, code: err.venueCode, status: err.status, message: err.venueMessage },
      "claim refused with a venue code the failure table does not know: re-deciding the id while it is open, a bounded number of times",
    );
  }

  #budget(id: number): Budget {
    let b = this.#budgets.get(id);
    if (b === undefined) {
      b = { retries: 0, repriced: 0, redecided: 0, rereads: 0 };
      this.#budgets.set(id, b);
    }
    return b;
  }
}
