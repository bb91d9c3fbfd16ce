/**
 * The claims journal in PostgreSQL: fenced intents, unfenced outcomes, position snapshots. Records
 * keep the file journal's JSON shapes (src/daemon/journal.ts), in the append-only `journal_events`,
 * so replay rebuilds the same JournalReplay; `claims` / `orders` hold one row per key with its state
 * (intentStates.ts), and the primary key is what refuses a second claim of the same id.
 *
 * Why an old leader can never write an intent after a takeover: each intent runs as ONE statement
 * (a function, migrations.ts) that first reads the account's lease row `FOR SHARE` and refuses
 * (FencedError) unless the caller's term and replica id hold it unexpired by the database clock.
 * A takeover is an UPDATE of that row, which needs the row lock exclusively: it waits until every
 * intent transaction holding the share lock has committed or rolled back, and an intent that comes
 * after the takeover waits for it to commit, then sees the new term and is refused. So every intent
 * of term t commits before the commit of term t + 1, and none after: the database serialises them
 * on the row lock, whatever the clocks of the replicas say. Being one statement, an intent holds the
 * lock for microseconds and never across a client round trip, so a client that vanishes mid-intent
 * cannot hold up a takeover until TCP keepalive notices (a trap of session advisory locks).
 *
 * What the fence does not cover is the gap after an intent commits and before its request leaves
 * (a leader paused there sends late). For a claim the unique id makes that harmless: the id is
 * already claimed, no other replica claims it. For an order, the new leader sees the order intent
 * in the journal and must look the order up by client order id before deciding anything about it.
 * The sender checks `LeaseKeeper.mayLead()` just before sending to keep that gap short.
 *
 * Outcomes are not fenced: an answer to a request sent under a valid term is the truth, whoever
 * leads when it arrives, and losing it would corrupt the exposure of the next leader.
 */
import type {
  ClaimedBaseRecord,
  ClaimModeRecord,
  IntentRecord,
  MarkoutRecord,
  OrderFillRecord,
  OrderIntentRecord,
  OrderOutcomeRecord,
  OursRecord,
  OutcomeRecord,
  PositionsRecord,
  ProtectionRecord,
} from "../../core/journalRecords.js";
import type { OpportunityRecord } from "../../core/opportunityRecords.js";
import {
  type ClaimState,
  claimStateOf,
  type OrderState,
  orderStateOf,
  RECLAIMABLE_STATES,
  SETTLED_CLAIM_STATES,
  SETTLED_ORDER_STATES,
} from "./intentStates.js";
import type { PgDatabase } from "./pgDatabase.js";

export interface PgJournalOptions {
  db: PgDatabase;
  accountId: string;
  /** The replica id the LeaseKeeper holds the lease as: intents are fenced on it and the term. */
  replicaId: string;
}

export interface IntentWritten {
  /** 1 for the first intent of the key, + 1 for each re-claim from a re-claimable state. */
  attempt: number;
}

export interface OutcomeOptions {
  /**
   * The attempt (from IntentWritten) this outcome answers: the row's state changes only if it is
   * still that attempt, so a late answer to an earlier attempt cannot overwrite a newer one. The
   * event is journaled either way.
   */
  attempt?: number;
  /** For a `rejected` result: the refusal left the id claimable (not processed), state `retryable`. */
  reclaimable?: boolean;
}

export interface KeyState<S> {
  state: S;
  attempt: number;
  term: number;
}

/** Claims and orders differ only in these names (constants: never user input in the SQL text). */
interface KeyTable {
  table: "claims" | "orders";
  key: "liquidation_id" | "client_order_id";
  outcomeKind: "outcome" | "order_outcome";
  settled: readonly string[];
}
const CLAIMS: KeyTable = { table: "claims", key: "liquidation_id", outcomeKind: "outcome", settled: SETTLED_CLAIM_STATES };
const ORDERS: KeyTable = { table: "orders", key: "client_order_id", outcomeKind: "order_outcome", settled: SETTLED_ORDER_STATES };

export class PgJournal {
  readonly accountId: string;
  readonly replicaId: string;
  readonly #db: PgDatabase;

  constructor(options: PgJournalOptions) {
    this.#db = options.db;
    this.accountId = options.accountId;
    this.replicaId = options.replicaId;
  }

  /**
   * Durable, fenced claim intent, before the claim is sent. Throws FencedError (another term leads,
   * or this lease expired), DuplicateClaimError (the id is claimed in a state that allows no new
   * intent), DatabaseUnavailableError (unknown whether written: do not send). Nothing else means sent.
   */
  async claimIntent(record: IntentRecord, term: number): Promise<IntentWritten> {
    const res = await this.#db.query<{ attempt: number }>(
      "SELECT liquidator_claim_intent($1, $2, $3, $4, $5::jsonb, $6::text[]) AS attempt",
      [this.accountId, record.id, term, this.replicaId, JSON.stringify(record), RECLAIMABLE_STATES],
      { accountId: this.accountId, term },
    );
    return { attempt: res.rows[0]?.attempt ?? 0 };
  }

  /** The same for an unwind order, keyed by its client order id. */
  async orderIntent(record: OrderIntentRecord, term: number): Promise<IntentWritten> {
    const res = await this.#db.query<{ attempt: number }>(
      "SELECT liquidator_order_intent($1, $2, $3, $4, $5, $6::jsonb, $7::text[]) AS attempt",
      [
        this.accountId,
        record.clientOrderId,
        record.liquidationId ?? null,
        term,
        this.replicaId,
        JSON.stringify(record),
        RECLAIMABLE_STATES,
      ],
      { accountId: this.accountId, term },
    );
    return { attempt: res.rows[0]?.attempt ?? 0 };
  }

  /** Journals a claim outcome and moves the id's state (never out of accepted / confirmed / imported). */
  claimOutcome(record: OutcomeRecord, options: OutcomeOptions = {}): Promise<void> {
    return this.#outcome(CLAIMS, record.id, record, claimStateOf(record.result, options.reclaimable === true), options);
  }

  /** Journals an order outcome and moves the order's state (never out of filled / cancelled). */
  orderOutcome(record: OrderOutcomeRecord, options: OutcomeOptions = {}): Promise<void> {
    return this.#outcome(ORDERS, record.clientOrderId, record, orderStateOf(record.result, options.reclaimable === true), options);
  }

  /**
   * Journals a record that moves no state (an unwind fill, a claimed position's mode or base, the
   * opportunity ledger's seen / skip / gone, a markout, the protections' state): replay, P&L and
   * `report` read it.
   */
  async event(
    record: OrderFillRecord | ClaimModeRecord | ClaimedBaseRecord | OursRecord | OpportunityRecord | MarkoutRecord | ProtectionRecord,
  ): Promise<void> {
    const byId = record.t === "seen" || record.t === "skip" || record.t === "gone" || record.t === "markout";
    await this.#db.query(
      "INSERT INTO journal_events (account_id, kind, client_order_id, liquidation_id, record) VALUES ($1, $2, $3, $4, $5::jsonb)",
      [this.accountId, record.t, record.t === "order_fill" ? record.clientOrderId : null, byId ? record.id : null, JSON.stringify(record)],
      { accountId: this.accountId },
    );
  }

  /** Journals the account's positions as the venue pushed them (replay starts exposure from the last). */
  async positionsSnapshot(record: PositionsRecord): Promise<void> {
    await this.#db.query(
      "INSERT INTO journal_events (account_id, kind, record) VALUES ($1, 'positions', $2::jsonb)",
      [this.accountId, JSON.stringify(record)],
      { accountId: this.accountId },
    );
  }

  /** The claims row of a liquidation id, if any. */
  claimState(liquidationId: number): Promise<KeyState<ClaimState> | undefined> {
    return this.#state<ClaimState>(CLAIMS, liquidationId);
  }

  /** The orders row of a client order id, if any. */
  orderState(clientOrderId: string): Promise<KeyState<OrderState> | undefined> {
    return this.#state<OrderState>(ORDERS, clientOrderId);
  }

  /** One statement: the event appended, the row's state moved if still on `attempt` and not settled. */
  async #outcome(t: KeyTable, key: number | string, record: object, state: string, options: OutcomeOptions): Promise<void> {
    await this.#db.query(
      `WITH ev AS (
         INSERT INTO journal_events (account_id, kind, ${t.key}, record) VALUES ($1, '${t.outcomeKind}', $2, $3::jsonb))
       UPDATE ${t.table} SET state = $4, outcome_at = now()
       WHERE account_id = $1 AND ${t.key} = $2 AND ($5::integer IS NULL OR attempt = $5) AND NOT (state = ANY ($6::text[]))`,
      [this.accountId, key, JSON.stringify(record), state, options.attempt ?? null, t.settled],
      { accountId: this.accountId },
    );
  }

  async #state<S>(t: KeyTable, key: number | string): Promise<KeyState<S> | undefined> {
    const res = await this.#db.query<{ state: S; attempt: number; term: string }>(
      `SELECT state, attempt, term FROM ${t.table} WHERE account_id = $1 AND ${t.key} = $2`,
      [this.accountId, key],
    );
    const row = res.rows[0];
    return row === undefined ? undefined : { state: row.state, attempt: row.attempt, term: Number(row.term) };
  }
}
