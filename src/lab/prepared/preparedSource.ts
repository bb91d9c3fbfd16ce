/**
 * What a prepared capture is valid for (preparedFormat.ts): the exact source file, told by its size,
 * its mtime to the nanosecond and its last bytes (a same-size rewrite within one mtime tick differs
 * there: a gzip member ends with its CRC and length); and the code that decided which of its lines
 * are events (a build that checks events otherwise would read the JSONL otherwise).
 */
import { type FileHandle, open, readFile } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { TAIL_BYTES } from "./preparedFormat.js";

/** What identifies the source a prepared file was made from. */
export interface SourceKey {
  /** readerFingerprint() when the key was taken. */
  reader: number;
  size: bigint;
  mtimeNs: bigint;
  tail: Buffer;
}

/**
 * CRC-32 of the modules whose code decides what a JSONL read yields (the reader, the event shapes,
 * the kinds): a prepared file made by other such code is stale, without anyone having to remember
 * to bump PREPARED_VERSION. Undefined when they cannot be read (then nothing is prepared).
 */
let fingerprint: Promise<number | undefined> | undefined;
function readerFingerprint(): Promise<number | undefined> {
  const ext = import.meta.url.endsWith(".ts") ? "ts" : "js";
  fingerprint ??= Promise.all(
    ["captureReader", "eventShape", "captureFormat"].map((m) => readFile(new URL(`../capture/${m}.${ext}`, import.meta.url))),
  ).then(
    (texts) => texts.reduce((crc, t) => crc32(t, crc), 0),
    () => undefined,
  );
  return fingerprint;
}

export async function sourceKey(file: string): Promise<SourceKey | undefined> {
  let fh: FileHandle | undefined;
  try {
    const reader = await readerFingerprint();
    if (reader === undefined) return undefined;
    fh = await open(file, "r");
    const st = await fh.stat({ bigint: true });
    const tail = Buffer.alloc(TAIL_BYTES);
    const n = st.size < BigInt(TAIL_BYTES) ? Number(st.size) : TAIL_BYTES;
    await fh.read(tail, 0, n, Number(st.size) - n);
    return { reader, size: st.size, mtimeNs: st.mtimeNs, tail };
  } catch {
    return undefined;
  } finally {
    await fh?.close();
  }
}

export const sameSource = (a: SourceKey, b: SourceKey): boolean =>
  a.reader === b.reader && a.size === b.size && a.mtimeNs === b.mtimeNs && a.tail.equals(b.tail);
