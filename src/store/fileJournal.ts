/**
 * Append-only claims journal (JSONL in `state.dir`). The intent record is written with a synchronous
 * `write` before a claim leaves, so a killed process (the common failure) never forgets a claim it
 * may have sent; `fdatasync` runs batched off the hot path (group commit), so an OS crash can lose
 * the last few milliseconds of intents — the venue's -1202 on a repeated id and the exposure
 * restored from the journal bound what that costs (docs/architecture.md, "The journal and the hot path").
 *
 * The tail is rotated into a dated history segment once it passes `segmentBytes` or a UTC day ends,
 * and the segments are folded into a snapshot in the background (journalFiles.ts): start-up reads
 * the snapshot, the few segments newer than it and the tail, streamed, never the whole history.
 *
 * Longer than most files: the append path of one file — group commit, rotation, the failure states
 * — is one state machine.
 */
import { closeSync, fdatasync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { CoreFold } from "../core/coreFold.js";
import { fromSnapshot, toSnapshot } from "../core/coreSnapshot.js";
import { JOURNAL_VERSION, type JournalRecord, parseRecord, type VenueRecord } from "../core/journalRecords.js";
import { utcDay } from "../engine/utcDay.js";
import { ConfigError, InvalidArgumentError, JournalError } from "../errors.js";
import {
  checkVersion,
  compact,
  ensureHistoryDir,
  foldSegmentsSync,
  fsyncDir,
  headerVersion,
  JOURNAL_FILE,
  listSegments,
  opportunityLine,
  readSnapshot,
  removeStaleTemp,
  segmentPath,
  writeSnapshot,
} from "./journalFiles.js";
import { emptyReplay, type JournalReplay, replayRecord } from "./journalReplay.js";
import { scanLinesSync } from "./scanLines.js";

export { JOURNAL_FILE };

/**
 * Default size past which the tail becomes a history segment: what a restart reads beyond the
 * snapshot (a busy market writes about 50 MB an hour, mostly the opportunity ledger's records).
 */
const SEGMENT_BYTES = 16 * 1024 * 1024;
const ROTATE_CHECK_MS = 60_000;
/** A tail no larger than this holds its header only: nothing to fold at a stop. */
const HEADER_BYTES = 1_024;

/** The records that open a tail of this format: a guard a format-1 build refuses, then the venue. */
export function venueHeader(venue: Pick<VenueRecord, "at" | "baseUrl" | "accountId">): [guard: VenueRecord, venue: VenueRecord] {
  return [
    {
      t: "venue",
      at: venue.at,
      baseUrl: `journal format ${JOURNAL_VERSION}: written by a newer liquidator; run that version or newer (a rollback would forget compacted claim ids)`,
      accountId: venue.accountId,
      version: JOURNAL_VERSION,
      guard: true,
    },
    { t: "venue", at: venue.at, baseUrl: venue.baseUrl, accountId: venue.accountId, version: JOURNAL_VERSION },
  ];
}

export interface JournalLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface JournalOptions {
  dir: string;
  /** Group-commit interval: how long an intent may sit in the page cache before fdatasync. */
  fsyncIntervalMs?: number;
  logger?: JournalLogger;
  /** Size past which the tail is rotated into a history segment [16 MiB]. */
  segmentBytes?: number;
  /** How often the size and the UTC day are checked [60 s]; 0 turns rotation off (tests rotate by hand). */
  rotateCheckMs?: number;
  /** Fold each rotated segment into the snapshot in the background [true]; tests compact by hand. */
  autoCompact?: boolean;
  /**
   * Keep the tail's records in the replay's maps [true] (tools and tests read them). The daemon
   * passes false: it needs the core's state only, and the maps of a busy day's tail would stay in
   * its heap.
   */
  keepRecords?: boolean;
  now?: () => number;
}

export class Journal {
  readonly path: string;
  readonly dir: string;
  #fd: number;
  readonly #fsyncIntervalMs: number;
  readonly #segmentBytes: number;
  readonly #now: () => number;
  #bytes: number;
  /** When the tail began (its segment is named after this day). */
  #startedAt: number;
  #venue: VenueRecord | undefined;
  #nextGen: number;
  #rotateTimer: NodeJS.Timeout | undefined;
  #compacting: Promise<void> = Promise.resolve();
  readonly #autoCompact: boolean;
  readonly #logger: JournalLogger | undefined;
  #dirty = false;
  #syncing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failure: Error | undefined;
  #closed = false;
  /** A write was cut short (e.g. ENOSPC mid-line): the next append starts on a fresh line. */
  #partial = false;

  private constructor(
    dir: string,
    fd: number,
    options: JournalOptions,
    state: { bytes: number; venue: VenueRecord | undefined; nextGen: number },
  ) {
    this.dir = dir;
    this.path = join(dir, JOURNAL_FILE);
    this.#fd = fd;
    this.#fsyncIntervalMs = options.fsyncIntervalMs ?? 20;
    this.#logger = options.logger;
    this.#segmentBytes = options.segmentBytes ?? SEGMENT_BYTES;
    this.#now = options.now ?? Date.now;
    this.#autoCompact = options.autoCompact ?? true;
    this.#bytes = state.bytes;
    this.#startedAt = this.#now();
    this.#venue = state.venue;
    this.#nextGen = state.nextGen;
    const every = options.rotateCheckMs ?? ROTATE_CHECK_MS;
    if (every > 0) {
      this.#rotateTimer = setInterval(() => this.#maybeRotate(), every);
      this.#rotateTimer.unref();
    }
  }

  /**
   * Opens (creating the folder and file if needed), replays what is there, and repairs a torn tail.
   * The replay is the snapshot's state, then the segments it does not cover, then the tail, each
   * streamed; a tail found past `segmentBytes` (a journal of format 1) is first made a segment, and
   * any segment read is folded into a new snapshot, so the next start does not read it again.
   */
  static open(options: JournalOptions): { journal: Journal; replay: JournalReplay } {
    if (!(options.fsyncIntervalMs === undefined || (Number.isFinite(options.fsyncIntervalMs) && options.fsyncIntervalMs >= 0))) {
      throw new InvalidArgumentError("fsyncIntervalMs must be a non-negative number");
    }
    const { dir } = options;
    const path = join(dir, JOURNAL_FILE);
    const log = options.logger;
    const keepRecords = options.keepRecords ?? true;
    let fd: number;
    try {
      mkdirSync(dir, { recursive: true });
      ensureHistoryDir(dir);
      removeStaleTemp(dir);
      checkVersion(dir, headerVersion(path));
      const snapshot = readSnapshot(dir);
      const folder = snapshot === undefined ? new CoreFold() : fromSnapshot(snapshot);
      const lastGen = Math.max(folder.through, ...listSegments(dir).map((s) => s.gen));
      fd = openSync(path, "a+");
      if (fstatSync(fd).size > (options.segmentBytes ?? SEGMENT_BYTES)) {
        closeSync(fd);
        renameSync(path, segmentPath(dir, lastGen + 1, (options.now ?? Date.now)()));
        fsyncDir(join(dir, "history"));
        fd = openSync(path, "a+");
        fsyncDir(dir);
      }
      const { folded, corrupt } = foldSegmentsSync(folder, dir);
      if (corrupt > 0) log?.warn({ dir, corruptLines: corrupt }, "journal history has corrupt lines; skipped them");
      if (folded > 0) writeSnapshot(dir, toSnapshot(folder, (options.now ?? Date.now)()));
      const replay = emptyReplay();
      replay.core = folder;
      const scan = scanLinesSync(path, (line) => {
        // The opportunity ledger's records change nothing of the core's state: not parsed at all.
        if (!keepRecords && opportunityLine(line)) return void replay.records++;
        const rec = parseRecord(line);
        if (rec === undefined) replay.corruptLines++;
        else {
          folder.add(rec);
          if (keepRecords) replayRecord(replay, rec);
          else replay.records++;
        }
      });
      replay.venue = folder.venue;
      replay.version = folder.version;
      replay.protection = folder.protection;
      checkVersion(dir, replay.version);
      if (scan.torn) {
        replay.tornTail = true;
        ftruncateSync(fd, scan.complete);
        log?.warn({ path, keptBytes: scan.complete }, "journal ended in a torn line; truncated it");
      }
      if (replay.corruptLines > 0) log?.warn({ path, corruptLines: replay.corruptLines }, "journal has corrupt lines; skipped them");
      const journal = new Journal(dir, fd, options, {
        bytes: fstatSync(fd).size,
        venue: replay.venue,
        nextGen: Math.max(folder.through, ...listSegments(dir).map((s) => s.gen)) + 1,
      });
      // A tail begun by a rotation killed before its header: the venue is known from the snapshot.
      if (journal.#bytes === 0 && replay.venue !== undefined) for (const rec of venueHeader(replay.venue)) journal.append(rec);
      return { journal, replay };
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw new JournalError(`cannot open the claims journal ${path}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** The venue record this journal belongs to (set once, by its first venue record). */
  #noteVenue(record: JournalRecord): void {
    if (record.t === "venue" && record.guard !== true) this.#venue ??= record;
  }

  #maybeRotate(): void {
    if (this.#bytes > this.#segmentBytes || utcDay(this.#now()) !== utcDay(this.#startedAt)) this.rotate();
  }

  /**
   * Close the tail as a history segment and begin a new one (header first), then fold the segment
   * into the snapshot in the background. Synchronous and short: one fdatasync, one rename, fsyncs.
   */
  rotate(): void {
    if (this.#closed || this.#failure !== undefined || this.#bytes === 0) return;
    const gen = this.#nextGen++;
    try {
      fdatasyncSync(this.#fd);
      closeSync(this.#fd);
      renameSync(this.path, segmentPath(this.dir, gen, this.#startedAt));
      fsyncDir(join(this.dir, "history"));
      this.#fd = openSync(this.path, "a+");
      fsyncDir(this.dir);
    } catch (err) {
      this.#fail(err as Error);
      return;
    }
    this.#bytes = 0;
    this.#startedAt = this.#now();
    if (this.#venue !== undefined) for (const rec of venueHeader(this.#venue)) this.append(rec);
    if (this.#autoCompact) this.#compacting = this.#compacting.then(() => this.compact());
  }

  /** Fold the segments not yet in the snapshot into it. Never rejects: a failure is logged, retried next time. */
  async compact(): Promise<void> {
    try {
      const folded = await compact(this.dir, this.#now());
      if (folded > 0) this.#logger?.warn({ dir: this.dir, segments: folded }, "journal history compacted into the snapshot");
    } catch (err) {
      this.#logger?.error({ dir: this.dir, err: (err as Error).message }, "journal compaction failed; the next start reads the segments");
    }
  }

  /**
   * Forget a write failure so the next append tries again (disk space freed, permissions fixed).
   * Safe to call on a timer: the next append is itself the probe, and a failed intent append means
   * its claim is not sent. False when there was nothing to recover or the journal is closed.
   */
  recover(): boolean {
    if (this.#failure === undefined || this.#closed) return false;
    this.#failure = undefined;
    return true;
  }

  /** Why writing stopped, if it did; claiming must stop with it. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Synchronous append of one record. Throws JournalError (and stays failed) if it cannot. */
  append(record: JournalRecord): void {
    if (this.#failure !== undefined) throw new JournalError(`journal unavailable: ${this.#failure.message}`, { cause: this.#failure });
    if (this.#closed) throw new JournalError("journal is closed");
    const line = `${this.#partial ? "\n" : ""}${JSON.stringify(record)}\n`;
    try {
      // The string as is (no Buffer of its own): one write(2) on the claim's hot path.
      const written = writeSync(this.#fd, line);
      const length = Buffer.byteLength(line);
      if (written !== length) throw new Error(`short write (${written} of ${length} bytes): disk full?`);
      this.#partial = false;
      this.#bytes += length;
    } catch (err) {
      // Whatever part of the line reached the file is a corrupt line to replay (skipped, counted).
      this.#partial = true;
      this.#fail(err as Error);
      throw new JournalError(`cannot write the claims journal: ${(err as Error).message}`, { cause: err });
    }
    this.#noteVenue(record);
    this.#dirty = true;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#fsyncIntervalMs);
  }

  /** fdatasync now if anything was written since the last one. Never rejects: failure is recorded. */
  async flush(): Promise<void> {
    while (this.#syncing !== undefined) await this.#syncing;
    if (!this.#dirty || this.#failure !== undefined) return;
    this.#dirty = false;
    this.#syncing = new Promise<void>((resolve) => {
      fdatasync(this.#fd, (err) => {
        if (err) this.#fail(err);
        this.#syncing = undefined;
        resolve();
      });
    });
    await this.#syncing;
  }

  /**
   * `compact`: the tail is first made a segment and folded into the snapshot, so that the next start
   * reads what is open and nothing of the day's history (a polite stop; a kill -9 never gets here).
   */
  async close(options: { compact?: boolean } = {}): Promise<void> {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#rotateTimer !== undefined) clearInterval(this.#rotateTimer);
    if (options.compact === true && this.#bytes > HEADER_BYTES) {
      this.rotate();
      if (!this.#autoCompact) this.#compacting = this.#compacting.then(() => this.compact());
    }
    await this.#compacting;
    await this.flush();
    this.#closed = true;
    closeSync(this.#fd);
  }

  /** Bytes in the journal file now (for metrics and tests). */
  size(): number {
    return fstatSync(this.#fd).size;
  }

  #fail(err: Error): void {
    if (this.#failure !== undefined) return;
    this.#failure = err;
    this.#logger?.error({ path: this.path, err: err.message }, "claims journal write failed; claiming stops");
  }
}
