/**
 * The claimed accounting of `unwind.scope: claimed` (daemon/claimedPositions.ts) folded down for a
 * compacted journal: per position (symbol and margin mode) the cumulative claimed and unwound
 * quantities and the last settled base, claims counted whose margin mode no record has said yet,
 * the modes of claims still open, and the modes of orders a fill may still name.
 *
 * Totals stay cumulative, never reset to zero: a `claimed_base` written after the compaction (by the
 * same process, from its own running totals) is absolute, and must meet the same totals at replay.
 * A claim is counted here only once it leaves the open records (settled with fills); a claim still
 * open is replayed from its records, as a full replay would.
 */
import type { MarginMode } from "../engine/types.js";
import type { ClaimedBaseRecord, ClaimModeRecord, Fill, OrderFillRecord, OrderIntentRecord } from "./journalRecords.js";

export interface ClaimedTotals {
  claimed: number;
  unwound: number;
  baseClaimed: number;
  baseUnwound: number;
}

/** The JSON form, in the snapshot and on the replay (`JournalReplay.claimed.folded`). */
export interface ClaimedSnapshot {
  /** Keyed `${symbol} ${marginMode}`. */
  totals: [string, ClaimedTotals][];
  /** Claims counted whose mode is not known yet, per symbol, oldest first. */
  unplaced: [string, { id: number; qty: number }[]][];
  /** Modes of claims still open (their fills are not counted yet). */
  modes: ClaimModeRecord[];
  /** Margin mode of orders a fill may still arrive for (open ones, and the last finished ones). */
  orders: [string, MarginMode][];
}

/** Finished orders whose mode is kept for a late fill (a trade report after the order's outcome). */
const RECENT_ORDERS = 1_000;

export function emptyClaimedSnapshot(): ClaimedSnapshot {
  return { totals: [], unplaced: [], modes: [], orders: [] };
}

export class ClaimedFold {
  readonly #totals = new Map<string, ClaimedTotals>();
  readonly #unplaced = new Map<string, { id: number; qty: number }[]>();
  readonly #modes = new Map<string, ClaimModeRecord>();
  readonly #openOrders = new Map<string, MarginMode>();
  readonly #recentOrders = new Map<string, MarginMode>();

  static fromSnapshot(s: ClaimedSnapshot | undefined): ClaimedFold {
    const f = new ClaimedFold();
    if (s === undefined) return f;
    for (const [k, t] of s.totals) f.#totals.set(k, { ...t });
    for (const [symbol, list] of s.unplaced)
      f.#unplaced.set(
        symbol,
        list.map((u) => ({ ...u })),
      );
    for (const m of s.modes) f.#modes.set(`${m.id} ${m.symbol}`, m);
    for (const [cid, mode] of s.orders) f.#recentOrders.set(cid, mode);
    return f;
  }

  /** A claim settled with these fills: counted where its mode says, else unplaced until it is said. */
  claimSettled(id: number, fills: readonly Fill[]): void {
    for (const fill of fills) {
      if (fill.qty === 0) continue;
      const mode = this.#modes.get(`${id} ${fill.symbol}`);
      if (mode !== undefined) {
        this.#modes.delete(`${id} ${fill.symbol}`);
        this.#at(fill.symbol, mode.marginMode).claimed += fill.qty;
        continue;
      }
      const list = this.#unplaced.get(fill.symbol) ?? [];
      list.push({ id, qty: fill.qty });
      this.#unplaced.set(fill.symbol, list);
    }
  }

  /** A claim closed without fills (refused, not applied): a mode said for it means nothing now. */
  claimDropped(id: number): void {
    for (const k of this.#modes.keys()) if (k.startsWith(`${id} `)) this.#modes.delete(k);
  }

  claimMode(rec: ClaimModeRecord): void {
    const list = this.#unplaced.get(rec.symbol);
    const i = list?.findIndex((u) => u.id === rec.id) ?? -1;
    if (list !== undefined && i >= 0) {
      const [u] = list.splice(i, 1);
      if (list.length === 0) this.#unplaced.delete(rec.symbol);
      this.#at(rec.symbol, rec.marginMode).claimed += u?.qty ?? 0;
      return;
    }
    this.#modes.set(`${rec.id} ${rec.symbol}`, rec);
  }

  claimedBase(rec: ClaimedBaseRecord): void {
    const t = this.#at(rec.symbol, rec.marginMode);
    t.baseClaimed = rec.claimed;
    t.baseUnwound = rec.unwound;
  }

  orderIntent(rec: OrderIntentRecord): void {
    this.#openOrders.set(rec.clientOrderId, rec.marginMode ?? "CROSS");
  }

  orderFinished(clientOrderId: string): void {
    const mode = this.#openOrders.get(clientOrderId);
    if (mode === undefined) return;
    this.#openOrders.delete(clientOrderId);
    this.#recentOrders.set(clientOrderId, mode);
    if (this.#recentOrders.size > RECENT_ORDERS) this.#recentOrders.delete(this.#recentOrders.keys().next().value as string);
  }

  orderFill(rec: OrderFillRecord): void {
    const mode = this.#openOrders.get(rec.clientOrderId) ?? this.#recentOrders.get(rec.clientOrderId);
    if (mode !== undefined) this.#at(rec.symbol, mode).unwound += rec.qty;
  }

  /**
   * Open orders' intents are in the snapshot's open records (replayed, so their mode is known then);
   * only the finished ones are listed here.
   */
  snapshot(): ClaimedSnapshot {
    return {
      totals: [...this.#totals].map(([k, t]) => [k, { ...t }]),
      unplaced: [...this.#unplaced].map(([s, list]) => [s, list.map((u) => ({ ...u }))]),
      modes: [...this.#modes.values()],
      orders: [...this.#recentOrders],
    };
  }

  #at(symbol: string, mode: MarginMode): ClaimedTotals {
    const k = `${symbol} ${mode}`;
    let t = this.#totals.get(k);
    if (t === undefined) {
      t = { claimed: 0, unwound: 0, baseClaimed: 0, baseUnwound: 0 };
      this.#totals.set(k, t);
    }
    return t;
  }
}
