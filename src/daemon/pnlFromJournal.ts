/**
 * The P&L ledger rebuilt from a journal replay: every settled claim (its transfers and liquidator
 * fee) and every unwind fill, in the order they were journaled. The daemon starts its ledger from it
 * ("realized since the journal began"); `liquidator pnl` reports from it.
 */
import { PnlLedger } from "../engine/pnlLedger.js";
import type { Fill } from "../engine/types.js";
import { hasId } from "../store/journalFolder.js";
import type { JournalReplay } from "../store/journalRecords.js";

type Event = { at: number; seq: number; apply: (ledger: PnlLedger) => void };

/** A settled claim's transfers into the ledger: `fills[i].fee` is the liquidator fee earned on it. */
export function ledgerClaim(ledger: PnlLedger, id: number, fills: readonly Fill[], at: number): void {
  for (const f of fills) ledger.claim(id, f.symbol, f.qty, f.price, f.fee, at);
}

export function ledgerFromJournal(replay: JournalReplay, ledger = new PnlLedger()): PnlLedger {
  // A compacted journal: the P&L of its history first; its settled ids are already in it.
  if (replay.ledger !== undefined) ledger.restore(replay.ledger);
  const events: Event[] = [];
  let seq = 0;
  for (const [id, outcomes] of replay.outcomes) {
    // Settled in compacted history (a late push) unless claimed again since (its intent is here).
    if (hasId(replay.done, id) && !replay.intents.has(id)) continue;
    // A lean claim answer journals `accepted` without fills; the private push's `confirmed` has them.
    const settled = outcomes.find((o) => (o.result === "accepted" || o.result === "confirmed") && o.fills !== undefined);
    if (settled?.fills === undefined) continue;
    const fills = settled.fills;
    events.push({ at: settled.at, seq: seq++, apply: (l) => ledgerClaim(l, id, fills, settled.at) });
  }
  for (const f of replay.orders.fills) {
    // The mark the order was priced on ends the claim's drift (an older journal's intent may lack it).
    const mark = replay.orders.intents.get(f.clientOrderId)?.mark;
    events.push({ at: f.at, seq: seq++, apply: (l) => l.fill(f.symbol, f.qty, f.price, f.fee, f.at, mark) });
  }
  events.sort((a, b) => a.at - b.at || a.seq - b.seq);
  for (const e of events) e.apply(ledger);
  return ledger;
}
