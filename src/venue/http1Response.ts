/**
 * An incremental HTTP/1.1 response parser for the claim connection (claimConnection.ts): status line,
 * headers (names lower-cased, a repeated name keeps its first value), then a body delimited by
 * `content-length`, by chunked transfer coding (extensions and trailers skipped), or by the close of
 * the connection. 1xx answers are skipped. Pure: bytes in, callbacks out; every malformed input is
 * an error, never a guess. Bounded: headers ≤ 64 KiB, body ≤ `maxBodyBytes`.
 */

export interface ResponseSink {
  head(status: number, headers: Record<string, string>): void;
  data(chunk: Buffer): void;
  /** The response is complete; `keepAlive`: the connection may carry the next request. */
  end(keepAlive: boolean): void;
}

const MAX_HEAD_BYTES = 64 * 1024;
const CRLF = Buffer.from("\r\n");
const HEAD_END = Buffer.from("\r\n\r\n");
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/;

class ResponseFormatError extends Error {
  readonly code = "UND_ERR_SOCKET";
}

type State = "head" | "length" | "chunkSize" | "chunkData" | "chunkDataEnd" | "trailers" | "untilClose" | "done";

export class Http1ResponseParser {
  readonly #sink: ResponseSink;
  readonly #maxBodyBytes: number;
  #buf: Buffer = Buffer.alloc(0);
  #state: State = "head";
  #remaining = 0;
  #bodyBytes = 0;
  #keepAlive = true;

  constructor(sink: ResponseSink, maxBodyBytes: number) {
    this.#sink = sink;
    this.#maxBodyBytes = maxBodyBytes;
  }

  get done(): boolean {
    return this.#state === "done";
  }

  /** Body bytes until the connection closes: the close ends the response (else it is an error). */
  get endsAtClose(): boolean {
    return this.#state === "untilClose";
  }

  /** Feeds bytes; throws ResponseFormatError on malformed input. Bytes after the end are an error too. */
  push(chunk: Buffer): void {
    if (this.#state === "done") throw new ResponseFormatError("bytes after the end of the response");
    this.#buf = this.#buf.length === 0 ? chunk : Buffer.concat([this.#buf, chunk]);
    while (this.#buf.length > 0 && !this.done) if (!this.#step()) break;
    if (this.done && this.#buf.length > 0) throw new ResponseFormatError("bytes after the end of the response");
  }

  /** The connection closed: completes a close-delimited body. */
  close(): void {
    if (this.#state !== "untilClose") throw new ResponseFormatError("connection closed before the response ended");
    this.#finish(false);
  }

  /** One step; false: more bytes are needed. */
  #step(): boolean {
    switch (this.#state) {
      case "head":
        return this.#head();
      case "length":
      case "chunkData": {
        const n = Math.min(this.#remaining, this.#buf.length);
        this.#body(this.#buf.subarray(0, n));
        this.#buf = this.#buf.subarray(n);
        this.#remaining -= n;
        if (this.#remaining === 0) {
          if (this.#state === "length") this.#finish(this.#keepAlive);
          else this.#state = "chunkDataEnd";
        }
        return true;
      }
      case "chunkDataEnd": {
        if (this.#buf.length < 2) return false;
        if (this.#buf[0] !== 13 || this.#buf[1] !== 10) throw new ResponseFormatError("chunk not followed by CRLF");
        this.#buf = this.#buf.subarray(2);
        this.#state = "chunkSize";
        return true;
      }
      case "chunkSize": {
        const line = this.#line();
        if (line === undefined) return false;
        const size = line.split(";", 1)[0]?.trim() ?? "";
        if (!/^[0-9a-fA-F]{1,8}$/.test(size)) throw new ResponseFormatError("bad chunk size");
        this.#remaining = Number.parseInt(size, 16);
        this.#state = this.#remaining === 0 ? "trailers" : "chunkData";
        return true;
      }
      case "trailers": {
        const line = this.#line();
        if (line === undefined) return false;
        if (line === "") this.#finish(this.#keepAlive);
        return true;
      }
      case "untilClose":
        this.#body(this.#buf);
        this.#buf = Buffer.alloc(0);
        return true;
      case "done":
        return false;
    }
  }

  #head(): boolean {
    const end = this.#buf.indexOf(HEAD_END);
    if (end < 0) {
      if (this.#buf.length > MAX_HEAD_BYTES) throw new ResponseFormatError("response head too large");
      return false;
    }
    const lines = this.#buf.subarray(0, end).toString("latin1").split("\r\n");
    this.#buf = this.#buf.subarray(end + 4);
    const m = STATUS_LINE.exec(lines[0] ?? "");
    if (m === null) throw new ResponseFormatError("bad status line");
    const status = Number(m[2]);
    const headers: Record<string, string> = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      const colon = line.indexOf(":");
      if (colon <= 0) throw new ResponseFormatError("bad header line");
      const name = line.slice(0, colon).trim().toLowerCase();
      if (headers[name] === undefined) headers[name] = line.slice(colon + 1).trim();
    }
    if (status < 200) return true; // 100 Continue and the like: the real answer follows
    const connection = (headers.connection ?? "").toLowerCase();
    this.#keepAlive = m[1] === "1" ? !connection.includes("close") : connection.includes("keep-alive");
    this.#sink.head(status, headers);
    const te = headers["transfer-encoding"];
    const cl = headers["content-length"];
    if (te !== undefined) {
      if (te.toLowerCase() !== "chunked") throw new ResponseFormatError("unsupported transfer-encoding");
      this.#state = "chunkSize";
    } else if (cl !== undefined) {
      if (!/^\d{1,15}$/.test(cl)) throw new ResponseFormatError("bad content-length");
      this.#remaining = Number(cl);
      if (this.#remaining > this.#maxBodyBytes) throw new ResponseFormatError("response too large");
      this.#state = "length";
      if (this.#remaining === 0) this.#finish(this.#keepAlive);
    } else if (status === 204 || status === 304) {
      this.#finish(this.#keepAlive);
    } else {
      this.#state = "untilClose";
    }
    return true;
  }

  #line(): string | undefined {
    const i = this.#buf.indexOf(CRLF);
    if (i < 0) {
      if (this.#buf.length > MAX_HEAD_BYTES) throw new ResponseFormatError("line too long");
      return undefined;
    }
    const line = this.#buf.subarray(0, i).toString("latin1");
    this.#buf = this.#buf.subarray(i + 2);
    return line;
  }

  #body(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#bodyBytes += chunk.length;
    if (this.#bodyBytes > this.#maxBodyBytes) throw new ResponseFormatError("response too large");
    this.#sink.data(chunk);
  }

  #finish(keepAlive: boolean): void {
    this.#state = "done";
    this.#sink.end(keepAlive);
  }
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { ResponseFormatError as ResponseFormatErrorForTests };
