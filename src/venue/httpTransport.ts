/**
 * The narrow HTTP layer under RestClient: one keep-alive undici Pool for the venue's origin, a
 * per-request deadline, caller abort, and the mapping of every failure below HTTP to the typed errors
 * of errors.ts. It knows nothing of envelopes or endpoints beyond the name used in messages.
 *
 * Hot path (a claim): the request goes to a claim connection of its own (claimConnection.ts), which
 * writes it to the kept-alive socket synchronously inside `dispatch` (undici would write it one
 * event-loop turn later), with a small handler that collects the answer into a string; the deadline
 * timer and the caller-abort listener are armed only after that, so nothing but the write itself
 * stands between the signed bytes and the socket. Reads go through the undici Pool's `dispatch`.
 *
 * Claims have connections of their own, kept warm within the venue's keep-alive hint (claimLanes.ts):
 * a claim never waits for a pooled socket busy with a read, nor for a handshake after a quiet spell.
 * A claim sent while every claim lane is busy (other claims still unanswered) goes through the pool
 * instead of queueing behind them.
 */
import { Pool } from "undici";
import { AbortedError, LiquidatorError } from "../errors.js";
import { ClaimLanes, type WarmUp } from "./claimLanes.js";
import { BadResponseError, NOT_DELIVERED_CODES, TimeoutError, TransportError } from "./errors.js";
import { TextResponse } from "./textResponse.js";

export interface HttpResponse {
  status: number;
  text: string;
  /** Local wall-clock ms just before the request was handed to the socket and after the body ended. */
  sentAt: number;
  receivedAt: number;
}

export interface HttpTransportOptions {
  /** `http(s)://host[:port]`, no path. */
  origin: string;
  /** Deadline for one request: connect + headers + body. */
  timeoutMs: number;
  /** Local wall clock (ms) used for sentAt/receivedAt; must match the ServerClock's local clock. */
  now?: () => number;
  /** Keeps the claim lanes open within the venue's keep-alive hint (none: they open on demand). */
  warmUp?: WarmUp;
  /** Where each claim went out: a warm lane, a lane that had to connect first, or the read pool. */
  onClaimLane?: (kind: ClaimLaneKind) => void;
  /**
   * A claim was just handed to its socket: at once on a warm lane, only after the connect on a
   * fresh one, an event-loop turn (or a connect) later through the pool. The claims limiter is
   * restamped here, so the next claim is spaced from when this one actually left.
   */
  onClaimWritten?: () => void;
}

export type ClaimLaneKind = "warm" | "fresh" | "pool";

/**
 * Connections per origin. The limiters cap the venue at ~25 requests/s in total, so 32 sockets leave
 * room for slow answers without one slow read making a claim wait for a free socket.
 */
const MAX_CONNECTIONS = 32;
/** No venue answer in scope is near this size (500 orders ≈ 0.5 MB); bigger is a broken upstream. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

/** Maps a failed request to one typed error. Caller abort wins over the deadline, both over causes. */
function mapTransportError(
  err: unknown,
  endpoint: string,
  timedOut: boolean,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): LiquidatorError {
  if (err instanceof LiquidatorError) return err;
  if (signal?.aborted) return new AbortedError(`request to ${endpoint} aborted`, { cause: err });
  if (timedOut) return new TimeoutError(`no complete answer from ${endpoint} within ${timeoutMs} ms`, { cause: err });
  const code = errorCode(err);
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
    return new TimeoutError(`no complete answer from ${endpoint} within ${timeoutMs} ms`, { cause: err });
  }
  if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE") return new BadResponseError(endpoint, "response too large", { cause: err });
  const detail = code || (err instanceof Error ? err.message : String(err));
  const notDelivered = NOT_DELIVERED_CODES.has(code);
  const what = notDelivered ? "could not reach the venue for" : "connection failed during";
  return new TransportError(`${what} ${endpoint}: ${detail}`, !notDelivered, { cause: err });
}

/** Which connection a request should use: the pool (reads) or the claim lane (claims, warm-ups). */
export type Lane = "read" | "claim";

export class HttpTransport {
  readonly #pool: Pool;
  readonly #lanes: ClaimLanes;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #onClaimLane: HttpTransportOptions["onClaimLane"];
  readonly #onClaimWritten: HttpTransportOptions["onClaimWritten"];

  constructor(options: HttpTransportOptions) {
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now ?? Date.now;
    this.#onClaimLane = options.onClaimLane;
    this.#onClaimWritten = options.onClaimWritten;
    const common = {
      // Backstops only: the deadline below covers the whole request. Connect gets its own, shorter
      // bound so an unreachable host is reported as not delivered (UND_ERR_CONNECT_TIMEOUT).
      connectTimeout: Math.max(1, Math.min(options.timeoutMs, 10_000)),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      maxResponseSize: MAX_RESPONSE_BYTES,
    };
    this.#pool = new Pool(options.origin, { ...common, connections: MAX_CONNECTIONS });
    this.#lanes = new ClaimLanes({
      origin: options.origin,
      connection: { connectTimeoutMs: common.connectTimeout, maxResponseBytes: MAX_RESPONSE_BYTES },
      ...(options.warmUp ? { warmUp: options.warmUp } : {}),
    });
    this.#lanes.start();
  }

  /**
   * Sends one request and reads the whole body. `pathWithQuery` and `body` go out byte for byte as
   * given (they may be signed). `headers` is an object or a flat `[name, value, ...]` list. Never retries.
   */
  send(
    method: "GET" | "POST" | "DELETE",
    pathWithQuery: string,
    headers: Record<string, string> | string[],
    body: string | undefined,
    endpoint: string,
    signal: AbortSignal | undefined,
    lane: Lane = "read",
  ): Promise<HttpResponse> {
    if (signal?.aborted) return Promise.reject(new AbortedError(`request to ${endpoint} aborted`));
    return new Promise<HttpResponse>((resolve, reject) => {
      const sentAt = this.#now();
      let timedOut = false;
      let timer: NodeJS.Timeout | undefined;
      const taken = lane === "claim" ? this.#lanes.take() : undefined;
      const written = lane === "claim" ? this.#onClaimWritten : undefined;
      const onAbort = (): void => handler.abort(new AbortedError(`request to ${endpoint} aborted`));
      const handler = new TextResponse(
        (err, status, text) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          if (taken !== undefined) this.#lanes.release(taken.lane, handler.keepAlive);
          if (err !== undefined) reject(mapTransportError(err, endpoint, timedOut, signal, this.#timeoutMs));
          else resolve({ status, text, sentAt, receivedAt: this.#now() });
        },
        taken === undefined ? written : undefined,
      );
      if (taken !== undefined) taken.lane.client.dispatch({ path: pathWithQuery, method, headers, body, onWritten: written }, handler);
      else this.#pool.dispatch({ path: pathWithQuery, method, headers, body }, handler);
      // Counted after the write: nothing but the write comes before the socket.
      if (lane === "claim") this.#onClaimLane?.(taken === undefined ? "pool" : taken.fresh ? "fresh" : "warm");
      // Armed after the write (see the file comment); a request that already failed has settled.
      if (handler.settled) return;
      timer = setTimeout(() => {
        timedOut = true;
        handler.abort(new TimeoutError(`no complete answer from ${endpoint} within ${this.#timeoutMs} ms`));
      }, this.#timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Lets in-flight requests finish, then closes every socket. */
  async close(): Promise<void> {
    await Promise.all([this.#pool.close(), this.#lanes.close()]);
  }

  /** Closes every socket now; in-flight requests fail (maybeDelivered). */
  async destroy(): Promise<void> {
    await Promise.all([this.#pool.destroy(), this.#lanes.destroy()]);
  }
}
