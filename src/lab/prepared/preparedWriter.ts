/**
 * Writes the prepared form of a capture (preparedFormat.ts) from the lines of a JSONL read: to a temp
 * file beside the capture, renamed into place when whole and only if the capture did not change
 * meanwhile. Never throws into the read: anything failing drops the file (NODE_DEBUG=liquidator says
 * why).
 */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { debuglog } from "node:util";
import { threadId } from "node:worker_threads";
import { crc32 } from "node:zlib";
import type { CaptureEvent } from "../../daemon/records/captureTap.js";
import { preparedPath } from "../capture/captureFiles.js";
import type { LineSink } from "../capture/captureReader.js";
import { PreparedEncoder } from "./preparedEncoder.js";
import { encodeHeader, HEADER_BYTES, PREPARED_VERSION } from "./preparedFormat.js";
import { type SourceKey, sameSource, sourceKey } from "./preparedSource.js";

const debug = debuglog("liquidator");

/** A temp file older than this is left from a read that was killed (a read writes its own every block). */
const STALE_TEMP_MS = 60 * 60 * 1000;

/** Prepares a capture from the lines of a JSONL read: a temp file beside it, renamed when whole. */
export class PreparedWriter implements LineSink {
  readonly #encoder = new PreparedEncoder();
  readonly #file: string;
  readonly #path: string;
  readonly #tmp: string;
  #fd: number | undefined;
  #at = HEADER_BYTES;
  #crc = 0;
  #failed = false;

  private constructor(file: string, tmp: string, fd: number) {
    this.#file = file;
    this.#path = preparedPath(file);
    this.#tmp = tmp;
    this.#fd = fd;
  }

  /** A writer beside `file`, or undefined when its directory takes no file. */
  static start(file: string): PreparedWriter | undefined {
    const path = preparedPath(file);
    removeStaleTemps(path);
    // Unique per process and thread: two workers preparing the same capture each write their own.
    const tmp = `${path}.${process.pid}.${threadId}.${randomBytes(4).toString("hex")}.tmp`;
    try {
      return new PreparedWriter(file, tmp, openSync(tmp, "wx"));
    } catch (err) {
      debug("capture %s not prepared: %s", file, (err as Error).message);
      return undefined;
    }
  }

  line(n: number, text: string, ev: CaptureEvent | undefined): string | undefined {
    if (this.#failed) return undefined;
    try {
      // A structural record is one whose line names its own kind alone (preparedEncoder.ts).
      const named = this.#encoder.line(n, text, ev) ? ev?.k : undefined;
      this.#write(this.#encoder.block());
      return named;
    } catch (err) {
      this.#fail(err);
      return undefined;
    }
  }

  spoil(): void {
    this.#fail(new Error("a later header line is not one this build reads"));
  }

  /** The read ended whole: the file is finished and put in place if the source did not change under it. */
  async commit(key: SourceKey): Promise<void> {
    if (this.#failed) return;
    try {
      this.#write(this.#encoder.block(true));
      const after = await sourceKey(this.#file);
      if (after === undefined || !sameSource(key, after)) throw new Error("the capture changed while it was read");
      const header = encodeHeader(
        {
          version: PREPARED_VERSION,
          reader: key.reader,
          sourceSize: key.size,
          sourceMtimeNs: key.mtimeNs,
          sourceTail: key.tail,
          events: this.#encoder.events,
          badLines: this.#encoder.badLines,
          bodyBytes: BigInt(this.#at - HEADER_BYTES),
          bodyCrc: this.#crc,
        },
        crc32,
      );
      writeSync(this.#fd as number, header, 0, header.length, 0);
      closeSync(this.#fd as number);
      this.#fd = undefined;
      // Atomic: a reader sees the old file or the new one whole; of two writers the last one stays.
      renameSync(this.#tmp, this.#path);
    } catch (err) {
      this.#fail(err);
    }
  }

  /** The read stopped early or failed: nothing is kept. */
  abort(): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#discard();
  }

  #write(b: Buffer | undefined): void {
    if (b === undefined) return;
    writeSync(this.#fd as number, b, 0, b.length, this.#at);
    this.#at += b.length;
    this.#crc = crc32(b, this.#crc);
  }

  #fail(err: unknown): void {
    debug("capture not prepared (%s): %s", this.#path, (err as Error).message);
    this.#failed = true;
    this.#discard();
  }

  #discard(): void {
    try {
      if (this.#fd !== undefined) closeSync(this.#fd);
    } catch {}
    this.#fd = undefined;
    try {
      unlinkSync(this.#tmp);
    } catch {}
  }
}

/** Temp files of `path` left by reads that were killed before they finished (never a live one: see STALE_TEMP_MS). */
function removeStaleTemps(path: string): void {
  const prefix = `${basename(path)}.`;
  try {
    for (const name of readdirSync(dirname(path))) {
      if (!name.startsWith(prefix) || !name.endsWith(".tmp")) continue;
      const temp = join(dirname(path), name);
      if (Date.now() - statSync(temp).mtimeMs > STALE_TEMP_MS) unlinkSync(temp);
    }
  } catch (err) {
    debug("stale temp files of %s not removed: %s", path, (err as Error).message);
  }
}
