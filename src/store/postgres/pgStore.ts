/**
 * The PostgreSQL store of one account, as the daemon opens it: two pools (the lease keeper's own, so
 * a renewal never waits behind intents for a connection, and the journal's), the schema migrated,
 * the journal fenced on the keeper's replica id.
 */
import type { JournalRecord } from "../../core/journalRecords.js";
import type { JournalReplay } from "../journalReplay.js";
import { OPERATOR_REQUEST_KINDS, type OperatorRequest, type OperatorRequestKind } from "../operatorRequests.js";
import { type CompactOptions, type CompactResult, compactPgJournal } from "./compactJournal.js";
import { type ImportOptions, type ImportResult, importFileJournal } from "./importFileJournal.js";
import { defaultReplicaId, LeaseKeeper, type LeaseObserver } from "./leaseKeeper.js";
import { ledgerEvents } from "./ledgerEvents.js";
import { type MigrateResult, migrate } from "./migrate.js";
import { PgDatabase, type PgDatabaseOptions } from "./pgDatabase.js";
import { PgJournal } from "./pgJournal.js";
import { type PgReplay, type ReplayOptions, replayJournal } from "./replayJournal.js";

export interface PgStoreOptions extends Omit<PgDatabaseOptions, "onIdleError"> {
  accountId: string;
  /** Unique per replica process; default `hostname:pid:random`. */
  replicaId?: string;
  leaseMs?: number;
  renewMs?: number;
  safetyMarginMs?: number;
  leaseObserver?: Partial<LeaseObserver>;
  /** Errors of idle pooled connections (server restart, reset); the next query reconnects. */
  onIdleError?: (err: Error) => void;
  migrateTimeoutMs?: number;
}

export class PgStore {
  readonly accountId: string;
  /** `host:port/database`, safe to print. */
  readonly target: string;
  readonly journal: PgJournal;
  readonly lease: LeaseKeeper;
  /** What opening did to the schema. */
  readonly migration: MigrateResult;
  readonly #db: PgDatabase;
  readonly #leaseDb: PgDatabase;

  private constructor(db: PgDatabase, leaseDb: PgDatabase, lease: LeaseKeeper, migration: MigrateResult, accountId: string) {
    this.#db = db;
    this.#leaseDb = leaseDb;
    this.accountId = accountId;
    this.target = db.target;
    this.lease = lease;
    this.migration = migration;
    this.journal = new PgJournal({ db, accountId, replicaId: lease.replicaId });
  }

  /** Connects, migrates (serialised across replicas), and returns the store; the lease is not started. */
  static async open(options: PgStoreOptions): Promise<PgStore> {
    const db = new PgDatabase(options);
    const renewMs = options.renewMs ?? 1_000;
    const leaseDb = new PgDatabase({
      ...options,
      maxConnections: 2,
      connectTimeoutMs: Math.min(options.connectTimeoutMs ?? renewMs, renewMs),
      queryTimeoutMs: renewMs,
    });
    try {
      const lease = new LeaseKeeper({
        db: leaseDb,
        accountId: options.accountId,
        replicaId: options.replicaId ?? defaultReplicaId(),
        ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
        renewMs,
        ...(options.safetyMarginMs !== undefined ? { safetyMarginMs: options.safetyMarginMs } : {}),
        ...(options.leaseObserver !== undefined ? { observer: options.leaseObserver } : {}),
      });
      const migration = await migrate(db, options.migrateTimeoutMs !== undefined ? { timeoutMs: options.migrateTimeoutMs } : {});
      return new PgStore(db, leaseDb, lease, migration, options.accountId);
    } catch (err) {
      await Promise.allSettled([db.close(), leaseDb.close()]);
      throw err;
    }
  }

  replay(options?: ReplayOptions): Promise<PgReplay> {
    return replayJournal(this.#db, this.accountId, options);
  }

  /** Folds the account's events into its snapshot and archives them (compactJournal.ts). */
  compact(options?: CompactOptions): Promise<CompactResult> {
    return compactPgJournal(this.#db, this.accountId, options);
  }

  importFileJournal(source: string | JournalReplay, options?: ImportOptions): Promise<ImportResult> {
    return importFileJournal(this.#db, this.accountId, source, options);
  }

  /** Stops the lease (released unless `release: false`, for a fast handover) and closes both pools. */
  /** The records the opportunity ledger reads, inserted from `since` on (`liquidator report`). */
  ledgerEvents(since: Date): Promise<JournalRecord[]> {
    return ledgerEvents(this.#db, this.accountId, since);
  }

  /** Leaves a request for the account's leader (`liquidator rearm`); resolves with its row number. */
  async request(kind: OperatorRequestKind, by: string): Promise<number> {
    const r = await this.#db.query<{ seq: string }>(
      "INSERT INTO operator_requests (account_id, kind, requested_by) VALUES ($1, $2, $3) RETURNING seq",
      [this.accountId, kind, by.slice(0, 200)],
    );
    return Number(r.rows[0]?.seq);
  }

  /** Whether the request `seq` was taken (by a leader), and by whom. */
  async requestTaken(seq: number): Promise<string | undefined> {
    const r = await this.#db.query<{ taken_by: string | null }>(
      "SELECT taken_by FROM operator_requests WHERE account_id = $1 AND seq = $2 AND taken_at IS NOT NULL",
      [this.accountId, seq],
    );
    return r.rows[0]?.taken_by ?? undefined;
  }

  /** The account's requests not done yet, oldest first. */
  async openRequests(): Promise<OperatorRequest[]> {
    const r = await this.#db.query<{ seq: string; kind: string; at: string; requested_by: string }>(
      `SELECT seq::text AS seq, kind, (extract(epoch from requested_at) * 1000)::bigint::text AS at, requested_by
         FROM operator_requests WHERE account_id = $1 AND taken_at IS NULL ORDER BY seq`,
      [this.accountId],
    );
    return r.rows
      .filter((row) => (OPERATOR_REQUEST_KINDS as readonly string[]).includes(row.kind))
      .map((row) => ({ id: row.seq, kind: row.kind as OperatorRequestKind, at: Number(row.at), by: row.requested_by }));
  }

  /** A request acted on: marked taken by this replica (the command waiting for it sees by whom). */
  async requestDone(seq: number): Promise<void> {
    await this.#db.query(
      "UPDATE operator_requests SET taken_at = now(), taken_by = $3 WHERE account_id = $1 AND seq = $2 AND taken_at IS NULL",
      [this.accountId, seq, this.lease.replicaId],
    );
  }

  async close(options: { release?: boolean } = {}): Promise<void> {
    await this.lease.stop(options);
    await Promise.allSettled([this.#db.close(), this.#leaseDb.close()]);
  }
}
