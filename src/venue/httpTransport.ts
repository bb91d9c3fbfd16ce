/**
 * The narrow HTTP layer under RestClient: one keep-alive undici Pool for the venue's origin, a
 * per-request deadline, caller abort, and the mapping of every failure below HTTP to the typed errors
 * of errors.ts. It knows nothing of envelopes or endpoints beyond the name used in messages.
 */
import { Pool } from "undici";
import { AbortedError, BadResponseError, LiquidatorError, TimeoutError, TransportError } from "./errors.js";

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
}

/**
 * Connections per origin. The limiters cap the venue at ~25 requests/s in total, so 32 sockets leave
 * room for slow answers without one slow read making a claim wait for a free socket.
 */
const MAX_CONNECTIONS = 32;
/** No venue answer in scope is near this size (500 orders ≈ 0.5 MB); bigger is a broken upstream. */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * Error codes raised before a request could be written: the venue cannot have seen it, so even a
 * claim that failed this way may be re-decided. Anything else after the socket existed may have been
 * delivered (DESIGN.md: a claim in that state has an unknown outcome).
 */
const NOT_DELIVERED_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EAI_FAIL",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_CLOSED", // the pool was closed before this request was dispatched
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
]);

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

/** Maps a failed request to one typed error. Caller abort wins over the deadline, both over causes. */
export function mapTransportError(err: unknown, endpoint: string, timedOut: boolean, signal: AbortSignal | undefined, timeoutMs: number): LiquidatorError {
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

export class HttpTransport {
  readonly #pool: Pool;
  readonly #timeoutMs: number;
  readonly #now: () => number;

  constructor(options: HttpTransportOptions) {
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now ?? Date.now;
    this.#pool = new Pool(options.origin, {
      connections: MAX_CONNECTIONS,
      // Backstops only: the deadline below covers the whole request. Connect gets its own, shorter
      // bound so an unreachable host is reported as not delivered (UND_ERR_CONNECT_TIMEOUT).
      connectTimeout: Math.max(1, Math.min(options.timeoutMs, 10_000)),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      maxResponseSize: MAX_RESPONSE_BYTES,
    });
  }

  /**
   * Sends one request and reads the whole body. `pathWithQuery` and `body` go out byte for byte as
   * given (they may be signed). Never retries.
   */
  async send(
    method: "GET" | "POST",
    pathWithQuery: string,
    headers: Record<string, string>,
    body: string | undefined,
    endpoint: string,
    signal: AbortSignal | undefined,
  ): Promise<HttpResponse> {
    if (signal?.aborted) throw new AbortedError(`request to ${endpoint} aborted`);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#timeoutMs);
    const onAbort = (): void => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const sentAt = this.#now();
    try {
      const res = await this.#pool.request({ path: pathWithQuery, method, headers, body, signal: controller.signal });
      const text = await res.body.text();
      return { status: res.statusCode, text, sentAt, receivedAt: this.#now() };
    } catch (err) {
      throw mapTransportError(err, endpoint, timedOut, signal, this.#timeoutMs);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Lets in-flight requests finish, then closes every socket. */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  /** Closes every socket now; in-flight requests fail (maybeDelivered). */
  async destroy(): Promise<void> {
    await this.#pool.destroy();
  }
}
