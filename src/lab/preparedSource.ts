/**
 * What a prepared capture is valid for (preparedFormat.ts): the exact source file, told by its size,
 * its mtime to the nanosecond and its last bytes (a same-size rewrite within one mtime tick differs
 * there: a gzip member ends with its CRC and length).
 */
import { type FileHandle, open } from "node:fs/promises";
import { PREPARED_SUFFIX, TAIL_BYTES } from "./preparedFormat.js";

export function preparedPath(file: string): string {
  return `${file}${PREPARED_SUFFIX}`;
}

/** What identifies the source a prepared file was made from. */
export interface SourceKey {
  size: bigint;
  mtimeNs: bigint;
  tail: Buffer;
}

export async function sourceKey(file: string): Promise<SourceKey | undefined> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(file, "r");
    const st = await fh.stat({ bigint: true });
    const tail = Buffer.alloc(TAIL_BYTES);
    const n = st.size < BigInt(TAIL_BYTES) ? Number(st.size) : TAIL_BYTES;
    await fh.read(tail, 0, n, Number(st.size) - n);
    return { size: st.size, mtimeNs: st.mtimeNs, tail };
  } catch {
    return undefined;
  } finally {
    await fh?.close();
  }
}

export const sameSource = (a: SourceKey, b: SourceKey): boolean => a.size === b.size && a.mtimeNs === b.mtimeNs && a.tail.equals(b.tail);
