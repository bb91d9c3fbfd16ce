/**
 * The trading core's durable state, and the one function that changes it: `add(record)`, a journal
 * record in journal order. The live core (tradingCore.ts) applies every record it journals here as
 * it writes it; a restart, a new leader and a compaction fold the journal through the same method,
 * so there is no second restore path to drift. What it holds:
 *
 * - `done`: ids never claimed again (a claim applied, given up, or refused for good); re-claimable
 *   refusals, `not_accepted` and dry runs leave an id out;
 * - `claims`: intents with no final outcome yet (in flight, unknown, or applied by a lean answer
 *   whose fills are not known: booked at the request until they are);
 * - `holdings` (what is ours per position) and `ledger` (P&L lots, equal to what is ours);
 * - `orders`: unwind orders not over yet, with their trades so far; the next order number;
 * - the protections' last state, the venue header, and the claims settled in the last minutes (the
 *   markout sampler's restart).
 *
 * Longer than most files: the one function from records to state: every record kind's effect side
 * by side, so a reader checks the fold in one place.
 */
import { type ClaimPnl, PnlLedger } from "../engine/pnlLedger.js";
import type { Fill } from "../engine/types.js";
import { reclaimableAfterRefusal } from "../venue/failureTable.js";
import { Holdings, positionKey } from "./holdings.js";
import { IdIndex } from "./idIndex.js";
import type {
  IntentRecord,
  JournalRecord,
  MarkoutRecord,
  OrderFillRecord,
  OrderIntentRecord,
  OrderOutcomeRecord,
  OutcomeRecord,
  PositionsRecord,
  ProtectionRecord,
  VenueRecord,
} from "./journalRecords.js";

export interface OpenClaim {
  intent: IntentRecord;
  outcomes: OutcomeRecord[];
  /** Applied by a lean answer (or inferred when given up): booked at these until the venue says more. */
  provisional?: Fill[];
  /** Given up (never claimed again); kept so a late confirmation can still correct its booking. */
  givenUp?: boolean;
}

export interface OpenOrder {
  intent: OrderIntentRecord;
  outcomes: OrderOutcomeRecord[];
  /** Its trades so far (in the ledger and holdings already). */
  fills: OrderFillRecord[];
}

/** A claim settled recently (the markout sampler resumes its horizons after a restart). */
export interface RecentClaim {
  id: number;
  fills: Fill[];
  at: number;
  markouts: MarkoutRecord[];
}

/** How long a settled claim is kept for the markout sampler (its longest horizon is 300 s). */
const RECENT_MS = 600_000;

const FINAL_ORDER = new Set<OrderOutcomeRecord["result"]>(["filled", "cancelled", "rejected", "not_accepted", "dry_run"]);

export interface CoreFoldOptions {
  /** Keep every claim's P&L record once closed (`liquidator pnl --by claim`); the daemon does not. */
  keepClosedClaims?: boolean;
}

export class CoreFold {
  done = new IdIndex();
  readonly claims = new Map<number, OpenClaim>();
  readonly orders = new Map<string, OpenOrder>();
  holdings = new Holdings();
  readonly ledger: PnlLedger;
  orderSeq = 0;
  venue: VenueRecord | undefined;
  protection: ProtectionRecord | undefined;
  /** The last positions record of a format-1 journal (not used for exposure). */
  positions: PositionsRecord | undefined;
  /** The newest journal format any record or snapshot declared. */
  version = 1;
  /** The last history segment folded in (file journal). */
  through = 0;
  /** Records folded (snapshot contents excluded). */
  records = 0;
  readonly recent = new Map<number, RecentClaim>();
  /**
   * The operator's own per symbol as the newest intent measured it (its `notOurs`): what a restart
   * knows of it before a quiet moment measures it again (accountWatch.ts `notOurs`).
   */
  readonly notOurs = new Map<string, number>();
  /** A claim's last lot closed (the protections' loss streak); set by the live core. */
  onClaimClosed: ((claim: ClaimPnl) => void) | undefined;

  constructor(options: CoreFoldOptions = {}) {
    this.ledger = new PnlLedger({ keepClosedClaims: options.keepClosedClaims ?? false, closed: (c) => this.onClaimClosed?.(c) });
  }

  /** One record, in journal order. */
  add(rec: JournalRecord): void {
    this.records++;
    switch (rec.t) {
      case "intent":
        return this.#intent(rec);
      case "outcome":
        return this.#outcome(rec);
      case "order_intent":
        return this.#orderIntent(rec);
      case "order_outcome":
        return this.#orderOutcome(rec);
      case "order_fill":
        return this.#orderFill(rec);
      case "claim_mode": {
        this.holdings.placed(rec);
        if (rec.marginMode !== "CROSS") this.ledger.moveClaim(rec.id, rec.symbol, positionKey(rec.symbol, rec.marginMode));
        return;
      }
      case "ours": {
        const delta = this.holdings.set(rec);
        if (delta !== 0) this.ledger.closeAt(positionKey(rec.symbol, rec.marginMode), rec.symbol, delta, rec.price, rec.at);
        return;
      }
      case "claimed_base":
        return this.holdings.legacyBase(rec);
      case "protection":
        this.protection = rec;
        return;
      case "venue":
        this.version = Math.max(this.version, rec.version ?? 1);
        if (rec.guard !== true) this.venue ??= rec;
        return;
      case "positions":
        this.positions = rec;
        return;
      case "markout":
        this.recent.get(rec.id)?.markouts.push(rec);
        return;
      case "seen":
      case "skip":
      case "gone":
        return; // the opportunity ledger's history (`liquidator report` reads it from the segments)
      default:
        // A record kind added to the journal must be decided here (the compiler says so).
        return rec satisfies never;
    }
  }

  #intent(rec: IntentRecord): void {
    // A dry-run decision sent nothing: it changes nothing here (its outcome neither).
    if (rec.dryRun === true) return;
    for (const symbol in rec.notOurs) this.notOurs.set(symbol, rec.notOurs[symbol] as number);
    const prev = this.claims.get(rec.id);
    this.claims.set(rec.id, { intent: rec, outcomes: prev?.outcomes ?? [] });
  }

  #outcome(rec: OutcomeRecord): void {
    const c = this.claims.get(rec.id);
    // Settled before (a late push, a second answer): it changes nothing; its fee was counted once.
    if (c === undefined) {
      if (rec.result === "confirmed" && rec.fills !== undefined && !this.done.has(rec.id)) this.#settle(rec.id, rec.fills, rec.at);
      return;
    }
    const fills = rec.fills;
    switch (rec.result) {
      case "accepted":
      case "confirmed":
        if (fills === undefined) return this.#provisional(rec.id, c, requested(c.intent), rec);
        return this.#final(rec.id, c, fills, rec.at);
      case "given_up":
        // What the positions showed of it (maybe nothing) is booked, or a lean booking corrected to
        // it; the id is never claimed again, and the claim stays so that a late confirmation corrects it.
        if (c.provisional === undefined) this.#provisional(rec.id, c, fills ?? [], rec);
        else {
          if (fills !== undefined) this.#rebook(rec.id, c, fills, rec.at);
          c.outcomes.push(rec);
        }
        c.givenUp = true;
        this.done.add(rec.id);
        return;
      case "unknown":
        c.outcomes.push(rec);
        return;
      case "rejected":
        this.#unbook(rec.id, c, rec.at);
        return this.#close(rec.id, c, rec.final === true || !reclaimableAfterRefusal(rec.code));
      case "not_accepted":
      case "dry_run":
        this.#unbook(rec.id, c, rec.at);
        return this.#close(rec.id, c, false);
    }
  }

  /** A claim booked provisionally (given up) that the venue says did not apply: its booking reversed. */
  #unbook(id: number, c: OpenClaim, at: number): void {
    const booked = c.provisional;
    if (booked === undefined || booked.length === 0) return;
    for (const b of booked) if (b.price > 0) this.ledger.claim(id, b.symbol, -b.qty, b.price, 0, at, this.#key(id, b.symbol));
    this.holdings.claimed(
      id,
      booked.map((b) => ({ symbol: b.symbol, qty: -b.qty })),
    );
    c.provisional = undefined;
  }

  /** A provisional booking moved to `fills` (a lean claim given up: what the positions showed of it). */
  #rebook(id: number, c: OpenClaim, fills: Fill[], at: number): void {
    const booked = c.provisional ?? [];
    const deltas: Fill[] = [];
    for (const symbol of new Set([...booked.map((b) => b.symbol), ...fills.map((f) => f.symbol)])) {
      const was = booked.find((b) => b.symbol === symbol);
      const now = fills.find((f) => f.symbol === symbol);
      const qty = (now?.qty ?? 0) - (was?.qty ?? 0);
      const price = was?.price ?? now?.price ?? 0;
      if (qty !== 0) deltas.push({ symbol, qty, price, fee: 0 });
    }
    for (const d of deltas) if (d.price > 0) this.ledger.claim(id, d.symbol, d.qty, d.price, 0, at, this.#key(id, d.symbol));
    this.holdings.claimed(id, deltas);
    c.provisional = fills.map((f) => ({ ...f, price: booked.find((b) => b.symbol === f.symbol)?.price ?? f.price }));
  }

  /** Applied, what it transferred not known: booked at `fills` (the request, at its limit prices) until it is. */
  #provisional(id: number, c: OpenClaim, fills: Fill[], rec: OutcomeRecord): void {
    c.outcomes.push(rec);
    if (c.provisional !== undefined) return;
    c.provisional = fills;
    this.holdings.claimed(id, fills);
    // Priced at the limit it was sent with; a request with none (a journal of an old format) opens no lot.
    for (const f of fills) if (f.price > 0) this.ledger.claim(id, f.symbol, f.qty, f.price, 0, rec.at, this.#key(id, f.symbol));
  }

  /** The venue's fills of a claim: booked, or a provisional booking corrected to them. */
  #final(id: number, c: OpenClaim, fills: readonly Fill[], at: number): void {
    const booked = c.provisional;
    if (booked === undefined) {
      this.#settle(id, fills, at);
      return this.#close(id, c, true);
    }
    const deltas: { symbol: string; qty: number }[] = [];
    const symbols = new Set([...booked.map((b) => b.symbol), ...fills.map((f) => f.symbol)]);
    for (const symbol of symbols) {
      const key = this.#key(id, symbol);
      const b = booked.find((x) => x.symbol === symbol);
      const bookedQty = b !== undefined && b.price > 0 ? b.qty : 0;
      let actual = 0;
      for (const f of fills) {
        if (f.symbol !== symbol) continue;
        actual += f.qty;
        // The lot booked at the request's limit takes the true price; the fill corrects its quantity.
        if (b !== undefined && b.price > 0 && f === fills.find((x) => x.symbol === symbol))
          this.ledger.reprice(id, key, b.qty, b.price, f.price, at);
      }
      const price = fills.find((x) => x.symbol === symbol)?.price ?? b?.price ?? 0;
      const fee = fills.filter((x) => x.symbol === symbol).reduce((sum, x) => sum + x.fee, 0);
      if (price > 0) this.ledger.claim(id, symbol, actual - bookedQty, price, fee, at, key);
      deltas.push({ symbol, qty: actual - (b?.qty ?? 0) });
    }
    this.holdings.claimed(id, deltas);
    this.#remember(id, [...fills], at);
    this.#close(id, c, true);
  }

  #settle(id: number, fills: readonly Fill[], at: number): void {
    this.holdings.claimed(id, fills);
    for (const f of fills) this.ledger.claim(id, f.symbol, f.qty, f.price, f.fee, at, this.#key(id, f.symbol));
    this.#remember(id, [...fills], at);
    this.done.add(id);
  }

  #close(id: number, c: OpenClaim, never: boolean): void {
    this.claims.delete(id);
    if (never) this.done.add(id);
    else this.done.delete(id);
    // Modes said for an open claim serve its correction only; its quantities now carry their place.
    this.holdings.forgetClaim(id, Object.keys(c.intent.perSymbolQty));
  }

  /** The lot key of a claim's symbol: its position once a report said the mode, else the symbol's cross one. */
  #key(id: number, symbol: string): string {
    return positionKey(symbol, this.holdings.claimMode(id, symbol) ?? "CROSS");
  }

  #remember(id: number, fills: Fill[], at: number): void {
    this.recent.set(id, { id, fills, at, markouts: [] });
    for (const r of this.recent.values()) {
      if (r.at >= at - RECENT_MS) break;
      this.recent.delete(r.id);
    }
  }

  #orderIntent(rec: OrderIntentRecord): void {
    this.orderSeq = Math.max(this.orderSeq, rec.seq ?? 0);
    if (rec.dryRun === true) return;
    const prev = this.orders.get(rec.clientOrderId);
    this.orders.set(rec.clientOrderId, { intent: rec, outcomes: prev?.outcomes ?? [], fills: prev?.fills ?? [] });
    this.holdings.orderIntent(rec.clientOrderId, rec.marginMode);
  }

  #orderOutcome(rec: OrderOutcomeRecord): void {
    const o = this.orders.get(rec.clientOrderId);
    if (o === undefined) return;
    if (!FINAL_ORDER.has(rec.result)) {
      o.outcomes.push(rec);
      return;
    }
    this.orders.delete(rec.clientOrderId);
    this.holdings.orderFinished(rec.clientOrderId);
  }

  #orderFill(rec: OrderFillRecord): void {
    const { mode } = this.holdings.orderFill(rec);
    // The mark the order was priced on ends the claim's drift.
    const mark = this.orders.get(rec.clientOrderId)?.intent.mark;
    // The ledger's lots are what is ours: the fill closes what it covers; the rest pays its fee only.
    this.ledger.fill(rec.symbol, rec.qty, rec.price, rec.fee, rec.at, mark ?? rec.price, positionKey(rec.symbol, mode ?? "CROSS"));
    this.orders.get(rec.clientOrderId)?.fills.push(rec);
  }
}

/** A claim's request as fills at its limit prices (the estimate a lean answer is booked at). */
export function requested(intent: Pick<IntentRecord, "limitPrice" | "perSymbolQty">): Fill[] {
  return Object.entries(intent.perSymbolQty).map(([symbol, qty]) => ({ symbol, qty, price: intent.limitPrice[symbol] ?? 0, fee: 0 }));
}
