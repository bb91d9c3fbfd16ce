/**
 * Folds journal records into what is known of each liquidation (engine/opportunities.ts): the
 * ledger's own records (seen, skip, gone) and the claim records (intent, outcome) the claimer writes
 * anyway. The same fold serves the live metrics and `liquidator report`, in whatever order the
 * records come: the ledger's are written in batches, so a `seen` may follow its id's intent.
 */

import type { JournalRecord } from "../core/journalRecords.js";
import { newFacts, type OpportunityFacts } from "../engine/opportunities.js";
import { rivalSignOf, venueCodeMeaning } from "../venue/failureTable.js";

export class OpportunityFold {
  readonly facts = new Map<number, OpportunityFacts>();

  /** Adds one record; the facts of its liquidation, or undefined for a record the ledger does not read. */
  add(rec: JournalRecord): OpportunityFacts | undefined {
    switch (rec.t) {
      case "seen": {
        const f = this.#of(rec.id);
        if (f.firstSeen === undefined || rec.at < f.firstSeen) {
          f.firstSeen = rec.at;
          f.fees = rec.fees;
          f.firstQty = rec.qty;
        }
        if (rec.supply !== undefined) f.supply = rec.supply;
        return f;
      }
      case "skip": {
        const f = this.#of(rec.id);
        // A cut names why a claim took part: not a verdict on the whole (the ledger writes it in its
        // batch, so it may land after the claim's own records).
        if (rec.cut === true) f.cut = rec.reason;
        else f.lastSkip = rec.reason;
        return f;
      }
      case "gone": {
        const f = this.#of(rec.id);
        if (f.goneAt === undefined) {
          f.goneAt = rec.at;
          f.goneWanted = rec.wanted;
        }
        return f;
      }
      case "intent": {
        const f = this.#of(rec.id);
        f.firstSentAt ??= rec.at;
        if (rec.supply !== undefined) f.supply = rec.supply;
        f.inFlight = true;
        f.sentFee = rec.expectedFee;
        f.sentQty = absOf(rec.perSymbolQty);
        if (rec.open !== undefined) f.sentOpen = Object.fromEntries(rec.open.map((p) => [p.symbol, Math.abs(p.positionQty)]));
        // A claim decided after a skip: that verdict is over.
        f.lastSkip = undefined;
        return f;
      }
      case "outcome": {
        const f = this.#of(rec.id);
        f.inFlight = rec.result === "unknown";
        switch (rec.result) {
          case "accepted":
          case "confirmed":
            f.claimedAt ??= rec.at;
            if (f.assigned === undefined && rec.fills !== undefined && rec.fills.length > 0) {
              const assigned: Record<string, { qty: number; fee: number }> = {};
              for (const fill of rec.fills) {
                const a = assigned[fill.symbol] ?? { qty: 0, fee: 0 };
                assigned[fill.symbol] = { qty: a.qty + Math.abs(fill.qty), fee: a.fee + fill.fee };
              }
              f.assigned = assigned;
            }
            return f;
          case "dry_run":
            f.dryRun = true;
            return f;
          case "rejected": {
            if (rec.code === undefined) return f; // never left: retried
            const sign = rivalSignOf(rec.code);
            if (sign === "taken") f.takenAt ??= rec.at;
            else if (sign === "racing") f.racingAt ??= rec.at;
            else f.refusal = venueCodeMeaning(rec.code).kind;
            return f;
          }
          case "unknown":
          case "not_accepted":
            f.refusal = rec.result;
            return f;
        }
        return f;
      }
      default:
        return undefined;
    }
  }

  #of(id: number): OpportunityFacts {
    const known = this.facts.get(id);
    if (known !== undefined) return known;
    const f = newFacts(id);
    this.facts.set(id, f);
    return f;
  }
}

function absOf(r: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(r)) out[k] = Math.abs(v);
  return out;
}
