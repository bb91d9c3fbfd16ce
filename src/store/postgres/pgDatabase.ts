/**
 * A pool of connections to one PostgreSQL database with every wait bounded: connecting (or waiting
 * for a free pooled connection) by `connectTimeoutMs`, each query by `queryTimeoutMs` on the client
 * and by `statementTimeoutMs` on the server (which also ends the server-side work, so a cancelled
 * statement holds no lock). A connection that failed or timed out is destroyed, never reused: after
 * a client-side timeout its socket may still owe an answer. Errors come out typed (toStoreError.ts).
 *
 * The connection string comes from env/config only; it is parsed here and never printed except
 * through `target` (host, port, database: no user, no password).
 */
import type { ConnectionOptions as TlsOptions } from "node:tls";
import pg from "pg";
import { parseIntoClientConfig } from "pg-connection-string";
import { redactPostgresUrl } from "../../redaction.js";
import { DatabaseError } from "../storeErrors.js";
import { isConnectionFailure, type StoreErrorContext, toStoreError } from "./toStoreError.js";

export interface PgDatabaseOptions {
  /** `postgres://…` (sslmode, sslrootcert, sslcert, sslkey, application_name… honoured). */
  url: string;
  /**
   * TLS options merged over what the URL's ssl parameters give (e.g. a `ca` held in memory);
   * `false` turns TLS off whatever the URL says. Absent: the URL decides.
   */
  ssl?: boolean | TlsOptions;
  /** Connect, or wait for a free pooled connection, at most this long. */
  connectTimeoutMs?: number;
  /** Client-side bound on one query's answer. */
  queryTimeoutMs?: number;
  /**
   * Server-side `statement_timeout`, sent at connect; keep it below `queryTimeoutMs`. 0 sends none
   * (needed behind a pooler that refuses unknown startup parameters, unless it ignores them).
   */
  statementTimeoutMs?: number;
  maxConnections?: number;
  /** TCP keepalive on every connection; first probe after this idle time. */
  keepAliveInitialDelayMs?: number;
  applicationName?: string;
  /** Errors of idle pooled connections (server restarted, socket reset): logged, never thrown. */
  onIdleError?: (err: Error) => void;
}

export interface QueryOptions {
  /** Overrides `queryTimeoutMs` for this query (migrations, imports, lease keeping). */
  timeoutMs?: number;
}

type Queryable = Pick<pg.PoolClient, "query">;

export class PgDatabase {
  /** `host:port/database` of the server, safe to print. */
  readonly target: string;
  readonly #pool: pg.Pool;
  readonly #queryTimeoutMs: number;
  #closed = false;

  constructor(options: PgDatabaseOptions) {
    let parsed: pg.ClientConfig;
    try {
      parsed = parseIntoClientConfig(options.url);
    } catch (err) {
      throw new DatabaseError(`invalid PostgreSQL URL ${redactPostgresUrl(options.url)}: ${(err as Error).message}`, undefined);
    }
    this.target = `${parsed.host ?? "localhost"}:${parsed.port ?? 5432}/${parsed.database ?? ""}`;
    this.#queryTimeoutMs = options.queryTimeoutMs ?? 2_000;
    const statementTimeoutMs = options.statementTimeoutMs ?? serverTimeout(this.#queryTimeoutMs);
    this.#pool = new pg.Pool({
      ...parsed,
      ssl: mergeSsl(parsed.ssl, options.ssl),
      application_name: parsed.application_name ?? options.applicationName ?? "liquidator",
      max: options.maxConnections ?? 4,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 2_000,
      query_timeout: this.#queryTimeoutMs,
      ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
      keepAlive: true,
      keepAliveInitialDelayMillis: options.keepAliveInitialDelayMs ?? 10_000,
      idleTimeoutMillis: 30_000,
    });
    this.#pool.on("error", (err) => options.onIdleError?.(err));
  }

  /** One statement on a pooled connection (its own transaction unless it is inside `transaction`). */
  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values: readonly unknown[] = [],
    options: QueryOptions & Partial<StoreErrorContext> = {},
  ): Promise<pg.QueryResult<R>> {
    return this.#withClient((client) => runQuery<R>(client, text, values, options.timeoutMs ?? this.#queryTimeoutMs), options);
  }

  /**
   * `fn` inside BEGIN … COMMIT on one connection; ROLLBACK on any error. `options.timeoutMs` bounds
   * each statement, on the server too (SET LOCAL statement_timeout, for this transaction only).
   */
  async transaction<T>(fn: (q: TxQuery) => Promise<T>, options: QueryOptions & Partial<StoreErrorContext> = {}): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.#queryTimeoutMs;
    return this.#withClient(async (client) => {
      const q: TxQuery = (text, values = []) => runQuery(client, text, values, timeoutMs);
      await q("BEGIN");
      try {
        if (options.timeoutMs !== undefined) {
          await q("SELECT set_config('statement_timeout', $1, true)", [String(serverTimeout(timeoutMs))]);
        }
        const out = await fn(q);
        await q("COMMIT");
        return out;
      } catch (err) {
        // A broken or timed-out connection is not asked to roll back (it would only wait out another
        // timeout): it is destroyed, and the server rolls back when the session ends.
        if (!isConnectionFailure(toStoreError(err, { target: this.target }))) await q("ROLLBACK").catch(() => undefined);
        throw err;
      }
    }, options);
  }

  async #withClient<T>(fn: (client: pg.PoolClient) => Promise<T>, ctx: Partial<StoreErrorContext> = {}): Promise<T> {
    if (this.#closed) throw new DatabaseError(`database ${this.target}: store is closed`, undefined);
    const context: StoreErrorContext = { target: this.target, ...ctx };
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw toStoreError(err, context);
    }
    try {
      const out = await fn(client);
      client.release();
      return out;
    } catch (err) {
      const typed = toStoreError(err, context);
      client.release(isConnectionFailure(typed) ? (err as Error) : undefined);
      throw typed;
    }
  }

  /** Closes every connection; later calls fail with DatabaseError. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}

export type TxQuery = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values?: readonly unknown[],
) => Promise<pg.QueryResult<R>>;

function runQuery<R extends pg.QueryResultRow>(
  client: Queryable,
  text: string,
  values: readonly unknown[],
  timeoutMs: number,
): Promise<pg.QueryResult<R>> {
  return client.query<R>({ text, values: [...values], query_timeout: timeoutMs } as pg.QueryConfig);
}

/** The server gives up a little before the client, so a slow statement ends as a clean error. */
function serverTimeout(clientTimeoutMs: number): number {
  return Math.max(1, Math.floor(clientTimeoutMs * 0.9));
}

function mergeSsl(fromUrl: pg.ClientConfig["ssl"], given: PgDatabaseOptions["ssl"]): pg.ClientConfig["ssl"] {
  if (given === undefined) return fromUrl;
  if (typeof given === "boolean") return given;
  return { ...(typeof fromUrl === "object" ? fromUrl : {}), ...given };
}
