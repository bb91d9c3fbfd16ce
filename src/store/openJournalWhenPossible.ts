/**
 * The claims journal, retried until it opens: claiming never starts without the journal replayed
 * (it is what says which ids were already claimed), and `onProblem` tells readiness why meanwhile.
 * A journal of another venue or account is a configuration error, not a disk error: not retried.
 */
import { ConfigError } from "../errors.js";
import { sleep } from "../sleep.js";
import type { Journal } from "./fileJournal.js";
import type { JournalReplay } from "./journalReplay.js";
import { type JournalOwner, type OwnJournalLogger, openOwnJournal } from "./openOwnJournal.js";

export interface OpenedJournal {
  journal: Journal;
  replay: JournalReplay;
}

export async function openJournalWhenPossible(o: {
  dir: string;
  owner: JournalOwner;
  signal: AbortSignal;
  logger: OwnJournalLogger;
  retryMs: number;
  onProblem: (reason: string) => void;
}): Promise<OpenedJournal | undefined> {
  for (let failures = 0; !o.signal.aborted; failures++) {
    try {
      // The daemon adopts the core's state only: the tail's records are not kept beside it.
      return openOwnJournal({ dir: o.dir, owner: o.owner, logger: o.logger, keepRecords: false });
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      const message = (err as Error).message;
      o.onProblem(`journal_error:${message}`);
      if (failures === 0) o.logger.error({ err: message, retryMs: o.retryMs }, "claims journal unavailable; not claiming until it opens");
      await sleep(o.retryMs, o.signal);
    }
  }
  return undefined;
}
