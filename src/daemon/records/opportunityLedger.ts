/**
 * The opportunity ledger, live: what the daemon saw of each liquidation and what its policy decided
 * goes to the journal as `seen`, `skip` and `gone` records (store/opportunityRecords.ts), and each
 * liquidation's fate is counted once it is sealed (`opportunities_total{outcome}`,
 * `opportunity_value_quote{outcome}`). Off the claim path: the calls only fold into a map and
 * buffer a record; the buffer reaches the store on a timer, a few ms of writes per turn. The claim
 * records it needs (intents, outcomes) it reads from the claimer's journal writes (`journaled`),
 * never twice.
 */

import { supplyOf } from "../../core/fundSupply.js";
import type { JournalRecord } from "../../core/journalRecords.js";
import type { OpportunityRecord } from "../../core/opportunityRecords.js";
import { isSettled, type OpportunityFacts, type OpportunityOutcome, opportunityRows } from "../../engine/opportunities.js";
import type { Supply } from "../../engine/supply.js";
import type { Decision, Liquidation } from "../../engine/types.js";
import { OpportunityFold } from "../../store/opportunityFold.js";
import type { StateStore } from "../../store/stateStore.js";

/** Longest run of journal writes in one turn, ms. */
const WRITE_SLICE_MS = 2;

export interface OpportunityLedgerOptions {
  store: Pick<StateStore, "append" | "mayLead">;
  /** The current mark of a symbol (the value at stake is priced at the first push's marks). */
  price: (symbol: string) => number | undefined;
  /** A liquidation's fate was sealed (each id once): each of its rows (a claimed part and its rest are rows of their own). */
  settled: (outcome: OpportunityOutcome, reason: string, value: number, supply: Supply) => void;
  /** The store refused a batch (the journal's own failure path stops claiming; this only reports). */
  failed?: (err: unknown) => void;
  now?: () => number;
  /** How long a record may wait in the buffer, ms. */
  flushMs?: number;
}

export class OpportunityLedger {
  readonly #o: OpportunityLedgerOptions;
  readonly #now: () => number;
  readonly #fold = new OpportunityFold();
  readonly #counted = new Set<number>();
  #buffer: OpportunityRecord[] = [];
  /** Records of the buffer already written (a big buffer is written over several turns). */
  #head = 0;
  #timer: NodeJS.Timeout | undefined;
  /** What cut the last claim decided on an id below the whole, until its intent is written. */
  readonly #cuts = new Map<number, string>();

  constructor(options: OpportunityLedgerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** A liquidation new or changed, first heard at `at`: each id's first push is recorded once. */
  seen(liq: Liquidation, at: number): void {
    if (!this.#o.store.mayLead() || this.#fold.facts.get(liq.liquidationId)?.firstSeen !== undefined) return;
    const fees: Record<string, number> = {};
    const qty: Record<string, number> = {};
    for (const p of liq.positions) {
      const mark = this.#o.price(p.symbol);
      fees[p.symbol] = mark === undefined ? 0 : Math.abs(p.positionQty) * mark * p.liquidatorFee;
      qty[p.symbol] = Math.abs(p.positionQty);
    }
    const fund = supplyOf(liq) === "insurance_fund";
    this.#record({
      t: "seen",
      id: liq.liquidationId,
      at,
      venueTs: liq.timestamp,
      fees,
      qty,
      ...(fund ? { supply: "insurance_fund" as const } : {}),
    });
  }

  /** The policy skipped the id for a reason new to it (SkipVerdicts dedups repeats). */
  skipped(id: number, reason: string): void {
    if (this.#o.store.mayLead()) this.#record({ t: "skip", id, at: this.#now(), reason });
  }

  /**
   * Every decision the policy makes (the claimer's decide step): a claim cut below the whole is
   * remembered until its intent is written, then recorded as what cut it (a `skip` with `cut`).
   */
  decided(d: Decision): void {
    if (d.action !== "claim") return;
    if (d.cut !== undefined) this.#cuts.set(d.liquidationId, d.cut);
    else if (this.#cuts.size > 0) this.#cuts.delete(d.liquidationId);
  }

  /** The id left the open list; `wanted`: our claim was queued for it (not yet sent). */
  left(id: number, wanted: boolean): void {
    this.#cuts.delete(id);
    if (this.#fold.facts.has(id) && this.#o.store.mayLead()) this.#record({ t: "gone", id, at: this.#now(), wanted });
  }

  /** A claim record the claimer journaled (intents, outcomes): folded, not written again. */
  journaled(record: JournalRecord): void {
    if (record.t !== "intent" && record.t !== "outcome") return;
    // An answer for an id already forgotten (settled and gone) changes nothing.
    if (record.t === "outcome" && !this.#fold.facts.has(record.id)) return;
    const f = this.#fold.add(record);
    if (f !== undefined) this.#settle(f);
  }

  /**
   * The claimer's journal with the ledger reading along: an intent is folded before it is written
   * (a departure that comes while the database writes it must find the claim in flight), and
   * unfolded again when it could not be written (nothing was sent).
   */
  readingAlong(
    store: Pick<StateStore, "intent" | "append" | "mayLead" | "recover">,
  ): Pick<StateStore, "intent" | "append" | "mayLead" | "recover"> {
    const unsent = (id: number): void => {
      const f = this.#fold.facts.get(id);
      if (f === undefined) return;
      f.inFlight = false;
      this.#settle(f);
    };
    return {
      intent: (record) => {
        if (record.t !== "intent") return store.intent(record);
        this.journaled(record);
        const cut = this.#cuts.get(record.id);
        if (cut !== undefined && store.mayLead()) {
          this.#cuts.delete(record.id);
          this.#record({ t: "skip", id: record.id, at: record.at, reason: cut, cut: true });
        }
        let written: ReturnType<StateStore["intent"]>;
        try {
          written = store.intent(record);
        } catch (err) {
          unsent(record.id);
          throw err;
        }
        if (!(written instanceof Promise)) return written;
        return written.catch((err: unknown) => {
          unsent(record.id);
          throw err;
        });
      },
      append: (record) => {
        store.append(record);
        this.journaled(record);
      },
      mayLead: () => store.mayLead(),
      recover: () => store.recover(),
    };
  }

  /** Liquidations known and not yet forgotten (tests: memory stays bounded by the open list). */
  get size(): number {
    return this.#fold.facts.size;
  }

  /** Writes the whole buffer now (shutdown). */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#write(Number.POSITIVE_INFINITY);
  }

  /**
   * The timer's turn: records for at most WRITE_SLICE_MS, the rest on the next turns. A cascade
   * buffers thousands (each a journal write): written in one turn they would hold the loop for tens
   * of ms while claims wait to leave.
   */
  readonly #tick = (): void => {
    this.#timer = undefined;
    this.#write(WRITE_SLICE_MS);
    if (this.#buffer.length > this.#head) this.#timer = setTimeout(this.#tick, 0).unref();
  };

  #write(budgetMs: number): void {
    const batch = this.#buffer;
    const until = performance.now() + budgetMs;
    let i = this.#head;
    try {
      while (i < batch.length) {
        this.#o.store.append(batch[i++] as OpportunityRecord);
        if (performance.now() >= until) break;
      }
    } catch (err) {
      // The batch is dropped: the journal's own failure path stops claiming; this only reports.
      i = batch.length;
      this.#o.failed?.(err);
    }
    if (i >= batch.length) {
      this.#buffer = [];
      this.#head = 0;
    } else if (i > 4096 && i * 2 > batch.length) {
      this.#buffer = batch.slice(i);
      this.#head = 0;
    } else {
      this.#head = i;
    }
  }

  #record(record: OpportunityRecord): void {
    const f = this.#fold.add(record);
    this.#buffer.push(record);
    this.#timer ??= setTimeout(this.#tick, this.#o.flushMs ?? 200).unref();
    if (f !== undefined) this.#settle(f);
  }

  #settle(f: OpportunityFacts): void {
    if (!this.#counted.has(f.id) && f.firstSeen !== undefined && isSettled(f)) {
      this.#counted.add(f.id);
      for (const row of opportunityRows(f)) this.#o.settled(row.outcome, row.reason, row.value, row.supply);
    }
    // Gone with nothing of ours awaiting an answer: nothing more can happen to it.
    if (f.goneAt !== undefined && !f.inFlight) {
      this.#fold.facts.delete(f.id);
      this.#counted.delete(f.id);
    }
  }
}
