/**
 * Totals of the opportunity ledger (engine/opportunities.ts): value captured (claimed) and missed
 * (every other outcome), by outcome, by outcome and reason, per symbol and per UTC hour of the first
 * push. The value of a liquidation is its expected fee at stake; per symbol, each symbol's share.
 * Every liquidation is in exactly one outcome, so the outcomes add up to the whole.
 */
import { OPPORTUNITY_OUTCOMES, type OpportunityOutcome, type OpportunityRow } from "./opportunities.js";

export interface Bucket {
  count: number;
  value: number;
}

export interface ReasonBucket extends Bucket {
  outcome: OpportunityOutcome;
  reason: string;
}

export interface SplitBucket {
  captured: Bucket;
  missed: Bucket;
}

export interface LedgerTotals {
  liquidations: number;
  /** Value at stake over every liquidation. */
  value: number;
  captured: Bucket;
  missed: Bucket;
  by_outcome: Record<OpportunityOutcome, Bucket>;
  /** Missed value by outcome and reason, largest first. */
  missed_by_reason: ReasonBucket[];
  /** Per symbol (a liquidation of two symbols counts in both, with each symbol's share of the value). */
  by_symbol: Record<string, SplitBucket>;
  /** Per UTC hour of the first push, "00" to "23". */
  by_hour: Record<string, SplitBucket>;
}

const bucket = (): Bucket => ({ count: 0, value: 0 });
const split = (): SplitBucket => ({ captured: bucket(), missed: bucket() });

function add(b: Bucket, value: number): void {
  b.count++;
  b.value += value;
}

export function ledgerTotals(rows: readonly OpportunityRow[]): LedgerTotals {
  const byOutcome = Object.fromEntries(OPPORTUNITY_OUTCOMES.map((o) => [o, bucket()])) as Record<OpportunityOutcome, Bucket>;
  const reasons = new Map<string, ReasonBucket>();
  const bySymbol = new Map<string, SplitBucket>();
  const byHour = new Map<string, SplitBucket>();
  const t = { liquidations: 0, value: 0, captured: bucket(), missed: bucket() };
  for (const r of rows) {
    t.liquidations++;
    t.value += r.expected_fee;
    add(byOutcome[r.outcome], r.expected_fee);
    const side: keyof SplitBucket = r.outcome === "claimed" ? "captured" : "missed";
    add(t[side], r.expected_fee);
    if (side === "missed") {
      const key = `${r.outcome}\u0000${r.reason}`;
      const rb = reasons.get(key) ?? { outcome: r.outcome, reason: r.reason, count: 0, value: 0 };
      reasons.set(key, rb);
      add(rb, r.expected_fee);
    }
    for (const [symbol, fee] of Object.entries(r.fees)) {
      const s = bySymbol.get(symbol) ?? split();
      bySymbol.set(symbol, s);
      add(s[side], fee);
    }
    const hour = new Date(r.first_seen).toISOString().slice(11, 13);
    const h = byHour.get(hour) ?? split();
    byHour.set(hour, h);
    add(h[side], r.expected_fee);
  }
  const sorted = <V>(m: Map<string, V>): Record<string, V> => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    ...t,
    by_outcome: byOutcome,
    missed_by_reason: [...reasons.values()].sort((a, b) => b.value - a.value || a.count - b.count),
    by_symbol: sorted(bySymbol),
    by_hour: sorted(byHour),
  };
}
