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
import type { IntentRecord, OutcomeRecord, PositionsRecord } from "../../daemon/journal.js";
import type { OrderIntentRecord, OrderOutcomeRecord } from "../orderRecords.js";
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
  async claimOutcome(record: OutcomeRecord, options: OutcomeOptions = {}): Promise<void> {
    const state: ClaimState = claimStateOf(record.result, options.reclaimable === true);
    await this.#db.query(
      `WITH ev AS (
         INSERT INTO journal_events (account_id, kind, liquidation_id, record) VALUES ($1, 'outcome', $2, $3::jsonb))
       UPDATE claims SET state = $4, outcome_at = now()
       WHERE account_id = $1 AND liquidation_id = $2 AND ($5::integer IS NULL OR attempt = $5) AND NOT (state = ANY ($6::text[]))`,
      [this.accountId, record.id, JSON.stringify(record), state, options.attempt ?? null, SETTLED_CLAIM_STATES],
      { accountId: this.accountId },
    );
  }

  /** Journals an order outcome and moves the order's state (never out of filled / cancelled). */
  async orderOutcome(record: OrderOutcomeRecord, options: OutcomeOptions = {}): Promise<void> {
    const state: OrderState = orderStateOf(record.result, options.reclaimable === true);
    await this.#db.query(
      `WITH ev AS (
         INSERT INTO journal_events (account_id, kind, client_order_id, record) VALUES ($1, 'order_outcome', $2, $3::jsonb))
       UPDATE orders SET state = $4, outcome_at = now()
       WHERE account_id = $1 AND client_order_id = $2 AND ($5::integer IS NULL OR attempt = $5) AND NOT (state = ANY ($6::text[]))`,
      [this.accountId, record.clientOrderId, JSON.stringify(record), state, options.attempt ?? null, SETTLED_ORDER_STATES],
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
  async claimState(liquidationId: number): Promise<KeyState<ClaimState> | undefined> {
    const res = await this.#db.query<{ state: ClaimState; attempt: number; term: string }>(
      "SELECT state, attempt, term FROM claims WHERE account_id = $1 AND liquidation_id = $2",
      [this.accountId, liquidationId],
    );
    const row = res.rows[0];
    return row === undefined ? undefined : { state: row.state, attempt: row.attempt, term: Number(row.term) };
  }

  /** The orders row of a client order id, if any. */
  async orderState(clientOrderId: string): Promise<KeyState<OrderState> | undefined> {
    const res = await this.#db.query<{ state: OrderState; attempt: number; term: string }>(
      "SELECT state, attempt, term FROM orders WHERE account_id = $1 AND client_order_id = $2",
      [this.accountId, clientOrderId],
    );
    const row = res.rows[0];
    return row === undefined ? undefined : { state: row.state, attempt: row.attempt, term: Number(row.term) };
  }
}
