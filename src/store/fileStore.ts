/** The JSONL journal of one process as the daemon's state store: it always leads, intents are one write(2). */

import type { IntentRecord, JournalRecord, OrderIntentRecord } from "../core/journalRecords.js";
import type { Journal } from "./fileJournal.js";
import { readCurrent } from "./journalFiles.js";
import type { JournalReplay } from "./journalReplay.js";
import { fileRequestDone, fileRequests, type OperatorRequest } from "./operatorRequests.js";
import type { Role, StateStore } from "./stateStore.js";

export class FileStore implements StateStore {
  readonly kind = "file";
  readonly orderIdPrefix: string;
  readonly #journal: Journal;
  readonly #compactOnClose: boolean;

  /**
   * `tag` names this journal in client order ids (its venue record's time, base 36). `compactOnClose`:
   * a stop folds the tail into the snapshot (the daemon's), so the next start reads only what is open.
   */
  constructor(journal: Journal, tag: string, options: { compactOnClose?: boolean } = {}) {
    this.#journal = journal;
    this.orderIdPrefix = `lq${tag}`;
    this.#compactOnClose = options.compactOnClose ?? false;
  }

  role(): Role {
    return "single";
  }

  mayLead(): boolean {
    return true;
  }

  intent(record: IntentRecord | OrderIntentRecord): undefined {
    this.#journal.append(record);
    return undefined;
  }

  append(record: JournalRecord): void {
    this.#journal.append(record);
  }

  get failure(): Error | undefined {
    return this.#journal.failure;
  }

  recover(): boolean {
    return this.#journal.recover();
  }

  async replay(): Promise<JournalReplay> {
    return readCurrent(this.#journal.dir);
  }

  requests(): Promise<OperatorRequest[]> {
    return fileRequests(this.#journal.dir);
  }

  requestDone(id: string): Promise<void> {
    return fileRequestDone(this.#journal.dir, id);
  }

  close(): Promise<void> {
    return this.#journal.close({ compact: this.#compactOnClose });
  }
}
