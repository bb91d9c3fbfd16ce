/**
 * A state store (file or PostgreSQL) whose writes the test can fail, and which dies with its process.
 *
 * - Failing, the file store's way: every intent and later record throws, and `recover` says whether
 *   the disk is back; the core keeps the records and writes them again (core/journalOutbox.ts).
 * - Failing, the database's way: an intent is refused; later records wait in the store's own writer
 *   (pgStateStore.ts retries them), here held until the database is back.
 * - Killed (kill -9): nothing more reaches the store; records the database's writer still held are
 *   lost with the process, as they would be.
 */
import type { IntentRecord, JournalRecord, OrderIntentRecord } from "../../../src/core/journalRecords.js";
import { JournalError } from "../../../src/errors.js";
import type { StateStore } from "../../../src/store/stateStore.js";

export class FaultyStore {
  failing = false;
  #dead = false;
  /** Records a failing database's writer holds (PostgreSQL only). */
  readonly #held: JournalRecord[] = [];
  /** Intents the database has not answered yet (the test waits for them before judging). */
  #pending = 0;

  constructor(readonly inner: StateStore) {}

  get pending(): number {
    return this.#pending;
  }

  get orderIdPrefix(): string {
    return this.inner.orderIdPrefix;
  }

  mayLead(): boolean {
    return !this.#dead && this.inner.mayLead();
  }

  intent(record: IntentRecord | OrderIntentRecord): number | undefined | Promise<number | undefined> {
    if (this.#dead) throw new JournalError("the process is dead");
    if (this.failing) {
      const err = new JournalError("disk full (the model's fault)");
      if (this.inner.kind === "file") throw err;
      return Promise.reject(err);
    }
    const written = this.inner.intent(record);
    if (!(written instanceof Promise)) return written;
    this.#pending++;
    return written.finally(() => this.#pending--);
  }

  append(record: JournalRecord): void {
    if (this.#dead) return;
    if (this.inner.kind === "file") {
      if (this.failing) throw new JournalError("disk full (the model's fault)");
      return this.inner.append(record);
    }
    if (this.failing || this.#held.length > 0) this.#held.push(record);
    else this.inner.append(record);
  }

  recover(): boolean {
    return this.inner.kind === "file" ? !this.failing && this.inner.recover() : false;
  }

  /** The fault ends: the database's writer gets its held records through, in order. */
  heal(): void {
    this.failing = false;
    if (this.#dead) return;
    for (const r of this.#held.splice(0)) this.inner.append(r);
  }

  /** kill -9: the store object is abandoned; what the database's writer held is lost. */
  async kill(): Promise<void> {
    this.#dead = true;
    this.#held.length = 0;
    await this.inner.close();
  }
}
