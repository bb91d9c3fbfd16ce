/**
 * The store's schema, as ordered migrations applied once each (migrate.ts). A migration is never
 * edited once released: a change is a new one at the end. So the SQL is literal text, not built from
 * the TypeScript constants it must agree with (intentStates.ts, toStoreError.ts): the migration test
 * checks that agreement instead.
 *
 * The intent functions (migration 2) do the fence check, the unique insert and the event append in
 * one statement, so one round trip, and no session ever sits idle inside a transaction while
 * holding the lease row lock (a vanished client cannot block a takeover; see pgJournal.ts).
 */

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const TABLES = `
CREATE TABLE lease (
  account_id text PRIMARY KEY,
  term bigint NOT NULL CHECK (term > 0),
  holder text NOT NULL,
  expires_at timestamptz NOT NULL,
  renewed_at timestamptz NOT NULL
);

CREATE TABLE claims (
  account_id text NOT NULL,
  liquidation_id bigint NOT NULL,
  state text NOT NULL CHECK (state IN ('intent', 'accepted', 'confirmed', 'rejected', 'retryable', 'unknown', 'not_accepted', 'dry_run', 'imported')),
  term bigint NOT NULL,
  attempt integer NOT NULL DEFAULT 1,
  intent jsonb NOT NULL,
  intent_at timestamptz NOT NULL DEFAULT now(),
  outcome_at timestamptz,
  PRIMARY KEY (account_id, liquidation_id)
);

CREATE TABLE orders (
  account_id text NOT NULL,
  client_order_id text NOT NULL,
  liquidation_id bigint,
  state text NOT NULL CHECK (state IN ('intent', 'accepted', 'filled', 'cancelled', 'rejected', 'retryable', 'unknown', 'not_accepted', 'dry_run')),
  term bigint NOT NULL,
  attempt integer NOT NULL DEFAULT 1,
  intent jsonb NOT NULL,
  intent_at timestamptz NOT NULL DEFAULT now(),
  outcome_at timestamptz,
  PRIMARY KEY (account_id, client_order_id)
);

CREATE TABLE journal_events (
  seq bigserial PRIMARY KEY,
  account_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('intent', 'outcome', 'positions', 'order_intent', 'order_outcome')),
  liquidation_id bigint,
  client_order_id text,
  term bigint,
  at timestamptz NOT NULL DEFAULT now(),
  record jsonb NOT NULL
);
CREATE INDEX journal_events_account_seq ON journal_events (account_id, seq);

CREATE TABLE journal_imports (
  account_id text NOT NULL,
  digest text NOT NULL,
  source text NOT NULL,
  records integer NOT NULL,
  ids integer NOT NULL,
  imported_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, digest)
);
`;

const FUNCTIONS = `
-- Refuses (LQ001) unless p_term / p_holder hold the account's lease, unexpired by the
-- database clock. FOR SHARE keeps the row until the calling transaction ends, so a takeover (an
-- UPDATE of the row) waits for it, and an intent that waited for a takeover sees the new term.
CREATE FUNCTION liquidator_check_fence(p_account text, p_term bigint, p_holder text) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE v_term bigint; v_holder text; v_live boolean;
BEGIN
  SELECT term, holder, expires_at > clock_timestamp() INTO v_term, v_holder, v_live
    FROM lease WHERE account_id = p_account FOR SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION USING ERRCODE = 'LQ001', MESSAGE = 'no lease for the account';
  ELSIF v_term <> p_term OR v_holder <> p_holder THEN
    RAISE EXCEPTION USING ERRCODE = 'LQ001', MESSAGE = format('the lease is at term %s, held by %s', v_term, v_holder);
  ELSIF NOT v_live THEN
    RAISE EXCEPTION USING ERRCODE = 'LQ001', MESSAGE = 'the lease has expired';
  END IF;
END $fn$;

-- Fenced claim intent: a new claims row, or attempt + 1 of a row in a re-claimable state, then the
-- event. Returns the attempt. A row in any other state: LQ002, DETAIL = its state.
CREATE FUNCTION liquidator_claim_intent(p_account text, p_id bigint, p_term bigint, p_holder text, p_record jsonb, p_reclaimable text[])
RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE v_attempt integer; v_state text;
BEGIN
  PERFORM liquidator_check_fence(p_account, p_term, p_holder);
  INSERT INTO claims AS c (account_id, liquidation_id, state, term, intent)
    VALUES (p_account, p_id, 'intent', p_term, p_record)
    ON CONFLICT (account_id, liquidation_id) DO UPDATE
      SET state = 'intent', term = EXCLUDED.term, attempt = c.attempt + 1, intent = EXCLUDED.intent,
          intent_at = now(), outcome_at = NULL
      WHERE c.state = ANY (p_reclaimable)
    RETURNING c.attempt INTO v_attempt;
  IF NOT FOUND THEN
    SELECT state INTO v_state FROM claims WHERE account_id = p_account AND liquidation_id = p_id;
    RAISE EXCEPTION USING ERRCODE = 'LQ002', MESSAGE = format('liquidation %s', p_id), DETAIL = v_state;
  END IF;
  INSERT INTO journal_events (account_id, kind, liquidation_id, term, record)
    VALUES (p_account, 'intent', p_id, p_term, p_record);
  RETURN v_attempt;
END $fn$;

-- The same for an order, keyed by its client order id.
CREATE FUNCTION liquidator_order_intent(p_account text, p_client_order_id text, p_liquidation_id bigint, p_term bigint, p_holder text, p_record jsonb, p_reclaimable text[])
RETURNS integer LANGUAGE plpgsql AS $fn$
DECLARE v_attempt integer; v_state text;
BEGIN
  PERFORM liquidator_check_fence(p_account, p_term, p_holder);
  INSERT INTO orders AS o (account_id, client_order_id, liquidation_id, state, term, intent)
    VALUES (p_account, p_client_order_id, p_liquidation_id, 'intent', p_term, p_record)
    ON CONFLICT (account_id, client_order_id) DO UPDATE
      SET state = 'intent', term = EXCLUDED.term, attempt = o.attempt + 1, intent = EXCLUDED.intent,
          liquidation_id = EXCLUDED.liquidation_id, intent_at = now(), outcome_at = NULL
      WHERE o.state = ANY (p_reclaimable)
    RETURNING o.attempt INTO v_attempt;
  IF NOT FOUND THEN
    SELECT state INTO v_state FROM orders WHERE account_id = p_account AND client_order_id = p_client_order_id;
    RAISE EXCEPTION USING ERRCODE = 'LQ002', MESSAGE = format('order %s', p_client_order_id), DETAIL = v_state;
  END IF;
  INSERT INTO journal_events (account_id, kind, client_order_id, liquidation_id, term, record)
    VALUES (p_account, 'order_intent', p_client_order_id, p_liquidation_id, p_term, p_record);
  RETURN v_attempt;
END $fn$;
`;

/** Unwind fills are journal events too: the P&L is recomputed from them. */
const ORDER_FILLS = `
ALTER TABLE journal_events DROP CONSTRAINT journal_events_kind_check;
ALTER TABLE journal_events ADD CONSTRAINT journal_events_kind_check
  CHECK (kind IN ('intent', 'outcome', 'positions', 'order_intent', 'order_outcome', 'order_fill'));
`;

/** Claimed positions (unwind.scope: claimed): the margin mode a claim landed in, and settled bases. */
const CLAIMED_POSITIONS = `
ALTER TABLE journal_events DROP CONSTRAINT journal_events_kind_check;
ALTER TABLE journal_events ADD CONSTRAINT journal_events_kind_check
  CHECK (kind IN ('intent', 'outcome', 'positions', 'order_intent', 'order_outcome', 'order_fill', 'claim_mode', 'claimed_base'));
`;

/** The protections' state (engine/protections.ts): a restart or a new leader carries on from the last. */
const PROTECTION_STATE = `
ALTER TABLE journal_events DROP CONSTRAINT journal_events_kind_check;
ALTER TABLE journal_events ADD CONSTRAINT journal_events_kind_check
  CHECK (kind IN ('intent', 'outcome', 'positions', 'order_intent', 'order_outcome', 'order_fill', 'claim_mode', 'claimed_base', 'protection'));
`;

/**
 * Markouts (engine/markouts.ts): one event per claim, symbol and horizon. The kind list is the full
 * list of the kinds at this version (other migrations of the same wave re-declare it with theirs).
 */
const MARKOUTS = `
ALTER TABLE journal_events DROP CONSTRAINT journal_events_kind_check;
ALTER TABLE journal_events ADD CONSTRAINT journal_events_kind_check
  CHECK (kind IN ('intent', 'outcome', 'positions', 'order_intent', 'order_outcome', 'order_fill', 'claim_mode', 'claimed_base', 'protection', 'markout'));
`;

/** The opportunity ledger (`liquidator report`): first pushes, skip verdicts and departures of liquidations. */
const OPPORTUNITY_LEDGER = `
ALTER TABLE journal_events DROP CONSTRAINT journal_events_kind_check;
ALTER TABLE journal_events ADD CONSTRAINT journal_events_kind_check
  CHECK (kind IN ('intent', 'outcome', 'positions', 'order_intent', 'order_outcome', 'order_fill', 'claim_mode', 'claimed_base', 'protection', 'markout', 'seen', 'skip', 'gone'));
CREATE INDEX journal_events_account_kind_at ON journal_events (account_id, kind, at);
`;

/**
 * Compaction (compactJournal.ts): events folded into the account's snapshot are marked archived and
 * left out of the start-up replay, which reads the snapshot and the open rows only (their partial
 * index). Archived rows stay for `liquidator pnl` and `report`. No new event kind.
 */
const JOURNAL_ARCHIVE = `
ALTER TABLE journal_events ADD COLUMN archived boolean NOT NULL DEFAULT false;
CREATE INDEX journal_events_open ON journal_events (account_id, seq) WHERE NOT archived;
CREATE TABLE journal_snapshots (
  account_id text PRIMARY KEY,
  through_seq bigint NOT NULL,
  snapshot jsonb NOT NULL,
  written_at timestamptz NOT NULL DEFAULT now()
);
`;

/**
 * The trading core (core/): `ours` records (what is ours of a position, set when it was closed
 * elsewhere), and `given_up`: an unknown claim the venue's record could not settle in its bound,
 * never claimed again (not re-claimable, not settled: a late confirmation may still correct it).
 */
const TRADING_CORE = `
ALTER TABLE journal_events DROP CONSTRAINT journal_events_kind_check;
ALTER TABLE journal_events ADD CONSTRAINT journal_events_kind_check
  CHECK (kind IN ('intent', 'outcome', 'positions', 'order_intent', 'order_outcome', 'order_fill', 'claim_mode', 'claimed_base', 'protection', 'markout', 'seen', 'skip', 'gone', 'ours'));
ALTER TABLE claims DROP CONSTRAINT claims_state_check;
ALTER TABLE claims ADD CONSTRAINT claims_state_check
  CHECK (state IN ('intent', 'accepted', 'confirmed', 'rejected', 'retryable', 'unknown', 'not_accepted', 'dry_run', 'imported', 'given_up'));
`;

/**
 * Requests an operator leaves for the running leader (`liquidator rearm`, store/operatorRequests.ts):
 * written by the command, taken once by the replica that may send, which marks them taken.
 */
const OPERATOR_REQUESTS = `
CREATE TABLE operator_requests (
  seq bigserial PRIMARY KEY,
  account_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('rearm')),
  requested_at timestamptz NOT NULL DEFAULT now(),
  requested_by text NOT NULL DEFAULT '',
  taken_at timestamptz,
  taken_by text
);
CREATE INDEX operator_requests_open ON operator_requests (account_id, seq) WHERE taken_at IS NULL;
`;

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "lease, claims, orders, journal_events, journal_imports", sql: TABLES },
  { version: 2, name: "fenced intent functions", sql: FUNCTIONS },
  { version: 3, name: "order fills in journal_events", sql: ORDER_FILLS },
  { version: 4, name: "claimed positions in journal_events", sql: CLAIMED_POSITIONS },
  { version: 5, name: "protection state in journal_events", sql: PROTECTION_STATE },
  { version: 6, name: "markouts in journal_events", sql: MARKOUTS },
  { version: 7, name: "opportunity ledger in journal_events", sql: OPPORTUNITY_LEDGER },
  { version: 8, name: "journal snapshots, archived events", sql: JOURNAL_ARCHIVE },
  { version: 9, name: "trading core: ours records, given_up claims", sql: TRADING_CORE },
  { version: 10, name: "operator requests", sql: OPERATOR_REQUESTS },
];
