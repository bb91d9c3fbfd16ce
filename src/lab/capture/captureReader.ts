/**
 * Streams the events of capture files, in file order, without loading a file whole: gunzip →
 * lines → JSON. Line 1 must be a header of a version this build knows. A truncated or corrupt file,
 * or a line that is not an event, is a CaptureError naming the file and line; `lenient` skips bad
 * lines (counted) but still refuses a bad header or a damaged gzip stream.
 */
import { createReadStream } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { createGunzip } from "node:zlib";
import type { CaptureEvent } from "../../daemon/records/captureTap.js";
import { CaptureError } from "../../errors.js";
import { CAPTURE_FORMAT, CAPTURE_VERSION, EVENT_KINDS } from "./captureFormat.js";
import { hasEventShape } from "./eventShape.js";

export interface ReadStats {
  events: number;
  badLines: number;
}

/**
 * Sees every line of a read after the header, parsed, whatever `only` asks (preparedCapture.ts
 * prepares the capture's binary form from them). Must not throw.
 */
export interface LineSink {
  /**
   * Line `n` (1 is the header) and its event, undefined when it is not one. Returns the one kind the
   * line's text names (`"k":"KIND"`), when it knew it (it saves the read a scan), else undefined.
   */
  line(n: number, text: string, ev: CaptureEvent | undefined): string | undefined;
  /** A line the read skipped cannot be told as it would be read in full (a bad later header). */
  spoil(): void;
}

export interface ReadOptions {
  lenient?: boolean;
  stats?: ReadStats;
  only?: readonly CaptureEvent["k"][];
  sink?: LineSink;
}

const HEADER_START = `{"format":"${CAPTURE_FORMAT}"`;

function checkHeader(file: string, line: string | undefined, lineNo = 1): void {
  if (line === undefined) throw new CaptureError(`capture ${file}: empty (no header line)`);
  let h: unknown;
  try {
    h = JSON.parse(line);
  } catch {
    throw new CaptureError(`capture ${file} line ${lineNo}: not a capture header (not JSON)`);
  }
  const r = h as { format?: unknown; version?: unknown };
  if (typeof h !== "object" || h === null || r.format !== CAPTURE_FORMAT) {
    throw new CaptureError(`capture ${file} line ${lineNo}: not a capture header (format must be "${CAPTURE_FORMAT}")`);
  }
  if (typeof r.version !== "number" || !Number.isInteger(r.version) || r.version < 1) {
    throw new CaptureError(`capture ${file} line ${lineNo}: header version ${JSON.stringify(r.version)} is not a format version`);
  }
  if (r.version > CAPTURE_VERSION) {
    throw new CaptureError(
      `capture ${file}: format version ${r.version} is newer than this liquidator reads (up to ${CAPTURE_VERSION}); upgrade to replay it`,
    );
  }
}

function parseEvent(line: string): CaptureEvent | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  const e = v as { k?: unknown; at?: unknown };
  if (typeof e.k !== "string" || !EVENT_KINDS.has(e.k as CaptureEvent["k"]) || typeof e.at !== "number" || !Number.isFinite(e.at)) {
    return undefined;
  }
  return hasEventShape(v as Record<string, unknown>) ? (v as CaptureEvent) : undefined;
}

const KIND_KEY = '"k":"';

/**
 * Whether a line's text holds `"k":"KIND"` for one of `kinds` (anywhere: a line is picked by its text,
 * unparsed). One scan for the key, not one per kind; the same as `text.includes` of each `"k":"KIND"`,
 * as a kind holds no quote.
 */
export function namesKind(text: string, kinds: ReadonlySet<string>): boolean {
  for (let p = text.indexOf(KIND_KEY); p !== -1; p = text.indexOf(KIND_KEY, p + 1)) {
    const q = text.indexOf('"', p + KIND_KEY.length);
    if (q === -1) return false;
    if (kinds.has(text.slice(p + KIND_KEY.length, q))) return true;
  }
  return false;
}

/** Gunzipped bytes per chunk: fewer, bigger chunks cost less per line than the 16 KiB default. */
const CHUNK_BYTES = 256 * 1024;

/**
 * The events of one file, a chunk's worth at a time (a replay handles them without a promise per
 * event). `stats` is updated as lines are read. `only`: the kinds whose events alone are wanted; other
 * lines are skipped unparsed (a fast first pass), bad ones included, unless a `sink` wants them.
 */
export async function* readCaptureBatches(file: string, options: ReadOptions = {}): AsyncGenerator<CaptureEvent[]> {
  const only = options.only === undefined ? undefined : new Set<string>(options.only);
  const stats = options.stats ?? { events: 0, badLines: 0 };
  const source = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  const gunzip = createGunzip({ chunkSize: CHUNK_BYTES });
  let streamError: Error | undefined;
  source.on("error", (err) => {
    streamError = err;
    gunzip.destroy(err);
  });
  const decoder = new StringDecoder("utf8");
  /** The start of a line that continues in the next chunk. */
  let pending: string[] = [];
  let n = 0;
  let batch: CaptureEvent[] = [];
  const sink = options.sink;
  const line = (raw: string): void => {
    const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    n++;
    if (n === 1) return checkHeader(file, text);
    if (text === "") return;
    if (sink === undefined && only !== undefined && !namesKind(text, only)) return;
    // A daily file the daemon appended to after a restart: a new gzip member, a new header.
    if (text.startsWith(HEADER_START)) {
      if (sink === undefined || only === undefined || namesKind(text, only)) return checkHeader(file, text, n);
      // Read for the sink only: a bad header spoils what it gets, not this read.
      try {
        checkHeader(file, text, n);
      } catch {
        sink.spoil();
      }
      return;
    }
    const ev = parseEvent(text);
    if (sink !== undefined) {
      const named = sink.line(n, text, ev);
      if (only !== undefined && !(named !== undefined ? only.has(named) : namesKind(text, only))) return;
    }
    if (ev === undefined) {
      if (!options.lenient) {
        throw new CaptureError(`capture ${file} line ${n}: not a capture event (garbage or a cut line); --lenient skips such lines`);
      }
      stats.badLines++;
      return;
    }
    stats.events++;
    batch.push(ev);
  };
  try {
    for await (const chunk of source.pipe(gunzip) as AsyncIterable<Buffer>) {
      const text = decoder.write(chunk);
      let from = 0;
      for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
        let piece = text.slice(from, nl);
        if (pending.length > 0) {
          pending.push(piece);
          piece = pending.join("");
          pending = [];
        }
        line(piece);
        from = nl + 1;
      }
      if (from < text.length) pending.push(text.slice(from));
      if (batch.length > 0) {
        yield batch;
        batch = [];
      }
    }
    pending.push(decoder.end());
    const last = pending.join("");
    if (last !== "") line(last);
    if (batch.length > 0) yield batch;
  } catch (err) {
    if (err instanceof CaptureError) throw err;
    const e = (streamError ?? err) as NodeJS.ErrnoException;
    const why =
      e.code === "ENOENT"
        ? "no such file"
        : e.code === "Z_BUF_ERROR" || /unexpected end/i.test(e.message)
          ? "truncated (the gzip stream ends early)"
          : `corrupt (${e.code ?? e.message})`;
    throw new CaptureError(`capture ${file} after line ${n}: ${why}`, { cause: err });
  } finally {
    source.destroy();
    gunzip.destroy();
  }
  if (n === 0) throw new CaptureError(`capture ${file}: empty (no header line)`);
}

/** The events of one file, one at a time (readCaptureBatches). */
export async function* readCapture(
  file: string,
  options: { lenient?: boolean; stats?: ReadStats; only?: readonly CaptureEvent["k"][] } = {},
): AsyncGenerator<CaptureEvent> {
  for await (const batch of readCaptureBatches(file, options)) yield* batch;
}
