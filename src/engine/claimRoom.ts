/**
 * The room a claim has under the exposure caps (exposure.ts holds the book): how far one symbol's
 * worst case lets a claim grow, and the largest ratio a set of legs fits in a budget.
 */
import { type ExposureView, worstQty } from "./exposure.js";

/**
 * How a claim of signed quantity q on a symbol moves its worst-case exposure. For q > 0 the worst
 * case becomes max(|held + long + q|, |held + short|); it stays within a cap C (in quantity) iff
 * q ≤ C − (held + long), given the book is within C now. `free` is how much |q| can grow before the
 * worst case grows at all: W − (held + long) for q > 0, W + (held + short) for q < 0 (≥ 0). Beyond
 * it the worst case grows one for one: increase(q) = max(0, |q| − free).
 */
export function roomForClaim(view: ExposureView | undefined, qtySign: number, capQty: number): { maxQty: number; free: number } {
  const held = view?.held ?? 0;
  const iso = view?.isolated ?? 0;
  const pending = Math.abs(view?.pending ?? 0);
  const long = view?.long ?? 0;
  const short = view?.short ?? 0;
  const w = view === undefined ? 0 : worstQty(view);
  // With the other modes counted at their size, the claim may land in cross, or in isolated while
  // one is held: the worst case grows once q passes the least free room of those (see the file comment).
  let up = held + long + Math.abs(iso) + pending;
  let down = held + short - Math.abs(iso) - pending;
  if (iso !== 0) {
    const isoUp = iso + long + Math.abs(held) + pending;
    const isoDown = iso + short - Math.abs(held) - pending;
    if (isoUp > up) up = isoUp;
    if (isoDown < down) down = isoDown;
  }
  if (qtySign > 0) return { maxQty: w > capQty ? 0 : capQty - up, free: w - up };
  return { maxQty: w > capQty ? 0 : capQty + down, free: w + down };
}

/**
 * Largest r with Σᵢ max(0, r·notional[i] − free[i]) ≤ budget: the proportional ratio the global
 * exposure cap leaves when a claim of ratio r adds r·notional[i] to symbol i, whose first free[i] of
 * notional do not raise its worst case (see `roomForClaim`). The left side is convex, piecewise
 * linear and increasing in r, so the answer is found by water-filling: assume every symbol grows,
 * solve the linear equation, drop the symbols that would not grow at that r, repeat (r only
 * decreases, at most one round per symbol). 0 when the budget is negative or NaN (exposure already
 * over the cap or not priceable); Infinity when nothing can grow.
 */
export function maxRatioWithinBudget(budget: number, notional: readonly number[], free: readonly number[]): number {
  if (!(budget >= 0)) return 0;
  if (budget === Number.POSITIVE_INFINITY) return budget;
  const n = notional.length;
  const active: boolean[] = new Array<boolean>(n).fill(true);
  for (;;) {
    let sumN = 0;
    let sumF = 0;
    for (let i = 0; i < n; i++) {
      if (!active[i]) continue;
      sumN += notional[i] as number;
      sumF += free[i] as number;
    }
    if (sumN === 0) return Number.POSITIVE_INFINITY;
    const r = (budget + sumF) / sumN;
    let dropped = false;
    for (let i = 0; i < n; i++) {
      if (active[i] && r * (notional[i] as number) < (free[i] as number)) {
        active[i] = false;
        dropped = true;
      }
    }
    if (!dropped) return r;
  }
}
