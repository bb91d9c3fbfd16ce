/**
 * The checks that decide whether claiming may go on, run on the daemon's one-second tick:
 *
 * - Server time. Signed requests carry a timestamp the venue rejects beyond 300 s of its clock
 *   (docs/protocol.md §2); the signer corrects the host clock with the offset learned from response
 *   envelopes. With no fresh sample the correction cannot be vouched for, so claiming pauses
 *   ("clock") until one arrives — the REST reconcile every few seconds provides them.
 * - The journal. A failed write pauses claiming ("journal"); every `journalRetryMs` the records the
 *   trading core kept are written again, in order, and once none is left the failure is cleared so
 *   that the next intent probes the disk. A failed probe sends nothing (no intent, no claim) and
 *   pauses again.
 */

import type { Claimer } from "../claim/claimer.js";

export interface HousekeepingOptions {
  clock: { readonly lastSampleAt: number };
  journal: {
    /** Why writing fails now, if it does. */
    failure(): Error | undefined;
    /** Write what was kept, then let the next write probe the store; true when nothing is left. */
    retry(): boolean;
  };
  claimer: Pick<Claimer, "setPaused" | "pausedReasons">;
  logger: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** A server-time sample older than this pauses claiming. */
  clockMaxAgeMs?: number;
  /** How often a failed journal is retried. */
  journalRetryMs?: number;
}

export class Housekeeping {
  readonly #options: HousekeepingOptions;
  readonly #clockMaxAgeMs: number;
  readonly #journalRetryMs: number;
  #lastJournalRetry = 0;

  constructor(options: HousekeepingOptions) {
    this.#options = options;
    this.#clockMaxAgeMs = options.clockMaxAgeMs ?? 120_000;
    this.#journalRetryMs = options.journalRetryMs ?? 10_000;
  }

  tick(now: number): void {
    const { clock, journal, claimer, logger } = this.#options;
    const clockStale = now - clock.lastSampleAt > this.#clockMaxAgeMs;
    const clockPaused = claimer.pausedReasons().includes("clock");
    if (clockStale && !clockPaused) {
      logger.warn({ lastSampleAt: clock.lastSampleAt }, "no recent server time from the venue; claiming paused");
      claimer.setPaused("clock", true);
    } else if (!clockStale && clockPaused) {
      logger.info({}, "server time known again; claiming resumes");
      claimer.setPaused("clock", false);
    }
    if (claimer.pausedReasons().includes("journal") && now - this.#lastJournalRetry >= this.#journalRetryMs) {
      this.#lastJournalRetry = now;
      if (!journal.retry()) return;
      logger.info({}, "retrying the claims journal; claiming resumes if the next write succeeds");
      claimer.setPaused("journal", false);
    }
  }

  /** Readiness reasons beyond the claimer's pauses. */
  problems(): string[] {
    const failure = this.#options.journal.failure();
    return failure === undefined ? [] : [`journal_error:${failure.message}`];
  }
}
