/**
 * Exposure accounting (docs/architecture.md "Exposure").
 *
 * Per symbol the book keeps the signed quantity held (the venue's view: claim results add to it,
 * `position` pushes replace it) and the claims reserved but not yet settled, split by side:
 * `long` = Σ of positive reserved quantities, `short` = Σ of negative ones. Each reservation may
 * still succeed or fail, so the position can end anywhere in [held + short, held + long]; the
 * symbol's exposure is the worst case, max(|held + long|, |held + short|) × mark. A claim on the
 * opposite side of what is held therefore never lowers exposure before it is settled (it might fail)
 * but it does not raise it either: counted conservatively, never undercounted. A burst of decisions
 * sees the reservations of the decisions before it, so it cannot pass the cap on one empty book.
 *
 * Margin modes (docs/protocol.md §9): a cross and an isolated position of one symbol are two
 * positions that do not net, so each counts by its own size. `held` is the cross one, `isolated` the
 * isolated one, `pending` what a claim transferred before any report said which mode it landed in.
 * A claim in flight lands wholly in one mode; the worst case is taken over the modes it can land in
 * (cross, and isolated while one is held), the others counted at their absolute size. A claim
 * landing in isolated with nothing isolated held yet is not foreseen: the venue's default mode is
 * cross, and the report that follows the claim puts it right.
 *
 * Longer than most files: the book of held and reserved quantity per symbol and margin mode; its
 * operations keep one invariant (the worst case is never undercounted); what a claim may add is
 * claimRoom.ts.
 */
import type { MarginMode, PriceSource } from "./types.js";

/** Read-only view of one symbol's book. */
export interface ExposureView {
  readonly symbol: string;
  /** Signed quantity held in cross margin. */
  readonly held: number;
  /** Σ of positive reserved quantities (≥ 0). */
  readonly long: number;
  /** Σ of negative reserved quantities (≤ 0). */
  readonly short: number;
  /** Signed quantity held in isolated margin (0 when absent). */
  readonly isolated?: number;
  /** Signed quantity claimed whose margin mode no venue report has told yet (0 when absent). */
  readonly pending?: number;
}

interface Entry extends ExposureView {
  held: number;
  isolated: number;
  pending: number;
  long: number;
  short: number;
  /** How many reservations touch this symbol (0 → long/short reset to exact zeros). */
  refs: number;
  /** Price to use when the mark book has none (from a `position` push), NaN if none. */
  fallbackPrice: number;
  /** Index in `list` (swap-remove). */
  index: number;
  /** The live mark record of `markFrom` (PriceSource.get), held so the total needs no lookups. */
  mark: { readonly price: number } | undefined;
  markFrom: PriceSource | undefined;
}

interface Reservation {
  readonly symbols: string[];
  readonly qty: number[];
}

/** A held position as a `position` push reports it (mapped by the daemon). */
export interface HeldPositionInput {
  readonly symbol: string;
  readonly positionQty: number;
  /** The push's `markPrice`, used only when the mark book has no price for the symbol. */
  readonly markPrice?: number;
  /** The row's margin mode; absent = CROSS. */
  readonly marginMode?: MarginMode;
}

/** Worst-case absolute quantity of an entry (see the file comment for the margin modes). */
export function worstQty(e: ExposureView): number {
  const iso = e.isolated ?? 0;
  const pending = e.pending ?? 0;
  const up = Math.abs(e.held + e.long);
  const down = Math.abs(e.held + e.short);
  const cross = (up > down ? up : down) + Math.abs(iso) + Math.abs(pending);
  if (iso === 0) return cross;
  const isoUp = Math.abs(iso + e.long);
  const isoDown = Math.abs(iso + e.short);
  const isolated = (isoUp > isoDown ? isoUp : isoDown) + Math.abs(e.held) + Math.abs(pending);
  return cross > isolated ? cross : isolated;
}

export class Exposure {
  private readonly bySymbol = new Map<string, Entry>();
  // Dense array of the same entries: the total is summed on every decision, and an array walk is
  // cheaper than a Map iterator.
  private readonly list: Entry[] = [];
  private readonly reservations = new Map<number, Reservation>();
  #version = 0;

  /**
   * Changes whenever a quantity or a fallback price in the book does (every mutating call counts):
   * a memo of something computed from the book (claimMargin.ts) is current while it is unchanged.
   */
  get version(): number {
    return this.#version;
  }

  private entry(symbol: string): Entry {
    let e = this.bySymbol.get(symbol);
    if (e === undefined) {
      e = {
        symbol,
        held: 0,
        isolated: 0,
        pending: 0,
        long: 0,
        short: 0,
        refs: 0,
        fallbackPrice: Number.NaN,
        index: this.list.length,
        mark: undefined,
        markFrom: undefined,
      };
      this.bySymbol.set(symbol, e);
      this.list.push(e);
    }
    return e;
  }

  private dropIfEmpty(e: Entry): void {
    if (e.held !== 0 || e.isolated !== 0 || e.pending !== 0 || e.refs !== 0) return;
    this.bySymbol.delete(e.symbol);
    const last = this.list.pop() as Entry;
    if (last !== e) {
      this.list[e.index] = last;
      last.index = e.index;
    }
  }

  /** This symbol's book, or undefined when nothing is held or reserved in it. */
  get(symbol: string): ExposureView | undefined {
    return this.bySymbol.get(symbol);
  }

  /** The held quantity of one symbol's position in `mode` (cross by default). */
  heldQty(symbol: string, mode: MarginMode = "CROSS"): number {
    const e = this.bySymbol.get(symbol);
    if (e === undefined) return 0;
    return mode === "CROSS" ? e.held : e.isolated;
  }

  /** Σ over the symbol's positions (both modes, and what is not yet attributed): the `position{symbol}` series. */
  netQty(symbol: string): number {
    const e = this.bySymbol.get(symbol);
    return e === undefined ? 0 : e.held + e.isolated + e.pending;
  }

  /** What claims transferred into `symbol` that no report has attributed to a margin mode yet. */
  pendingQty(symbol: string): number {
    return this.bySymbol.get(symbol)?.pending ?? 0;
  }

  /** Replace the held quantity of one symbol's position in `mode` (the venue's view wins). */
  setHeld(symbol: string, qty: number, markPrice?: number, mode: MarginMode = "CROSS"): void {
    if (!Number.isFinite(qty)) throw new RangeError(`held quantity of ${symbol} must be finite`);
    this.#version++;
    const e = this.entry(symbol);
    if (mode === "CROSS") e.held = qty === 0 ? 0 : qty;
    else e.isolated = qty === 0 ? 0 : qty;
    if (markPrice !== undefined && Number.isFinite(markPrice) && markPrice > 0) e.fallbackPrice = markPrice;
    this.dropIfEmpty(e);
  }

  /**
   * Apply a `position` push: each listed symbol's held quantity is replaced. With `complete` the
   * list is the whole account, so every symbol not listed is held at 0. Entries with a non-finite
   * quantity are ignored (returned count excludes them).
   */
  applyPositions(positions: readonly HeldPositionInput[], complete: boolean): number {
    let applied = 0;
    const listed = complete ? new Set<string>() : undefined;
    for (const p of positions) {
      if (!Number.isFinite(p.positionQty)) continue;
      const mode = p.marginMode ?? "CROSS";
      this.setHeld(p.symbol, p.positionQty, p.markPrice, mode);
      listed?.add(`${p.symbol} ${mode}`);
      applied++;
    }
    if (listed !== undefined) {
      for (const e of [...this.list]) {
        if (!listed.has(`${e.symbol} CROSS`) && e.held !== 0) this.setHeld(e.symbol, 0);
        if (!listed.has(`${e.symbol} ISOLATED`) && e.isolated !== 0) this.setHeld(e.symbol, 0, undefined, "ISOLATED");
      }
    }
    return applied;
  }

  /**
   * Reserve the signed quantities a claim would take (`Decision.perSymbolQty`). A second reserve on
   * the same id replaces the first (a re-decided claim).
   */
  reserve(liquidationId: number, perSymbolQty: Readonly<Record<string, number>>): void {
    const symbols = Object.keys(perSymbolQty);
    for (const symbol of symbols) {
      if (!Number.isFinite(perSymbolQty[symbol])) throw new RangeError(`reserved quantity of ${symbol} must be finite`);
    }
    this.release(liquidationId);
    this.#version++;
    const r: Reservation = { symbols: [], qty: [] };
    for (const symbol of symbols) {
      const q = perSymbolQty[symbol] as number;
      if (q === 0) continue;
      const e = this.entry(symbol);
      if (q > 0) e.long += q;
      else e.short += q;
      e.refs++;
      r.symbols.push(symbol);
      r.qty.push(q);
    }
    this.reservations.set(liquidationId, r);
  }

  /** Drop a reservation (claim refused, skipped after a late re-check, or gone). False if none. */
  release(liquidationId: number): boolean {
    const r = this.reservations.get(liquidationId);
    if (r === undefined) return false;
    this.#version++;
    this.reservations.delete(liquidationId);
    for (let i = 0; i < r.symbols.length; i++) {
      const e = this.bySymbol.get(r.symbols[i] as string);
      if (e === undefined) continue;
      const q = r.qty[i] as number;
      e.refs--;
      if (e.refs <= 0) {
        // Exact zeros: repeated += / -= would otherwise leave float dust that counts as exposure.
        e.refs = 0;
        e.long = 0;
        e.short = 0;
      } else if (q > 0) {
        e.long = Math.max(0, e.long - q);
      } else {
        e.short = Math.min(0, e.short - q);
      }
      this.dropIfEmpty(e);
    }
    return true;
  }

  /**
   * A claim settled: its reservation is released and what the venue actually transferred (signed
   * quantity per symbol, from the claim result's `positions_by_perp`) is added to what is held in
   * `mode`, or with `PENDING` to the symbol's pending quantity until a report tells the mode. A
   * later `position` push replaces these quantities with the venue's own. Returns whether a
   * reservation existed (the quantities are added either way: the venue transferred them).
   */
  commit(liquidationId: number, actual: Readonly<Record<string, number>>, mode: MarginMode | "PENDING" = "CROSS"): boolean {
    const had = this.release(liquidationId);
    this.#version++;
    for (const symbol of Object.keys(actual)) {
      const q = actual[symbol] as number;
      if (!Number.isFinite(q) || q === 0) continue;
      const e = this.entry(symbol);
      if (mode === "CROSS")
        e.held = e.held + q || 0; // || 0: no -0
      else if (mode === "ISOLATED") e.isolated = e.isolated + q || 0;
      else e.pending = e.pending + q || 0;
      this.dropIfEmpty(e);
    }
    return had;
  }

  /** A report told the mode of what claims transferred into `symbol`: the report's quantities hold it now. */
  clearPending(symbol: string): void {
    const e = this.bySymbol.get(symbol);
    if (e === undefined || e.pending === 0) return;
    this.#version++;
    e.pending = 0;
    this.dropIfEmpty(e);
  }

  /** How many reservations touch `symbol`. */
  reservationsOn(symbol: string): number {
    return this.bySymbol.get(symbol)?.refs ?? 0;
  }

  hasReservation(liquidationId: number): boolean {
    return this.reservations.has(liquidationId);
  }

  /** Copy of a reservation's signed quantities, or undefined. */
  reservation(liquidationId: number): Record<string, number> | undefined {
    const r = this.reservations.get(liquidationId);
    if (r === undefined) return undefined;
    const out: Record<string, number> = {};
    for (let i = 0; i < r.symbols.length; i++) out[r.symbols[i] as string] = r.qty[i] as number;
    return out;
  }

  get reservationCount(): number {
    return this.reservations.size;
  }

  private priceOf(e: Entry, prices: PriceSource): number {
    if (e.mark === undefined || e.markFrom !== prices) {
      e.mark = prices.get?.(e.symbol);
      e.markFrom = prices;
      if (e.mark === undefined) {
        const p = prices.price(e.symbol);
        return p !== undefined ? p : e.fallbackPrice;
      }
    }
    return e.mark.price;
  }

  /** Worst-case notional of one symbol at its mark; 0 when empty, NaN when it has no price at all. */
  symbolNotional(symbol: string, prices: PriceSource): number {
    const e = this.bySymbol.get(symbol);
    if (e === undefined) return 0;
    const w = worstQty(e);
    return w === 0 ? 0 : w * this.priceOf(e, prices);
  }

  /**
   * Σ worst-case notional over every symbol. Infinity when a symbol with exposure has no price at
   * all: an exposure that cannot be valued must block new claims, not count as zero.
   */
  totalNotional(prices: PriceSource): number {
    let total = 0;
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const e = list[i] as Entry;
      const w = worstQty(e);
      if (w === 0) continue;
      const p = this.priceOf(e, prices);
      if (!(p > 0) || p === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
      total += w * p;
    }
    return total;
  }

  /** How many symbols have something held or reserved: `viewAt` / `priceAt` walk them without allocating. */
  get symbolCount(): number {
    return this.list.length;
  }

  /** The i-th symbol's book (0 ≤ i < symbolCount); valid until the book next changes. */
  viewAt(i: number): ExposureView {
    return this.list[i] as Entry;
  }

  /** The i-th symbol's price: its mark, else the last push's mark price, else NaN. */
  priceAt(i: number, prices: PriceSource): number {
    return this.priceOf(this.list[i] as Entry, prices);
  }

  /** Every symbol with something held or reserved (for the `exposure_notional{symbol}` gauges). */
  symbols(): string[] {
    return this.list.map((e) => e.symbol);
  }

  /** Copies of every symbol's book (journal snapshots, logs). */
  snapshot(): ExposureView[] {
    return this.list.map((e) => ({
      symbol: e.symbol,
      held: e.held,
      long: e.long,
      short: e.short,
      ...(e.isolated !== 0 ? { isolated: e.isolated } : {}),
      ...(e.pending !== 0 ? { pending: e.pending } : {}),
    }));
  }
}
