/**
 * PostgreSQL as the daemon's state store, shared by replicas of one account (postgres/pgStore.ts).
 * Intents go straight to the database, fenced on this replica's lease term; later records (outcomes,
 * fills) are written in order by one writer that keeps retrying while the database is away, so an
 * answer is never lost. An intent first waits for the records queued before it: a retried claim's new
 * intent must find the refusal that made its id re-claimable already written.
 */
import { createHash } from "node:crypto";
import type { IntentRecord, JournalRecord, OrderIntentRecord } from "../core/journalRecords.js";
import { FencedError } from "../errors.js";
import { reclaimableAfterRefusal } from "../venue/failureTable.js";
import type { JournalReplay } from "./journalReplay.js";
import type { OperatorRequest } from "./operatorRequests.js";
import type { DeposeReason } from "./postgres/leaseKeeper.js";
import { PgStore, type PgStoreOptions } from "./postgres/pgStore.js";
import type { Role, StateStore } from "./stateStore.js";

export interface LeadershipEvents {
  elected(term: number): void;
  deposed(term: number, reason: DeposeReason): void;
  error(err: unknown): void;
  /** A periodic compaction of the journal (postgres/compactJournal.ts) finished or failed. */
  compacted?(outcome: { archived: number; throughSeq: number } | { err: Error }): void;
}

/** How often the leader folds the journal's settled events into the snapshot. */
const PG_COMPACT_EVERY_MS = 3_600_000;

export class PgStateStore implements StateStore {
  readonly kind = "postgres";
  readonly orderIdPrefix: string;
  readonly #store: PgStore;
  readonly #queue: JournalRecord[] = [];
  #drain: Promise<void> | undefined;
  /** The ordered writer's (cleared by its next write). */
  #failure: Error | undefined;
  /** The database unreachable for an intent or a lease beat (cleared by the next that gets through). */
  #leaseFailure: Error | undefined;
  #closed = false;
  #compactTimer: NodeJS.Timeout | undefined;
  #compacting: Promise<void> = Promise.resolve();

  private constructor(store: PgStore) {
    this.#store = store;
    // One prefix per account: every leader continues the shared sequence of order numbers.
    this.orderIdPrefix = `lq${createHash("sha256").update(store.accountId).digest("hex").slice(0, 8)}`;
  }

  /** Connects and migrates; the lease is taken once `start` is called. */
  static async open(
    options: Omit<PgStoreOptions, "leaseObserver"> & { compactEveryMs?: number },
    events: LeadershipEvents,
  ): Promise<PgStateStore> {
    let self: PgStateStore | undefined;
    const store = await PgStore.open({
      ...options,
      leaseObserver: {
        elected: (term) => events.elected(term),
        deposed: (term, reason) => events.deposed(term, reason),
        error: (err) => {
          if (self !== undefined) self.#leaseFailure = err as Error;
          events.error(err);
        },
        reached: () => {
          if (self !== undefined) self.#leaseFailure = undefined;
        },
      },
    });
    self = new PgStateStore(store);
    const every = options.compactEveryMs ?? PG_COMPACT_EVERY_MS;
    if (every > 0) {
      const s = self;
      s.#compactTimer = setInterval(() => {
        // The leader compacts (one replica, not all at once); a standby's replay at election reads the result.
        if (!s.#closed && s.role() === "leader") s.#compacting = s.#compacting.then(() => s.#compact(events));
      }, every);
      s.#compactTimer.unref();
    }
    return self;
  }

  /** `host:port/database`, safe to print. */
  get target(): string {
    return this.#store.target;
  }

  start(): void {
    this.#store.lease.start();
  }

  role(): Role {
    return this.#store.lease.term !== undefined && this.#store.lease.mayLead() ? "leader" : "standby";
  }

  mayLead(): boolean {
    return this.#store.lease.mayLead();
  }

  async intent(record: IntentRecord | OrderIntentRecord): Promise<number> {
    await this.#flushed();
    const term = this.#store.lease.term;
    if (term === undefined || !this.#store.lease.mayLead()) {
      throw new FencedError(this.#store.accountId, term ?? 0, "this replica does not hold the lease");
    }
    try {
      const written =
        record.t === "intent" ? await this.#store.journal.claimIntent(record, term) : await this.#store.journal.orderIntent(record, term);
      this.#leaseFailure = undefined;
      return written.attempt;
    } catch (err) {
      if (!(err instanceof FencedError)) this.#leaseFailure = err as Error;
      throw err;
    }
  }

  append(record: JournalRecord): void {
    if (this.#closed) return;
    this.#queue.push(record);
    this.#drain ??= this.#write();
  }

  /** A write that keeps failing, else a lease the database does not answer (a standby writes nothing). */
  get failure(): Error | undefined {
    return this.#failure ?? this.#leaseFailure;
  }

  recover(): boolean {
    return false; // the writer retries by itself
  }

  replay(): Promise<JournalReplay> {
    return this.#store.replay();
  }

  /** The leader reads the operator's requests; a standby leaves them for it. */
  async requests(): Promise<OperatorRequest[]> {
    if (this.#closed || !this.mayLead()) return [];
    return this.#store.openRequests();
  }

  requestDone(id: string): Promise<void> {
    return this.#store.requestDone(Number(id));
  }

  /** Import a file journal once (idempotent): ids claimed before the move are never claimed again. */
  importFileJournal(path: string | JournalReplay): Promise<{ imported: boolean; ids: number }> {
    return this.#store.importFileJournal(path);
  }

  async #compact(events: LeadershipEvents): Promise<void> {
    try {
      events.compacted?.(await this.#store.compact());
    } catch (err) {
      events.compacted?.({ err: err as Error });
    }
  }

  /** Waits (up to `timeoutMs`) for queued records, then gives the lease up for a fast handover. */
  async close(timeoutMs = 3_000): Promise<void> {
    if (this.#compactTimer !== undefined) clearInterval(this.#compactTimer);
    await Promise.race([Promise.all([this.#flushed(), this.#compacting]), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    this.#closed = true;
    await this.#store.close({ release: true });
  }

  async #flushed(): Promise<void> {
    while (this.#drain !== undefined) await this.#drain;
  }

  async #write(): Promise<void> {
    try {
      while (this.#queue.length > 0 && !this.#closed) {
        const record = this.#queue[0] as JournalRecord;
        try {
          await this.#writeOne(record);
          this.#queue.shift();
          this.#failure = undefined;
        } catch (err) {
          this.#failure = err as Error;
          await new Promise((r) => setTimeout(r, 500).unref());
        }
      }
    } finally {
      this.#drain = undefined;
    }
  }

  #writeOne(record: JournalRecord): Promise<unknown> {
    const journal = this.#store.journal;
    switch (record.t) {
      case "outcome": {
        // Refusals after which the claimer tries the same id again (the failure table says which) keep it claimable.
        const retried =
          record.result === "not_accepted" ||
          (record.result === "rejected" && record.final !== true && reclaimableAfterRefusal(record.code));
        // The attempt the outcome answers: a late answer to an earlier attempt moves no state.
        return journal.claimOutcome(record, { reclaimable: retried, ...(record.attempt !== undefined ? { attempt: record.attempt } : {}) });
      }
      case "order_outcome":
        return journal.orderOutcome(record);
      case "order_fill":
      case "claim_mode":
      case "claimed_base":
      case "ours":
      case "seen":
      case "skip":
      case "gone":
      case "markout":
      case "protection":
        return journal.event(record);
      default:
        return Promise.resolve(); // intents go through `intent`; venue and positions records are the file's
    }
  }
}
