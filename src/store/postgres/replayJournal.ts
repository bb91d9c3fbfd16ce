/**
 * Start-up replay from `journal_events`: the same JournalReplay the file journal gives (last intent
 * per id, outcomes per id in journal order, last positions snapshot), so restoreFromJournal works on
 * either backend, plus the orders. Read in keyset-paginated batches by `seq`: a journal of months
 * never becomes one result set in memory twice over, and each batch is a short indexed query.
 */
import { emptyReplay, type JournalRecord, type JournalReplay, replayRecord } from "../journalRecords.js";
import type { PgDatabase } from "./pgDatabase.js";

/** The file journal's replay, orders included: one shape for both stores. */
export type PgReplay = JournalReplay;

export interface ReplayOptions {
  /** Events per query. */
  batchSize?: number;
}

type EventRow = { seq: string; kind: string; record: JournalRecord };

export async function replayJournal(db: PgDatabase, accountId: string, options: ReplayOptions = {}): Promise<PgReplay> {
  const batchSize = options.batchSize ?? 5_000;
  const replay = emptyReplay();
  let after = "0";
  for (;;) {
    const res = await db.query<EventRow>(
      "SELECT seq, kind, record FROM journal_events WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
      [accountId, after, batchSize],
      { accountId },
    );
    for (const row of res.rows) replayRecord(replay, row.record);
    const last = res.rows.at(-1);
    if (last === undefined || res.rows.length < batchSize) return replay;
    after = last.seq;
  }
}
