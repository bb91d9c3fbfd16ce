/**
 * The file journal a read command (`pnl`, `report`) reads: the configured venue and account's (a
 * volume may hold one per pair, store/ownJournalFile.ts); the embedded simulator's is always
 * `claims.jsonl`. Its folder holds the rotated history beside it.
 */
import { join } from "node:path";
import type { Config } from "../config/schema.js";
import { JOURNAL_FILE } from "../store/fileJournal.js";
import { ownJournalFile } from "../store/ownJournalFile.js";

export function journalPath(config: Config): string {
  const { venue } = config;
  const file =
    venue.mode === "live" ? ownJournalFile(config.state.dir, { baseUrl: venue.base_url, accountId: venue.account_id }) : JOURNAL_FILE;
  return join(config.state.dir, file);
}
