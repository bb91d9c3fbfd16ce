/**
 * Moving a deployment from `file` to `postgres`: the JSONL claims journal goes into the database so
 * that no id claimed before is ever claimed again, at first start or by a command.
 *
 * Every id with a non-dry-run intent becomes a claims row in state `imported` (final: the file
 * backend never re-claims such an id after a restart either, restore.ts); a dry-run-only id becomes
 * `dry_run` (nothing was sent). A row the database already has keeps its state, except that a
 * re-claimable one becomes `imported` when the file says the id was really claimed. The records of
 * every id the import wrote are appended to journal_events (intent, then its outcomes), so replay
 * sees them; the positions snapshot too, unless the database has a newer one.
 *
 * Idempotent: the import is recorded in `journal_imports` under a digest of its content, first
 * thing in its transaction; the same content again is a no-op (two replicas importing at once: the
 * second waits on that row, then finds it). One transaction: all of it or nothing.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import type { IntentRecord, JournalRecord } from "../../core/journalRecords.js";
import { type JournalReplay, parseJournal } from "../journalReplay.js";
import { RECLAIMABLE_STATES } from "./intentStates.js";
import type { PgDatabase, TxQuery } from "./pgDatabase.js";

export interface ImportResult {
  /** False when this content was imported before (or there was nothing to import). */
  imported: boolean;
  digest: string;
  /** Records in the source. */
  records: number;
  /** Liquidation ids whose claims row the import created or made final. */
  ids: number;
}

export interface ImportOptions {
  /** Bound on each statement of the import transaction. */
  timeoutMs?: number;
  /** Rows per statement. */
  batchSize?: number;
}

/** `source`: a journal file path (claims.jsonl), or its parsed replay. A missing file imports nothing. */
export async function importFileJournal(
  db: PgDatabase,
  accountId: string,
  source: string | JournalReplay,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const label = typeof source === "string" ? source : "replay";
  if (typeof source === "string" && !existsSync(source)) return { imported: false, digest: "", records: 0, ids: 0 };
  const replay = typeof source === "string" ? parseJournal(readFileSync(source, "utf8")) : source;
  const records = replayRecords(replay);
  const digest = createHash("sha256").update(JSON.stringify(records)).digest("hex");
  if (records.length === 0) return { imported: false, digest, records: 0, ids: 0 };
  const batch = options.batchSize ?? 1_000;
  return db.transaction(
    async (q) => {
      const first = await q(
        `INSERT INTO journal_imports (account_id, digest, source, records, ids) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (account_id, digest) DO NOTHING RETURNING digest`,
        [accountId, digest, label, records.length, replay.intents.size],
      );
      if (first.rowCount === 0) return { imported: false, digest, records: records.length, ids: 0 };
      const written = new Set<number>();
      const intents = [...replay.intents.values()];
      for (let i = 0; i < intents.length; i += batch) {
        for (const id of await upsertClaims(q, accountId, intents.slice(i, i + batch))) written.add(id);
      }
      const events = records.filter((r) => (r.t === "intent" || r.t === "outcome") && written.has(r.id));
      for (let i = 0; i < events.length; i += batch) await appendEvents(q, accountId, events.slice(i, i + batch));
      if (replay.positions !== undefined) {
        await q(
          `INSERT INTO journal_events (account_id, kind, record)
           SELECT $1, 'positions', $2::jsonb
           WHERE NOT EXISTS (SELECT 1 FROM journal_events WHERE account_id = $1 AND kind = 'positions'
                             AND (record->>'venueTs')::float8 >= $3)`,
          [accountId, JSON.stringify(replay.positions), replay.positions.venueTs],
        );
      }
      return { imported: true, digest, records: records.length, ids: written.size };
    },
    { timeoutMs: options.timeoutMs ?? 30_000 },
  );
}

/** The ids whose row this call created or made final. */
async function upsertClaims(q: TxQuery, accountId: string, intents: IntentRecord[]): Promise<number[]> {
  const res = await q<{ liquidation_id: string }>(
    `INSERT INTO claims AS c (account_id, liquidation_id, state, term, intent)
     SELECT $1, u.id, u.state, 0, u.intent FROM unnest($2::bigint[], $3::text[], $4::jsonb[]) AS u(id, state, intent)
     ON CONFLICT (account_id, liquidation_id) DO UPDATE SET state = 'imported', intent = EXCLUDED.intent, outcome_at = NULL
       WHERE EXCLUDED.state = 'imported' AND c.state = ANY ($5::text[])
     RETURNING liquidation_id`,
    [
      accountId,
      intents.map((r) => r.id),
      intents.map((r) => (r.dryRun === true ? "dry_run" : "imported")),
      intents.map((r) => JSON.stringify(r)),
      RECLAIMABLE_STATES,
    ],
  );
  return res.rows.map((r) => Number(r.liquidation_id));
}

/** Appends in the given order (seq follows the ordinality). */
async function appendEvents(q: TxQuery, accountId: string, events: JournalRecord[]): Promise<void> {
  await q(
    `INSERT INTO journal_events (account_id, kind, liquidation_id, record)
     SELECT $1, u.r->>'t', (u.r->>'id')::bigint, u.r FROM unnest($2::jsonb[]) WITH ORDINALITY AS u(r, n) ORDER BY u.n`,
    [accountId, events.map((r) => JSON.stringify(r))],
  );
}

/** A file replay's records in journal order per id: each intent, then its outcomes; then positions. */
function replayRecords(replay: JournalReplay): JournalRecord[] {
  const out: JournalRecord[] = [];
  for (const [id, intent] of replay.intents) out.push(intent, ...(replay.outcomes.get(id) ?? []));
  if (replay.positions !== undefined) out.push(replay.positions);
  return out;
}
