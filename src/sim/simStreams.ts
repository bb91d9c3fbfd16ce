/**
 * The simulated venue's WebSocket streams (docs/protocol.md §1, §5): the public stream
 * `/ws/stream/{account_id}` and the private stream `/v2/ws/private/stream/{account_id}` on the
 * simulator's one http server, heartbeat, private auth, subscriptions, routing of the core's pushes,
 * and the faults of streamFaults.ts.
 *
 * Dead-client check (the simulator's choice): a socket that sent nothing at all (no frame, no
 * protocol ping/pong) for `deadAfterMs` (default 3 ping intervals, 30 s) is terminated at the next
 * heartbeat tick. Slow consumers: a socket with more than `maxBufferedBytes` unsent is terminated.
 *
 * Longer than most files: both simulated streams share one server, one heartbeat and one routing of pushes.
 */
import type { IncomingMessage, Server } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { SimPush } from "./simPush.js";
import { verifyWsAuth, type WsAuthResult } from "./streamAuth.js";
import { StreamConnection, type StreamConnectionHost } from "./streamConnection.js";
import { StreamFaults } from "./streamFaults.js";
import { dataFrame, matchStreamPath, PRIVATE_TOPICS, pingFrame, type StreamScope } from "./streamProtocol.js";

export interface SimStreamsOptions {
  /** Is `publicKey` (`ed25519:...`) a registered key of `accountId`? Used for the private auth frame. */
  isKeyAuthorized(accountId: string, publicKey: string): boolean;
  /** Public topics a client may subscribe to (liquidation, markprices, `${symbol}@markprice`). */
  isPublicTopic(topic: string): boolean;
  /** Server clock in ms (default Date.now); stamps frames and checks the auth timestamp. */
  now?: () => number;
  /** Server heartbeat period; default 10_000 (docs/protocol.md §5). */
  pingIntervalMs?: number;
  /** Inbound frames larger than this close the socket (1009); default 64 KiB. */
  maxFrameBytes?: number;
  /** Silence after which a client is terminated; default 3 × pingIntervalMs; 0 disables the check. */
  deadAfterMs?: number;
  /** Unsent bytes above which a socket is terminated as a slow consumer; default 64 MiB. */
  maxBufferedBytes?: number;
  /** Called after each public push was written, with the `ts` put in the frame and the socket count. */
  onPublicWrite?: (topic: string, data: unknown, ts: number, sockets: number) => void;
}

/** One publish, as seen by write listeners (benches record when each frame left). */
export interface StreamWrite {
  scope: StreamScope;
  /** Set for private pushes. */
  accountId?: string;
  topic: string;
  data: unknown;
  /** Server time written in the frame. */
  ts: number;
  /** Sockets the frame was handed to. */
  sockets: number;
}

export interface SimStreamsStats {
  publicSockets: number;
  privateSockets: number;
  authenticatedSockets: number;
  connectionsAccepted: number;
  /** publish() calls per topic (whether or not anyone was subscribed). */
  framesPublished: Record<string, number>;
  /** Data frames handed to sockets by publish(). */
  framesSent: number;
  pingsSent: number;
  clientPings: number;
  authSuccesses: number;
  authFailures: number;
  authFailuresByReason: Record<string, number>;
  upgradesNotFound: number;
  upgradesRefused: number;
  badClientFrames: number;
  deadClientsTerminated: number;
  slowConsumersTerminated: number;
  socketErrors: number;
  /** `ts` of the last public `liquidation` frame, null before the first. */
  lastLiquidationWriteTs: number | null;
}

const MAX_TOPIC_LENGTH = 200;

function positive(name: string, value: number | undefined, fallback: number, allowZero = false): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < 0 || (!allowZero && v === 0)) throw new RangeError(`SimStreams: ${name} must be positive`);
  return v;
}

/** Answer a refused upgrade with a bare HTTP response, then drop the socket. */
function rejectUpgrade(socket: Duplex, status: 404 | 503): void {
  socket.on("error", () => socket.destroy());
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = STATUS_CODES[status] ?? "";
  socket.once("finish", () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${body}\r\nConnection: close\r\nContent-Type: text/plain\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

export class SimStreams {
  readonly faults: StreamFaults;
  readonly #options: SimStreamsOptions;
  readonly #now: () => number;
  readonly #pingIntervalMs: number;
  readonly #deadAfterMs: number;
  readonly #maxBufferedBytes: number;
  readonly #wss: WebSocketServer;
  readonly #sockets = { public: new Set<StreamConnection>(), private: new Set<StreamConnection>() };
  readonly #publicSubs = new Map<string, Set<StreamConnection>>();
  /** accountId → topic → authenticated subscribers. */
  readonly #privateSubs = new Map<string, Map<string, Set<StreamConnection>>>();
  readonly #servers: Server[] = [];
  readonly #writeListeners = new Set<(write: StreamWrite) => void>();
  readonly #published = new Map<string, number>();
  readonly #authFailuresByReason = new Map<string, number>();
  readonly #counts = {
    connectionsAccepted: 0,
    framesSent: 0,
    pingsSent: 0,
    clientPings: 0,
    authSuccesses: 0,
    authFailures: 0,
    upgradesNotFound: 0,
    upgradesRefused: 0,
    badClientFrames: 0,
    deadClientsTerminated: 0,
    slowConsumersTerminated: 0,
    socketErrors: 0,
  };
  #lastLiquidationWriteTs: number | null = null;
  #pingTimer: NodeJS.Timeout | undefined;
  #closed = false;
  readonly #host: StreamConnectionHost;

  constructor(options: SimStreamsOptions) {
    if (typeof options.isKeyAuthorized !== "function" || typeof options.isPublicTopic !== "function") {
      throw new TypeError("SimStreams: isKeyAuthorized and isPublicTopic are required");
    }
    this.#options = options;
    const now = options.now ?? Date.now;
    this.#now = () => Math.trunc(now());
    this.#pingIntervalMs = positive("pingIntervalMs", options.pingIntervalMs, 10_000);
    this.#deadAfterMs = positive("deadAfterMs", options.deadAfterMs, 3 * this.#pingIntervalMs, true);
    this.#maxBufferedBytes = positive("maxBufferedBytes", options.maxBufferedBytes, 64 * 1024 * 1024);
    const maxPayload = positive("maxFrameBytes", options.maxFrameBytes, 64 * 1024);
    this.#wss = new WebSocketServer({ noServer: true, maxPayload, perMessageDeflate: false, clientTracking: false });
    this.faults = new StreamFaults({ connections: (scope) => this.#connections(scope), now: this.#now });
    this.#host = this.#makeHost();
  }

  /** Handle HTTP upgrades on `server` for both stream paths; other paths get 404. */
  attach(server: Server): void {
    if (this.#closed) throw new Error("SimStreams: attach after close");
    server.on("upgrade", this.#onUpgrade);
    this.#servers.push(server);
    if (this.#pingTimer === undefined) {
      this.#pingTimer = setInterval(() => this.#heartbeat(), this.#pingIntervalMs);
      this.#pingTimer.unref();
    }
  }

  /** Record every publish (both scopes) as it is written; returns the function that removes it. */
  addWriteListener(listener: (write: StreamWrite) => void): () => void {
    this.#writeListeners.add(listener);
    return () => this.#writeListeners.delete(listener);
  }

  /** Deliver a push to every subscriber of its topic (private: only that account's authenticated sockets). */
  publish(push: SimPush): void {
    if (this.#closed) return;
    const ts = this.#now();
    this.#published.set(push.topic, (this.#published.get(push.topic) ?? 0) + 1);
    const fate = this.faults.topicFate(push.topic);
    if (fate === "drop") return;
    if (fate > 0) {
      setTimeout(() => this.#write(push, ts), fate).unref();
      return;
    }
    this.#write(push, ts);
  }

  /** Write a push published at venue time `ts` to its subscribers. */
  #write(push: SimPush, ts: number): void {
    if (this.#closed) return;
    const subs = push.scope === "public" ? this.#publicSubs.get(push.topic) : this.#privateSubs.get(push.accountId)?.get(push.topic);
    let sockets = 0;
    if (subs !== undefined && subs.size > 0) {
      // Serialised once per publish, not per socket: the bench pushes thousands of frames.
      const frame = Buffer.from(dataFrame(push.topic, ts, push.data), "utf8");
      for (const conn of subs) {
        if ((push.scope === "public" || conn.authenticated) && conn.send(frame)) sockets++;
      }
      this.#counts.framesSent += sockets;
    }
    if (push.scope === "public") {
      if (push.topic === "liquidation") this.#lastLiquidationWriteTs = ts;
      this.#options.onPublicWrite?.(push.topic, push.data, ts, sockets);
    }
    if (this.#writeListeners.size > 0) {
      const write: StreamWrite =
        push.scope === "public"
          ? { scope: "public", topic: push.topic, data: push.data, ts, sockets }
          : { scope: "private", accountId: push.accountId, topic: push.topic, data: push.data, ts, sockets };
      for (const listener of this.#writeListeners) listener(write);
    }
  }

  stats(): SimStreamsStats {
    let authenticatedSockets = 0;
    for (const conn of this.#sockets.private) if (conn.authenticated) authenticatedSockets++;
    return {
      publicSockets: this.#sockets.public.size,
      privateSockets: this.#sockets.private.size,
      authenticatedSockets,
      ...this.#counts,
      framesPublished: Object.fromEntries(this.#published),
      authFailuresByReason: Object.fromEntries(this.#authFailuresByReason),
      lastLiquidationWriteTs: this.#lastLiquidationWriteTs,
    };
  }

  /** Terminate every socket, stop the heartbeat and detach from the http servers (which stay open). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#pingTimer);
    for (const server of this.#servers.splice(0)) server.off("upgrade", this.#onUpgrade);
    const conns = this.#connections();
    const closed = conns.map(
      (conn) =>
        new Promise<void>((resolve) => {
          if (conn.ws.readyState === conn.ws.CLOSED) resolve();
          else conn.ws.once("close", () => resolve());
        }),
    );
    for (const conn of conns) conn.terminate();
    await Promise.all(closed);
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #connections(scope?: StreamScope): StreamConnection[] {
    if (scope !== undefined) return [...this.#sockets[scope]];
    return [...this.#sockets.public, ...this.#sockets.private];
  }

  readonly #onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const route = matchStreamPath(req.url);
    if (route === null) {
      this.#counts.upgradesNotFound++;
      rejectUpgrade(socket, 404);
      return;
    }
    if (this.#closed || this.faults.isRefusing(route.scope)) {
      this.#counts.upgradesRefused++;
      rejectUpgrade(socket, 503);
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#onConnection(ws, route.scope, route.accountId));
  };

  #onConnection(ws: WebSocket, scope: StreamScope, accountId: string): void {
    if (this.#closed) {
      ws.terminate();
      return;
    }
    const conn = new StreamConnection({ ws, scope, accountId, host: this.#host, maxBufferedBytes: this.#maxBufferedBytes });
    this.#sockets[scope].add(conn);
    this.#counts.connectionsAccepted++;
    // ws reports protocol violations (e.g. a frame above maxPayload) here, then closes the socket.
    ws.on("error", () => this.#counts.socketErrors++);
    ws.on("close", () => this.#forget(conn));
  }

  #forget(conn: StreamConnection): void {
    conn.markClosed();
    this.#sockets[conn.scope].delete(conn);
    for (const topic of conn.topics) this.#unindex(conn, topic);
    conn.topics.clear();
  }

  #index(conn: StreamConnection, topic: string): void {
    let byTopic: Map<string, Set<StreamConnection>>;
    if (conn.scope === "public") byTopic = this.#publicSubs;
    else {
      byTopic = this.#privateSubs.get(conn.accountId) ?? new Map();
      this.#privateSubs.set(conn.accountId, byTopic);
    }
    const set = byTopic.get(topic) ?? new Set();
    set.add(conn);
    byTopic.set(topic, set);
  }

  #unindex(conn: StreamConnection, topic: string): void {
    const byTopic = conn.scope === "public" ? this.#publicSubs : this.#privateSubs.get(conn.accountId);
    const set = byTopic?.get(topic);
    if (byTopic === undefined || set === undefined) return;
    set.delete(conn);
    if (set.size === 0) byTopic.delete(topic);
    if (conn.scope === "private" && byTopic.size === 0) this.#privateSubs.delete(conn.accountId);
  }

  /** One heartbeat tick: terminate dead clients, ping the rest (stalled scopes: neither). */
  #heartbeat(): void {
    const frame = Buffer.from(pingFrame(this.#now()), "utf8");
    const now = performance.now();
    for (const conn of this.#connections()) {
      if (this.faults.isStalled(conn.scope)) continue;
      if (this.#deadAfterMs > 0 && now - conn.lastSeenAt > this.#deadAfterMs) {
        this.#counts.deadClientsTerminated++;
        conn.terminate();
      } else if (conn.send(frame)) {
        this.#counts.pingsSent++;
      }
    }
  }

  #makeHost(): StreamConnectionHost {
    const isKeyAuthorized = (accountId: string, publicKey: string): boolean => this.#options.isKeyAuthorized(accountId, publicKey);
    return {
      now: this.#now,
      isStalled: (scope) => this.faults.isStalled(scope),
      isTopicAllowed: (scope, topic) => {
        if (topic.length === 0 || topic.length > MAX_TOPIC_LENGTH) return false;
        if (scope === "private") return PRIVATE_TOPICS.has(topic);
        try {
          return this.#options.isPublicTopic(topic) && !PRIVATE_TOPICS.has(topic);
        } catch {
          return false;
        }
      },
      authenticate: (accountId, params): Promise<WsAuthResult> =>
        this.faults.failingAuth
          ? Promise.resolve({ ok: false, reason: "fault" })
          : verifyWsAuth(params, { accountId, now: this.#now(), isKeyAuthorized }),
      subscribed: (conn, topic) => this.#index(conn, topic),
      unsubscribed: (conn, topic) => this.#unindex(conn, topic),
      authenticated: (_conn, result) => {
        if (result.ok) this.#counts.authSuccesses++;
        else {
          this.#counts.authFailures++;
          this.#authFailuresByReason.set(result.reason, (this.#authFailuresByReason.get(result.reason) ?? 0) + 1);
        }
      },
      badFrame: () => this.#counts.badClientFrames++,
      clientPing: () => this.#counts.clientPings++,
      slowConsumer: () => this.#counts.slowConsumersTerminated++,
    };
  }
}
