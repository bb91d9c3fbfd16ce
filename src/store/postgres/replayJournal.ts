/**
 * Start-up replay from `journal_events`: the same JournalReplay the file journal gives (last intent
 * per id, outcomes per id in journal order, last positions snapshot), so restoreFromJournal works on
 * either backend, plus the orders. Read in keyset-paginated batches by `seq`: a journal of months
 * never becomes one result set in memory twice over, and each batch is a short indexed query.
 */
import type { IntentRecord, JournalReplay, OutcomeRecord, PositionsRecord } from "../../daemon/journal.js";
import type { OrderIntentRecord, OrderOutcomeRecord, OrderReplay } from "../orderRecords.js";
import type { PgDatabase } from "./pgDatabase.js";

export interface PgReplay extends JournalReplay {
  orders: OrderReplay;
}

export interface ReplayOptions {
  /** Events per query. */
  batchSize?: number;
}

type EventRow =
  | { seq: string; kind: "intent"; record: IntentRecord }
  | { seq: string; kind: "outcome"; record: OutcomeRecord }
  | { seq: string; kind: "positions"; record: PositionsRecord }
  | { seq: string; kind: "order_intent"; record: OrderIntentRecord }
  | { seq: string; kind: "order_outcome"; record: OrderOutcomeRecord };

export async function replayJournal(db: PgDatabase, accountId: string, options: ReplayOptions = {}): Promise<PgReplay> {
  const batchSize = options.batchSize ?? 5_000;
  const replay: PgReplay = {
    intents: new Map(),
    outcomes: new Map(),
    positions: undefined,
    venue: undefined,
    records: 0,
    corruptLines: 0,
    tornTail: false,
    orders: { intents: new Map(), outcomes: new Map() },
  };
  let after = "0";
  for (;;) {
    const res = await db.query<EventRow>(
      "SELECT seq, kind, record FROM journal_events WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
      [accountId, after, batchSize],
      { accountId },
    );
    for (const row of res.rows) apply(replay, row);
    const last = res.rows.at(-1);
    if (last === undefined || res.rows.length < batchSize) return replay;
    after = last.seq;
  }
}

function apply(replay: PgReplay, row: EventRow): void {
  replay.records++;
  switch (row.kind) {
    case "intent":
      replay.intents.set(row.record.id, row.record);
      return;
    case "outcome":
      push(replay.outcomes, row.record.id, row.record);
      return;
    case "positions":
      replay.positions = row.record;
      return;
    case "order_intent":
      replay.orders.intents.set(row.record.clientOrderId, row.record);
      return;
    case "order_outcome":
      push(replay.orders.outcomes, row.record.clientOrderId, row.record);
      return;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
