/**
 * The opportunity ledger of one UTC day (`liquidator report`): the journal's records folded per
 * liquidation (store/opportunityFold.ts), each classified (engine/opportunities.ts), those first
 * seen that day kept, and their totals (engine/ledgerTotals.ts). Markouts per symbol ride along
 * when the caller has them.
 */

import type { JournalRecord } from "../core/journalRecords.js";
import { type LedgerTotals, ledgerTotals } from "../engine/ledgerTotals.js";
import { type OpportunityRow, opportunityRows } from "../engine/opportunities.js";
import { UsageError } from "../errors.js";
import { OpportunityFold } from "../store/opportunityFold.js";
import type { MarkoutsBySymbol } from "./reportMarkouts.js";

export const DAY_MS = 86_400_000;

export interface LedgerReport {
  day: string;
  liquidations: OpportunityRow[];
  totals: LedgerTotals;
  /** Markouts per symbol, when the journal holds them. */
  markouts?: MarkoutsBySymbol;
}

/** Start of a UTC day `YYYY-MM-DD`, ms; a UsageError for anything else. */
export function dayStart(day: string): number {
  const at = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
  if (!Number.isFinite(at) || new Date(at).toISOString().slice(0, 10) !== day)
    throw new UsageError(`--day must be a UTC day YYYY-MM-DD, got ${JSON.stringify(day)}`);
  return at;
}

export function buildLedgerReport(records: Iterable<JournalRecord>, day: string, markouts?: MarkoutsBySymbol): LedgerReport {
  const from = dayStart(day);
  const fold = new OpportunityFold();
  for (const rec of records) fold.add(rec);
  const liquidations: OpportunityRow[] = [];
  for (const f of fold.facts.values()) {
    // Only what the daemon saw: a claim record alone (a journal older than the ledger) is not an opportunity.
    if (f.firstSeen === undefined || f.firstSeen < from || f.firstSeen >= from + DAY_MS) continue;
    liquidations.push(...opportunityRows(f));
  }
  // A partly claimed liquidation's rows stay together: its claimed row, then the rest.
  liquidations.sort((a, b) => a.first_seen - b.first_seen || a.liquidation_id - b.liquidation_id);
  return { day, liquidations, totals: ledgerTotals(liquidations), ...(markouts !== undefined ? { markouts } : {}) };
}
