/**
 * Where in `state.dir` the claims journal of one venue and account lives. A volume may hold the
 * journals of several pairs (testnet, then mainnet; a new account), each in a folder of its own (the
 * journal, its snapshot and its rotated history: fileJournal.ts), so a preset switch on the same
 * volume starts a journal of its own instead of refusing to start:
 *
 * - `claims.jsonl` in `state.dir` itself is the journal of the first pair the volume served (every
 *   journal written before this naming): kept, and read in place, while it names this pair or no
 *   pair at all. It is not moved: a rollback to a build that only knows `claims.jsonl` still finds it.
 * - Any other pair: `journals/<host>-<account>/claims.jsonl`.
 *
 * The file's own venue record is still checked when it is opened (openOwnJournal.ts): a file copied
 * from elsewhere, or two base URLs on one host, are refused rather than replayed.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { JOURNAL_FILE } from "./fileJournal.js";

export interface JournalPair {
  baseUrl: string;
  accountId: string;
}

/** Where (relative to `state.dir`) a pair's journal goes when `claims.jsonl` belongs to another pair. */
function pairJournalName(pair: JournalPair): string {
  let host: string;
  try {
    host = new URL(pair.baseUrl).host;
  } catch {
    host = pair.baseUrl;
  }
  const safe = (s: string) => s.replace(/[^A-Za-z0-9.-]/g, "_").slice(0, 100);
  return join("journals", `${safe(host)}-${safe(pair.accountId)}`, JOURNAL_FILE);
}

/** The venue and account the journal at `path` names (its first venue record), if any. */
export function journalPair(path: string): JournalPair | undefined {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, "utf8");
  // Records are written as JSON.stringify({ t, ... }): a venue record's line starts like this.
  for (let at = text.indexOf('{"t":"venue"'); at !== -1; at = text.indexOf('{"t":"venue"', at + 1)) {
    if (at > 0 && text[at - 1] !== "\n") continue;
    const end = text.indexOf("\n", at);
    try {
      const rec = JSON.parse(text.slice(at, end === -1 ? undefined : end)) as Partial<JournalPair> & { guard?: boolean };
      // A format-2 tail opens with a guard naming no real venue (fileJournal.ts venueHeader): skipped.
      if (rec.guard === true) continue;
      if (typeof rec.baseUrl === "string" && typeof rec.accountId === "string") return { baseUrl: rec.baseUrl, accountId: rec.accountId };
    } catch {
      // A torn or corrupt line: the journal's replay skips it too.
    }
  }
  return undefined;
}

/** This pair's journal (relative to `dir`), existing or to be created; its folder holds its snapshot and history. */
export function ownJournalFile(dir: string, pair: JournalPair): string {
  const own = pairJournalName(pair);
  if (existsSync(join(dir, own))) return own;
  const first = journalPair(join(dir, JOURNAL_FILE));
  if (first === undefined || (first.baseUrl === pair.baseUrl && first.accountId === pair.accountId)) return JOURNAL_FILE;
  return own;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { pairJournalName as pairJournalNameForTests };
