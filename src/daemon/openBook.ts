/**
 * The liquidations open for claims right now, as far as this daemon knows. Fed by two sources
 * that can disagree in time: `liquidation` stream deltas (fast, may be missed across reconnects)
 * and `GET /v1/public/liquidation` snapshots (the source of truth, docs/protocol.md §5, but slower and
 * possibly older than a push received while the snapshot was in flight).
 */
import type { Liquidation, LiquidationPosition } from "../engine/types.js";

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
   * after the request left.
   */
  reconcile(liquidations: readonly Liquidation[], requestedAt: number, now: number): BookChanges {
    const changes: BookChanges = { upserted: [], removed: [], added: 0 };
    const seen = new Set<number>();
    for (const liquidation of liquidations) {
      const id = liquidation.liquidationId;
      seen.add(id);
      // A removal learned after the request left: the older snapshot still lists the id.
      const removedAt = this.#removedAt.get(id);
      if (removedAt !== undefined && removedAt >= requestedAt) continue;
      const current = this.#entries.get(id);
      if (current !== undefined && current.updatedAt >= requestedAt) continue;
      if (!isOpen(liquidation)) continue;
      if (current !== undefined && samePositions(current.liquidation.positions, liquidation.positions)) {
        current.updatedAt = now;
        continue;
      }
      if (current === undefined) changes.added++;
      this.#entries.set(id, { liquidation, updatedAt: now });
      changes.upserted.push(liquidation);
    }
    for (const [id, entry] of this.#entries) {
      if (!seen.has(id) && entry.updatedAt < requestedAt) {
        this.#entries.delete(id);
        changes.removed.push(id);
      }
    }
    // Removals older than this request are this snapshot's business now (bounded memory).
    for (const [id, at] of this.#removedAt) if (at < requestedAt) this.#removedAt.delete(id);
    return changes;
  }
}

function isOpen(liquidation: Liquidation): boolean {
  return liquidation.positions.some((p) => p.positionQty !== 0);
}

/** Same symbols, quantities and fees in the same order. */
export function samePositions(a: readonly LiquidationPosition[], b: readonly LiquidationPosition[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as LiquidationPosition;
    const y = b[i] as LiquidationPosition;
    if (x.symbol !== y.symbol || x.positionQty !== y.positionQty || x.liquidatorFee !== y.liquidatorFee) return false;
  }
  return true;
}
