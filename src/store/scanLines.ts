/**
 * A journal file read line by line in fixed-size chunks, never as one string: memory stays bounded
 * by the longest line, whatever the file's size (a month of history is past what one string holds).
 */
import { closeSync, openSync, readSync } from "node:fs";

const CHUNK = 1 << 20;

export interface LineScan {
  /** Bytes up to and including the last newline: a torn last line starts here. */
  complete: number;
  /** The file ended in a partial line (a write cut short by a kill). */
  torn: boolean;
}

class Splitter {
  #rest: Buffer = Buffer.alloc(0);
  #offset = 0;
  complete = 0;
  constructor(readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    const buf = this.#rest.length > 0 ? Buffer.concat([this.#rest, chunk]) : chunk;
    let start = 0;
    for (let nl = buf.indexOf(10, start); nl !== -1; nl = buf.indexOf(10, start)) {
      if (nl > start) this.onLine(buf.toString("utf8", start, nl));
      start = nl + 1;
    }
    this.#offset += start;
    this.complete = this.#offset;
    // A copy: the chunk buffer is reused by the next read.
    this.#rest = Buffer.from(buf.subarray(start));
  }

  end(): LineScan {
    return { complete: this.complete, torn: this.#rest.length > 0 };
  }
}

/** Every complete line of `path`, in order, synchronously (start-up, before anything is sent). */
export function scanLinesSync(path: string, onLine: (line: string) => void): LineScan {
  const fd = openSync(path, "r");
  try {
    const splitter = new Splitter(onLine);
    const chunk = Buffer.allocUnsafe(CHUNK);
    for (let n = readSync(fd, chunk, 0, CHUNK, null); n > 0; n = readSync(fd, chunk, 0, CHUNK, null)) splitter.push(chunk.subarray(0, n));
    return splitter.end();
  } finally {
    closeSync(fd);
  }
}

/** The same, yielding to the event loop between chunks (a compaction while the daemon claims). */
export async function scanLines(path: string, onLine: (line: string) => void): Promise<LineScan> {
  const fd = openSync(path, "r");
  try {
    const splitter = new Splitter(onLine);
    const chunk = Buffer.allocUnsafe(CHUNK);
    for (let n = readSync(fd, chunk, 0, CHUNK, null); n > 0; n = readSync(fd, chunk, 0, CHUNK, null)) {
      splitter.push(chunk.subarray(0, n));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return splitter.end();
  } finally {
    closeSync(fd);
  }
}
