/**
 * What claims assigned and the unwinder has not closed yet, per position (symbol and margin mode,
 * signed): with `unwind.scope: claimed` the unwinder closes at most this much, so positions the
 * operator holds on the same account are left alone. Rebuilt from the journal at start (and by a
 * new leader): claim outcomes carry the quantity per symbol, unwind fills the quantity traded per
 * order (whose intent names the mode), and two records of its own say what the others cannot:
 *
 * - `claim_mode`: the claim's answer does not say which margin mode the quantity landed in. The
 *   venue's next report of the symbol does: the position that moved the claim's way took it
 *   (oldest claim first). A claim a report already included is put where a position of its sign is
 *   (cross first, the venue's default).
 * - `claimed_base`: the cumulative totals at which a position's claimed quantity is settled. Written
 *   when the venue reports the position flat or on the other side (the operator closed it by hand,
 *   or a report beat the fill), and when a fill would take what is owed past zero: what was owed
 *   before is done, and nothing of the operator's is ever unwound for it.
 *
 * What the unwinder may close (`target`) is never more than the position, never past zero, and never
 * of the other sign: a position of the operator's on the other side, netted with a claim, is closed
 * at most to flat, never flipped.
 */
import type { PositionBook } from "../engine/positionBook.js";
import { roundQty } from "../engine/quantize.js";
import type { Fill, MarginMode } from "../engine/types.js";
import { MARGIN_MODES } from "../engine/types.js";
import { hasId } from "../store/journalFolder.js";
import type { ClaimedBaseRecord, ClaimModeRecord, JournalReplay, OrderFillRecord } from "../store/journalRecords.js";

/** Below this a quantity is float noise from summing fills. */
const EPSILON = 1e-9;

interface Totals {
  /** Cumulative signed quantity claims put in the position. */
  claimed: number;
  /** Cumulative signed quantity its unwind orders traded. */
  unwound: number;
  baseClaimed: number;
  baseUnwound: number;
}

interface Unplaced {
  id: number;
  qty: number;
}

export interface ClaimedPositionsOptions {
  positions: Pick<PositionBook, "held" | "pending" | "known" | "onChange" | "positions">;
  /** Journal one of this ledger's own records (it is folded in by the caller through `record`). */
  journal(record: ClaimModeRecord | ClaimedBaseRecord): void;
  /** Whether this replica writes (a standby's ledger is rebuilt when it is elected). */
  mayWrite(): boolean;
  /** Told when what may be unwound of a position changed. */
  changed(symbol: string, mode: MarginMode): void;
  now?: () => number;
}

const key = (symbol: string, mode: MarginMode): string => `${symbol} ${mode}`;
const sign = (x: number): number => (Math.abs(x) < EPSILON ? 0 : Math.sign(x));

export class ClaimedPositions {
  readonly #o: ClaimedPositionsOptions;
  readonly #now: () => number;
  readonly #totals = new Map<string, Totals>();
  /** Claims whose margin mode no report has said yet, per symbol, oldest first. */
  readonly #unplaced = new Map<string, Unplaced[]>();
  /** Claim ids folded in (a claim is counted once, whichever outcome carried its fills). */
  readonly #claims = new Set<number>();
  /** The mode each placed claim's symbol went to, keyed `${id} ${symbol}`. */
  readonly #modes = new Map<string, MarginMode>();
  /** Mode and symbol of each unwind order (from its intent). */
  readonly #orders = new Map<string, MarginMode>();
  /** Claims counted at their requested quantities until their fills are known (`claimRequested`). */
  readonly #provisional = new Map<number, { symbol: string; qty: number }[]>();
  /** Ids settled in compacted history (sorted): already in the totals, never counted again. */
  #done: readonly number[] = [];

  constructor(options: ClaimedPositionsOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    options.positions.onChange((symbol, qty, before, mode) => this.#reported(symbol, mode, qty - before));
  }

  /** Start over from a journal replay (at start, or when this replica is elected). */
  fromReplay(replay: JournalReplay): void {
    this.#totals.clear();
    this.#unplaced.clear();
    this.#claims.clear();
    this.#modes.clear();
    this.#orders.clear();
    this.#provisional.clear();
    this.#done = [];
    const done = replay.done ?? [];
    for (const [k, r] of replay.claimed.modes) this.#modes.set(k, r.marginMode);
    this.#fromFolded(replay);
    for (const [cid, intent] of replay.orders.intents) this.#orders.set(cid, intent.marginMode ?? "CROSS");
    for (const [id, outcomes] of replay.outcomes) {
      // Settled in compacted history (a late push) unless claimed again since (its intent is here).
      if (hasId(done, id) && !replay.intents.has(id)) continue;
      const settled = outcomes.find((o) => (o.result === "accepted" || o.result === "confirmed") && o.fills !== undefined);
      if (settled?.fills !== undefined) this.claim(id, settled.fills);
      else if (outcomes.some((o) => o.result === "accepted")) {
        const intent = replay.intents.get(id);
        if (intent !== undefined) this.claimRequested(id, intent.perSymbolQty);
      }
    }
    for (const fill of replay.orders.fills) this.#fill(fill);
    this.#done = done;
    for (const b of replay.claimed.bases.values()) {
      const t = this.#at(b.symbol, b.marginMode);
      t.baseClaimed = b.claimed;
      t.baseUnwound = b.unwound;
    }
  }

  /** The accounting of compacted history (journalFolder.ts): what the records replayed next continue. */
  #fromFolded(replay: JournalReplay): void {
    const folded = replay.claimed.folded;
    if (folded === undefined) return;
    for (const [k, t] of folded.totals) this.#totals.set(k, { ...t });
    for (const [cid, mode] of folded.orders) this.#orders.set(cid, mode);
    for (const [symbol, list] of folded.unplaced) {
      for (const u of list) {
        const mode = this.#modes.get(`${u.id} ${symbol}`);
        if (mode !== undefined) this.#at(symbol, mode).claimed += u.qty;
        else this.#unplaced.set(symbol, [...(this.#unplaced.get(symbol) ?? []), { ...u }]);
      }
    }
  }

  /** A claim settled with these fills (its answer, or the private push that confirmed it). */
  claim(id: number, fills: readonly Fill[]): void {
    const provisional = this.#provisional.get(id);
    if (provisional !== undefined) return this.#correct(id, provisional, fills);
    if (this.#claims.has(id) || hasId(this.#done, id)) return;
    this.#claims.add(id);
    this.#add(id, fills);
  }

  /**
   * A claim applied by a lean answer (PROTOCOL §9) whose fills are not known yet: counted at the
   * quantities requested, an upper bound (the venue transfers the ratio of what is still open, never
   * more), until the private push's fills correct it. Without that push the requested quantities
   * stand: the unwinder still closes at most what is held.
   */
  claimRequested(id: number, perSymbolQty: Readonly<Record<string, number>>): void {
    if (this.#claims.has(id) || hasId(this.#done, id)) return;
    this.#claims.add(id);
    const requested = Object.entries(perSymbolQty).map(([symbol, qty]) => ({ symbol, qty }));
    this.#provisional.set(id, requested);
    this.#add(id, requested);
  }

  #add(id: number, fills: readonly { symbol: string; qty: number }[]): void {
    for (const f of fills) {
      if (f.qty === 0) continue;
      const mode = this.#modes.get(`${id} ${f.symbol}`);
      if (mode !== undefined) {
        this.#at(f.symbol, mode).claimed += f.qty;
        continue;
      }
      const list = this.#unplaced.get(f.symbol) ?? [];
      list.push({ id, qty: f.qty });
      this.#unplaced.set(f.symbol, list);
      // Not waiting for a report (one already included it): placed by what is held now.
      if (this.#o.positions.pending(f.symbol) === 0) this.#placeByHeld(f.symbol);
    }
  }

  /** The fills of a claim counted at its requested quantities: the difference, where it went. */
  #correct(id: number, provisional: readonly { symbol: string; qty: number }[], fills: readonly Fill[]): void {
    this.#provisional.delete(id);
    const delta = new Map<string, number>();
    for (const p of provisional) delta.set(p.symbol, (delta.get(p.symbol) ?? 0) - p.qty);
    for (const f of fills) delta.set(f.symbol, (delta.get(f.symbol) ?? 0) + f.qty);
    for (const [symbol, d] of delta) {
      if (sign(d) === 0) continue;
      const mode = this.#modes.get(`${id} ${symbol}`);
      if (mode !== undefined) {
        this.#at(symbol, mode).claimed += d;
        this.#checkGone(symbol, mode);
        this.#o.changed(symbol, mode);
        continue;
      }
      const u = this.#unplaced.get(symbol)?.find((x) => x.id === id);
      if (u !== undefined) u.qty += d;
      else this.#add(id, [{ symbol, qty: d }]);
    }
  }

  /** An unwind order's intent (its margin mode). */
  orderIntent(clientOrderId: string, mode: MarginMode | undefined): void {
    this.#orders.set(clientOrderId, mode ?? "CROSS");
  }

  /** A trade of an unwind order. */
  fill(record: OrderFillRecord): void {
    const mode = this.#fill(record);
    if (mode === undefined) return;
    const t = this.#at(record.symbol, mode);
    const after = owedOf(t);
    const before = after - record.qty;
    // What is owed never passes zero: a fill past it (a report beat it, rounding) settles the position.
    if (sign(before) !== 0 && sign(after) !== sign(before)) this.#settle(record.symbol, mode);
    else if (sign(before) === 0 && sign(after) !== 0) this.#settle(record.symbol, mode);
    this.#o.changed(record.symbol, mode);
  }

  /** Signed quantity claims assigned to the position and not unwound yet. */
  owed(symbol: string, mode: MarginMode): number {
    const t = this.#totals.get(key(symbol, mode));
    return t === undefined ? 0 : roundQty(owedOf(t));
  }

  /** Claimed quantity of `symbol` whose margin mode is not known yet. */
  unplaced(symbol: string): number {
    return roundQty((this.#unplaced.get(symbol) ?? []).reduce((s, u) => s + u.qty, 0));
  }

  /**
   * The part of `held` the unwinder may close: what is owed, no more than the position, none of it
   * when the position is on the other side.
   */
  target(symbol: string, mode: MarginMode, held: number): number {
    if (this.#unplaced.has(symbol) && this.#o.positions.pending(symbol) === 0) this.#placeByHeld(symbol);
    const owed = this.owed(symbol, mode);
    if (sign(owed) === 0 || sign(held) !== sign(owed)) return 0;
    return sign(held) * Math.min(Math.abs(held), Math.abs(owed));
  }

  /** The part of `held` no claim explains (the operator's own). */
  unexplained(symbol: string, mode: MarginMode, held: number): number {
    return roundQty(held - this.target(symbol, mode, held));
  }

  /** Every position with a part no claim explains (claims whose mode is not known yet are counted against their symbol). */
  unexplainedPositions(): { symbol: string; marginMode: MarginMode; qty: number }[] {
    const out: { symbol: string; marginMode: MarginMode; qty: number }[] = [];
    for (const { symbol, mode } of this.#o.positions.positions()) {
      const held = this.#o.positions.held(symbol, mode);
      let qty = this.unexplained(symbol, mode, held);
      const unplaced = this.unplaced(symbol);
      if (sign(unplaced) === sign(qty)) qty = sign(qty) * Math.max(0, Math.abs(qty) - Math.abs(unplaced));
      if (sign(qty) !== 0) out.push({ symbol, marginMode: mode, qty: roundQty(qty) });
    }
    return out;
  }

  /** Every symbol with something owed or unplaced. */
  symbols(): string[] {
    const out = new Set<string>(this.#unplaced.keys());
    for (const [k, t] of this.#totals) if (sign(owedOf(t)) !== 0) out.add(k.slice(0, k.indexOf(" ")));
    return [...out];
  }

  /** Settle positions the venue reports flat or on the other side (after a start or an election). */
  reconcile(): void {
    for (const [k, t] of this.#totals) {
      const [symbol, mode] = k.split(" ") as [string, MarginMode];
      if (sign(owedOf(t)) !== 0) this.#checkGone(symbol, mode);
    }
    for (const symbol of [...this.#unplaced.keys()]) if (this.#o.positions.pending(symbol) === 0) this.#placeByHeld(symbol);
  }

  #fill(record: OrderFillRecord): MarginMode | undefined {
    const mode = this.#orders.get(record.clientOrderId);
    if (mode === undefined) return undefined;
    this.#at(record.symbol, mode).unwound += record.qty;
    return mode;
  }

  /** A report moved the position by `delta`: unplaced claims of its sign landed there. */
  #reported(symbol: string, mode: MarginMode, delta: number): void {
    const list = this.#unplaced.get(symbol);
    if (list !== undefined && sign(delta) !== 0) {
      let left = delta;
      while (list.length > 0 && sign(left) === sign(list[0]?.qty ?? 0)) {
        const u = list.shift() as Unplaced;
        this.#place(symbol, u, mode);
        left -= u.qty;
      }
      if (list.length === 0) this.#unplaced.delete(symbol);
    }
    this.#checkGone(symbol, mode);
    this.#o.changed(symbol, mode);
  }

  /** No report to place them by: where a position of their sign is held, cross first. */
  #placeByHeld(symbol: string): void {
    const list = this.#unplaced.get(symbol);
    if (list === undefined || !this.#o.positions.known || !this.#o.mayWrite()) return;
    this.#unplaced.delete(symbol);
    for (const u of list) {
      const mode = MARGIN_MODES.find((m) => sign(this.#o.positions.held(symbol, m)) === sign(u.qty)) ?? "CROSS";
      this.#place(symbol, u, mode);
    }
    for (const mode of MARGIN_MODES) {
      this.#checkGone(symbol, mode);
      this.#o.changed(symbol, mode);
    }
  }

  #place(symbol: string, u: Unplaced, mode: MarginMode): void {
    this.#modes.set(`${u.id} ${symbol}`, mode);
    this.#at(symbol, mode).claimed += u.qty;
    if (this.#o.mayWrite()) this.#o.journal({ t: "claim_mode", id: u.id, symbol, marginMode: mode, at: this.#now() });
  }

  /** Owed but the venue holds nothing of it (flat, or the other side): settled. */
  #checkGone(symbol: string, mode: MarginMode): void {
    const t = this.#totals.get(key(symbol, mode));
    if (t === undefined || !this.#o.positions.known) return;
    const owed = owedOf(t);
    if (sign(owed) !== 0 && sign(this.#o.positions.held(symbol, mode)) !== sign(owed)) this.#settle(symbol, mode);
  }

  #settle(symbol: string, mode: MarginMode): void {
    if (!this.#o.mayWrite()) return;
    const t = this.#at(symbol, mode);
    t.baseClaimed = t.claimed;
    t.baseUnwound = t.unwound;
    this.#o.journal({ t: "claimed_base", symbol, marginMode: mode, claimed: t.claimed, unwound: t.unwound, at: this.#now() });
  }

  #at(symbol: string, mode: MarginMode): Totals {
    const k = key(symbol, mode);
    let t = this.#totals.get(k);
    if (t === undefined) {
      t = { claimed: 0, unwound: 0, baseClaimed: 0, baseUnwound: 0 };
      this.#totals.set(k, t);
    }
    return t;
  }
}

function owedOf(t: Totals): number {
  return t.claimed - t.baseClaimed + (t.unwound - t.baseUnwound);
}
