/**
 * Where a test daemon's log goes: every line kept raw (what an operator's log collector receives,
 * searched whole by the secret-leak test) and parsed (JSON lines; anything else, e.g. pino-pretty
 * output, kept as a `raw` line). A pino destination for an in-process daemon, fed by `push` from a
 * child's stdout. Not a test file itself.
 */
import { Writable } from "node:stream";

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

export class LogCollector extends Writable {
  readonly lines: LogLine[] = [];
  #raw = "";
  #partial = "";

  override _write(chunk: Buffer | string, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    this.push(chunk.toString());
    cb();
  }

  /** Feed raw text (also used for a child's stdout). */
  push(text: string): void {
    this.#raw += text;
    const parts = (this.#partial + text).split("\n");
    this.#partial = parts.pop() ?? "";
    for (const line of parts) {
      if (line.trim() === "") continue;
      try {
        this.lines.push(JSON.parse(line) as LogLine);
      } catch {
        this.lines.push({ level: "raw", msg: line });
      }
    }
  }

  /** Every byte written so far, as text (a partial last line included). */
  text(): string {
    return this.#raw;
  }

  has(msg: string): boolean {
    return this.lines.some((l) => l.msg === msg);
  }

  find(msg: string): LogLine[] {
    return this.lines.filter((l) => l.msg === msg);
  }
}
