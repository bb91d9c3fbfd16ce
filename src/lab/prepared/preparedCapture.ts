/**
 * Reads a capture through its prepared form (preparedFormat.ts) when one is there and valid, else
 * reads the JSONL and prepares it on the way (a backtest reads a capture once per pass and per worker:
 * every read after the first decodes binary instead of gunzip + JSON.parse). The prepared file is a
 * cache: one that is stale (the source changed), damaged or of another format version is ignored
 * and replaced; one that cannot be written (a read-only directory, a full disk) is simply not, and
 * the read goes on from the JSONL. Either way the events and stats are the JSONL read's.
 */
import { type FileHandle, open } from "node:fs/promises";
import { debuglog } from "node:util";
import { crc32 } from "node:zlib";
import type { CaptureEvent } from "../../daemon/records/captureTap.js";
import { preparedPath } from "../capture/captureFiles.js";
import { type ReadOptions, readCaptureBatches } from "../capture/captureReader.js";
import { PreparedDecoder } from "./preparedDecoder.js";
import { decodeHeader, HEADER_BYTES, PREPARED_VERSION } from "./preparedFormat.js";
import { type SourceKey, sameSource, sourceKey } from "./preparedSource.js";
import { PreparedWriter } from "./preparedWriter.js";

export { preparedPath } from "../capture/captureFiles.js";

/** NODE_DEBUG=liquidator shows why a prepared file was not used or not written. */
const debug = debuglog("liquidator");

/** Bytes read at a time when checking a prepared file's body. */
const CHECK_BYTES = 4 * 1024 * 1024;

/** The prepared file of `file`, open, when it is valid for `key` and whole; else undefined. */
async function openPrepared(file: string, key: SourceKey): Promise<FileHandle | undefined> {
  const path = preparedPath(file);
  let fh: FileHandle | undefined;
  try {
    fh = await open(path, "r");
    const head = Buffer.alloc(HEADER_BYTES);
    await fh.read(head, 0, HEADER_BYTES, 0);
    const h = decodeHeader(head, crc32);
    const why =
      h === undefined
        ? "not a prepared file"
        : h.version !== PREPARED_VERSION
          ? `format version ${h.version}`
          : !sameSource(key, { reader: h.reader, size: h.sourceSize, mtimeNs: h.sourceMtimeNs, tail: h.sourceTail })
            ? "stale (the capture, or the code reading it, changed)"
            : (await fh.stat({ bigint: true })).size !== BigInt(HEADER_BYTES) + h.bodyBytes
              ? "truncated"
              : (await bodyCrc(fh)) !== h.bodyCrc
                ? "damaged (checksum)"
                : undefined;
    if (why === undefined) return fh;
    debug("prepared capture %s ignored: %s", path, why);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") debug("prepared capture %s ignored: %s", path, (err as Error).message);
  }
  await fh?.close();
  return undefined;
}

async function bodyCrc(fh: FileHandle): Promise<number> {
  const buf = Buffer.allocUnsafe(CHECK_BYTES);
  let crc = 0;
  for (let at = HEADER_BYTES; ; ) {
    const { bytesRead } = await fh.read(buf, 0, CHECK_BYTES, at);
    if (bytesRead === 0) return crc;
    crc = crc32(buf.subarray(0, bytesRead), crc);
    at += bytesRead;
  }
}

/** Bytes read at a time from a prepared file: many blocks per read. */
const READ_BYTES = 4 * 1024 * 1024;

/** The events of a checked prepared file, a block at a time. */
async function* decodePrepared(fh: FileHandle, file: string, options: ReadOptions): AsyncGenerator<CaptureEvent[]> {
  const stats = options.stats ?? { events: 0, badLines: 0 };
  const decoder = new PreparedDecoder({ file, lenient: options.lenient === true, stats, only: options.only });
  let buf = Buffer.allocUnsafe(READ_BYTES);
  /** Bytes read and not decoded yet: buf[from, to); `at` is the file position of buf[to]. */
  let from = 0;
  let to = 0;
  let at = HEADER_BYTES;
  let end = false;
  const have = async (need: number): Promise<boolean> => {
    while (to - from < need && !end) {
      if (from > 0) {
        buf.copy(buf, 0, from, to);
        to -= from;
        from = 0;
      }
      if (need > buf.length) buf = Buffer.concat([buf.subarray(0, to)], need);
      const { bytesRead } = await fh.read(buf, to, buf.length - to, at);
      end = bytesRead === 0;
      to += bytesRead;
      at += bytesRead;
    }
    return to - from >= need;
  };
  const cut = () => new Error(`prepared capture of ${file}: a block is cut short`);
  for (;;) {
    if (!(await have(4))) {
      if (to > from) throw cut();
      return;
    }
    const n = buf.readUInt32LE(from);
    if (!(await have(4 + n))) throw cut();
    const batch = decoder.block(buf.subarray(from + 4, from + 4 + n));
    from += 4 + n;
    if (batch.length > 0) yield batch;
  }
}

/** Whether `file` has a prepared file that a read would use (the tests' question; the read asks it itself). */
async function validPrepared(file: string): Promise<boolean> {
  const key = await sourceKey(file);
  const fh = key === undefined ? undefined : await openPrepared(file, key);
  await fh?.close();
  return fh !== undefined;
}

/**
 * readCaptureBatches's events and stats, from the prepared form of `file` when valid, else from the
 * JSONL while preparing it (`prepare: false`: the JSONL only, nothing written).
 */
export async function* readPreparedBatches(
  file: string,
  options: ReadOptions & { prepare?: boolean } = {},
): AsyncGenerator<CaptureEvent[]> {
  const { prepare, ...read } = options;
  const key = prepare === false || read.sink !== undefined ? undefined : await sourceKey(file);
  // No key (no such file, unreadable): the JSONL read says what is wrong, in its words.
  if (key === undefined) return yield* readCaptureBatches(file, read);
  const fh = await openPrepared(file, key);
  if (fh !== undefined) {
    try {
      return yield* decodePrepared(fh, file, read);
    } finally {
      await fh.close();
    }
  }
  const writer = PreparedWriter.start(file);
  if (writer === undefined) return yield* readCaptureBatches(file, read);
  let whole = false;
  try {
    yield* readCaptureBatches(file, { ...read, sink: writer });
    whole = true;
  } finally {
    if (whole) await writer.commit(key);
    else writer.abort();
  }
}

// For tests: built from this module's private pieces, so it cannot live in test/support.
export { validPrepared as validPreparedForTests };
