/**
 * The machinery of every venue REST call (docs/protocol.md §3, §4.3): the
 * scope's rate-limiter permit, signing, one HTTP attempt (httpTransport.ts), envelope and payload
 * validation, error mapping by venue code, and retries for reads (never for writes). The operations
 * live in rest.ts (reads and claims) and orderApi.ts (orders and the account).
 *
 * Longer than most files: the one request path every REST call shares (envelope, retries, limiter,
 * signing, the claim lanes); split, the retry rules would be spread over files.
 */
import pRetry from "p-retry";
import type { z } from "zod";
import { AbortedError, ConfigError, InvalidArgumentError } from "../errors.js";
import { sleep } from "../sleep.js";
import { BadResponseError, isRetryableRead, VenueError } from "./errors.js";
import { codeForBareStatus, UNKNOWN_ERROR_CODE } from "./failureTable.js";
import { http1RequestText } from "./http1Request.js";
import { type ClaimLaneKind, type HttpResponse, HttpTransport, type Lane } from "./httpTransport.js";
import type { LimiterName, VenueLimiters } from "./limiters.js";
import { envelopeSchema, type PageMeta, parseVenueCode } from "./restSchemas.js";
import type { Signer } from "./signer.js";
import { type SkippedRow, skippedRowsOf } from "./tolerantRows.js";
import { USER_AGENT } from "./userAgent.js";
import { MAX_TIMESTAMP_MS } from "./wire.js";
import { numberFrom } from "./wireNumbers.js";

export interface Stamped<T> {
  data: T;
  /** The envelope's `timestamp` (venue ms), or undefined when the venue sent none. */
  venueTs: number | undefined;
}

export interface RetryOptions {
  /** Retries after the first attempt (0 = no retry). */
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
}

export interface RestClientOptions {
  baseUrl: string;
  /** Required for the signed operations (adminOrders, claimLiquidation). */
  signer?: Signer;
  /** Per attempt: connect + headers + body. Default 5000 (config venue.request_timeout_ms). */
  timeoutMs?: number;
  limiters?: VenueLimiters;
  /** Retries of GETs on retryable failures. Default 3 retries, 200 ms .. 2000 ms with jitter. */
  retry?: RetryOptions;
  /** Called once per attempt that reached the limiter's permit: path template, HTTP status or "error", duration. */
  onRequest?: (endpoint: string, status: number | "error", seconds: number) => void;
  /**
   * A cheap public read (path without the base) that keeps the claim connections warm within the
   * venue's keep-alive hint, taken from the public budget only when a permit is free; none: no warm-ups.
   */
  warmUpPath?: () => string | undefined;
  /** Where each claim went out (a warm connection, one that had to connect, or the read pool). */
  onClaimLane?: (kind: ClaimLaneKind) => void;
  /** Rows of a list read row by row (tolerantRows.ts) that did not parse and were left out. */
  onSkippedRows?: (endpoint: string, rows: readonly SkippedRow[]) => void;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface ClaimCallOptions extends CallOptions {
  /**
   * The caller already holds a claims-limiter permit (the claimer takes one, then picks the best
   * pending claim for it): do not take a second one here.
   */
  permitHeld?: boolean;
}

type QueryValue = string | number | undefined;
export function dataOf<T>(stamped: Stamped<T>): T {
  return stamped.data;
}

/** RFC 3986 query string of the defined, non-empty params, in the given order. Built once, then signed and sent as is. */
export function buildQuery(params: Record<string, QueryValue>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === "") continue;
    if (typeof value === "number" && !Number.isFinite(value)) throw new RangeError(`query parameter ${key} is not a finite number`);
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  return parts.join("&");
}

/** Number of pages a paged answer has, from its meta (at least 1). */
export function pageCount(meta: PageMeta): number {
  if (meta.records_per_page <= 0) return 1;
  return Math.max(1, Math.ceil(meta.total / meta.records_per_page));
}

/** Fetches page 1, then every further page that page 1's meta announces; stops early on an empty page. */
export async function collectPages<R>(
  fetchPage: (page: number) => Promise<{ meta: PageMeta; rows: R[] }>,
  maxPages = 10_000,
): Promise<R[]> {
  const first = await fetchPage(1);
  const rows = [...first.rows];
  const pages = Math.min(pageCount(first.meta), maxPages);
  for (let page = 2; page <= pages; page++) {
    const next = await fetchPage(page);
    if (next.rows.length === 0) break;
    rows.push(...next.rows);
  }
  return rows;
}

/** Control characters from the venue must not reach a terminal or a one-line log; length is bounded too. */
function cleanText(value: unknown, max = 200): string {
  const text = typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** The envelope's `timestamp` as venue ms: a positive number or decimal string, else undefined (ignored). */
function envelopeTimestamp(ts: unknown): number | undefined {
  const n = numberFrom(ts);
  return n !== undefined && n > 0 && n <= MAX_TIMESTAMP_MS ? n : undefined;
}

/** docs/protocol.md §3: -1003 promises no Retry-After, "wait for the next window" of the 1 s limits. */
const RATE_LIMIT_WINDOW_MS = 1000;

function validateOptions(o: RestClientOptions): { origin: string; basePath: string; timeoutMs: number; retry: RetryOptions } {
  let url: URL;
  try {
    url = new URL(o.baseUrl);
  } catch {
    throw new ConfigError("venue.base_url", "is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError("venue.base_url", "must start with http:// or https://");
  if (url.username || url.password) throw new ConfigError("venue.base_url", "must not carry credentials");
  if (url.search || url.hash) throw new ConfigError("venue.base_url", "must not carry a query or fragment");
  const timeoutMs = o.timeoutMs ?? 5000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 600_000) {
    throw new ConfigError("venue.request_timeout_ms", "must be an integer from 1 to 600000");
  }
  const retry = o.retry ?? { retries: 3, minTimeoutMs: 200, maxTimeoutMs: 2000 };
  if (!Number.isInteger(retry.retries) || retry.retries < 0 || retry.retries > 20)
    throw new InvalidArgumentError("retry.retries must be an integer from 0 to 20");
  if (!(retry.minTimeoutMs >= 0) || !(retry.maxTimeoutMs >= retry.minTimeoutMs) || !Number.isFinite(retry.maxTimeoutMs)) {
    throw new InvalidArgumentError("retry.minTimeoutMs must satisfy 0 <= minTimeoutMs <= maxTimeoutMs (finite)");
  }
  if (o.signer !== undefined && (typeof o.signer.headers !== "function" || o.signer.clock === undefined)) {
    throw new InvalidArgumentError("signer is not a Signer");
  }
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, ""), timeoutMs, retry };
}
export class RestCore {
  readonly #transport: HttpTransport;
  readonly #host: string;
  readonly #basePath: string;
  readonly #signer: Signer | undefined;
  readonly #limiters: VenueLimiters | undefined;
  readonly #retry: RetryOptions;
  readonly #onRequest: RestClientOptions["onRequest"];
  readonly #onSkippedRows: RestClientOptions["onSkippedRows"];
  readonly #plainHeaders: Record<string, string> = { accept: "application/json", "user-agent": USER_AGENT };
  /** An unsigned POST (the Public Info API's query, docs/protocol.md §10) carries its JSON body's type. */
  readonly #plainPostHeaders: Record<string, string> = { ...this.#plainHeaders, "content-type": "application/json" };

  constructor(options: RestClientOptions) {
    const v = validateOptions(options);
    this.#basePath = v.basePath;
    this.#host = new URL(v.origin).host;
    this.#signer = options.signer;
    this.#limiters = options.limiters;
    this.#retry = v.retry;
    this.#onRequest = options.onRequest;
    this.#onSkippedRows = options.onSkippedRows;
    const clock = options.signer?.clock;
    // The envelope timestamps feed the ServerClock, so send/receive times come from its local clock.
    const now = clock ? () => clock.now() - clock.offsetMs : Date.now;
    const warmUpPath = options.warmUpPath;
    const limiters = options.limiters;
    this.#transport = new HttpTransport({
      origin: v.origin,
      timeoutMs: v.timeoutMs,
      now,
      ...(warmUpPath !== undefined
        ? {
            warmUp: {
              path: () => {
                const p = warmUpPath();
                return p === undefined ? undefined : v.basePath + p;
              },
              permit: () => limiters?.tryAcquire("public") ?? true,
            },
          }
        : {}),
      ...(options.onClaimLane !== undefined ? { onClaimLane: options.onClaimLane } : {}),
      // Every claim holds a claims permit (its own or the claimer's): the next one is spaced from
      // when this one was written, not from its permit (a pooled or fresh connection writes later).
      ...(limiters !== undefined ? { onClaimWritten: () => limiters.restamp("claims") } : {}),
    });
  }
  /** The base URL's path, prepended to every endpoint. */
  get basePath(): string {
    return this.#basePath;
  }

  async close(): Promise<void> {
    await this.#transport.close();
  }

  /** A GET (public or signed), retried on retryable failures (isRetryableRead). */
  async get<S extends z.ZodType>(
    endpoint: string,
    scope: LimiterName,
    query: string,
    schema: S,
    signed: boolean,
    opts: CallOptions,
    /** The path when it differs from the endpoint template (path parameters); the label stays the template. */
    path: string = endpoint,
  ): Promise<Stamped<z.output<S>>> {
    const pathWithQuery = this.#basePath + path + (query ? `?${query}` : "");
    const signal = opts.signal;
    const attempt = (): Promise<Stamped<z.output<S>>> =>
      this.attempt("GET", endpoint, scope, pathWithQuery, undefined, schema, signed, signal);
    if (this.#retry.retries === 0) return attempt();
    try {
      return await pRetry(attempt, {
        retries: this.#retry.retries,
        minTimeout: this.#retry.minTimeoutMs,
        maxTimeout: this.#retry.maxTimeoutMs,
        factor: 2,
        randomize: true,
        signal,
        shouldRetry: ({ error }) => isRetryableRead(error),
        onFailedAttempt: async ({ error, retriesLeft }) => {
          if (retriesLeft > 0 && error instanceof VenueError && error.kind === "rate_limited") await sleep(RATE_LIMIT_WINDOW_MS, signal);
        },
      });
    } catch (err) {
      // p-retry rejects with the signal's reason when aborted between attempts.
      if (signal?.aborted && !(err instanceof AbortedError)) throw new AbortedError(`request to ${endpoint} aborted`, { cause: err });
      throw err;
    }
  }

  /** One attempt: permit, sign, send, interpret. A POST goes through here only, never retried. */
  async attempt<S extends z.ZodType>(
    method: "GET" | "POST" | "DELETE",
    endpoint: string,
    scope: LimiterName | undefined,
    pathWithQuery: string,
    body: string | undefined,
    schema: S,
    signed: boolean,
    signal: AbortSignal | undefined,
    lane: Lane = "read",
  ): Promise<Stamped<z.output<S>>> {
    if (this.#limiters && scope !== undefined) await this.#limiters.acquire(scope, signal);
    const headers = signed
      ? this.#signedHeaders(method, pathWithQuery, body)
      : body !== undefined
        ? this.#plainPostHeaders
        : this.#plainHeaders;
    const started = performance.now();
    let res: HttpResponse;
    try {
      res = await this.#transport.send(method, pathWithQuery, headers, body, endpoint, signal, lane);
    } catch (err) {
      this.#report(endpoint, "error", started);
      throw err;
    }
    this.#report(endpoint, res.status, started);
    return this.#interpret(endpoint, res, schema);
  }

  /**
   * What `attempt` does for a signed POST before the socket, and nothing else: the signature, the
   * headers and the request text the claim connection writes (http1Request.ts). Returns its length.
   */
  signedPostText(pathWithQuery: string, body: string): number {
    const headers = this.#signedHeaders("POST", pathWithQuery, body);
    return http1RequestText(this.#host, { method: "POST", path: pathWithQuery, headers, body }).length;
  }

  #signedHeaders(method: string, pathWithQuery: string, body: string | undefined): string[] {
    if (this.#signer === undefined) {
      throw new ConfigError("LIQUIDATOR_SECRET", "a signed venue request needs a secret and venue.account_id");
    }
    // One flat list per request (Signer.headerList): no object to build and for undici to walk.
    const headers = this.#signer.headerList(method, pathWithQuery, body);
    // docs/protocol.md §2: Content-Type application/json on POST; only POSTs carry a body here.
    if (body !== undefined) headers.push("accept", "application/json", "content-type", "application/json", "user-agent", USER_AGENT);
    else headers.push("accept", "application/json", "user-agent", USER_AGENT);
    return headers;
  }

  #report(endpoint: string, status: number | "error", started: number): void {
    if (this.#onRequest === undefined) return;
    try {
      this.#onRequest(endpoint, status, (performance.now() - started) / 1000);
    } catch {
      // A metrics hook must never fail a request.
    }
  }

  /** Envelope (docs/protocol.md §3), clock sample, error mapping, then the payload schema. */
  #interpret<S extends z.ZodType>(endpoint: string, res: HttpResponse, schema: S): Stamped<z.output<S>> {
    const ok = res.status >= 200 && res.status < 300;
    let json: unknown;
    let isJson = true;
    try {
      json = JSON.parse(res.text);
    } catch {
      isJson = false;
    }
    const env = isJson ? envelopeSchema.safeParse(json) : undefined;
    if (env === undefined || !env.success) {
      if (ok)
        throw new BadResponseError(
          endpoint,
          isJson ? `not a venue envelope (HTTP ${res.status})` : `body is not JSON (HTTP ${res.status})`,
        );
      // An error page from a proxy or load balancer: classify by HTTP status so retries still work.
      throw new VenueError({
        venueCode: codeForBareStatus(res.status),
        status: res.status,
        venueMessage: `HTTP ${res.status} without a venue envelope`,
        endpoint,
      });
    }
    const envelope = env.data;
    // A number or a numeric string (docs/protocol.md §9: a recorded sample of the venue has a string): read
    // only as a number, a string timestamp left the ServerClock without a sample and claiming paused.
    const venueTs = envelopeTimestamp(envelope.timestamp);
    if (this.#signer && venueTs !== undefined) this.#signer.clock.observe(venueTs, res.sentAt, res.receivedAt);
    if (!envelope.success) {
      throw new VenueError({
        venueCode: parseVenueCode(envelope.code) ?? UNKNOWN_ERROR_CODE,
        status: res.status,
        venueMessage: cleanText(envelope.message),
        endpoint,
      });
    }
    if (!ok) throw new BadResponseError(endpoint, `success envelope with HTTP ${res.status}`);
    const data = schema.safeParse(envelope.data);
    if (!data.success) {
      const issue = data.error.issues[0];
      const where = issue && issue.path.length > 0 ? `data.${issue.path.join(".")}` : "data";
      throw new BadResponseError(endpoint, `${where}: ${cleanText(issue?.message ?? "invalid")}`);
    }
    const skipped = this.#onSkippedRows === undefined ? undefined : skippedRowsOf(data.data);
    if (skipped !== undefined && skipped.length > 0) {
      try {
        this.#onSkippedRows?.(endpoint, skipped);
      } catch {
        // A metrics or log hook must never fail a read.
      }
    }
    return { data: data.data, venueTs };
  }
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { envelopeTimestamp as envelopeTimestampForTests };
