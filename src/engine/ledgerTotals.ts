/**
 * Totals of the opportunity ledger (engine/opportunities.ts): value captured (what the venue
 * assigned us: claimed rows), missed (lost, skipped, expired, and the rest of a partly claimed
 * liquidation) and decided in dry run (never sent: its own bucket, neither captured nor missed), by
 * outcome, by outcome and reason, what the policy cost by reason, per supply (the liquidations, the
 * insurance fund's rows: docs/protocol.md §10), per symbol and per UTC hour of the first push. Each row counts its `value`, so every breakdown adds up to the total at stake.
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
  dry_run: Bucket;
}

export interface LedgerTotals {
  /** Liquidations (distinct ids): a partly claimed one has several rows. */
  liquidations: number;
  rows: number;
  /** Value at stake over every row: captured + missed + dry_run. */
  value: number;
  captured: Bucket;
  missed: Bucket;
  dry_run: Bucket;
  by_outcome: Record<OpportunityOutcome, Bucket>;
  /** Missed value by outcome and reason, largest first. */
  missed_by_reason: ReasonBucket[];
  /** What the policy cost: the skipped value by reason (whole skips, and the parts a cap cut), largest first. */
  policy_cost: ReasonBucket[];
  /** Per supply: `liquidation`, and `insurance_fund` when the fund's rows were offered. */
  by_supply: Record<string, SplitBucket>;
  /** Per symbol (a liquidation of two symbols counts in both, with each symbol's share of the value). */
  by_symbol: Record<string, SplitBucket>;
  /** Per UTC hour of the first push, "00" to "23". */
  by_hour: Record<string, SplitBucket>;
}

const bucket = (): Bucket => ({ count: 0, value: 0 });
const split = (): SplitBucket => ({ captured: bucket(), missed: bucket(), dry_run: bucket() });

function add(b: Bucket, value: number): void {
  b.count++;
  b.value += value;
}

export function sideOf(outcome: OpportunityOutcome): keyof SplitBucket {
  return outcome === "claimed" ? "captured" : outcome === "dry_run" ? "dry_run" : "missed";
}

export function ledgerTotals(rows: readonly OpportunityRow[]): LedgerTotals {
  const byOutcome = Object.fromEntries(OPPORTUNITY_OUTCOMES.map((o) => [o, bucket()])) as Record<OpportunityOutcome, Bucket>;
  const reasons = new Map<string, ReasonBucket>();
  const bySymbol = new Map<string, SplitBucket>();
  const byHour = new Map<string, SplitBucket>();
  const bySupply = new Map<string, SplitBucket>();
  const ids = new Set<number>();
  const t = { value: 0, captured: bucket(), missed: bucket(), dry_run: bucket() };
  for (const r of rows) {
    ids.add(r.liquidation_id);
    t.value += r.value;
    add(byOutcome[r.outcome], r.value);
    const side = sideOf(r.outcome);
    add(t[side], r.value);
    if (side === "missed") {
      const key = `${r.outcome}\u0000${r.reason}`;
      const rb = reasons.get(key) ?? { outcome: r.outcome, reason: r.reason, count: 0, value: 0 };
      reasons.set(key, rb);
      add(rb, r.value);
    }
    for (const [symbol, v] of Object.entries(r.values)) {
      const s = bySymbol.get(symbol) ?? split();
      bySymbol.set(symbol, s);
      add(s[side], v);
    }
    const sp = bySupply.get(r.supply) ?? split();
    bySupply.set(r.supply, sp);
    add(sp[side], r.value);
    const hour = new Date(r.first_seen).toISOString().slice(11, 13);
    const h = byHour.get(hour) ?? split();
    byHour.set(hour, h);
    add(h[side], r.value);
  }
  const sorted = <V>(m: Map<string, V>): Record<string, V> => Object.fromEntries([...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const missedByReason = [...reasons.values()].sort((a, b) => b.value - a.value || a.count - b.count);
  return {
    liquidations: ids.size,
    rows: rows.length,
    ...t,
    by_outcome: byOutcome,
    missed_by_reason: missedByReason,
    policy_cost: missedByReason.filter((b) => b.outcome === "skipped"),
    by_supply: sorted(bySupply),
    by_symbol: sorted(bySymbol),
    by_hour: sorted(byHour),
  };
}
