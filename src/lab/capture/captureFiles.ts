/**
 * Where capture events go on disk: gzip JSONL, a header line first in every file (captureFormat.ts).
 * `daily` mode (the daemon's `state.capture`): one file per UTC day in a folder, and a size cap on the
 * folder: when the files together pass it, the oldest are deleted first; a single day larger than
 * the cap is continued in a new part file so the old part can go. `single` mode (`record --out`):
 * one file, no rotation. Serialisation and compression run here, in the queue's batch, not in the
 * tick that received the frame.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { constants, createGzip, type Gzip } from "node:zlib";
import type { CaptureEvent } from "../../daemon/records/captureTap.js";
import { utcDay } from "../../engine/utcDay.js";
import { headerLine } from "./captureFormat.js";
import type { CaptureSink } from "./captureQueue.js";

/** A capture file's prepared form (lab/prepared/) sits beside it, named after it; deleted with it. */
export function preparedPath(file: string): string {
  return `${file}.prepared`;
}

type CaptureTarget = { mode: "single"; path: string } | { mode: "daily"; dir: string; maxBytes: number };

export interface CaptureFilesOptions {
  target: CaptureTarget;
  writer: string;
  venue: string;
  now?: () => number;
  onError?: (err: Error) => void;
}

const FLUSH_EVERY_MS = 10_000;
const DAILY_NAME = /^capture-(\d{4}-\d{2}-\d{2})(?:\.p(\d{3}))?\.jsonl\.gz$/;

function dailyFileName(day: string, part: number): string {
  return part === 0 ? `capture-${day}.jsonl.gz` : `capture-${day}.p${String(part).padStart(3, "0")}.jsonl.gz`;
}

interface OpenFile {
  key: string;
  path: string;
  gzip: Gzip;
  file: WriteStream;
}

export class CaptureFiles implements CaptureSink {
  readonly #o: CaptureFilesOptions;
  readonly #now: () => number;
  #current: OpenFile | undefined;
  #part = 0;
  #partDay = "";
  #flushedAt = Number.NEGATIVE_INFINITY;
  #closing: Promise<void>[] = [];
  #pruning: Promise<void> = Promise.resolve();

  constructor(options: CaptureFilesOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Creates the folder of a daily capture (call once before the first write). */
  async open(): Promise<void> {
    const t = this.#o.target;
    if (t.mode === "daily") await mkdir(t.dir, { recursive: true });
  }

  write(events: readonly CaptureEvent[]): void {
    let text = "";
    let key = "";
    for (const ev of events) {
      const k = this.#keyOf(ev.at);
      if (k !== key && text !== "") {
        this.#fileFor(key).gzip.write(text);
        text = "";
      }
      key = k;
      text += `${JSON.stringify(ev)}\n`;
    }
    if (text !== "") this.#fileFor(key).gzip.write(text);
    // A sync flush every 10 s: a killed process loses at most the last seconds of its capture,
    // not everything zlib still holds in its window.
    const now = this.#now();
    if (this.#current !== undefined && now - this.#flushedAt >= FLUSH_EVERY_MS) {
      this.#flushedAt = now;
      this.#current.gzip.flush(constants.Z_SYNC_FLUSH);
    }
    this.#enforceCap();
  }

  async close(): Promise<void> {
    if (this.#current !== undefined) this.#closing.push(this.#end(this.#current));
    this.#current = undefined;
    await Promise.all(this.#closing);
    await this.#pruning;
  }

  #keyOf(at: number): string {
    return this.#o.target.mode === "single" ? "single" : utcDay(Number.isFinite(at) ? at : this.#now());
  }

  #fileFor(key: string): OpenFile {
    const cur = this.#current;
    if (cur !== undefined && cur.key === key) return cur;
    if (cur !== undefined) this.#closing.push(this.#end(cur));
    if (key !== this.#partDay) {
      this.#partDay = key;
      this.#part = 0;
    }
    const t = this.#o.target;
    const path = t.mode === "single" ? t.path : join(t.dir, dailyFileName(key, this.#part));
    // Daily files are appended to (a restart the same day adds a gzip member with its own header);
    // `record --out` starts its file afresh.
    const file = createWriteStream(path, { flags: t.mode === "single" ? "w" : "a" });
    const gzip = createGzip({ level: 6 });
    gzip.pipe(file);
    const onError = (err: Error) => this.#o.onError?.(err);
    file.on("error", onError);
    gzip.on("error", onError);
    gzip.write(headerLine(this.#o.writer, this.#o.venue, this.#now()));
    this.#current = { key, path, gzip, file };
    return this.#current;
  }

  async #end(f: OpenFile): Promise<void> {
    f.gzip.end();
    await finished(f.file).catch(() => undefined);
  }

  /** Daily mode: compressed bytes on disk over the cap → the oldest files go (or the day rolls to a new part). */
  #enforceCap(): void {
    const t = this.#o.target;
    if (t.mode !== "daily" || this.#current === undefined) return;
    const cur = this.#current;
    this.#pruning = this.#pruning.then(async () => {
      const files = await capturesIn(t.dir);
      let total = 0;
      for (const f of files) total += f.path === cur.path ? Math.max(f.size - f.prepared, cur.file.bytesWritten) + f.prepared : f.size;
      for (const f of files) {
        if (total <= t.maxBytes) return;
        if (f.path === cur.path) {
          // Only today's file is left and it alone is over the cap: continue in a new part.
          if (this.#current === cur) {
            this.#closing.push(this.#end(cur));
            this.#current = undefined;
            this.#part++;
          }
          return;
        }
        await unlink(f.path).catch(() => undefined);
        // Its prepared form (a backtest's cache, preparedCapture.ts) goes with it: it counted too.
        if (f.prepared > 0) await unlink(preparedPath(f.path)).catch(() => undefined);
        total -= f.size;
      }
    });
  }
}

/**
 * Capture files of a daily folder, oldest first. `size` counts the file and its prepared form beside
 * it (`prepared`: that one's bytes), which a backtest of the folder writes: `state.capture_max_bytes`
 * caps what the folder holds, caches included.
 */
async function capturesIn(dir: string): Promise<{ path: string; size: number; prepared: number }[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((n) => DAILY_NAME.test(n)).sort();
  const out: { path: string; size: number; prepared: number }[] = [];
  for (const name of names) {
    const s = await stat(join(dir, name)).catch(() => undefined);
    const p = await stat(preparedPath(join(dir, name))).catch(() => undefined);
    const prepared = p?.size ?? 0;
    if (s !== undefined) out.push({ path: join(dir, name), size: s.size + prepared, prepared });
  }
  return out;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { capturesIn as capturesInForTests };
