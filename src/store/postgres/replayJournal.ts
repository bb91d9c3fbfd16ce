/**
 * Start-up replay from PostgreSQL: the same JournalReplay the file journal gives (its `core` the
 * trading core's state), so a new leader adopts either backend's the same way. The account's compacted snapshot (compactJournal.ts)
 * first, then the events not archived into it, in keyset-paginated batches by `seq`: start-up reads
 * what is still open, not the history. Both are read in one REPEATABLE READ transaction, so a
 * compaction committing meanwhile cannot archive rows between the two reads.
 *
 * `history: true` reads every event instead, archived ones included (`liquidator pnl`, `report`).
 */
import { CoreFold } from "../../core/coreFold.js";
import { type CoreSnapshot, fromSnapshot } from "../../core/coreSnapshot.js";
import type { JournalRecord } from "../../core/journalRecords.js";
import { emptyReplay, type JournalReplay, replayRecord } from "../journalReplay.js";
import type { PgDatabase } from "./pgDatabase.js";

/** The file journal's replay, orders included: one shape for both stores. */
export type PgReplay = JournalReplay;

export interface ReplayOptions {
  /** Events per query. */
  batchSize?: number;
  /** Every event ever written, archived ones too, and no snapshot: the whole history. */
  history?: boolean;
}

type EventRow = { seq: string; record: JournalRecord };

export async function replayJournal(db: PgDatabase, accountId: string, options: ReplayOptions = {}): Promise<PgReplay> {
  const batchSize = options.batchSize ?? 5_000;
  return db.transaction(
    async (q) => {
      await q("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const replay = emptyReplay();
      let core = new CoreFold({ keepClosedClaims: options.history === true });
      let after = "0";
      if (options.history !== true) {
        const snap = await q<{ through_seq: string; snapshot: CoreSnapshot }>(
          "SELECT through_seq, snapshot FROM journal_snapshots WHERE account_id = $1",
          [accountId],
        );
        const row = snap.rows[0];
        if (row !== undefined) {
          core = fromSnapshot(row.snapshot);
          after = row.through_seq;
        }
      }
      replay.core = core;
      const open = options.history === true ? "" : "AND NOT archived";
      for (;;) {
        const res = await q<EventRow>(
          `SELECT seq, record FROM journal_events WHERE account_id = $1 ${open} AND seq > $2 ORDER BY seq LIMIT $3`,
          [accountId, after, batchSize],
        );
        for (const row of res.rows) {
          core.add(row.record);
          replayRecord(replay, row.record);
        }
        const last = res.rows.at(-1);
        if (last === undefined || res.rows.length < batchSize) {
          replay.venue = core.venue;
          replay.protection = core.protection;
          replay.version = core.version;
          return replay;
        }
        after = last.seq;
      }
    },
    { accountId },
  );
}
