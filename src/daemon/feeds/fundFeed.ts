/**
 * The insurance fund's rows as the daemon offers them (docs/protocol.md §10, `insurance_fund.enabled`):
 * the open list's and the `liquidation` push's `type: "claim"` rows, mapped like any liquidation
 * (venue/mapping.ts), then made into what the policy decides and the core claims
 * (core/fundSupply.ts):
 *
 * - each symbol's fee is the fund's discount (`claim_insurance_fund_discount` of the info row; the
 *   row's own `liquidator_fee` where the table has none), so `min_fee`, the ranking and the
 *   report value a fund claim at what it pays;
 * - on the fund's route a claim takes one symbol (`{claim_id, symbol, qty_request}`), so the row is
 *   offered as one symbol: the one whose discount on the mark is worth most when the id is first
 *   seen, kept while it stays open (the unknown settlement compares the same view each time), the
 *   next one once it is taken whole. The claim id is then the core's: never claimed twice, so the
 *   other symbols of a row of several are left to others.
 */

import type { FundRoute } from "../../core/fundSupply.js";
import type { Liquidation, LiquidationPosition } from "../../engine/types.js";

export class FundFeed {
  readonly #route: FundRoute;
  readonly #price: (symbol: string) => number | undefined;
  #discounts: ReadonlyMap<string, number> = new Map();
  /** The symbol each fund row on the fund's route is offered as, by id. */
  readonly #picked = new Map<number, string>();
  /** Each open fund row's positions as the venue lists them, by id (what `listed` sums). */
  readonly #rows = new Map<number, readonly LiquidationPosition[]>();

  constructor(o: { route: FundRoute; price(symbol: string): number | undefined }) {
    this.#route = o.route;
    this.#price = o.price;
  }

  get route(): FundRoute {
    return this.#route;
  }

  /** The info rows' discounts (a new symbol table). */
  setDiscounts(discounts: ReadonlyMap<string, number>): void {
    this.#discounts = discounts;
  }

  /** A fund row (already mapped) as it is offered; a removal (no open position) stays one. */
  view(liq: Liquidation): Liquidation {
    const open = liq.positions.filter((p) => p.positionQty !== 0);
    if (open.length === 0) {
      this.#picked.delete(liq.liquidationId);
      this.#rows.delete(liq.liquidationId);
      return liq;
    }
    this.#rows.set(liq.liquidationId, open);
    const positions = open.map((p) => this.#discounted(p));
    if (this.#route === "liquidation") return { ...liq, positions };
    return { ...liq, positions: [this.#pick(liq.liquidationId, positions)] };
  }

  /** Forget the picks and rows of ids that left the open list (bounded memory). */
  sweep(isOpen: (id: number) => boolean): void {
    for (const id of this.#picked.keys()) if (!isOpen(id)) this.#picked.delete(id);
    for (const id of this.#rows.keys()) if (!isOpen(id)) this.#rows.delete(id);
  }

  /**
   * What the open fund rows list, base quantity per symbol (absolute, every symbol of a row, whichever
   * this route offers): set against the fund's own positions (fundWatch.ts).
   */
  listed(): Map<string, number> {
    const by = new Map<string, number>();
    for (const positions of this.#rows.values())
      for (const p of positions) by.set(p.symbol, (by.get(p.symbol) ?? 0) + Math.abs(p.positionQty));
    return by;
  }

  #discounted(p: LiquidationPosition): LiquidationPosition {
    const d = this.#discounts.get(p.symbol);
    return d === undefined || d === p.liquidatorFee ? p : { symbol: p.symbol, positionQty: p.positionQty, liquidatorFee: d };
  }

  #pick(id: number, open: readonly LiquidationPosition[]): LiquidationPosition {
    const kept = this.#picked.get(id);
    const same = kept === undefined ? undefined : open.find((p) => p.symbol === kept);
    if (same !== undefined) return same;
    let best = open[0] as LiquidationPosition;
    let bestValue = -1;
    for (const p of open) {
      const value = Math.abs(p.positionQty) * (this.#price(p.symbol) ?? 0) * p.liquidatorFee;
      if (value > bestValue) {
        best = p;
        bestValue = value;
      }
    }
    this.#picked.set(id, best.symbol);
    return best;
  }
}
