/**
 * Leadership of one account among replicas: a row in `lease` with a holder, an expiry by the
 * DATABASE clock, and a term (the fencing token) that grows by one at every takeover.
 *
 * - A replica takes the lease only when the row has expired (or does not exist): term + 1, holder =
 *   itself. The holder renews it every `renewMs`, only while it still holds the same term unexpired.
 * - Locally, the holder may lead until `renew request start + leaseMs − safetyMarginMs` on its own
 *   monotonic clock. The database sets the expiry at `now() + leaseMs`, and its now() is later than
 *   the request start, so this deadline falls before the row expires: when `mayLead()` is true no
 *   other replica can hold the lease. Renewals failing (database unreachable, process paused) thus
 *   make `mayLead()` false within `leaseMs`, and a timer reports it (`deposed`) when the deadline
 *   passes, with no need for the database to answer.
 * - Worst-case failover after a leader dies: leaseMs (the row expires) + renewMs (the standby's next
 *   attempt) + one round trip: 3 s + 1 s with the defaults, inside `ha.failover_ms` (5 s).
 *
 * The term is what fences writes (pgJournal.ts); the local deadline only stops a replica that can no
 * longer prove it leads from sending what it has already written.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { ConfigError } from "../../errors.js";
import { sleep } from "../../sleep.js";
import type { PgDatabase } from "./pgDatabase.js";

export type DeposeReason =
  /** A renewal was refused: another replica holds the lease, or it had already expired in the database. */
  | "superseded"
  /** The local deadline passed without a successful renewal. */
  | "expired"
  /** This replica gave the lease up (release, or stop). */
  | "released"
  /** The keeper was stopped without releasing the row (it expires by itself). */
  | "stopped";

export interface LeaseObserver {
  elected(term: number): void;
  deposed(term: number, reason: DeposeReason): void;
  /** A lease query failed (typed store error); the keeper retries on its next beat. */
  error(err: unknown): void;
  /** A beat (renewal or acquisition attempt) reached the database: an earlier `error` is over. */
  reached(): void;
}

export interface LeaseKeeperOptions {
  /** Its own pool is best: renewals then never queue behind intents. */
  db: PgDatabase;
  accountId: string;
  /** Unique per replica process; default `hostname:pid:random`. */
  replicaId?: string;
  leaseMs?: number;
  renewMs?: number;
  /** Taken off the local deadline: covers clock-rate drift and the instant between check and use. */
  safetyMarginMs?: number;
  observer?: Partial<LeaseObserver>;
  /** Monotonic clock, ms. */
  monotonic?: () => number;
}

export interface LeaseRow {
  term: number;
  holder: string;
  /** Milliseconds until the row expires by the database clock (negative: expired). */
  expiresInMs: number;
}

export function defaultReplicaId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
}

export class LeaseKeeper {
  readonly accountId: string;
  readonly replicaId: string;
  readonly leaseMs: number;
  readonly renewMs: number;
  readonly safetyMarginMs: number;
  readonly #db: PgDatabase;
  readonly #observer: Partial<LeaseObserver>;
  readonly #monotonic: () => number;
  /** The term held, while leading. */
  #term: number | undefined;
  #deadline = 0;
  #deadlineTimer: NodeJS.Timeout | undefined;
  /** Lease queries run one at a time: a renewal never races a release or a takeover of our own. */
  #chain: Promise<unknown> = Promise.resolve();
  #loop: Promise<void> | undefined;
  #stop: AbortController | undefined;

  constructor(options: LeaseKeeperOptions) {
    this.accountId = options.accountId;
    this.replicaId = options.replicaId ?? defaultReplicaId();
    this.leaseMs = options.leaseMs ?? 3_000;
    this.renewMs = options.renewMs ?? 1_000;
    this.safetyMarginMs = options.safetyMarginMs ?? 300;
    if (!(this.renewMs > 0 && this.safetyMarginMs >= 0 && this.renewMs + this.safetyMarginMs < this.leaseMs)) {
      throw new ConfigError(
        "ha",
        `lease timing needs renewMs + safetyMarginMs < leaseMs (got ${this.renewMs} + ${this.safetyMarginMs}, ${this.leaseMs})`,
      );
    }
    this.#db = options.db;
    this.#observer = options.observer ?? {};
    this.#monotonic = options.monotonic ?? (() => performance.now());
  }

  /** True while this replica holds the lease with margin: intents and sends are allowed. */
  mayLead(nowMonotonic = this.#monotonic()): boolean {
    return this.#term !== undefined && nowMonotonic < this.#deadline;
  }

  /** The term to write intents under while `mayLead()`, else undefined. */
  get term(): number | undefined {
    return this.mayLead() ? this.#term : undefined;
  }

  /** Takes the lease if it is free or expired. Returns the new term, or undefined if another holds it. */
  tryAcquire(): Promise<number | undefined> {
    return this.#exclusive(async () => {
      if (this.mayLead()) return this.#term;
      // A term whose deadline passed a moment ago, before its timer ran: it ends before the next begins.
      this.#depose("expired");
      const started = this.#monotonic();
      const res = await this.#db.query<{ term: string }>(
        `WITH taken AS (
           UPDATE lease SET term = term + 1, holder = $2, expires_at = now() + $3 * interval '1 millisecond', renewed_at = now()
           WHERE account_id = $1 AND expires_at <= clock_timestamp()
           RETURNING term),
         created AS (
           INSERT INTO lease (account_id, term, holder, expires_at, renewed_at)
           SELECT $1, 1, $2, now() + $3 * interval '1 millisecond', now()
           WHERE NOT EXISTS (SELECT 1 FROM lease WHERE account_id = $1)
           ON CONFLICT (account_id) DO NOTHING
           RETURNING term)
         SELECT term FROM taken UNION ALL SELECT term FROM created`,
        [this.accountId, this.replicaId, this.leaseMs],
        { timeoutMs: this.renewMs },
      );
      const row = res.rows[0];
      if (row === undefined) return undefined;
      const term = Number(row.term);
      this.#term = term;
      this.#extend(started);
      this.#observer.elected?.(term);
      return term;
    });
  }

  /**
   * Extends the lease while this replica still holds the same term unexpired. False (and `deposed`)
   * when it does not; a database failure throws (typed) and leaves the local deadline running.
   */
  renew(): Promise<boolean> {
    return this.#exclusive(async () => {
      const term = this.#term;
      if (term === undefined) return false;
      const started = this.#monotonic();
      const res = await this.#db.query(
        `UPDATE lease SET expires_at = now() + $4 * interval '1 millisecond', renewed_at = now()
         WHERE account_id = $1 AND term = $2 AND holder = $3 AND expires_at > clock_timestamp()
         RETURNING term`,
        [this.accountId, term, this.replicaId, this.leaseMs],
        { timeoutMs: this.renewMs },
      );
      // Deposed locally while the query was out: that decision stands (the next takeover is term + 1).
      if (this.#term !== term) return false;
      if (res.rowCount === 1) {
        this.#extend(started);
        return true;
      }
      this.#depose("superseded");
      return false;
    });
  }

  /** Ends this replica's term now, in the database too, so a standby takes over at its next beat. */
  release(): Promise<boolean> {
    return this.#exclusive(async () => {
      const term = this.#term;
      if (term === undefined) return false;
      this.#depose("released");
      const res = await this.#db.query(
        "UPDATE lease SET expires_at = clock_timestamp() WHERE account_id = $1 AND term = $2 AND holder = $3",
        [this.accountId, term, this.replicaId],
        { timeoutMs: this.renewMs },
      );
      return res.rowCount === 1;
    });
  }

  /** The lease row as the database has it now (for readiness and metrics), or undefined if none. */
  async current(): Promise<LeaseRow | undefined> {
    const res = await this.#db.query<{ term: string; holder: string; expires_in_ms: number }>(
      `SELECT term, holder, (extract(epoch FROM expires_at - clock_timestamp()) * 1000)::float8 AS expires_in_ms
       FROM lease WHERE account_id = $1`,
      [this.accountId],
      { timeoutMs: this.renewMs },
    );
    const row = res.rows[0];
    return row === undefined ? undefined : { term: Number(row.term), holder: row.holder, expiresInMs: row.expires_in_ms };
  }

  /** Renews while leading, tries to take over while not, every `renewMs`, until `stop`. */
  start(): void {
    if (this.#loop !== undefined) return;
    const stop = new AbortController();
    this.#stop = stop;
    this.#loop = this.#run(stop.signal);
  }

  /**
   * Stops the beat and ends this replica's term: `mayLead()` is false from here on. By default the
   * row is expired too (a standby takes over at its next beat instead of after leaseMs);
   * `release: false` leaves it to expire, as a crash would.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.#stop?.abort();
    await this.#loop;
    this.#loop = undefined;
    this.#stop = undefined;
    if (options.release !== false) await this.release().catch((err: unknown) => this.#observer.error?.(err));
    this.#depose("stopped");
  }

  async #run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const started = this.#monotonic();
      try {
        if (this.#term !== undefined) await this.renew();
        else await this.tryAcquire();
        this.#observer.reached?.();
      } catch (err) {
        this.#observer.error?.(err);
      }
      await sleep(Math.max(0, this.renewMs - (this.#monotonic() - started)), signal);
    }
  }

  #extend(requestStart: number): void {
    this.#deadline = requestStart + this.leaseMs - this.safetyMarginMs;
    this.#armDeadline();
  }

  /** Reports the deadline passing (`deposed`, "expired") without waiting for any database answer. */
  #armDeadline(): void {
    clearTimeout(this.#deadlineTimer);
    const term = this.#term;
    this.#deadlineTimer = setTimeout(
      () => {
        if (this.#term !== term) return;
        // Timers run on a coarser clock than performance.now() and may fire a moment early: wait on.
        if (this.mayLead()) this.#armDeadline();
        else this.#depose("expired");
      },
      Math.max(0, Math.ceil(this.#deadline - this.#monotonic())) + 1,
    );
    this.#deadlineTimer.unref();
  }

  #depose(reason: DeposeReason): void {
    const term = this.#term;
    if (term === undefined) return;
    this.#term = undefined;
    this.#deadline = 0;
    clearTimeout(this.#deadlineTimer);
    this.#observer.deposed?.(term, reason);
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(fn, fn);
    this.#chain = run.catch(() => undefined);
    return run;
  }
}
