/**
 * The liquidations open for claims right now, as far as this daemon knows. Fed by two sources
 * that can disagree in time: `liquidation` stream deltas (fast, may be missed across reconnects)
 * and `GET /v1/public/liquidation` snapshots (the source of truth, docs/protocol.md §5, but slower and
 * possibly older than a push received while the snapshot was in flight).
 */
import { samePositions } from "../../engine/liquidationPositions.js";
import type { Liquidation } from "../../engine/types.js";

interface BookEntry {
  liquidation: Liquidation;
  /** Local time this entry was last set from either source. */
  updatedAt: number;
}

export interface BookChanges {
  /** New or changed liquidations (with their remaining quantities). */
  upserted: Liquidation[];
  /** Ids no longer open. */
  removed: number[];
  /** How many of `upserted` were not in the book before. */
  added: number;
}

export class OpenBook {
  readonly #entries = new Map<number, BookEntry>();
  /**
   * Ids removed (by a push or after a -1202) and when, kept until a snapshot requested after the
   * removal has been applied: an older snapshot still lists them and must not bring them back.
   */
  readonly #removedAt = new Map<number, number>();

  get size(): number {
    return this.#entries.size;
  }

  get(id: number): Liquidation | undefined {
    return this.#entries.get(id)?.liquidation;
  }

  has(id: number): boolean {
    return this.#entries.has(id);
  }

  ids(): IterableIterator<number> {
    return this.#entries.keys();
  }

  values(): Liquidation[] {
    return [...this.#entries.values()].map((e) => e.liquidation);
  }

  /** A `liquidation` push: entries with open positions are set, one without is a removal. */
  applyDelta(liquidations: readonly Liquidation[], now: number): BookChanges {
    const changes: BookChanges = { upserted: [], removed: [], added: 0 };
    for (const liquidation of liquidations) {
      const id = liquidation.liquidationId;
      if (!isOpen(liquidation)) {
        if (this.#entries.delete(id)) changes.removed.push(id);
        this.#removedAt.set(id, now);
        continue;
      }
      this.#removedAt.delete(id); // an id may reappear with new quantities
      if (!this.#entries.has(id)) changes.added++;
      this.#entries.set(id, { liquidation, updatedAt: now });
      changes.upserted.push(liquidation);
    }
    return changes;
  }

  /** Remove one id (e.g. the venue answered -1202 for it); `now` is the local time, as for pushes. */
  remove(id: number, now = Date.now()): boolean {
    this.#removedAt.set(id, now);
    return this.#entries.delete(id);
  }

  /**
   * Reconcile with a full REST snapshot whose first request left at `requestedAt`. An id absent from
   * the snapshot is gone only if we learned of it before the request left; one pushed meanwhile may
   * simply be newer than the snapshot. Likewise a snapshot row never overwrites a push received
   * after the request left. In one go here; in slices with begin/row/end (pushes may come between
   * the slices: the same rules keep them).
   */
  reconcile(liquidations: readonly Liquidation[], requestedAt: number, now: number): BookChanges {
    const r = this.beginReconcile(requestedAt);
    for (const liquidation of liquidations) this.reconcileRow(r, liquidation, now);
    return this.endReconcile(r);
  }

  beginReconcile(requestedAt: number): Reconcile {
    return { requestedAt, seen: new Set<number>(), changes: { upserted: [], removed: [], added: 0 } };
  }

  reconcileRow(r: Reconcile, liquidation: Liquidation, now: number): void {
    const id = liquidation.liquidationId;
    r.seen.add(id);
    // A removal learned after the request left: the older snapshot still lists the id.
    const removedAt = this.#removedAt.get(id);
    if (removedAt !== undefined && removedAt >= r.requestedAt) return;
    const current = this.#entries.get(id);
    if (current !== undefined && current.updatedAt >= r.requestedAt) return;
    if (!isOpen(liquidation)) return;
    if (current !== undefined && samePositions(current.liquidation.positions, liquidation.positions)) {
      current.updatedAt = now;
      return;
    }
    if (current === undefined) r.changes.added++;
    this.#entries.set(id, { liquidation, updatedAt: now });
    r.changes.upserted.push(liquidation);
  }

  /**
   * A snapshot row the caller found identical to the book's entry for `id` (no new object built):
   * the same as reconcileRow with that entry's liquidation — seen, and fresh unless newer news won.
   */
  reconcileSame(r: Reconcile, id: number, now: number): void {
    r.seen.add(id);
    const removedAt = this.#removedAt.get(id);
    if (removedAt !== undefined && removedAt >= r.requestedAt) return;
    const current = this.#entries.get(id);
    if (current !== undefined && current.updatedAt < r.requestedAt) current.updatedAt = now;
  }

  /** Ids the snapshot did not list and that were known before its request left are gone. */
  endReconcile(r: Reconcile): BookChanges {
    // forEach, not for-of over entries: every snapshot walks the whole book, and an entry pair per id
    // would be garbage. Deleting the entry being visited is allowed in either.
    this.#entries.forEach((entry, id) => {
      if (!r.seen.has(id) && entry.updatedAt < r.requestedAt) {
        this.#entries.delete(id);
        r.changes.removed.push(id);
      }
    });
    // Removals older than this request are this snapshot's business now (bounded memory).
    this.#removedAt.forEach((at, id) => {
      if (at < r.requestedAt) this.#removedAt.delete(id);
    });
    return r.changes;
  }
}

/** A reconcile in progress (OpenBook.beginReconcile). */
export interface Reconcile {
  readonly requestedAt: number;
  readonly seen: Set<number>;
  readonly changes: BookChanges;
}

function isOpen(liquidation: Liquidation): boolean {
  return liquidation.positions.some((p) => p.positionQty !== 0);
}
