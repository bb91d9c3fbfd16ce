/**
 * The best a margin budget can earn from a set of liquidations, computed from the venue's own book
 * and formulas (the simulator's, not the daemon's): the yardstick of the margin-bound cascade (the
 * bench's phase and the daemon's tests against the simulator).
 *
 * Each liquidation is an item of fee and initial margin at the venue's marks, all its symbols
 * together (one proportional share: docs/protocol.md §4), or, when every symbol is of the high-risk
 * tier, one item per symbol (each may be claimed at its own ratio through `symbols`). A claim
 * can be cut to a thousandth, and a cut claim's margin is `marginAt(ratio)`: convex in the ratio
 * (the 4/5 term makes a smaller piece need a smaller rate), so an item is a run of slices whose
 * margin per slice only grows. Taking slices by fee per unit of margin, the best first, is then the
 * best any set of cut claims can do with the items apart (a separable convex knapsack), and an upper
 * bound of every set that fits: the margin of positions held together is at least the sum of their
 * margins (the rate grows with the notional), and the all-or-nothing rule for small claims only
 * removes choices.
 */
import { type AccountMargin, marginOf, positionInitialMargin, uniformMargin } from "../sim/margin.js";
import type { VenueCore } from "../sim/venueCore.js";

export interface MarginItem {
  readonly fee: number;
  /** Initial margin (quote) the whole item adds. */
  readonly margin: number;
  /** Initial margin of the item cut to `ratio` (0..1); none: `ratio × margin`. */
  readonly marginAt?: (ratio: number) => number;
}

/** Slices an item is cut into (the daemon cuts to a thousandth; this is fine enough for a yardstick). */
const SLICES = 250;

interface Slice {
  fee: number;
  margin: number;
}

function slicesOf(items: readonly MarginItem[]): Slice[] {
  const out: Slice[] = [];
  for (const item of items) {
    if (!(item.fee > 0)) continue;
    const at = item.marginAt ?? ((r: number) => r * item.margin);
    let before = 0;
    for (let k = 1; k <= SLICES; k++) {
      const m = at(k / SLICES);
      out.push({ fee: item.fee / SLICES, margin: Math.max(0, m - before) });
      before = m;
    }
  }
  return out.sort((a, b) => b.fee / Math.max(b.margin, 1e-12) - a.fee / Math.max(a.margin, 1e-12));
}

/** The fee the slices can hold: the best first, the last one cut to what is left. */
function feeWithin(slices: readonly Slice[], budget: number): number {
  let left = budget;
  let fee = 0;
  for (const s of slices) {
    if (left <= 0) break;
    if (s.margin <= left) {
      fee += s.fee;
      left -= s.margin;
    } else {
      fee += (s.fee * left) / s.margin;
      left = 0;
    }
  }
  return fee;
}

/**
 * The fee the budget can hold. With `feeShare`, each unit of fee earned adds that much to the budget
 * (the venue credits a claim's fee to the holding, so the collateral grows as claims land:
 * `max_margin_usage` of the fee): the fixed point of budget → fee, reached from below (the fee is
 * concave and increasing in the budget).
 */
export function bestFeeThatFits(items: readonly MarginItem[], budget: number, feeShare = 0): number {
  const slices = slicesOf(items);
  let fee = feeWithin(slices, budget);
  for (let i = 0; i < 100 && feeShare > 0; i++) {
    const next = feeWithin(slices, budget + feeShare * fee);
    if (next - fee < 1e-9) return next;
    fee = next;
  }
  return fee;
}

/**
 * The items of the venue's open liquidations `ids`, at its marks, for an account whose margin is
 * `account` (its leverage per symbol and own imr_factor, docs/protocol.md §10; a number: every symbol at it).
 */
export function marginItems(
  core: VenueCore,
  ids: readonly number[],
  account: AccountMargin | number,
  /** false: a liquidation is one item whatever its tiers (the yardstick of a daemon that claims every eligible symbol). */
  perSymbol = true,
): MarginItem[] {
  const a = typeof account === "number" ? uniformMargin(account) : account;
  const out: MarginItem[] = [];
  for (const id of ids) {
    const liq = core.book.get(id);
    if (liq === undefined) continue;
    const parts: Part[] = [];
    for (const p of liq.positions) {
      const spec = core.symbols.get(p.symbol);
      const mark = core.mark(p.symbol);
      if (spec === undefined || mark === undefined || p.positionQty === 0) continue;
      const notional = Math.abs(p.positionQty) * mark;
      parts.push({ symbol: p.symbol, tier: spec.tier, notional, fee: notional * p.liquidatorFee, m: marginOf(spec, a) });
    }
    const split = perSymbol && parts.every((p) => p.tier === 2);
    for (const group of split ? parts.map((p) => [p]) : [parts]) {
      const marginAt = (r: number) => group.reduce((s, x) => s + positionInitialMargin(x.m, r * x.notional, a.leverage(x.symbol)), 0);
      const margin = marginAt(1);
      if (margin > 0) out.push({ fee: group.reduce((s, x) => s + x.fee, 0), margin, marginAt });
    }
  }
  return out;
}

interface Part {
  symbol: string;
  tier: number;
  notional: number;
  fee: number;
  m: ReturnType<typeof marginOf>;
}
