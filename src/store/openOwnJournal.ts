/**
 * Opens the claims journal of one venue and one account. Liquidation ids are only unique per venue
 * and account, so a journal is never replayed against another pair: its ids would block claims it
 * never made (and a second `npm start` would believe it holds the first run's positions).
 *
 * - Live: each venue and account has a journal of its own in `state.dir` (ownJournalFile.ts), so the
 *   same volume can serve testnet, then mainnet. A file whose venue record names another pair all
 *   the same (copied in by hand) is refused (exit 78, both pairs, the path and what to do named).
 * - Simulator: every run is a new venue (new keys, new port, ids from 1001 again), so an existing
 *   journal is moved aside (`claims-<time>.jsonl`, the newest `KEEP_ASIDE` kept) and a fresh one begins.
 * - A journal older than the venue record is replayed for its ids, with a warning, and adopted.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "../errors.js";
import { JOURNAL_FILE, Journal, type JournalLogger, venueHeader } from "./fileJournal.js";
import { HISTORY_DIR, SNAPSHOT_FILE } from "./journalFiles.js";
import type { JournalReplay } from "./journalReplay.js";
import { journalPair, ownJournalFile } from "./ownJournalFile.js";

export interface JournalOwner {
  baseUrl: string;
  accountId: string;
  /** True for the embedded simulated venue: a new venue on every run. */
  simulated: boolean;
}

export interface OwnJournalLogger extends JournalLogger {
  info(obj: object, msg: string): void;
}

/** Simulator journals kept beside the fresh one (older ones are deleted). */
const KEEP_ASIDE = 5;
const ASIDE = /^claims-\d{8}T\d{6}(?:\.\d+)?Z\.jsonl$/;
/** A set-aside journal's history segments and snapshot (a run long enough to rotate). */
const ASIDE_HISTORY = /^claims-\d{8}T\d{6}(?:\.\d+)?Z\.history$/;

export function openOwnJournal(options: {
  dir: string;
  owner: JournalOwner;
  logger: OwnJournalLogger;
  fsyncIntervalMs?: number;
  /** The replay's record maps (Journal.open `keepRecords`) [true]; the daemon's start passes false. */
  keepRecords?: boolean;
}): {
  journal: Journal;
  replay: JournalReplay;
} {
  const { dir, owner, logger } = options;
  if (owner.simulated) setAside(dir, logger);
  const file = owner.simulated ? JOURNAL_FILE : ownJournalFile(dir, owner);
  if (file !== JOURNAL_FILE && !existsSync(join(dir, file))) {
    const first = journalPair(join(dir, JOURNAL_FILE));
    logger.info(
      { path: join(dir, file), other: join(dir, JOURNAL_FILE), otherBaseUrl: first?.baseUrl, otherAccountId: first?.accountId },
      "a new venue or account on this state.dir: its claims journal begins in a file of its own (the other journal is left as it is)",
    );
  }
  const opened = Journal.open({
    dir: join(dir, dirname(file)),
    logger,
    ...(options.fsyncIntervalMs !== undefined ? { fsyncIntervalMs: options.fsyncIntervalMs } : {}),
    ...(options.keepRecords !== undefined ? { keepRecords: options.keepRecords } : {}),
  });
  const { journal, replay } = opened;
  const venue = replay.venue;
  if (venue === undefined) {
    if (replay.records > 0) {
      logger.warn(
        { path: journal.path, baseUrl: owner.baseUrl, accountId: owner.accountId },
        "journal names no venue (written before venue records): replayed for its ids and adopted for this venue and account",
      );
    }
    const header = venueHeader({ at: Date.now(), baseUrl: owner.baseUrl, accountId: owner.accountId });
    for (const rec of header) journal.append(rec);
    opened.replay.venue = header[1];
    return opened;
  }
  if (venue.baseUrl !== owner.baseUrl || venue.accountId !== owner.accountId) {
    void journal.close();
    throw new ConfigError(
      "state.dir",
      `the claims journal ${journal.path} belongs to venue ${venue.baseUrl} account ${venue.accountId}, ` +
        `but this daemon runs for venue ${owner.baseUrl} account ${owner.accountId}; ` +
        `the file was copied or renamed by hand: move ${journal.path} back to the state.dir it came from (or out of the way), ` +
        'then start again; this venue and account then begin a journal of their own (docs/runbook.md, "Switching venue or account")',
    );
  }
  return opened;
}

function setAside(dir: string, logger: OwnJournalLogger): void {
  if (!existsSync(dir)) return; // a first run: nothing to set aside
  const path = join(dir, JOURNAL_FILE);
  const stamp = new Date().toISOString().replace(/[-:]/g, "");
  const history = join(dir, HISTORY_DIR);
  const snapshot = join(dir, SNAPSHOT_FILE);
  if (existsSync(snapshot) || (existsSync(history) && readdirSync(history).length > 0)) {
    if (existsSync(history)) renameSync(history, join(dir, `claims-${stamp}.history`));
    else mkdirSync(join(dir, `claims-${stamp}.history`));
    if (existsSync(snapshot)) renameSync(snapshot, join(dir, `claims-${stamp}.history`, SNAPSHOT_FILE));
  }
  for (const f of readdirSync(dir)
    .filter((f) => ASIDE_HISTORY.test(f))
    .sort()
    .reverse()
    .slice(KEEP_ASIDE))
    rmSync(join(dir, f), { recursive: true, force: true });
  if (!existsSync(path) || statSync(path).size === 0) return;
  const aside = join(dir, `claims-${stamp}.jsonl`);
  renameSync(path, aside);
  logger.info(
    { previous: aside, path },
    "simulated venue: a new venue on every run, so a fresh claims journal begins (the previous one was moved aside)",
  );
  const old = readdirSync(dir)
    .filter((f) => ASIDE.test(f))
    .sort()
    .reverse()
    .slice(KEEP_ASIDE);
  for (const f of old) unlinkSync(join(dir, f));
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { KEEP_ASIDE as KEEP_ASIDE_FOR_TESTS };
