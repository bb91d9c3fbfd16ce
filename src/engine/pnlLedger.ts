/**
 * Profit and loss of what the daemon claims and closes, attributed to claims. Pure: fed by the
 * journal's claim fills and order fills (live, or replayed by `liquidator pnl`), priced by marks.
 *
 * Cost method: FIFO lots per position (a lot key: the symbol, or `SYMBOL ISOLATED`; a claim whose
 * margin mode is not known yet opens under the symbol and is moved when it is). Each claim opens a
 * lot at its transfer price; a fill (or an opposite claim) closes the oldest lots first, and the
 * realized P&L of each closed piece belongs to the claim that opened it: closed quantity × (exit −
 * entry), signed by the lot's side. Trading fees go to the claims whose lots the fill closed, pro
 * rata of quantity. Once a position is flat its totals equal the venue's average-cost accounting
 * (docs/protocol.md §6.2): both are the cash flow. The liquidator fee of a claim is earned when it
 * is applied.
 *
 * Only claims open lots: a fill beyond the lots (it closed something no claim brought, e.g. the
 * operator's own position under `unwind.scope: all`) pays its fee and opens nothing, so the open
 * lots are always what is ours (core/holdings.ts) and the protections never value a phantom.
 *
 * Longer than most files: lots, their closes and the attribution of each close to the claim that
 * opened it are one book with one invariant (lots equal what is ours); its sums are pnlTotals.ts.
 */
import { bump, type PnlTotals, symbolOfKey } from "./pnlTotals.js";
import { utcDay } from "./utcDay.js";

export type { PnlTotals } from "./pnlTotals.js";

export interface ClaimPnl {
  claimId: number;
  /** UTC day (YYYY-MM-DD) the claim was applied. */
  day: string;
  symbols: Set<string>;
  liquidatorFee: number;
  /** Realized trading P&L of the closed parts (fees excluded). */
  trading: number;
  /** Trading fees paid closing it (positive = paid). */
  fees: number;
  /**
   * The part of `trading` the mark moved while the claim was held: closed quantity × (the mark the
   * closing order was priced on − the transfer price), signed by the side. `trading − drift` is
   * what the unwind itself gained against that mark (negative = slippage paid), so the net splits
   * into fee + drift − unwind cost, unwind cost = drift − trading + fees.
   */
  drift: number;
  /** Quantity still held from this claim, per symbol (signed). */
  open: Map<string, number>;
}

interface Lot {
  claimId: number | undefined;
  qty: number;
  price: number;
  symbol: string;
}

const EPS = 1e-12;

/**
 * A ledger as plain JSON (a compacted journal's P&L): the open lots, the claims they belong to, and
 * every total. Totals of claims closed and forgotten are in `folded`.
 */
export interface LedgerSnapshot {
  /** Per lot key (the symbol for a snapshot written before keys: the same thing for cross). */
  lots: [key: string, lots: [claimId: number | null, qty: number, price: number][]][];
  claims: {
    claimId: number;
    day: string;
    symbols: string[];
    liquidatorFee: number;
    trading: number;
    fees: number;
    /** Absent in a snapshot written before drift was split out: 0. */
    drift?: number;
    open: [string, number][];
  }[];
  unattributed: PnlTotals;
  folded: PnlTotals;
  byDay: [string, PnlTotals][];
  bySymbol: [string, PnlTotals][];
}

export interface PnlLedgerOptions {
  /**
   * Keep the record of a claim once all its lots are closed (default true: `liquidator pnl` lists
   * claims). False folds a closed claim into the totals and forgets it, so a daemon running for
   * months, or a replay of a day, holds only the claims still open (`claims()` lists those).
   */
  keepClosedClaims?: boolean;
  /** Called with a claim's final numbers when the last of its lots closes. */
  closed?: (claim: ClaimPnl) => void;
}

export class PnlLedger {
  readonly #lots = new Map<string, Lot[]>();
  readonly #claims = new Map<number, ClaimPnl>();
  /** Realized P&L of quantities no claim opened (fills beyond what claims brought). */
  #unattributed: PnlTotals = { liquidatorFee: 0, trading: 0, fees: 0, net: 0 };
  readonly #byDay = new Map<string, PnlTotals>();
  readonly #bySymbol = new Map<string, PnlTotals>();
  readonly #keepClosed: boolean;
  readonly #closed: ((claim: ClaimPnl) => void) | undefined;
  /** Open lots per claim (a claim with none left is closed). */
  readonly #lotCount = new Map<number, number>();
  /** Totals of closed claims already forgotten (keepClosedClaims: false). */
  #folded: PnlTotals = { liquidatorFee: 0, trading: 0, fees: 0, net: 0 };

  constructor(options: PnlLedgerOptions = {}) {
    this.#keepClosed = options.keepClosedClaims ?? true;
    this.#closed = options.closed;
  }

  /** Forget everything (a replica that becomes the leader rebuilds it from the shared journal). */
  clear(): void {
    this.#lots.clear();
    this.#claims.clear();
    this.#unattributed = { liquidatorFee: 0, trading: 0, fees: 0, net: 0 };
    this.#lotCount.clear();
    this.#folded = { liquidatorFee: 0, trading: 0, fees: 0, net: 0 };
    this.#byDay.clear();
    this.#bySymbol.clear();
  }

  /** Everything the ledger holds, as JSON (see `restore`). */
  snapshot(): LedgerSnapshot {
    return {
      lots: [...this.#lots].map(([k, lots]) => [
        k,
        lots.map((l) => [l.claimId ?? null, l.qty, l.price] as [number | null, number, number]),
      ]),
      claims: [...this.#claims.values()].map((c) => ({ ...c, symbols: [...c.symbols], open: [...c.open] })),
      unattributed: { ...this.#unattributed },
      folded: { ...this.#folded },
      byDay: [...this.#byDay].map(([k, t]) => [k, { ...t }]),
      bySymbol: [...this.#bySymbol].map(([k, t]) => [k, { ...t }]),
    };
  }

  /** Replace the contents with a snapshot's: what follows continues it as if never interrupted. */
  restore(s: LedgerSnapshot): void {
    this.clear();
    for (const c of s.claims)
      this.#claims.set(c.claimId, { ...c, drift: c.drift ?? 0, symbols: new Set(c.symbols), open: new Map(c.open) });
    for (const [key, lots] of s.lots) {
      const symbol = symbolOfKey(key);
      this.#lots.set(
        key,
        lots.map(([claimId, qty, price]) => ({ claimId: claimId ?? undefined, qty, price, symbol })),
      );
      for (const [claimId] of lots) if (claimId !== null) this.#lotCount.set(claimId, (this.#lotCount.get(claimId) ?? 0) + 1);
    }
    this.#unattributed = { ...s.unattributed };
    this.#folded = { ...s.folded };
    for (const [k, t] of s.byDay) this.#byDay.set(k, { ...t });
    for (const [k, t] of s.bySymbol) this.#bySymbol.set(k, { ...t });
  }

  /**
   * A claim applied at `at`: `qty` (signed) of `symbol` taken over at `price`, earning
   * `liquidatorFee`, in the position `key` (default: the symbol's cross position).
   */
  claim(claimId: number, symbol: string, qty: number, price: number, liquidatorFee: number, at: number, key = symbol): void {
    const c = this.#claim(claimId, at);
    c.symbols.add(symbol);
    c.liquidatorFee += liquidatorFee;
    this.#add(symbol, utcDay(at), liquidatorFee, 0, 0);
    // Opposite to lots held, a claim first closes them (at its transfer price), then opens the rest.
    const rest = this.#close(key, symbol, qty, price, 0, at, price);
    if (Math.abs(rest) <= EPS) return this.#foldIfClosed(claimId);
    // The close may have folded this very claim: a second transfer of the same id on the same symbol,
    // opposite to its own lot. What is left opens under a fresh record of it (the folded part stays in
    // the totals).
    this.#claim(claimId, at).symbols.add(symbol);
    this.#open(key, symbol, claimId, rest, price);
  }

  /**
   * A trade of the account's own order in position `key`: `qty` signed (+ buy, − sell) at `price`,
   * paying `fee`; `mark` is the mark the order was priced on (the end of the drift; the fill price
   * when unknown). It closes lots; what no lot covers pays its share of the fee and opens nothing.
   */
  fill(symbol: string, qty: number, price: number, fee: number, at: number, mark = price, key = symbol): void {
    this.#close(key, symbol, qty, price, fee, at, mark);
  }

  /**
   * What is ours of position `key` was closed elsewhere (by hand, by another process): `qty` signed
   * like a fill that closes it, realized at `price` (the mark then; the venue's price is not ours to
   * know), no fee.
   */
  closeAt(key: string, symbol: string, qty: number, price: number, at: number): void {
    if (price > 0) return void this.#close(key, symbol, qty, price, 0, at, price);
    // No mark to value it at: each piece closes at its own entry, realizing nothing.
    let rest = qty;
    const lots = this.#lots.get(key);
    while (lots !== undefined && lots.length > 0 && Math.abs(rest) > EPS && Math.sign(lots[0]!.qty) !== Math.sign(rest)) {
      const lot = lots[0]!;
      const piece = Math.sign(rest) * Math.min(Math.abs(rest), Math.abs(lot.qty));
      this.#close(key, symbol, piece, lot.price, 0, at, lot.price);
      rest -= piece;
    }
  }

  /** A claim's open lots of `symbol` moved from position `from` to `to` (its margin mode became known). */
  moveClaim(claimId: number, from: string, to: string): void {
    const lots = this.#lots.get(from);
    if (lots === undefined || from === to) return;
    const moving = lots.filter((l) => l.claimId === claimId);
    if (moving.length === 0) return;
    const staying = lots.filter((l) => l.claimId !== claimId);
    if (staying.length === 0) this.#lots.delete(from);
    else this.#lots.set(from, staying);
    const dest = this.#lots.get(to);
    if (dest === undefined) this.#lots.set(to, moving);
    else dest.push(...moving);
  }

  /**
   * A claim booked at an estimate (`qty` at `from`: a lean answer's request at its limit price) whose
   * transfer price turned out `to`: its open lots take the true price, and what it realized on the part
   * already closed is corrected by (from − to) per unit, signed by the side.
   */
  reprice(claimId: number, key: string, qty: number, from: number, to: number, at: number): void {
    let open = 0;
    for (const lot of this.#lots.get(key) ?? []) {
      if (lot.claimId !== claimId || lot.price !== from) continue;
      open += lot.qty;
      lot.price = to;
    }
    const closed = qty - open;
    if (Math.abs(closed) <= EPS) return;
    const c = this.#claims.get(claimId);
    const correction = closed * (from - to);
    const symbol = symbolOfKey(key);
    if (c !== undefined) c.trading += correction;
    else this.#unattributed.trading += correction;
    this.#add(symbol, utcDay(at), 0, correction, 0);
  }

  /** Quantity held of `symbol` by the lots, every position of it (what the ledger believes is open). */
  held(symbol: string): number {
    let q = 0;
    for (const lots of this.#lots.values()) for (const lot of lots) if (lot.symbol === symbol) q += lot.qty;
    return q;
  }

  /** Quantity held by the lots of one position key. */
  heldAt(key: string): number {
    let q = 0;
    for (const lot of this.#lots.get(key) ?? []) q += lot.qty;
    return q;
  }

  /** Unrealized P&L of the open lots at `mark(symbol)`; symbols without a mark count 0. */
  unrealized(mark: (symbol: string) => number | undefined): number {
    let u = 0;
    for (const lots of this.#lots.values()) {
      const m = lots.length === 0 ? undefined : mark((lots[0] as Lot).symbol);
      if (m === undefined || !Number.isFinite(m)) continue;
      for (const lot of lots) u += lot.qty * (m - lot.price);
    }
    return u;
  }

  /** Unrealized P&L of the open lots per claim that opened them, at `mark(symbol)` (one walk of the lots). */
  unrealizedByClaim(mark: (symbol: string) => number | undefined): Map<number, number> {
    const out = new Map<number, number>();
    for (const lots of this.#lots.values()) {
      const m = lots.length === 0 ? undefined : mark((lots[0] as Lot).symbol);
      if (m === undefined || !Number.isFinite(m)) continue;
      for (const lot of lots) {
        if (lot.claimId !== undefined) out.set(lot.claimId, (out.get(lot.claimId) ?? 0) + lot.qty * (m - lot.price));
      }
    }
    return out;
  }

  totals(): PnlTotals {
    const t = { ...this.#unattributed };
    t.liquidatorFee += this.#folded.liquidatorFee;
    t.trading += this.#folded.trading;
    t.fees += this.#folded.fees;
    for (const c of this.#claims.values()) {
      t.liquidatorFee += c.liquidatorFee;
      t.trading += c.trading;
      t.fees += c.fees;
    }
    t.net = t.liquidatorFee + t.trading - t.fees;
    return t;
  }

  claims(): ClaimPnl[] {
    return [...this.#claims.values()];
  }

  byDay(): Map<string, PnlTotals> {
    return this.#byDay;
  }

  bySymbol(): Map<string, PnlTotals> {
    return this.#bySymbol;
  }

  #claim(claimId: number, at: number): ClaimPnl {
    let c = this.#claims.get(claimId);
    if (c === undefined) {
      c = { claimId, day: utcDay(at), symbols: new Set(), liquidatorFee: 0, trading: 0, fees: 0, drift: 0, open: new Map() };
      this.#claims.set(claimId, c);
    }
    return c;
  }

  #open(key: string, symbol: string, claimId: number | undefined, qty: number, price: number): void {
    const lots = this.#lots.get(key);
    if (lots === undefined) this.#lots.set(key, [{ claimId, qty, price, symbol }]);
    else lots.push({ claimId, qty, price, symbol });
    if (claimId !== undefined) {
      const c = this.#claims.get(claimId) as ClaimPnl;
      c.open.set(symbol, (c.open.get(symbol) ?? 0) + qty);
      this.#lotCount.set(claimId, (this.#lotCount.get(claimId) ?? 0) + 1);
    }
  }

  /** Close lots of `key` opposite to `qty` (FIFO) at `price`; returns what is left of `qty`. */
  #close(key: string, symbol: string, qty: number, price: number, fee: number, at: number, mark: number): number {
    const lots = this.#lots.get(key);
    let rest = qty;
    const total = Math.abs(qty);
    const day = utcDay(at);
    while (lots !== undefined && lots.length > 0 && Math.abs(rest) > EPS && Math.sign(lots[0]!.qty) !== Math.sign(rest)) {
      const lot = lots[0]!;
      const closed = Math.min(Math.abs(lot.qty), Math.abs(rest));
      const side = Math.sign(lot.qty);
      const trading = closed * (price - lot.price) * side;
      const feeShare = total > 0 ? (fee * closed) / total : 0;
      this.#realize(lot.claimId, symbol, day, trading, feeShare, -side * closed, closed * (mark - lot.price) * side);
      lot.qty -= side * closed;
      rest += side * closed;
      if (Math.abs(lot.qty) <= EPS) {
        lots.shift();
        if (lots.length === 0) this.#lots.delete(key);
        if (lot.claimId !== undefined) this.#lotClosed(lot.claimId);
      }
    }
    // A fee on a quantity no lot held (the ledger saw no claim for it) still costs.
    if (total > 0 && Math.abs(rest) > EPS) this.#realize(undefined, symbol, day, 0, (fee * Math.abs(rest)) / total, 0, 0);
    return rest;
  }

  #realize(
    claimId: number | undefined,
    symbol: string,
    day: string,
    trading: number,
    fees: number,
    openDelta: number,
    drift: number,
  ): void {
    const c = claimId === undefined ? undefined : this.#claims.get(claimId);
    if (c === undefined) {
      this.#unattributed.trading += trading;
      this.#unattributed.fees += fees;
    } else {
      c.trading += trading;
      c.fees += fees;
      c.drift += drift;
      c.open.set(symbol, (c.open.get(symbol) ?? 0) + openDelta);
    }
    this.#add(symbol, day, 0, trading, fees);
  }

  #lotClosed(claimId: number): void {
    const n = (this.#lotCount.get(claimId) ?? 1) - 1;
    if (n > 0) return void this.#lotCount.set(claimId, n);
    this.#lotCount.delete(claimId);
    this.#foldIfClosed(claimId);
  }

  /** A claim with no open lot, when closed claims are not kept: its numbers join the folded totals. */
  #foldIfClosed(claimId: number): void {
    if (this.#lotCount.has(claimId)) return;
    const c = this.#claims.get(claimId);
    if (c === undefined) return;
    this.#closed?.(c);
    if (this.#keepClosed) return;
    this.#folded.liquidatorFee += c.liquidatorFee;
    this.#folded.trading += c.trading;
    this.#folded.fees += c.fees;
    this.#claims.delete(claimId);
  }

  /** Every claim and fill lands here: two lookups, no allocation once the day and symbol exist. */
  #add(symbol: string, day: string, liquidatorFee: number, trading: number, fees: number): void {
    bump(this.#byDay, day, liquidatorFee, trading, fees);
    bump(this.#bySymbol, symbol, liquidatorFee, trading, fees);
  }
}
