/**
 * The state store the config asks for, opened with retries while it cannot be (readiness says why):
 * the JSONL journal of `state.dir`, or PostgreSQL. Moving from `file` to `postgres` imports the file
 * journal at the first start (idempotent), so ids claimed before the move are never claimed again.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import type { Leadership } from "../daemon/control/leadership.js";
import { ConfigError } from "../errors.js";
import { sleep } from "../sleep.js";
import { JOURNAL_FILE } from "../store/fileJournal.js";
import { FileStore } from "../store/fileStore.js";
import { listSegments, readHistory } from "../store/journalFiles.js";
import type { JournalReplay } from "../store/journalReplay.js";
import { openJournalWhenPossible } from "../store/openJournalWhenPossible.js";
import { journalPair, ownJournalFile } from "../store/ownJournalFile.js";
import { PgStateStore } from "../store/pgStateStore.js";
import type { StateStore } from "../store/stateStore.js";
import type { VenueConnection } from "./venueConnection.js";

export interface OpenedStore {
  store: StateStore;
  replay: JournalReplay;
  /** Where the lease's events go once the daemon is assembled (PostgreSQL only). */
  bind(leadership: Leadership | undefined): void;
  /** Take part in the election (PostgreSQL only). */
  start(): void;
}

export async function openStateStore(o: {
  config: Config;
  venue: VenueConnection;
  signal: AbortSignal;
  logger: Logger;
  retryMs: number;
  onProblem: (reason: string) => void;
}): Promise<OpenedStore | undefined> {
  const { config, venue, signal, logger } = o;
  if (config.state.backend === "file") {
    const opened = await openJournalWhenPossible({
      dir: config.state.dir,
      owner: { baseUrl: venue.baseUrl, accountId: venue.accountId, simulated: venue.simulated },
      signal,
      logger: logger.child({ component: "journal" }),
      retryMs: o.retryMs,
      onProblem: o.onProblem,
    });
    if (opened === undefined) return undefined;
    const store = new FileStore(opened.journal, (opened.replay.venue?.at ?? Date.now()).toString(36), { compactOnClose: true });
    return { store, replay: opened.replay, bind: () => undefined, start: () => undefined };
  }

  let target: Leadership | undefined;
  const leaseMs = Math.round(config.ha.failover_ms * 0.6);
  const log = logger.child({ component: "store" });
  for (let failures = 0; !signal.aborted; failures++) {
    try {
      const store = await PgStateStore.open(
        { url: config.state.postgres_url, accountId: venue.accountId, leaseMs, renewMs: Math.max(200, Math.round(leaseMs / 3)) },
        {
          elected: (term) => target?.elected(term),
          deposed: (term, reason) => target?.deposed(term, reason),
          error: (err) => log.warn({ err: (err as Error).message }, "lease query failed"),
          compacted: (outcome) => {
            if ("err" in outcome)
              log.error({ err: outcome.err.message }, "journal compaction failed; the next start replays the rows it did not archive");
            else if (outcome.archived > 0) log.info(outcome, "journal events compacted into the snapshot and archived");
          },
        },
      );
      // This account's file journal only: another pair's (a testnet journal on the same volume) is not its history.
      const file = join(config.state.dir, venue.simulated ? JOURNAL_FILE : ownJournalFile(config.state.dir, venue));
      const pair = journalPair(file);
      if (existsSync(file) && (pair === undefined || (pair.baseUrl === venue.baseUrl && pair.accountId === venue.accountId))) {
        // A rotated journal's ids are in its history segments too: all of them are imported.
        const dir = dirname(file);
        const imported = await store.importFileJournal(listSegments(dir).length > 0 ? readHistory(dir) : file);
        if (imported.imported)
          log.info({ file, ids: imported.ids }, "file journal imported into PostgreSQL: its ids are never claimed again");
      }
      log.info({ database: store.target, leaseMs }, "state in PostgreSQL; standing by until elected");
      return {
        store,
        replay: await store.replay(),
        bind: (l) => {
          target = l;
        },
        start: () => store.start(),
      };
    } catch (err) {
      // A database of a newer schema (a rollback): retrying cannot help.
      if (err instanceof ConfigError) throw err;
      o.onProblem(`database_unreachable:${(err as Error).message}`);
      if (failures === 0) log.error({ err: (err as Error).message }, "PostgreSQL unavailable; retrying");
      await sleep(Math.min(o.retryMs, 1_000 * 2 ** Math.min(failures, 4)), signal);
    }
  }
  return undefined;
}
