/**
 * Append-only claims journal (JSONL in `state.dir`). The intent record is written with a synchronous
 * `write` before a claim leaves, so a killed process (the common failure) never forgets a claim it
 * may have sent; `fdatasync` runs batched off the hot path (group commit), so an OS crash can lose
 * the last few milliseconds of intents — the venue's -1202 on a repeated id and the exposure
 * restored from the journal bound what that costs (DESIGN.md, "The journal and the hot path").
 */
import { closeSync, fdatasync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { InvalidArgumentError, JournalError } from "../errors.js";

export const JOURNAL_FILE = "claims.jsonl";

const finite = z.number().finite();
const intentSchema = z.object({
  t: z.literal("intent"),
  id: z.number().int().nonnegative(),
  at: finite,
  ratio: finite,
  symbols: z.array(z.object({ symbol: z.string(), ratio_qty_request: finite })).optional(),
  limitPrice: z.record(z.string(), finite),
  expectedFee: finite,
  perSymbolQty: z.record(z.string(), finite),
  dryRun: z.boolean().optional(),
});
export const fillSchema = z.object({ symbol: z.string(), qty: finite, price: finite, fee: finite });
const outcomeSchema = z.object({
  t: z.literal("outcome"),
  id: z.number().int().nonnegative(),
  at: finite,
  /**
   * accepted: the venue assigned us positions. rejected: the venue refused (code says why).
   * unknown: the request may have reached the venue but no answer came; never resent blindly.
   * dry_run: decided but deliberately not sent. confirmed / not_accepted: a later resolution of an
   * unknown outcome (private push, or the open list).
   */
  result: z.enum(["accepted", "rejected", "unknown", "dry_run", "confirmed", "not_accepted"]),
  code: z.number().int().optional(),
  fills: z.array(fillSchema).optional(),
  /** Venue time the claim was applied (the answer's or the assignment push's `timestamp`). */
  venueTs: finite.optional(),
});
/**
 * The account's positions as the venue's `position` push reported them (the whole account), with the
 * push's venue time. Replay starts exposure from the last one instead of summing every fill ever
 * journaled: positions closed since (an operator unwinding) must not come back on restart.
 */
const positionsSchema = z.object({
  t: z.literal("positions"),
  at: finite,
  venueTs: finite,
  held: z.record(z.string(), finite),
});
/**
 * The venue and account a journal belongs to: its first record. Ids are only unique per venue and
 * account, so a journal replayed against another pair would block claims it never made.
 */
const venueSchema = z.object({
  t: z.literal("venue"),
  at: finite,
  baseUrl: z.string(),
  accountId: z.string(),
});
const recordSchema = z.discriminatedUnion("t", [intentSchema, outcomeSchema, positionsSchema, venueSchema]);

export type IntentRecord = z.infer<typeof intentSchema>;
export type OutcomeRecord = z.infer<typeof outcomeSchema>;
export type PositionsRecord = z.infer<typeof positionsSchema>;
export type VenueRecord = z.infer<typeof venueSchema>;
export type Fill = z.infer<typeof fillSchema>;
export type JournalRecord = IntentRecord | OutcomeRecord | PositionsRecord | VenueRecord;

export interface JournalReplay {
  /** Last intent per liquidation id. */
  intents: Map<number, IntentRecord>;
  /** Outcomes per liquidation id, in file order. */
  outcomes: Map<number, OutcomeRecord[]>;
  /** The last positions snapshot, if any. */
  positions: PositionsRecord | undefined;
  /** The first venue record: whose journal this is (undefined for a journal older than the record). */
  venue: VenueRecord | undefined;
  /** Valid records read. */
  records: number;
  /** Lines that were not valid records (skipped with a warning). */
  corruptLines: number;
  /** True when the file ended in a partial line (a write cut short by a kill); it was truncated away. */
  tornTail: boolean;
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
    const path = join(options.dir, JOURNAL_FILE);
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
    const bytes = Buffer.from(line, "utf8");
    try {
      const written = writeSync(this.#fd, bytes);
      if (written !== bytes.length) throw new Error(`short write (${written} of ${bytes.length} bytes): disk full?`);
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

/** Pure parse of journal text: valid records, corrupt lines counted, a partial last line detected. */
export function parseJournal(text: string): JournalReplay {
  const replay: JournalReplay = {
    intents: new Map(),
    outcomes: new Map(),
    positions: undefined,
    venue: undefined,
    records: 0,
    corruptLines: 0,
    tornTail: false,
  };
  const lines = text.split("\n");
  // The element after the last "\n" is "" for a clean file; anything else is a line the kill cut short.
  const tail = lines.pop() ?? "";
  if (tail.length > 0) replay.tornTail = true;
  for (const line of lines) {
    if (line.length === 0) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      replay.corruptLines++;
      continue;
    }
    const result = recordSchema.safeParse(parsed);
    if (!result.success) {
      replay.corruptLines++;
      continue;
    }
    const rec = result.data;
    replay.records++;
    if (rec.t === "intent") {
      replay.intents.set(rec.id, rec);
    } else if (rec.t === "positions") {
      replay.positions = rec;
    } else if (rec.t === "venue") {
      replay.venue ??= rec;
    } else {
      const list = replay.outcomes.get(rec.id);
      if (list === undefined) replay.outcomes.set(rec.id, [rec]);
      else list.push(rec);
    }
  }
  return replay;
}
