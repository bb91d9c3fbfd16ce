/**
 * Where the daemon's journal lives, and who may send: the JSONL file of one process (fileStore.ts,
 * the default) or PostgreSQL shared by replicas (pgStateStore.ts). Intents are durable before their
 * request leaves in both; with PostgreSQL an intent carries the leader's fencing term and the
 * database refuses a deposed leader's intent and a second intent for one liquidation id.
 */
import type { IntentRecord, JournalRecord, OrderIntentRecord } from "../core/journalRecords.js";
import type { JournalReplay } from "./journalReplay.js";
import type { OperatorRequest } from "./operatorRequests.js";

export type Role = "single" | "leader" | "standby";

export interface StateStore {
  readonly kind: "file" | "postgres";
  /** What prefixes this store's client order ids (unique per journal, or per account when shared). */
  readonly orderIdPrefix: string;
  role(): Role;
  /** Whether this replica may send now (always for the file store; while it holds an unexpired lease otherwise). */
  mayLead(): boolean;
  /**
   * An intent, durable before its request leaves: void once written (file: one write(2)), a promise
   * for the database, resolving to the key's attempt number (the database counts re-claims). Throws
   * (or rejects) when it cannot be written, when this replica no longer leads (FencedError) or when
   * the key was already claimed (DuplicateClaimError): then nothing is sent.
   */
  intent(record: IntentRecord | OrderIntentRecord): number | undefined | Promise<number | undefined>;
  /** A later record (an outcome, a fill): written in order. Throws JournalError for the file store when the disk fails. */
  append(record: JournalRecord): void;
  /** Why writing fails now, if it does (a readiness reason); undefined while healthy. */
  readonly failure: Error | undefined;
  /** Forget a write failure so the next write tries again (the file store; the database retries by itself). */
  recover(): boolean;
  /** The whole journal as it is now (a new leader replays what the others wrote). */
  replay(): Promise<JournalReplay>;
  /**
   * Requests an operator left for the running daemon (`liquidator rearm`, operatorRequests.ts) and
   * not done yet, oldest first; the replica that may send acts on each, then calls `requestDone`
   * (at least once: a done that is lost means acting again). A standby reads none.
   */
  requests(): Promise<OperatorRequest[]>;
  requestDone(id: string): Promise<void>;
  close(): Promise<void>;
}
