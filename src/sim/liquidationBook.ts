/**
 * Liquidations open for claims: their remaining quantities and their deadline. A liquidation leaves
 * the book when every symbol is fully claimed, when its TTL passes (the insurance fund takes it,
 * docs/protocol.md §11) or when removed by hand; after that every claim on its id gets -1202.
 */
export interface OpenPosition {
  symbol: string;
  /** Remaining signed quantity a claimant would take over (docs/protocol.md §11). */
  positionQty: number;
  liquidatorFee: number;
  /**
   * Quantity added since the position was last published (`grow`): a ratio-1 claim takes what was
   * published, and of this only what its `extra_liquidation_ratio` asks for (docs/protocol.md §10).
   */
  grownBy?: number;
}

/** The `type` of the open list's rows that are the insurance fund's positions (docs/protocol.md §10). */
export const CLAIM_ROW_TYPE = "claim";

export interface BookedLiquidation {
  liquidationId: number;
  /** When the venue opened it, ms. */
  timestamp: number;
  type: string;
  positions: OpenPosition[];
  expiresAt: number;
}

export type RemovalReason = "claimed" | "expired" | "removed";

export class LiquidationBook {
  readonly #open = new Map<number, BookedLiquidation>();
  readonly #closed = new Map<number, RemovalReason>();
  #nextId: number;

  constructor(firstId = 1) {
    this.#nextId = firstId;
  }

  nextId(): number {
    return this.#nextId++;
  }

  add(liq: BookedLiquidation): void {
    if (this.#open.has(liq.liquidationId) || this.#closed.has(liq.liquidationId)) {
      throw new RangeError(`liquidation id ${liq.liquidationId} already used`);
    }
    if (liq.liquidationId >= this.#nextId) this.#nextId = liq.liquidationId + 1;
    this.#open.set(liq.liquidationId, liq);
  }

  /**
   * A closed id opened again with new quantities (docs/protocol.md §5: an id may reappear): the
   * venue's liquidation of the same account continues under its old id.
   */
  reopen(liq: BookedLiquidation): void {
    if (this.#open.has(liq.liquidationId)) throw new RangeError(`liquidation id ${liq.liquidationId} is open`);
    if (!this.#closed.delete(liq.liquidationId)) throw new RangeError(`liquidation id ${liq.liquidationId} was never closed`);
    this.#open.set(liq.liquidationId, liq);
  }

  /** The open liquidation, or undefined when unknown, claimed, expired or removed. */
  get(id: number): BookedLiquidation | undefined {
    return this.#open.get(id);
  }

  /** Why a known id is no longer open; undefined for open or never-seen ids. */
  closedReason(id: number): RemovalReason | undefined {
    return this.#closed.get(id);
  }

  /** Replace remaining quantities; a liquidation whose every quantity is 0 is closed as claimed. */
  updateRemaining(id: number, remaining: ReadonlyMap<string, number>): "open" | "closed" {
    const liq = this.#open.get(id);
    if (liq === undefined) return "closed";
    for (const p of liq.positions) {
      const r = remaining.get(p.symbol);
      if (r !== undefined) {
        p.positionQty = r;
        p.grownBy = 0; // published with the claim's update
      }
    }
    if (liq.positions.every((p) => p.positionQty === 0)) {
      this.remove(id, "claimed");
      return "closed";
    }
    return "open";
  }

  /**
   * The liquidated account's position grew by `qty` (same sign) in `symbol` before the venue
   * published it (a test's hook: docs/protocol.md §10 `extra_liquidation_ratio`); false if not open.
   */
  grow(id: number, symbol: string, qty: number): boolean {
    const p = this.#open.get(id)?.positions.find((x) => x.symbol === symbol);
    if (p === undefined || p.positionQty === 0 || Math.sign(qty) !== Math.sign(p.positionQty)) return false;
    p.positionQty += qty;
    p.grownBy = (p.grownBy ?? 0) + qty;
    return true;
  }

  remove(id: number, reason: RemovalReason): boolean {
    if (!this.#open.delete(id)) return false;
    this.#closed.set(id, reason);
    return true;
  }

  /** Ids whose TTL has passed at `now` (not yet removed). */
  expiredAt(now: number): number[] {
    const out: number[] = [];
    for (const liq of this.#open.values()) if (liq.expiresAt <= now) out.push(liq.liquidationId);
    return out;
  }

  /** Open liquidations in id order. */
  list(): BookedLiquidation[] {
    return [...this.#open.values()];
  }

  get size(): number {
    return this.#open.size;
  }
}
