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
        }
        return f;
      }
      case "skip": {
        const f = this.#of(rec.id);
        f.lastSkip = rec.reason;
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
        f.inFlight = true;
        f.sentFee = rec.expectedFee;
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
            if (f.claimedAt === undefined) {
              f.claimedAt = rec.at;
              f.claimedFee = f.sentFee;
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
