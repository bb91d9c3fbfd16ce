/**
 * The records `liquidator report` folds (store/opportunityFold.ts): the ledger's seen / skip / gone
 * and the claim intents and outcomes, inserted from `since` on (the database's time, with a margin
 * for clocks: the report filters by the daemon's own times). Keyset-paginated by `seq` like replay.
 */
import type { JournalRecord } from "../../core/journalRecords.js";
import { REPORT_KINDS } from "../../core/opportunityRecords.js";
import type { PgDatabase } from "./pgDatabase.js";

export async function ledgerEvents(db: PgDatabase, accountId: string, since: Date, batchSize = 5_000): Promise<JournalRecord[]> {
  const out: JournalRecord[] = [];
  let after = "0";
  for (;;) {
    const res = await db.query<{ seq: string; record: JournalRecord }>(
      "SELECT seq, record FROM journal_events WHERE account_id = $1 AND kind = ANY ($2::text[]) AND at >= $3 AND seq > $4 ORDER BY seq LIMIT $5",
      [accountId, REPORT_KINDS, since, after, batchSize],
      { accountId },
    );
    for (const row of res.rows) out.push(row.record);
    const last = res.rows.at(-1);
    if (last === undefined || res.rows.length < batchSize) return out;
    after = last.seq;
  }
}
