/**
 * One HTTP/1.1 keep-alive connection for claims, written by hand because the claim must reach the
 * socket inside the call that sends it. undici 7.30 writes a request on a kept-alive socket one
 * event-loop turn later (a setImmediate that first reads any FIN or stray bytes pending on the idle
 * socket, GHSA-35p6-xmwp-9g52): on the bench's machine that turn is ~150 µs per claim, more than
 * everything else the daemon adds to a frame. Here `dispatch` writes the request at once, with one
 * `socket.write`, when the connection is open and idle; the answer is parsed when it comes
 * (http1Response.ts), off the hot path.
 *
 * What the deferred turn protects against is kept another way: stray bytes or a FIN on an idle
 * connection close it at once (Node reads a flowing socket eagerly, so they are seen before the next
 * frame is handled), and a connection idle for longer than the venue's keep-alive hint allows
 * (less a margin) is not written to but re-opened. The warm-ups of claimLanes.ts keep it from going
 * that stale. One request at a time; the interface is the subset of undici's dispatcher that
 * TextResponse and ClaimLanes use, so the rest of the transport does not change.
 */
import { EventEmitter } from "node:events";
import { isIP, connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { Dispatcher } from "undici";
import { NOT_DELIVERED_CODES } from "./errors.js";
import { http1RequestText } from "./http1Request.js";
import { Http1ResponseParser } from "./http1Response.js";
import { keepAliveHintMs } from "./keepAliveHint.js";

export interface ClaimConnectionOptions {
  /** `http(s)://host[:port]`. */
  origin: string;
  connectTimeoutMs: number;
  maxResponseBytes: number;
  /** Idle time assumed without a `Keep-Alive` hint (undici's default). */
  defaultKeepAliveMs?: number;
  /** A connection idle for longer than its hint minus this is re-opened rather than written to. */
  staleMarginMs?: number;
  now?: () => number;
  /** Certificates to trust instead of Node's roots, PEM (a venue behind a private CA; the tests). */
  ca?: string;
}

export interface ClaimDispatch {
  path: string;
  method: string;
  headers: string[] | Record<string, string>;
  body?: string | undefined;
  /** Called once the request is handed to the socket: at once when open, after the connect otherwise. */
  onWritten?: (() => void) | undefined;
}

/**
 * A request that failed before it was written keeps its own code when mapTransportError knows it as
 * "never delivered" (connect refused, DNS, certificates...); any other such failure gets this one.
 */
const UNSENT = "UND_ERR_CLOSED";

function coded(message: string, code: string, cause?: unknown): Error {
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code });
}

class Controller implements Dispatcher.DispatchController {
  aborted = false;
  paused = false;
  reason: Error | null = null;
  constructor(private readonly onAbort: (reason: Error) => void) {}
  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.onAbort(reason);
  }
  pause(): void {}
  resume(): void {}
}

interface InFlight {
  handler: Dispatcher.DispatchHandler;
  controller: Controller;
  parser: Http1ResponseParser;
  /** The request text, until it is written. */
  text: string | undefined;
  onWritten: (() => void) | undefined;
}

export class ClaimConnection extends EventEmitter {
  readonly #url: URL;
  readonly #options: Required<Omit<ClaimConnectionOptions, "origin" | "ca">>;
  readonly #ca: string | undefined;
  readonly #host: string;
  #socket: Socket | undefined;
  #open = false;
  #inflight: InFlight | undefined;
  #idleSince = 0;
  #keepAliveMs: number;
  #closed = false;

  constructor(options: ClaimConnectionOptions) {
    super();
    this.#url = new URL(options.origin);
    const { ca, ...rest } = options;
    this.#ca = ca;
    this.#options = { defaultKeepAliveMs: 4_000, staleMarginMs: 250, now: () => performance.now(), ...rest };
    this.#keepAliveMs = this.#options.defaultKeepAliveMs;
    this.#host = this.#url.host;
  }

  /** Open, idle and not stale: a request written now goes out at once. */
  get ready(): boolean {
    return this.#open && this.#inflight === undefined && !this.#stale();
  }

  dispatch(opts: ClaimDispatch, handler: Dispatcher.DispatchHandler): boolean {
    const controller = new Controller((reason) => this.#fail(reason, true));
    if (this.#closed) return this.#refuse(handler, controller, coded("claim connection closed", UNSENT));
    if (this.#inflight !== undefined) return this.#refuse(handler, controller, coded("claim connection busy", UNSENT));
    let text: string;
    try {
      text = http1RequestText(this.#host, opts);
    } catch (err) {
      return this.#refuse(handler, controller, coded((err as Error).message, UNSENT));
    }
    const parser = new Http1ResponseParser(
      {
        head: (status, headers) => {
          this.#keepAliveMs = keepAliveHintMs(headers["keep-alive"]) ?? this.#keepAliveMs;
          handler.onResponseStart?.(controller, status, headers);
        },
        data: (chunk) => handler.onResponseData?.(controller, chunk),
        end: (keepAlive) => this.#done(keepAlive),
      },
      this.#options.maxResponseBytes,
    );
    this.#inflight = { handler, controller, parser, text, onWritten: opts.onWritten };
    handler.onRequestStart?.(controller, {});
    if (this.#inflight?.controller !== controller) return true; // aborted in onRequestStart
    if (this.#open && this.#stale()) this.#drop();
    if (this.#open) this.#write();
    else this.connect();
    return true;
  }

  /** Opens the connection if it is not open (a warm-up may also just send a request). */
  connect(): void {
    if (this.#closed || this.#socket !== undefined) return;
    const port = Number(this.#url.port) || (this.#url.protocol === "https:" ? 443 : 80);
    const host = this.#url.hostname.replace(/^\[|\]$/g, "");
    const tls = this.#url.protocol === "https:";
    const socket = tls
      ? tlsConnect({
          host,
          port,
          ...(isIP(host) === 0 ? { servername: host } : {}),
          ...(this.#ca !== undefined ? { ca: this.#ca } : {}),
          ALPNProtocols: ["http/1.1"],
        })
      : netConnect({ host, port });
    this.#socket = socket;
    socket.setNoDelay(true);
    const timer = setTimeout(
      () => socket.destroy(coded(`connect timeout after ${this.#options.connectTimeoutMs} ms`, "UND_ERR_CONNECT_TIMEOUT")),
      this.#options.connectTimeoutMs,
    );
    socket.once(tls ? "secureConnect" : "connect", () => {
      clearTimeout(timer);
      socket.setKeepAlive(true, 60_000);
      this.#open = true;
      this.#idleSince = this.#options.now();
      this.emit("connect");
      if (this.#inflight?.text !== undefined) this.#write();
    });
    socket.on("data", (chunk: Buffer) => {
      if (this.#socket === socket) this.#data(chunk);
    });
    socket.on("end", () => {
      const f = this.#inflight;
      if (f !== undefined && f.text === undefined && f.parser.endsAtClose) {
        try {
          f.parser.close();
        } catch (err) {
          this.#fail(err, false);
        }
      }
      socket.destroy();
    });
    socket.on("error", () => undefined); // the close that follows reports it
    socket.once("close", () => {
      clearTimeout(timer);
      if (this.#socket !== socket) return; // dropped on purpose: already accounted for
      const err = (socket as Socket & { errored?: Error | null }).errored ?? undefined;
      this.#socket = undefined;
      const wasOpen = this.#open;
      this.#open = false;
      if (this.#inflight !== undefined) this.#fail(err ?? coded("the venue closed the claim connection", "UND_ERR_SOCKET"), false);
      if (wasOpen || err !== undefined) this.emit("disconnect", err);
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const s = this.#socket;
    if (s === undefined) return;
    await new Promise<void>((resolve) => {
      s.once("close", () => resolve());
      if (this.#inflight === undefined) s.end();
      else this.once("idle", () => s.end());
    });
  }

  async destroy(): Promise<void> {
    this.#closed = true;
    this.#socket?.destroy();
  }

  /** Leaves the current socket at once (the next request opens a new one). */
  #drop(): void {
    const s = this.#socket;
    if (s === undefined) return;
    const wasOpen = this.#open;
    this.#socket = undefined;
    this.#open = false;
    s.destroy();
    if (wasOpen) this.emit("disconnect");
  }

  #stale(): boolean {
    return this.#options.now() - this.#idleSince > this.#keepAliveMs - this.#options.staleMarginMs;
  }

  #write(): void {
    const f = this.#inflight;
    const s = this.#socket;
    if (f === undefined || f.text === undefined || s === undefined) return;
    const text = f.text;
    f.text = undefined; // from here on the venue may have it
    s.write(text);
    f.onWritten?.();
  }

  #data(chunk: Buffer): void {
    const f = this.#inflight;
    // Bytes nobody asked for: the connection is out of step with the venue; never reuse it.
    if (f === undefined || f.text !== undefined) return this.#drop();
    try {
      f.parser.push(chunk);
    } catch (err) {
      // Malformed, or bytes after the end of the answer (which has been delivered): drop the connection.
      if (this.#inflight === f) this.#fail(err, true);
      else this.#drop();
    }
  }

  #done(keepAlive: boolean): void {
    const f = this.#inflight;
    if (f === undefined) return;
    this.#inflight = undefined;
    this.#idleSince = this.#options.now();
    if (!keepAlive) this.#drop();
    f.handler.onResponseEnd?.(f.controller, {});
    this.emit("idle");
  }

  /** Ends the request in flight with `err`; `closeSocket`: the connection's state is unknown, drop it. */
  #fail(err: unknown, closeSocket: boolean): void {
    const f = this.#inflight;
    if (f === undefined) return;
    this.#inflight = undefined;
    if (closeSocket) this.#drop();
    const code = (err as { code?: unknown } | null)?.code;
    const unsent = f.text !== undefined;
    const e = unsent && !(typeof code === "string" && NOT_DELIVERED_CODES.has(code)) ? coded(`not sent: ${String(err)}`, UNSENT, err) : err;
    f.handler.onResponseError?.(f.controller, e instanceof Error ? e : new Error(String(e)));
    this.emit("idle");
  }

  #refuse(handler: Dispatcher.DispatchHandler, controller: Controller, err: Error): boolean {
    handler.onResponseError?.(controller, err);
    return false;
  }
}
