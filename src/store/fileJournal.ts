/**
 * Append-only claims journal (JSONL in `state.dir`). The intent record is written with a synchronous
 * `write` before a claim leaves, so a killed process (the common failure) never forgets a claim it
 * may have sent; `fdatasync` runs batched off the hot path (group commit), so an OS crash can lose
 * the last few milliseconds of intents — the venue's -1202 on a repeated id and the exposure
 * restored from the journal bound what that costs (docs/architecture.md, "The journal and the hot path").
 */
import { closeSync, fdatasync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { InvalidArgumentError, JournalError } from "../errors.js";
import { type JournalRecord, type JournalReplay, parseJournal } from "./journalRecords.js";

export const JOURNAL_FILE = "claims.jsonl";

export interface JournalLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface JournalOptions {
  dir: string;
  /** The file's name in `dir` (default `claims.jsonl`; ownJournalFile.ts picks one per venue and account). */
  file?: string;
  /** Group-commit interval: how long an intent may sit in the page cache before fdatasync. */
  fsyncIntervalMs?: number;
  logger?: JournalLogger;
}

export class Journal {
  readonly path: string;
  readonly #fd: number;
  readonly #fsyncIntervalMs: number;
  readonly #logger: JournalLogger | undefined;
  #dirty = false;
  #syncing: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failure: Error | undefined;
  #closed = false;
  /** A write was cut short (e.g. ENOSPC mid-line): the next append starts on a fresh line. */
  #partial = false;

  private constructor(path: string, fd: number, options: JournalOptions) {
    this.path = path;
    this.#fd = fd;
    this.#fsyncIntervalMs = options.fsyncIntervalMs ?? 20;
    this.#logger = options.logger;
  }

  /** Opens (creating the folder and file if needed), replays what is there, and repairs a torn tail. */
  static open(options: JournalOptions): { journal: Journal; replay: JournalReplay } {
    if (!(options.fsyncIntervalMs === undefined || (Number.isFinite(options.fsyncIntervalMs) && options.fsyncIntervalMs >= 0))) {
      throw new InvalidArgumentError("fsyncIntervalMs must be a non-negative number");
    }
    const path = join(options.dir, options.file ?? JOURNAL_FILE);
    let fd: number;
    try {
      mkdirSync(options.dir, { recursive: true });
      fd = openSync(path, "a+");
    } catch (err) {
      throw new JournalError(`cannot open the claims journal ${path}: ${(err as Error).message}`, { cause: err });
    }
    const text = readFileSync(path, "utf8");
    const replay = parseJournal(text);
    if (replay.tornTail) {
      const keep = Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1), "utf8");
      ftruncateSync(fd, keep);
      options.logger?.warn({ path, keptBytes: keep }, "journal ended in a torn line; truncated it");
    }
    if (replay.corruptLines > 0) {
      options.logger?.warn({ path, corruptLines: replay.corruptLines }, "journal has corrupt lines; skipped them");
    }
    return { journal: new Journal(path, fd, options), replay };
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
    } catch (err) {
      // Whatever part of the line reached the file is a corrupt line to replay (skipped, counted).
      this.#partial = true;
      this.#fail(err as Error);
      throw new JournalError(`cannot write the claims journal: ${(err as Error).message}`, { cause: err });
    }
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

  async close(): Promise<void> {
    if (this.#closed) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
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
