/** The JSONL journal of one process as the daemon's state store: it always leads, intents are one write(2). */
import type { Journal } from "./fileJournal.js";
import { readCurrent } from "./journalFiles.js";
import type { IntentRecord, JournalRecord, JournalReplay, OrderIntentRecord } from "./journalRecords.js";
import { fileRequestDone, fileRequests, type OperatorRequest } from "./operatorRequests.js";
import type { Role, StateStore } from "./stateStore.js";

export class FileStore implements StateStore {
  readonly kind = "file";
  readonly orderIdPrefix: string;
  readonly #journal: Journal;

  /** `tag` names this journal in client order ids (its venue record's time, base 36). */
  constructor(journal: Journal, tag: string) {
    this.#journal = journal;
    this.orderIdPrefix = `lq${tag}`;
  }

  role(): Role {
    return "single";
  }

  mayLead(): boolean {
    return true;
  }

  intent(record: IntentRecord | OrderIntentRecord): void {
    this.#journal.append(record);
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
    return this.#journal.close();
  }
}
