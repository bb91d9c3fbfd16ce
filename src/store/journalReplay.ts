/**
 * A journal read back (the file's, or PostgreSQL's): the trading core's state folded from it, and the
 * records as written, by kind, for tools and tests.
 */
import type { CoreFold } from "../core/coreFold.js";
import {
  type ClaimedBaseRecord,
  type ClaimModeRecord,
  type IntentRecord,
  type JournalRecord,
  type MarkoutRecord,
  type OrderFillRecord,
  type OrderIntentRecord,
  type OrderOutcomeRecord,
  type OutcomeRecord,
  type PositionsRecord,
  type ProtectionRecord,
  parseRecord,
  type VenueRecord,
} from "../core/journalRecords.js";

export interface OrderReplay {
  /** Last intent per client order id. */
  intents: Map<string, OrderIntentRecord>;
  /** Outcomes per client order id, in journal order. */
  outcomes: Map<string, OrderOutcomeRecord[]>;
  /** Every fill, in journal order. */
  fills: OrderFillRecord[];
}

export interface ClaimedReplay {
  /** Keyed `${id} ${symbol}`. */
  modes: Map<string, ClaimModeRecord>;
  /** Keyed `${symbol} ${marginMode}`: the last one written. */
  bases: Map<string, ClaimedBaseRecord>;
}

/**
 * A journal read back. `core` is what the daemon adopts: the trading core's state folded from the
 * whole journal (a store's snapshot, its history since, and its tail). The maps are the records as
 * written, of the tail only once a journal is compacted: what tools and tests look at.
 */
export interface JournalReplay {
  /** The trading core's state (core/coreFold.ts), when a store read the journal. */
  core?: CoreFold;
  /** Last intent per liquidation id. */
  intents: Map<number, IntentRecord>;
  /** Outcomes per liquidation id, in journal order. */
  outcomes: Map<number, OutcomeRecord[]>;
  /** The last positions record of an older journal, if any (not used for exposure). */
  positions: PositionsRecord | undefined;
  /** The first venue record: whose journal this is (undefined for a journal older than the record). */
  venue: VenueRecord | undefined;
  orders: OrderReplay;
  /** Claimed positions (`unwind.scope: claimed`): the margin mode per claim id and symbol, the last base per position. */
  claimed: ClaimedReplay;
  /** Markouts keyed `${id} ${symbol} ${horizon}`: a sampled one wins over one recorded missing. */
  markouts: Map<string, MarkoutRecord>;
  /** The last protections record (undefined in a journal older than protections, or that never wrote one). */
  protection: ProtectionRecord | undefined;
  /** Valid records read. */
  records: number;
  /** Lines that were not valid records (skipped with a warning). */
  corruptLines: number;
  /** The newest journal format any record or the snapshot declared (1 when none did). */
  version?: number;
  /** True when the file ended in a partial line (a write cut short by a kill); it was truncated away. */
  tornTail: boolean;
}

export function emptyReplay(): JournalReplay {
  return {
    intents: new Map(),
    outcomes: new Map(),
    positions: undefined,
    venue: undefined,
    orders: { intents: new Map(), outcomes: new Map(), fills: [] },
    claimed: { modes: new Map(), bases: new Map() },
    markouts: new Map(),
    protection: undefined,
    records: 0,
    corruptLines: 0,
    tornTail: false,
  };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Add one valid record to a replay (both stores replay through here). */
export function replayRecord(replay: JournalReplay, rec: JournalRecord): void {
  replay.records++;
  switch (rec.t) {
    case "intent":
      replay.intents.set(rec.id, rec);
      return;
    case "outcome":
      return push(replay.outcomes, rec.id, rec);
    case "positions":
      replay.positions = rec;
      return;
    case "venue":
      replay.version = Math.max(replay.version ?? 1, rec.version ?? 1);
      if (rec.guard !== true) replay.venue ??= rec;
      return;
    case "order_intent":
      replay.orders.intents.set(rec.clientOrderId, rec);
      return;
    case "order_outcome":
      return push(replay.orders.outcomes, rec.clientOrderId, rec);
    case "order_fill":
      replay.orders.fills.push(rec);
      return;
    case "claim_mode":
      replay.claimed.modes.set(`${rec.id} ${rec.symbol}`, rec);
      return;
    case "claimed_base":
      replay.claimed.bases.set(`${rec.symbol} ${rec.marginMode}`, rec);
      return;
    case "seen":
    case "skip":
    case "gone":
      return; // the opportunity ledger's (`liquidator report` reads them); nothing to restore
    case "markout": {
      // Two replicas around a takeover may both write a horizon: a sample beats a missing one.
      const key = `${rec.id} ${rec.symbol} ${rec.horizon}`;
      const held = replay.markouts.get(key);
      if (held === undefined || (held.bps === undefined && rec.bps !== undefined)) replay.markouts.set(key, rec);
      return;
    }
    case "protection":
      replay.protection = rec;
      return;
  }
}

/** Pure parse of journal text: valid records, corrupt lines counted, a partial last line detected. */
export function parseJournal(text: string): JournalReplay {
  const replay = emptyReplay();
  const lines = text.split("\n");
  // The element after the last "\n" is "" for a clean file; anything else is a line the kill cut short.
  const tail = lines.pop() ?? "";
  if (tail.length > 0) replay.tornTail = true;
  for (const line of lines) {
    if (line.length === 0) continue;
    const rec = parseRecord(line);
    if (rec === undefined) replay.corruptLines++;
    else replayRecord(replay, rec);
  }
  return replay;
}
