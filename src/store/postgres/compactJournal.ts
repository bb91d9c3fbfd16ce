/**
 * PostgreSQL's journal compaction: the account's events up to a point are folded (core/coreFold.ts,
 * the trading core's own fold, as the file journal's) into its row of `journal_snapshots`, and marked archived, in ONE
 * transaction: a kill anywhere leaves the old snapshot with the rows it did not cover still open,
 * or the new one with them archived, never a row in neither. Archived rows are never deleted here:
 * `liquidator pnl` and `report` read them (replayJournal.ts `history`).
 *
 * The point: the largest `seq` once every transaction that inserted an event has committed. A
 * `seq` is taken inside the inserting transaction, so a row with a smaller one can commit after a
 * larger one is visible; a SHARE lock on journal_events, taken and released in its own short
 * transaction, waits for those writers and lets new ones (with larger seqs) go on at once.
 * Compactions of one account are serialised by an advisory lock; any replica may compact (the
 * snapshot is derived from committed rows only, and claims stay guarded by the claims table).
 */
import { CoreFold } from "../../core/coreFold.js";
import { type CoreSnapshot, fromSnapshot, toSnapshot } from "../../core/coreSnapshot.js";
import type { JournalRecord } from "../../core/journalRecords.js";
import type { PgDatabase } from "./pgDatabase.js";

export interface CompactOptions {
  /** Bound on each statement of the compaction transaction. */
  timeoutMs?: number;
  /** Events per query. */
  batchSize?: number;
  now?: () => number;
  /** A test stops the compaction after this step (the transaction rolls back). */
  step?: (name: "folded" | "written" | "archived") => void;
}

export interface CompactResult {
  /** Events folded into the snapshot and archived by this call. */
  archived: number;
  /** The snapshot's `seq` after the call (0: none). */
  throughSeq: number;
}

export async function compactPgJournal(db: PgDatabase, accountId: string, options: CompactOptions = {}): Promise<CompactResult> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const batchSize = options.batchSize ?? 5_000;
  const upto = await db.transaction(
    async (q) => {
      await q("LOCK TABLE journal_events IN SHARE MODE");
      const res = await q<{ upto: string | null }>("SELECT max(seq) AS upto FROM journal_events WHERE account_id = $1", [accountId]);
      return res.rows[0]?.upto ?? "0";
    },
    { timeoutMs: 10_000, accountId },
  );
  return db.transaction(
    async (q) => {
      await q("SELECT pg_advisory_xact_lock(hashtext('liquidator_compact'), hashtext($1))", [accountId]);
      const snap = await q<{ through_seq: string; snapshot: CoreSnapshot }>(
        "SELECT through_seq, snapshot FROM journal_snapshots WHERE account_id = $1",
        [accountId],
      );
      const row = snap.rows[0];
      const from = row?.through_seq ?? "0";
      if (BigInt(upto) <= BigInt(from)) return { archived: 0, throughSeq: Number(from) };
      const folder = row === undefined ? new CoreFold() : fromSnapshot(row.snapshot);
      let after = from;
      let folded = 0;
      for (;;) {
        const res = await q<{ seq: string; record: JournalRecord }>(
          "SELECT seq, record FROM journal_events WHERE account_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4",
          [accountId, after, upto, batchSize],
        );
        for (const r of res.rows) folder.add(r.record);
        folded += res.rows.length;
        const last = res.rows.at(-1);
        if (last === undefined || res.rows.length < batchSize) break;
        after = last.seq;
      }
      options.step?.("folded");
      await q(
        `INSERT INTO journal_snapshots (account_id, through_seq, snapshot) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (account_id) DO UPDATE SET through_seq = EXCLUDED.through_seq, snapshot = EXCLUDED.snapshot, written_at = now()`,
        [accountId, upto, JSON.stringify(toSnapshot(folder, (options.now ?? Date.now)()))],
      );
      options.step?.("written");
      const archived = await q(
        "UPDATE journal_events SET archived = true WHERE account_id = $1 AND seq > $2 AND seq <= $3 AND NOT archived",
        [accountId, from, upto],
      );
      options.step?.("archived");
      return { archived: archived.rowCount ?? folded, throughSeq: Number(upto) };
    },
    { timeoutMs, accountId },
  );
}
