/**
 * One client socket of the simulated venue's streams: auth state, subscriptions, the inbound frame
 * handling of docs/protocol.md §5, and writes that respect the stall fault and a slow-consumer bound.
 * Subscription indexes, counters and faults live in the owner (`SimStreams`), reached through the host.
 */
import type { RawData, WebSocket } from "ws";
import type { WsAuthResult } from "./streamAuth.js";
import {
  ackFrame,
  type ClientFrame,
  type FrameId,
  invalidTopicMessage,
  nackFrame,
  parseClientFrame,
  pongFrame,
  type StreamScope,
} from "./streamProtocol.js";

/** What a connection needs from its owner. */
export interface StreamConnectionHost {
  /** Server time in integer ms. */
  now(): number;
  isStalled(scope: StreamScope): boolean;
  isTopicAllowed(scope: StreamScope, topic: string): boolean;
  authenticate(accountId: string, params: unknown): Promise<WsAuthResult>;
  subscribed(conn: StreamConnection, topic: string): void;
  unsubscribed(conn: StreamConnection, topic: string): void;
  authenticated(conn: StreamConnection, result: WsAuthResult): void;
  badFrame(conn: StreamConnection, detail: string): void;
  clientPing(conn: StreamConnection): void;
  slowConsumer(conn: StreamConnection): void;
}

export interface StreamConnectionOptions {
  ws: WebSocket;
  scope: StreamScope;
  /** The `{account_id}` path segment (decoded). */
  accountId: string;
  host: StreamConnectionHost;
  /** A socket whose unsent output exceeds this is terminated instead of buffering without bound. */
  maxBufferedBytes: number;
}

// Frames that arrive while an auth check is running wait for it (a client may send auth and its
// subscriptions back to back); beyond this many the extra frames are dropped and counted.
const MAX_QUEUED_WHILE_AUTH = 64;

export class StreamConnection {
  readonly ws: WebSocket;
  readonly scope: StreamScope;
  readonly accountId: string;
  readonly topics = new Set<string>();
  /** Monotonic time (performance.now) of the last inbound frame of any kind (dead-client check). */
  lastSeenAt: number = performance.now();
  readonly #host: StreamConnectionHost;
  readonly #maxBuffered: number;
  #auth: "none" | "pending" | "ok" = "none";
  readonly #queue: string[] = [];
  #closed = false;

  constructor(options: StreamConnectionOptions) {
    this.ws = options.ws;
    this.scope = options.scope;
    this.accountId = options.accountId;
    this.#host = options.host;
    this.#maxBuffered = options.maxBufferedBytes;
    this.ws.on("message", (data, isBinary) => this.#onMessage(data, isBinary));
    // Protocol-level pings/pongs from a client also prove it is alive.
    this.ws.on("ping", () => this.touch());
    this.ws.on("pong", () => this.touch());
  }

  get authenticated(): boolean {
    return this.#auth === "ok";
  }

  get isOpen(): boolean {
    return !this.#closed && this.ws.readyState === this.ws.OPEN;
  }

  /** Mark closed (called by the owner on the socket's `close`). */
  markClosed(): void {
    this.#closed = true;
    this.#queue.length = 0;
  }

  /**
   * Write one frame unless the scope is stalled or the socket is not open. `force` bypasses the stall
   * (never used for data: a stalled venue sends nothing). Returns whether the frame was handed to ws.
   */
  send(frame: string | Buffer, force = false): boolean {
    if (!this.isOpen || (!force && this.#host.isStalled(this.scope))) return false;
    if (this.ws.bufferedAmount > this.#maxBuffered) {
      this.#host.slowConsumer(this);
      this.terminate();
      return false;
    }
    // A Buffer is framed as text when binary is false: callers serialise a frame once for all sockets.
    this.ws.send(frame, { binary: false });
    return true;
  }

  terminate(): void {
    this.ws.terminate();
  }

  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  /** Restart the dead-client clock (also used when a stall ends: the client could not answer). */
  touch(): void {
    this.lastSeenAt = performance.now();
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    this.touch();
    if (this.#closed || this.#host.isStalled(this.scope)) return; // a stalled venue ignores inbound
    if (isBinary) {
      this.#host.badFrame(this, "binary frame");
      this.send(nackFrame(undefined, "error", "invalid frame: binary frames are not supported", this.#host.now()));
      return;
    }
    const text = (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString("utf8");
    if (this.#auth === "pending") {
      if (this.#queue.length < MAX_QUEUED_WHILE_AUTH) this.#queue.push(text);
      else this.#host.badFrame(this, "frame dropped while auth pending");
      return;
    }
    this.#handle(parseClientFrame(text));
  }

  #handle(frame: ClientFrame): void {
    const now = this.#host.now();
    switch (frame.kind) {
      case "ping":
        this.#host.clientPing(this);
        this.send(pongFrame(now));
        return;
      case "pong":
        return;
      case "auth":
        this.#startAuth(frame.id, frame.params);
        return;
      case "subscribe":
      case "unsubscribe":
        this.#subscription(frame.kind, frame.id, frame.topic, now);
        return;
      case "unknown_event":
        this.#host.badFrame(this, "unknown event");
        this.send(nackFrame(frame.id, frame.event, `unknown event ${frame.event}`, now));
        return;
      case "invalid":
        this.#host.badFrame(this, frame.detail);
        this.send(nackFrame(frame.id, "error", `invalid frame: ${frame.detail}`, now));
        return;
    }
  }

  #subscription(event: "subscribe" | "unsubscribe", id: FrameId, topic: unknown, now: number): void {
    if (this.scope === "private" && this.#auth !== "ok") {
      this.send(nackFrame(id, event, "Auth is needed.", now));
      return;
    }
    if (typeof topic !== "string" || !this.#host.isTopicAllowed(this.scope, topic)) {
      this.send(nackFrame(id, event, invalidTopicMessage(topic), now));
      return;
    }
    if (event === "subscribe") {
      if (!this.topics.has(topic)) {
        this.topics.add(topic);
        this.#host.subscribed(this, topic);
      }
    } else if (this.topics.delete(topic)) {
      this.#host.unsubscribed(this, topic);
    }
    this.send(ackFrame(id, event, now));
  }

  #startAuth(id: FrameId, params: unknown): void {
    if (this.scope === "public") {
      this.send(nackFrame(id, "auth", "auth is not needed on the public stream", this.#host.now()));
      return;
    }
    // Not "pending" here: frames that arrive during a check are queued, not handled.
    const previous = this.#auth === "ok" ? "ok" : "none";
    this.#auth = "pending";
    void this.#host.authenticate(this.accountId, params).then(
      (result) => this.#finishAuth(id, result, previous),
      () => this.#finishAuth(id, { ok: false, reason: "bad_params" }, previous),
    );
  }

  #authPending(): boolean {
    return this.#auth === "pending";
  }

  #finishAuth(id: FrameId, result: WsAuthResult, previous: "none" | "ok"): void {
    if (this.#closed) return;
    if (this.#host.isStalled(this.scope)) {
      // Stalled while the check ran: a stalled venue neither answers nor closes; the client times out.
      this.#auth = previous;
      this.#queue.length = 0;
      return;
    }
    this.#host.authenticated(this, result);
    const now = this.#host.now();
    if (result.ok) {
      this.#auth = "ok";
      this.send(ackFrame(id, "auth", now));
      // Frames that waited for the check run in arrival order; one may start another auth.
      while (!this.#authPending() && this.#queue.length > 0 && !this.#closed) {
        this.#handle(parseClientFrame(this.#queue.shift() as string));
      }
      return;
    }
    // docs/protocol.md §5: a failed auth is answered, then the socket is closed (after the answer is sent).
    this.#auth = previous === "ok" ? "none" : previous;
    this.#queue.length = 0;
    this.send(nackFrame(id, "auth", "auth failed", now));
    this.close(1008, "auth failed");
  }
}
