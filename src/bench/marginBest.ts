/**
 * The best a margin budget can earn from a set of liquidations, computed from the venue's own book
 * and formulas (the simulator's, not the daemon's): the yardstick of the margin-bound cascade (the
 * bench's phase and the daemon's test against the simulator).
 *
 * Each liquidation is an item of fee and initial margin at the venue's marks, all its symbols
 * together: an id is claimed once (never twice), so the subsets are subsets of liquidations. Items
 * are taken by fee per unit of margin and the last one cut (a fractional knapsack). Claims can be cut
 * to a thousandth, so this is what claims cut to fit can reach, and an upper bound of every subset
 * that fits: the margin of positions held together is at least the sum of their margins (the rate
 * grows with the notional), and the all-or-nothing rule for small claims only removes choices.
 */
import { marginOf, positionInitialMargin } from "../sim/margin.js";
import type { VenueCore } from "../sim/venueCore.js";

export interface MarginItem {
  readonly fee: number;
  /** Initial margin (quote) the item adds. */
  readonly margin: number;
}

/** The fee the budget can hold: by fee per margin, the last item cut to what is left. */
export function bestFeeThatFits(items: readonly MarginItem[], budget: number): number {
  const sorted = items.filter((i) => i.fee > 0).sort((a, b) => b.fee / Math.max(b.margin, 1e-12) - a.fee / Math.max(a.margin, 1e-12));
  let left = budget;
  let fee = 0;
  for (const item of sorted) {
    if (left <= 0) break;
    if (item.margin <= left) {
      fee += item.fee;
      left -= item.margin;
    } else {
      fee += (item.fee * left) / item.margin;
      left = 0;
    }
  }
  return fee;
}

/** The items of the venue's open liquidations `ids`, at its marks, for an account of `maxLeverage`. */
export function marginItems(core: VenueCore, ids: readonly number[], maxLeverage: number): MarginItem[] {
  const out: MarginItem[] = [];
  for (const id of ids) {
    const liq = core.book.get(id);
    if (liq === undefined) continue;
    let fee = 0;
    let margin = 0;
    for (const p of liq.positions) {
      const spec = core.symbols.get(p.symbol);
      const mark = core.mark(p.symbol);
      if (spec === undefined || mark === undefined || p.positionQty === 0) continue;
      const notional = Math.abs(p.positionQty) * mark;
      fee += notional * p.liquidatorFee;
      margin += positionInitialMargin(marginOf(spec), notional, maxLeverage);
    }
    if (margin > 0) out.push({ fee, margin });
  }
  return out;
}
