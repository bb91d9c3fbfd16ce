/**
 * The simulated venue's synthetic order book of one symbol (docs/protocol.md §6.3):
 * levels around the current mark, a spread and a depth per symbol, depth taken staying taken and
 * refilling at a rate, so that a large unwind pays slippage and a thin book fills in parts.
 * **simulator**: the levels follow the mark (they are re-derived from it at every match), the depth
 * taken from level i stays missing at level i as the mark moves.
 */
import { type BookSpec, roundToStep } from "./symbols.js";

export interface BookLevel {
  price: number;
  quantity: number;
}

export interface BookFill {
  price: number;
  qty: number;
}

export type BookSide = "asks" | "bids";

export class SyntheticBook {
  readonly spec: BookSpec;
  readonly #tick: number;
  /** Quantity missing per level (index 0 = best), as of `#at`. */
  readonly #taken: Record<BookSide, number[]>;
  #at: number;
  #emptyUntil = 0;

  constructor(spec: BookSpec, priceTick: number, now: number) {
    for (const [k, v] of Object.entries(spec)) if (!(Number.isFinite(v) && v >= 0)) throw new RangeError(`book.${k} must be a number ≥ 0`);
    if (!Number.isInteger(spec.levels) || spec.levels < 1) throw new RangeError("book.levels must be a positive integer");
    this.spec = spec;
    this.#tick = priceTick;
    this.#taken = { asks: new Array(spec.levels).fill(0), bids: new Array(spec.levels).fill(0) };
    this.#at = now;
  }

  /** Fault: no resting quantity at all until `now + forMs`. */
  empty(now: number, forMs: number): void {
    this.#emptyUntil = Math.max(this.#emptyUntil, now + forMs);
  }

  /** Ends an `empty` fault. */
  refill(): void {
    this.#emptyUntil = 0;
  }

  /** The levels of one side around `mark`, best first (what `GET /v1/orderbook` shows). */
  levels(side: BookSide, mark: number, now: number): BookLevel[] {
    this.#refill(now);
    const out: BookLevel[] = [];
    const full = this.spec.levelNotional / mark;
    for (let i = 0; i < this.spec.levels; i++) {
      const quantity = now < this.#emptyUntil ? 0 : Math.max(0, full - (this.#taken[side][i] as number));
      out.push({ price: this.#price(side, i, mark), quantity });
    }
    return out;
  }

  /**
   * Takes up to `qty` from `side` at prices no worse than `limit` (asks ≤ limit, bids ≥ limit),
   * best level first; returns the fills (each at its level's price). `qtyStep` keeps every fill on
   * the symbol's quantity grid.
   */
  take(side: BookSide, limit: number, qty: number, mark: number, now: number, qtyStep: number): BookFill[] {
    const fills: BookFill[] = [];
    let left = qty;
    const levels = this.levels(side, mark, now);
    for (let i = 0; i < levels.length && left > qtyStep / 2; i++) {
      const level = levels[i] as BookLevel;
      if (side === "asks" ? level.price > limit : level.price < limit) break;
      const q = Math.min(left, Math.floor(level.quantity / qtyStep + 1e-9) * qtyStep);
      const rounded = roundToStep(q, qtyStep);
      if (rounded <= 0) continue;
      fills.push({ price: level.price, qty: rounded });
      this.#taken[side][i] = (this.#taken[side][i] as number) + rounded;
      left = roundToStep(left - rounded, qtyStep);
    }
    return fills;
  }

  /** Level i's price: half the spread plus i steps from the mark, on the tick, away from the mark. */
  #price(side: BookSide, i: number, mark: number): number {
    const bps = this.spec.spreadBps / 2 + i * this.spec.stepBps;
    const raw = side === "asks" ? mark * (1 + bps / 1e4) : mark * (1 - bps / 1e4);
    const stepped = side === "asks" ? Math.ceil(raw / this.#tick - 1e-9) * this.#tick : Math.floor(raw / this.#tick + 1e-9) * this.#tick;
    return Math.max(this.#tick, roundToStep(stepped, this.#tick));
  }

  #refill(now: number): void {
    const dt = (now - this.#at) / 1000;
    this.#at = now;
    if (!(dt > 0) || this.spec.refillPerSec === 0) return;
    for (const side of ["asks", "bids"] as const) {
      const taken = this.#taken[side];
      for (let i = 0; i < taken.length; i++) {
        const t = taken[i] as number;
        if (t > 0) taken[i] = Math.max(0, t * (1 - Math.min(1, this.spec.refillPerSec * dt)));
      }
    }
  }
}

/** Deep for the majors, thin for the small coins: what a liquidator meets on a real venue. */
export function defaultBookSpec(symbol: string, tier: 1 | 2): BookSpec {
  if (symbol === "PERP_BTC_USDC" || symbol === "PERP_ETH_USDC")
    return { spreadBps: 1, levels: 20, stepBps: 1, levelNotional: 150_000, refillPerSec: 0.5 };
  if (tier === 1) return { spreadBps: 2, levels: 15, stepBps: 2, levelNotional: 40_000, refillPerSec: 0.4 };
  return { spreadBps: 6, levels: 8, stepBps: 5, levelNotional: 8_000, refillPerSec: 0.25 };
}
