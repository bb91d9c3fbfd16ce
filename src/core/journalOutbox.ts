/**
 * The core's journal writes after the fact (outcomes, fills, modes, what is ours): a record is
 * applied to the core's state once, when it is made, and handed here to be written, in order. A
 * write that fails (the file journal's disk, for instance) keeps the record and every later one
 * queued behind it; they are written again, in order, after the store is told to retry, every
 * `retryMs` until it works. Nothing is lost and nothing is applied twice: the state never waits for
 * the disk, and the disk never sees a record out of order.
 *
 * While records wait, `blocked` is true: the core sends no new claim or order (their intents must
 * follow what is queued here, and a store that cannot write cannot hold an intent either).
 */
import type { JournalRecord } from "./journalRecords.js";

export interface OutboxStore {
  append(record: JournalRecord): void;
  /** Forget a sticky write failure so the next write tries the disk again. */
  recover(): boolean;
}

export interface OutboxOptions {
  store: OutboxStore;
  /** Run `f` after `ms` (the core's clock: a timer live, the timeline in the lab). */
  schedule(ms: number, f: () => void): void;
  retryMs: number;
  /** The first failure of a run of them, and the recovery (a log line each, a readiness reason). */
  failed(err: Error, queued: number): void;
  recovered(written: number): void;
}

export class JournalOutbox {
  readonly #o: OutboxOptions;
  readonly #queue: JournalRecord[] = [];
  #failure: Error | undefined;
  #retrying = false;

  constructor(options: OutboxOptions) {
    this.#o = options;
  }

  /** Records waiting for a write that failed (0 while the store writes). */
  get queued(): number {
    return this.#queue.length;
  }

  get blocked(): boolean {
    return this.#queue.length > 0;
  }

  /** The write failure that holds the queue, if any. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  write(record: JournalRecord): void {
    if (this.#queue.length > 0) {
      this.#queue.push(record);
      return;
    }
    try {
      this.#o.store.append(record);
    } catch (err) {
      this.#queue.push(record);
      this.#fail(err as Error);
    }
  }

  /** Write what is queued now (a retry tick, or before an intent that must follow it). True: nothing left. */
  flush(): boolean {
    if (this.#queue.length === 0) return true;
    this.#o.store.recover();
    let written = 0;
    while (this.#queue.length > 0) {
      try {
        this.#o.store.append(this.#queue[0] as JournalRecord);
      } catch (err) {
        this.#fail(err as Error);
        return false;
      }
      this.#queue.shift();
      written++;
    }
    this.#failure = undefined;
    this.#o.recovered(written);
    return true;
  }

  #fail(err: Error): void {
    const first = this.#failure === undefined;
    this.#failure = err;
    if (first) this.#o.failed(err, this.#queue.length);
    if (this.#retrying) return;
    this.#retrying = true;
    this.#o.schedule(this.#o.retryMs, () => {
      this.#retrying = false;
      this.flush();
    });
  }
}
