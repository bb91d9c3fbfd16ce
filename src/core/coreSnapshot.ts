/**
 * The trading core's durable state as one JSON object (a compacted journal's snapshot: the file
 * journal's `claims.snapshot.json`, PostgreSQL's `journal_snapshots` row), and back. Open claims and
 * orders are stored as state, not as records to fold again: their bookings are in the holdings and
 * the ledger already. A format-2 snapshot (written by the journal folder before the core) is read
 * too: its open records had not been booked, so they are folded now; its claimed totals become what
 * is ours; lots no claim opened (format 2 let fills open them) are dropped, as the core never has them.
 */
import type { LedgerSnapshot } from "../engine/pnlLedger.js";
import type { MarginMode } from "../engine/types.js";
import { CoreFold, type CoreFoldOptions, type OpenClaim, type OpenOrder, type RecentClaim } from "./coreFold.js";
import { Holdings, type HoldingsSnapshot } from "./holdings.js";
import { IdIndex } from "./idIndex.js";
import {
  JOURNAL_VERSION,
  type JournalRecord,
  type OrderFillRecord,
  type PositionsRecord,
  type ProtectionRecord,
  type VenueRecord,
} from "./journalRecords.js";

export interface CoreSnapshot {
  t: "snapshot";
  version: number;
  at: number;
  /** The last history segment folded in (segments up to it are never read at start). */
  through: number;
  venue?: VenueRecord;
  positions?: PositionsRecord;
  protection?: ProtectionRecord;
  /** Ids never claimed again, ascending, delta-encoded. */
  done: number[];
  orderSeq: number;
  ledger: LedgerSnapshot;
  /** Format 3: the core's state. */
  claims?: OpenClaim[];
  orders?: OpenOrder[];
  holdings?: HoldingsSnapshot;
  recent?: RecentClaim[];
  /** The operator's own per symbol as the last intent measured it (coreFold.ts `notOurs`). */
  notOurs?: [string, number][];
  /** Format 2: intents and orders still open with their outcomes, not booked yet. */
  open?: JournalRecord[];
  /** Format 2: the trades of the orders in `open` (booked already). */
  openFills?: OrderFillRecord[];
  /** Format 2: the claimed accounting (store/claimedFold.ts of that build). */
  claimed?: LegacyClaimed;
}

interface LegacyClaimed {
  totals: [string, { claimed: number; unwound: number; baseClaimed: number; baseUnwound: number }][];
  unplaced: [string, { id: number; qty: number }[]][];
  modes: { id: number; symbol: string; marginMode: MarginMode }[];
  orders: [string, MarginMode][];
}

export function toSnapshot(fold: CoreFold, at: number): CoreSnapshot {
  return {
    t: "snapshot",
    version: JOURNAL_VERSION,
    at,
    through: fold.through,
    ...(fold.venue !== undefined ? { venue: fold.venue } : {}),
    ...(fold.positions !== undefined ? { positions: fold.positions } : {}),
    ...(fold.protection !== undefined ? { protection: fold.protection } : {}),
    done: fold.done.toDeltas(),
    orderSeq: fold.orderSeq,
    ledger: fold.ledger.snapshot(),
    claims: [...fold.claims.values()],
    orders: [...fold.orders.values()],
    holdings: fold.holdings.snapshot(),
    recent: [...fold.recent.values()],
    notOurs: [...fold.notOurs],
  };
}

export function fromSnapshot(s: CoreSnapshot, options: CoreFoldOptions = {}): CoreFold {
  const fold = new CoreFold(options);
  fold.done = IdIndex.fromDeltas(s.done);
  fold.orderSeq = s.orderSeq;
  fold.venue = s.venue;
  fold.positions = s.positions;
  fold.protection = s.protection;
  fold.version = s.version;
  fold.through = s.through;
  for (const [symbol, qty] of s.notOurs ?? []) fold.notOurs.set(symbol, qty);
  if (s.holdings !== undefined) {
    fold.ledger.restore(s.ledger);
    fold.holdings = Holdings.fromSnapshot(s.holdings);
    for (const c of s.claims ?? []) fold.claims.set(c.intent.id, c);
    for (const o of s.orders ?? []) fold.orders.set(o.intent.clientOrderId, o);
    for (const r of s.recent ?? []) fold.recent.set(r.id, r);
    return fold;
  }
  // Format 2.
  fold.ledger.restore({ ...s.ledger, lots: s.ledger.lots.map(([k, lots]) => [k, lots.filter(([claimId]) => claimId !== null)]) });
  fold.holdings = legacyHoldings(s.claimed);
  for (const rec of s.open ?? []) fold.add(rec);
  for (const f of s.openFills ?? []) fold.orders.get(f.clientOrderId)?.fills.push(f);
  fold.records = 0;
  return fold;
}

function legacyHoldings(c: LegacyClaimed | undefined): Holdings {
  const snapshot: HoldingsSnapshot = { positions: [], unplaced: [], modes: [], orders: [] };
  if (c === undefined) return Holdings.fromSnapshot(snapshot);
  for (const [k, t] of c.totals) {
    const [symbol, mode] = k.split(" ") as [string, MarginMode];
    const ours = t.claimed - t.baseClaimed + (t.unwound - t.baseUnwound);
    snapshot.positions.push([symbol, mode, Math.abs(ours) < 1e-9 ? 0 : ours, t.claimed, t.unwound]);
  }
  snapshot.unplaced = c.unplaced.map(([symbol, list]) => [symbol, list.map((u) => [u.id, u.qty] as [number, number])]);
  snapshot.modes = c.modes.map((m) => [`${m.id} ${m.symbol}`, m.marginMode]);
  snapshot.orders = c.orders;
  return Holdings.fromSnapshot(snapshot);
}
