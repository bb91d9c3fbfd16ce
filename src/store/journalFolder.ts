/**
 * The state a journal's history folds down to, record by record: what a restart still needs and
 * nothing else. Settled claim ids (never claimed again: all of them, as a sorted list, since an id
 * can stay open on the venue for as long as the liquidation does), intents and orders still open
 * with their outcomes so far, the largest order number, and the P&L ledger (open lots, totals by
 * day and symbol). Its snapshot is small whatever the history's length; the history itself stays in
 * the dated segments (journalFiles.ts) for `liquidator pnl`.
 */
import { type LedgerSnapshot, PnlLedger } from "../engine/pnlLedger.js";
import { ClaimedFold, type ClaimedSnapshot } from "./claimedFold.js";
import {
  type ClaimedBaseRecord,
  type ClaimModeRecord,
  emptyReplay,
  type IntentRecord,
  JOURNAL_VERSION,
  type JournalRecord,
  type JournalReplay,
  type OrderFillRecord,
  type OrderIntentRecord,
  type OrderOutcomeRecord,
  type OutcomeRecord,
  type PositionsRecord,
  type ProtectionRecord,
  type VenueRecord,
} from "./journalRecords.js";

/** The compacted snapshot file's one JSON object. */
export interface JournalSnapshot {
  t: "snapshot";
  version: number;
  at: number;
  /** The last history segment folded in (segments up to it are never read at start). */
  through: number;
  venue?: VenueRecord;
  positions?: PositionsRecord;
  /** The protections' last state (absent: none written yet, or a snapshot from before protections). */
  protection?: ProtectionRecord;
  /** Settled claim ids, ascending, delta-encoded: the first id, then the gaps. */
  done: number[];
  /** Intents and orders still open, with their outcomes so far, in journal order. */
  open: JournalRecord[];
  /** Trades of the orders in `open` so far (in the ledger already; absent in older snapshots). */
  openFills?: OrderFillRecord[];
  orderSeq: number;
  ledger: LedgerSnapshot;
  /** The claimed accounting (absent in a snapshot written before it: then nothing was folded). */
  claimed?: ClaimedSnapshot;
}

const FINAL_ORDER = new Set<OrderOutcomeRecord["result"]>(["filled", "cancelled", "rejected", "not_accepted", "dry_run"]);

/**
 * How compaction treats each record kind: `state` records are folded into the snapshot by the named
 * method of JournalFolder (what a restart needs of them); `history` records are only kept in the
 * dated segments, read by `liquidator pnl` and `report`, never at start. A kind missing here does
 * not compile, and journalFolder.test.ts checks every kind of `recordSchema` against this table.
 */
export const RECORD_CLASSES: RecordClasses = {
  intent: { class: "state", fold: (f, r) => f.intent(r) },
  outcome: { class: "state", fold: (f, r) => f.outcome(r) },
  positions: { class: "state", fold: (f, r) => f.positions(r) },
  protection: { class: "state", fold: (f, r) => f.protection(r) },
  venue: { class: "state", fold: (f, r) => f.venue(r) },
  order_intent: { class: "state", fold: (f, r) => f.orderIntent(r) },
  order_outcome: { class: "state", fold: (f, r) => f.orderOutcome(r) },
  order_fill: { class: "state", fold: (f, r) => f.orderFill(r) },
  claim_mode: { class: "state", fold: (f, r) => f.claimMode(r) },
  claimed_base: { class: "state", fold: (f, r) => f.claimedBase(r) },
  // The opportunity ledger's records: `liquidator report` reads them from the history and the tail.
  seen: { class: "history" },
  skip: { class: "history" },
  gone: { class: "history" },
  // A claim's markouts: `pnl --by claim` and `report` read them from the history and the tail (a
  // restart within 300 s after a rotation may leave the later horizons of that window unrecorded).
  markout: { class: "history" },
};

type RecordClasses = {
  readonly [K in JournalRecord["t"]]:
    | { class: "state"; fold: (folder: JournalFolder, rec: Extract<JournalRecord, { t: K }>) => void }
    | { class: "history" };
};

export class JournalFolder {
  readonly #done = new Set<number>();
  readonly #claims = new Map<number, { intent: IntentRecord; outcomes: OutcomeRecord[] }>();
  readonly #orders = new Map<string, { intent: OrderIntentRecord; outcomes: OrderOutcomeRecord[]; fills: OrderFillRecord[] }>();
  readonly #ledger = new PnlLedger({ keepClosedClaims: false });
  #claimed = new ClaimedFold();
  #orderSeq = 0;
  #venue: VenueRecord | undefined;
  #positions: PositionsRecord | undefined;
  #protection: ProtectionRecord | undefined;
  version = 1;
  /** The last segment folded in. */
  through = 0;

  static fromSnapshot(s: JournalSnapshot): JournalFolder {
    const f = new JournalFolder();
    let id = 0;
    for (const [i, d] of s.done.entries()) {
      id = i === 0 ? d : id + d;
      f.#done.add(id);
    }
    f.#ledger.restore(s.ledger);
    f.#claimed = ClaimedFold.fromSnapshot(s.claimed);
    for (const rec of s.open) f.add(rec);
    // Already in the restored ledger and claimed totals: kept on their orders only.
    for (const rec of s.openFills ?? []) f.#orders.get(rec.clientOrderId)?.fills.push(rec);
    f.#orderSeq = s.orderSeq;
    f.#venue = s.venue;
    f.#positions = s.positions;
    f.#protection = s.protection;
    f.version = s.version;
    f.through = s.through;
    return f;
  }

  /** One record, in journal order, folded as RECORD_CLASSES says. */
  add(rec: JournalRecord): void {
    const c = RECORD_CLASSES[rec.t] as RecordClasses[JournalRecord["t"]];
    if (c.class === "state") (c.fold as (folder: JournalFolder, r: JournalRecord) => void)(this, rec);
  }

  intent(rec: IntentRecord): void {
    // Claimed again after a refusal that allows it (the failure table): open again until its outcome.
    this.#done.delete(rec.id);
    const prev = this.#claims.get(rec.id);
    this.#claims.set(rec.id, { intent: rec, outcomes: prev?.outcomes ?? [] });
  }

  orderIntent(rec: OrderIntentRecord): void {
    this.#orderSeq = Math.max(this.#orderSeq, rec.seq ?? 0);
    const prev = this.#orders.get(rec.clientOrderId);
    if (rec.dryRun) return void this.#orders.delete(rec.clientOrderId);
    this.#orders.set(rec.clientOrderId, { intent: rec, outcomes: prev?.outcomes ?? [], fills: prev?.fills ?? [] });
    this.#claimed.orderIntent(rec);
  }

  orderOutcome(rec: OrderOutcomeRecord): void {
    const o = this.#orders.get(rec.clientOrderId);
    if (o === undefined) return;
    if (FINAL_ORDER.has(rec.result)) {
      this.#orders.delete(rec.clientOrderId);
      this.#claimed.orderFinished(rec.clientOrderId);
    } else o.outcomes.push(rec);
  }

  orderFill(rec: OrderFillRecord): void {
    this.#ledger.fill(rec.symbol, rec.qty, rec.price, rec.fee, rec.at);
    this.#claimed.orderFill(rec);
    // An open order's trades so far: its settlement after a restart must not count them again.
    this.#orders.get(rec.clientOrderId)?.fills.push(rec);
  }

  venue(rec: VenueRecord): void {
    this.version = Math.max(this.version, rec.version ?? 1);
    if (rec.guard !== true) this.#venue ??= rec;
  }

  /** The protections carry on from their last record (a restart is not a re-arm). */
  protection(rec: ProtectionRecord): void {
    this.#protection = rec;
  }

  positions(rec: PositionsRecord): void {
    this.#positions = rec;
  }

  claimMode(rec: ClaimModeRecord): void {
    this.#claimed.claimMode(rec);
  }

  claimedBase(rec: ClaimedBaseRecord): void {
    this.#claimed.claimedBase(rec);
  }

  outcome(rec: OutcomeRecord): void {
    // Settled before: a later answer (a late push) changes nothing; its fee was counted once.
    if (this.#done.has(rec.id)) return;
    const c = this.#claims.get(rec.id);
    const withFills = (rec.result === "accepted" || rec.result === "confirmed") && rec.fills !== undefined;
    if (withFills && rec.fills !== undefined) {
      for (const f of rec.fills) this.#ledger.claim(rec.id, f.symbol, f.qty, f.price, f.fee, rec.at);
    }
    if (c?.intent.dryRun) {
      // A dry-run decision sent nothing: the id may be claimed for real later.
      this.#claims.delete(rec.id);
      return;
    }
    if (c !== undefined && (rec.result === "unknown" || (rec.result === "accepted" && !withFills))) {
      // Still open: a confirmation with the claim's fills may follow (an unknown outcome, or a lean
      // answer that applied the claim without saying its fills: counted at its request until then).
      c.outcomes.push(rec);
      return;
    }
    this.#claims.delete(rec.id);
    this.#done.add(rec.id);
    if (withFills && rec.fills !== undefined) this.#claimed.claimSettled(rec.id, rec.fills);
    else if (c?.outcomes.some((o) => o.result === "accepted")) {
      // Applied by a lean answer, never confirmed with fills: counted at its request, as a full replay does.
      this.#claimed.claimSettled(
        rec.id,
        Object.entries(c.intent.perSymbolQty).map(([symbol, qty]) => ({ symbol, qty, price: 0, fee: 0 })),
      );
    } else this.#claimed.claimDropped(rec.id);
  }

  /** What a restart needs, as a replay the daemon adopts (restore.ts, pnlFromJournal.ts, claimedPositions.ts). */
  toReplay(): JournalReplay {
    const replay = emptyReplay();
    const claimed = this.#claimed.snapshot();
    replay.claimed.folded = claimed;
    for (const m of claimed.modes) replay.claimed.modes.set(`${m.id} ${m.symbol}`, m);
    for (const [id, c] of this.#claims) {
      replay.intents.set(id, c.intent);
      if (c.outcomes.length > 0) replay.outcomes.set(id, [...c.outcomes]);
    }
    const folded = new Map<string, OrderFillRecord[]>();
    for (const [cid, o] of this.#orders) {
      replay.orders.intents.set(cid, o.intent);
      if (o.outcomes.length > 0) replay.orders.outcomes.set(cid, [...o.outcomes]);
      if (o.fills.length > 0) folded.set(cid, [...o.fills]);
    }
    if (folded.size > 0) replay.orders.folded = folded;
    replay.venue = this.#venue;
    replay.positions = this.#positions;
    replay.protection = this.#protection;
    replay.version = this.version;
    replay.done = this.#sortedDone();
    replay.ledger = this.#ledger.snapshot();
    replay.orderSeq = this.#orderSeq;
    return replay;
  }

  toSnapshot(at: number): JournalSnapshot {
    const open: JournalRecord[] = [];
    for (const c of this.#claims.values()) open.push(c.intent, ...c.outcomes);
    for (const o of this.#orders.values()) open.push(o.intent, ...o.outcomes);
    const sorted = this.#sortedDone();
    const done = sorted.map((id, i) => (i === 0 ? id : id - (sorted[i - 1] as number)));
    return {
      t: "snapshot",
      version: JOURNAL_VERSION,
      at,
      through: this.through,
      ...(this.#venue !== undefined ? { venue: this.#venue } : {}),
      ...(this.#positions !== undefined ? { positions: this.#positions } : {}),
      ...(this.#protection !== undefined ? { protection: this.#protection } : {}),
      done,
      open,
      orderSeq: this.#orderSeq,
      openFills: [...this.#orders.values()].flatMap((o) => o.fills),
      ledger: this.#ledger.snapshot(),
      claimed: this.#claimed.snapshot(),
    };
  }

  #sortedDone(): number[] {
    return [...this.#done].sort((a, b) => a - b);
  }
}

/** Whether `id` is in an ascending list (binary search: a month of ids is a long list). */
export function hasId(sorted: readonly number[] | undefined, id: number): boolean {
  if (sorted === undefined) return false;
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid] as number;
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
