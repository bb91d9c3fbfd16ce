/**
 * Options, public types and construction-time validation of `StreamClient` (stream.ts), kept apart so
 * the connection logic stays readable. Every option is checked once here; the client never re-checks.
 */
import { InvalidArgumentError } from "../errors.js";
import type { ReconnectPolicyOptions } from "./reconnectPolicy.js";
import type { Signer } from "./signer.js";
import { type BadMessageReason, routeTopic, type StreamData, type TopicRoute } from "./wire.js";

export type StreamKind = "public" | "private";

export type StreamState = "connecting" | "authenticating" | "subscribing" | "ready" | "backoff" | "stopped";

/**
 * Why a connection ended (a small closed set, fit for logs, metrics and /readyz):
 * connect_error (never opened), closed (peer closed), socket_error, auth_failed, subscribe_failed,
 * stalled (silent for deadAfterMs), setup_timeout (not ready setupTimeoutMs after opening),
 * oversized (frame over maxFrameBytes), protocol_error (WebSocket-level violation).
 */
export type FailureReason =
  | "connect_error"
  | "closed"
  | "socket_error"
  | "auth_failed"
  | "subscribe_failed"
  | "stalled"
  | "setup_timeout"
  | "oversized"
  | "protocol_error";

/** pino-compatible subset. */
export interface StreamLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface StreamClientOptions {
  /** Full URL including the path (docs/protocol.md §1), `ws://` or `wss://`. */
  url: string;
  stream: StreamKind;
  /** Topics to subscribe on every connection; each must belong to `stream` (docs/protocol.md §5). */
  topics: readonly string[];
  /** Required for the private stream: signs the auth frame (`wsAuthParams`, docs/protocol.md §5). */
  signer?: Pick<Signer, "wsAuthParams">;
  /** Own ping interval, ms; default 10,000 (the venue's own heartbeat period, docs/protocol.md §5). */
  pingIntervalMs?: number;
  /** Silence (no frame of any kind) after which the socket is dead, ms; default 30,000 (docs/protocol.md §5). */
  deadAfterMs?: number;
  /**
   * A connection not ready (auth + every subscribe acknowledged) this long after opening is replaced,
   * ms; default 10,000, capped at deadAfterMs. Acks come within a round trip or two: waiting the
   * whole silence limit for one that was lost (e.g. swallowed by a venue stall) only prolongs an outage.
   */
  setupTimeoutMs?: number;
  /**
   * Reconnect timing (reconnectPolicy.ts): a ready connection that is lost is replaced at once (≤
   * 250 ms jitter); consecutive failed attempts back off with full jitter from initialMs (500 ms) to
   * maxMs (30 s), capped at healthyMaxMs (5 s) while `restHealthy()` says the REST API answers; a
   * refused auth has its own backoff (2 s .. 120 s).
   */
  backoff?: Omit<ReconnectPolicyOptions, "random">;
  /** Whether the venue's REST API answers now (caps the reconnect backoff); false when omitted. */
  restHealthy?: () => boolean;
  /** Largest accepted frame, bytes; a larger one closes the socket (counted `oversized`). Default 1 MiB. */
  maxFrameBytes?: number;
  /** Validated, typed data. Called synchronously on the socket's turn; keep it short. */
  onData: (data: StreamData) => void;
  onStateChange?: (state: StreamState) => void;
  onBadMessage?: (reason: BadMessageReason) => void;
  /** Called each time a connection ended and another is scheduled (ws_reconnects_total). */
  onReconnect?: () => void;
  logger?: StreamLogger;
  /** Uniform [0, 1] source for the jitter; Math.random by default. */
  random?: () => number;
  /** Local clock, ms; Date.now by default. */
  now?: () => number;
}

/** Everything readiness needs of a stream connection (StreamClient.status()), one plain object. */
export interface StreamStatus {
  stream: StreamKind;
  state: StreamState;
  /** Local time the current socket opened; undefined while not connected. */
  connectedAt: number | undefined;
  readyAt: number | undefined;
  /** Local time of the last inbound frame of any kind on the current socket. */
  lastFrameAt: number | undefined;
  /** Times a connection ended (or failed to open) and another one was scheduled. */
  reconnects: number;
  /** Frames counted bad (one per frame, whatever the reason). */
  badMessages: number;
  /** Rows dropped from liquidation / mark-price arrays whose other rows were kept. */
  droppedEntries: number;
  /** Why the last connection ended; stays set until the next failure (a readiness reason). */
  lastFailure: FailureReason | undefined;
  /** Connections in a row that ended without reaching `ready` (plus the drop of a ready one). */
  consecutiveFailures: number;
}

export const DEFAULTS = {
  pingIntervalMs: 10_000,
  deadAfterMs: 30_000,
  setupTimeoutMs: 10_000,
  maxFrameBytes: 1024 * 1024,
  /** How long a shutdown waits for the peer's close frame before dropping the socket. */
  closeGuardMs: 1_000,
} as const;

const MIN_FRAME_BYTES = 256;

export const noopLogger: StreamLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

export interface ValidatedStreamOptions {
  url: string;
  stream: StreamKind;
  topics: readonly string[];
  routes: Map<string, TopicRoute>;
  signer: Pick<Signer, "wsAuthParams"> | undefined;
  pingIntervalMs: number;
  deadAfterMs: number;
  setupTimeoutMs: number;
  backoff: Omit<ReconnectPolicyOptions, "random">;
  restHealthy: () => boolean;
  maxFrameBytes: number;
  random: (() => number) | undefined;
  now: () => number;
}

function ms(key: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > 2_147_483_647) {
    throw new InvalidArgumentError(`stream.${key} must be a positive number of milliseconds (at most 2^31-1)`);
  }
  return value;
}

function optionalFn<T>(key: string, value: T | undefined): T | undefined {
  if (value !== undefined && typeof value !== "function") throw new InvalidArgumentError(`stream.${key} must be a function`);
  return value;
}

export function validateStreamOptions(o: StreamClientOptions): ValidatedStreamOptions {
  if (typeof o !== "object" || o === null) throw new InvalidArgumentError("stream options object required");
  let parsed: URL;
  try {
    parsed = new URL(o.url);
  } catch {
    throw new InvalidArgumentError("stream.url is not a valid URL");
  }
  if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
    throw new InvalidArgumentError("stream.url must start with ws:// or wss://");
  }
  if (o.stream !== "public" && o.stream !== "private") {
    throw new InvalidArgumentError('stream.stream must be "public" or "private"');
  }
  if (o.stream === "private") {
    if (o.signer === undefined || typeof o.signer.wsAuthParams !== "function") {
      throw new InvalidArgumentError("stream.signer is required for the private stream");
    }
  }
  if (!Array.isArray(o.topics) || o.topics.length === 0) {
    throw new InvalidArgumentError("stream.topics must list at least one topic");
  }
  const routes = new Map<string, TopicRoute>();
  for (const topic of o.topics) {
    const route = typeof topic === "string" ? routeTopic(topic) : undefined;
    if (route === undefined) throw new InvalidArgumentError(`stream.topics unknown topic ${JSON.stringify(topic)}`);
    if (route.stream !== o.stream) {
      throw new InvalidArgumentError(`stream.topics topic ${topic} belongs to the ${route.stream} stream`);
    }
    if (routes.has(topic)) throw new InvalidArgumentError(`stream.topics topic ${topic} listed twice`);
    routes.set(topic, route);
  }
  const pingIntervalMs = ms("pingIntervalMs", o.pingIntervalMs, DEFAULTS.pingIntervalMs);
  const deadAfterMs = ms("deadAfterMs", o.deadAfterMs, DEFAULTS.deadAfterMs);
  const setupTimeoutMs = Math.min(deadAfterMs, ms("setupTimeoutMs", o.setupTimeoutMs, DEFAULTS.setupTimeoutMs));
  // Our own pings draw pongs; pinging less often than the dead line would kill a healthy quiet socket.
  if (pingIntervalMs >= deadAfterMs) throw new InvalidArgumentError("stream.pingIntervalMs must be below deadAfterMs");
  const b = o.backoff;
  if (b !== undefined && (typeof b !== "object" || b === null)) {
    throw new InvalidArgumentError("stream.backoff must be {initialMs?, maxMs?, healthyMaxMs?, ...} in milliseconds");
  }
  const maxFrameBytes = o.maxFrameBytes ?? DEFAULTS.maxFrameBytes;
  if (!Number.isSafeInteger(maxFrameBytes) || maxFrameBytes < MIN_FRAME_BYTES) {
    throw new InvalidArgumentError(`stream.maxFrameBytes must be an integer >= ${MIN_FRAME_BYTES}`);
  }
  if (typeof o.onData !== "function") throw new InvalidArgumentError("stream.onData must be a function");
  optionalFn("onStateChange", o.onStateChange);
  optionalFn("onBadMessage", o.onBadMessage);
  optionalFn("onReconnect", o.onReconnect);
  const random = optionalFn("random", o.random);
  const restHealthy = optionalFn("restHealthy", o.restHealthy) ?? (() => false);
  const now = optionalFn("now", o.now) ?? Date.now;
  if (o.logger !== undefined) {
    for (const level of ["debug", "info", "warn", "error"] as const) {
      if (typeof o.logger[level] !== "function") throw new InvalidArgumentError(`stream.logger lacks ${level}()`);
    }
  }
  return {
    url: o.url,
    stream: o.stream,
    topics: [...o.topics],
    routes,
    signer: o.stream === "private" ? o.signer : undefined, // the public stream needs no auth
    pingIntervalMs,
    deadAfterMs,
    setupTimeoutMs,
    backoff: { ...b },
    restHealthy,
    maxFrameBytes,
    random,
    now,
  };
}
