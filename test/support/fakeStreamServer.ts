/**
 * A small port-0 WebSocket server speaking docs/protocol.md §5, for the stream client's tests only (the
 * real simulated venue lives in src/sim and is not used here). It verifies the private auth frame
 * with @noble/ed25519, an implementation independent of the client's node:crypto signer, and lets a
 * test misbehave on purpose: refuse auth, refuse a topic, go silent, drop sockets, send garbage.
 */
import type { AddressInfo } from "node:net";
import * as ed from "@noble/ed25519";
import { type WebSocket, WebSocketServer } from "ws";
import { parsePublicKey } from "../../src/venue/signer.js";

export interface FakeStreamServerOptions {
  kind: "public" | "private";
  /** `ed25519:...` key the private stream accepts. */
  publicKey?: string;
  /** Topics the server knows; others get `invalid topic`. */
  topics: readonly string[];
  /** Server heartbeat period (ms); none when omitted. */
  pingIntervalMs?: number;
}

export interface FakeConnection {
  id: number;
  path: string;
  ws: WebSocket;
  openedAt: number;
  closedAt: number | undefined;
  authed: boolean;
  subscribed: Set<string>;
  /** Every text frame received, parsed (or the raw text when it was not JSON), in order. */
  received: unknown[];
  /** A silent connection reads nothing and sends nothing (a stalled venue). */
  silent: boolean;
  queue: Promise<void>;
}

export interface AuthAttempt {
  connId: number;
  at: number;
  ok: boolean;
  detail: string;
}

const TIMESTAMP_TOLERANCE_MS = 300_000; // docs/protocol.md §2

export class FakeStreamServer {
  readonly url: string;
  readonly connections: FakeConnection[] = [];
  readonly authAttempts: AuthAttempt[] = [];
  /** Refuse every auth (as a venue with a revoked key would). */
  failAuth = false;
  /** Topics answered with `success:false`. */
  readonly rejectTopics = new Set<string>();
  /** Swallow subscribes without an answer (while still answering pings). */
  ignoreSubscribes = false;
  readonly #wss: WebSocketServer;
  readonly #options: FakeStreamServerOptions;
  readonly #pingTimer: NodeJS.Timeout | undefined;

  private constructor(wss: WebSocketServer, options: FakeStreamServerOptions) {
    this.#wss = wss;
    this.#options = options;
    const port = (wss.address() as AddressInfo).port;
    this.url = `ws://127.0.0.1:${port}`;
    wss.on("connection", (ws, req) => this.#onConnection(ws, req.url ?? "/"));
    if (options.pingIntervalMs !== undefined) {
      this.#pingTimer = setInterval(() => this.ping(), options.pingIntervalMs);
    }
  }

  static start(options: FakeStreamServerOptions): Promise<FakeStreamServer> {
    return new Promise((resolve, reject) => {
      const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
      wss.once("error", reject);
      wss.once("listening", () => resolve(new FakeStreamServer(wss, options)));
    });
  }

  /** Connections currently open (from the server's side). */
  openConnections(): FakeConnection[] {
    return this.connections.filter((c) => c.closedAt === undefined);
  }

  /** Frames with this `event` received from the client, across connections. */
  receivedEvents(event: string): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const c of this.connections) {
      for (const f of c.received) {
        if (typeof f === "object" && f !== null && (f as Record<string, unknown>).event === event) {
          out.push(f as Record<string, unknown>);
        }
      }
    }
    return out;
  }

  /** A data frame to every open, non-silent connection subscribed to `topic`. */
  push(topic: string, data: unknown): void {
    const text = JSON.stringify({ topic, ts: Date.now(), data });
    for (const c of this.openConnections()) if (!c.silent && c.subscribed.has(topic)) c.ws.send(text);
  }

  /**
   * Raw text (or a binary buffer) to every open, non-silent connection. `asText` sends a buffer as a
   * TEXT frame without checking it (to send invalid UTF-8).
   */
  sendRaw(payload: string | Buffer, asText = false): void {
    for (const c of this.openConnections()) if (!c.silent) c.ws.send(payload, { binary: !asText && typeof payload !== "string" });
  }

  ping(ts: number = Date.now()): void {
    this.sendRaw(JSON.stringify({ event: "ping", ts }));
  }

  /** Make every open connection go silent: the socket stays open, nothing moves either way. */
  stall(): void {
    for (const c of this.openConnections()) c.silent = true;
  }

  /** Drop every open connection abruptly (no close frame). */
  dropAll(): void {
    for (const c of this.openConnections()) c.ws.terminate();
  }

  async close(): Promise<void> {
    if (this.#pingTimer !== undefined) clearInterval(this.#pingTimer);
    for (const c of this.connections) c.ws.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #onConnection(ws: WebSocket, path: string): void {
    const conn: FakeConnection = {
      id: this.connections.length + 1,
      path,
      ws,
      openedAt: Date.now(),
      closedAt: undefined,
      authed: false,
      subscribed: new Set(),
      received: [],
      silent: false,
      queue: Promise.resolve(),
    };
    this.connections.push(conn);
    ws.on("close", () => {
      conn.closedAt = Date.now();
    });
    ws.on("error", () => {});
    ws.on("message", (data, isBinary) => {
      if (conn.silent || isBinary) return;
      const text = (data as Buffer).toString("utf8");
      let frame: unknown;
      try {
        frame = JSON.parse(text);
      } catch {
        conn.received.push(text);
        return;
      }
      conn.received.push(frame);
      // Auth is verified asynchronously: keep each connection's frames in order.
      conn.queue = conn.queue.then(() => this.#handle(conn, frame)).catch(() => {});
    });
  }

  #send(conn: FakeConnection, frame: object): void {
    if (!conn.silent && conn.closedAt === undefined) conn.ws.send(JSON.stringify(frame));
  }

  async #handle(conn: FakeConnection, frame: unknown): Promise<void> {
    if (typeof frame !== "object" || frame === null) return;
    const f = frame as Record<string, unknown>;
    const id = f.id;
    switch (f.event) {
      case "ping":
        return this.#send(conn, { event: "pong", ts: Date.now() });
      case "auth": {
        const { ok, detail } = await this.#verifyAuth(f.params);
        const refused = this.failAuth || !ok;
        this.authAttempts.push({ connId: conn.id, at: Date.now(), ok: !refused, detail: this.failAuth ? "refused" : detail });
        if (refused) {
          this.#send(conn, { id, event: "auth", success: false, errorMsg: "auth failed", ts: Date.now() });
          conn.ws.close(1000, "auth failed");
          return;
        }
        conn.authed = true;
        return this.#send(conn, { id, event: "auth", success: true, ts: Date.now() });
      }
      case "subscribe": {
        if (this.ignoreSubscribes) return;
        const topic = String(f.topic);
        if (this.#options.kind === "private" && !conn.authed) {
          return this.#send(conn, { id, event: "subscribe", success: false, errorMsg: "Auth is needed.", ts: Date.now() });
        }
        if (!this.#options.topics.includes(topic) || this.rejectTopics.has(topic)) {
          return this.#send(conn, { id, event: "subscribe", success: false, errorMsg: `invalid topic ${topic}`, ts: Date.now() });
        }
        conn.subscribed.add(topic);
        return this.#send(conn, { id, event: "subscribe", success: true, ts: Date.now() });
      }
      default:
        return;
    }
  }

  async #verifyAuth(params: unknown): Promise<{ ok: boolean; detail: string }> {
    if (this.#options.kind !== "private" || this.#options.publicKey === undefined) return { ok: false, detail: "no key" };
    if (typeof params !== "object" || params === null) return { ok: false, detail: "no params" };
    const { orderly_key: key, sign, timestamp } = params as Record<string, unknown>;
    if (key !== this.#options.publicKey) return { ok: false, detail: "unknown key" };
    if (typeof timestamp !== "number" || Math.abs(Date.now() - timestamp) > TIMESTAMP_TOLERANCE_MS) {
      return { ok: false, detail: "timestamp" };
    }
    if (typeof sign !== "string") return { ok: false, detail: "no sign" };
    // Node's base64 decoder takes both alphabets, padded or not (docs/protocol.md §2).
    const sig = Buffer.from(sign, "base64");
    if (sig.length !== 64) return { ok: false, detail: "signature length" };
    const message = new TextEncoder().encode(String(timestamp));
    const ok = await ed.verifyAsync(sig, message, parsePublicKey(key));
    return { ok, detail: ok ? "verified" : "bad signature" };
  }
}
