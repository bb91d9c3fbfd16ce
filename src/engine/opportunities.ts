/**
 * The opportunity ledger's verdict on one liquidation (docs/report.md): what the daemon knew of it
 * (first seen, last skip, its own sends and their answers, when it left the open list) in, its rows
 * out. Pure, so the live metrics (daemon/records/opportunityLedger.ts) and `liquidator report` (read from
 * the journal) give the same answer for the same records.
 *
 * A liquidation is one row with one outcome, except one we claimed part of: its claimed row counts
 * the fee of what the venue actually assigned (`claimed_fee`), and the rest is a row of its own for
 * each cause — cut by our policy (`skipped` with the cap or the symbol's reason), taken by a rival
 * before our claim was decided (`lost`, `taken`), or left on the list (`expired`, `left`: asked for,
 * not assigned). The rest is valued at the first push's marks, like every missed row.
 */

export const OPPORTUNITY_OUTCOMES = ["claimed", "lost", "skipped", "expired", "dry_run"] as const;
export type OpportunityOutcome = (typeof OPPORTUNITY_OUTCOMES)[number];

/** Where the offer came from; the insurance fund's positions are another supply (docs/protocol.md §10). */
export type Supply = "liquidation" | "insurance_fund";

/** Lost reasons: our claim was refused because the id was already taken, or the id left while our claim waited its turn. */
const LOST_TAKEN = "taken";
const LOST_WHILE_QUEUED = "left_while_queued";
/** Expired reasons: it left with no verdict of ours pending, or no end of it was ever seen. */
const EXPIRED_LEFT = "left";
const EXPIRED_NO_END = "no_end_seen";
/** A claim cut below the whole whose reason the journal does not hold (written before it did). */
const CUT_UNKNOWN = "not_requested";

/** Everything the journal says about one liquidation id (store/opportunityFold.ts builds it). */
export interface OpportunityFacts {
  id: number;
  supply: Supply;
  /** Wall-clock ms the daemon first heard of it; undefined when no `seen` record exists. */
  firstSeen: number | undefined;
  /** Expected liquidator fee per symbol at the first push's marks (quote). */
  fees: Record<string, number>;
  /** |position_qty| per symbol at the first push (absent in journals written before it). */
  firstQty: Record<string, number> | undefined;
  /** The policy's last skip reason, if its last verdict was a skip. */
  lastSkip: string | undefined;
  /** When our first claim on it was sent (its intent), and the fee our last claim expected. */
  firstSentAt: number | undefined;
  sentFee: number | undefined;
  /** Per symbol, |open quantity| when our last claim was decided, and |quantity| it asked for. */
  sentOpen: Record<string, number> | undefined;
  sentQty: Record<string, number> | undefined;
  /** What cut our claim below the whole (ClaimDecision.cut), when it did. */
  cut: string | undefined;
  /** A claim of ours was sent and its answer is not in (an unknown outcome stays in flight until resolved). */
  inFlight: boolean;
  /** Our claim was decided in dry run and deliberately not sent. */
  dryRun: boolean;
  /** When the venue assigned us (part of) it. */
  claimedAt: number | undefined;
  /** What it assigned, per symbol: |quantity| and the liquidator fee (the answer's or push's fills). */
  assigned: Record<string, { qty: number; fee: number }> | undefined;
  /** When the venue refused our claim because someone else had taken it first. */
  takenAt: number | undefined;
  /** When our claim was refused because another claim on it was in process (a rival's, if it then left). */
  racingAt: number | undefined;
  /** The last other refusal of our claim (the failure table's kind), if any. */
  refusal: string | undefined;
  /** When it left the open list, and whether our claim was queued for it then. */
  goneAt: number | undefined;
  goneWanted: boolean;
}

export function newFacts(id: number): OpportunityFacts {
  return {
    id,
    supply: "liquidation",
    firstSeen: undefined,
    fees: {},
    firstQty: undefined,
    lastSkip: undefined,
    firstSentAt: undefined,
    sentFee: undefined,
    sentOpen: undefined,
    sentQty: undefined,
    cut: undefined,
    inFlight: false,
    dryRun: false,
    claimedAt: undefined,
    assigned: undefined,
    takenAt: undefined,
    racingAt: undefined,
    refusal: undefined,
    goneAt: undefined,
    goneWanted: false,
  };
}

/** One line of the ledger (the `--json` liquidation object). */
export interface OpportunityRow {
  liquidation_id: number;
  supply: Supply;
  /** ms since the epoch. */
  first_seen: number;
  outcome: OpportunityOutcome;
  /** Why (empty for `claimed` and `dry_run`). */
  reason: string;
  /** `whole`: the liquidation in one row; `claimed` / `rest`: the part we were assigned, a part we were not. */
  part: "whole" | "claimed" | "rest";
  /** The whole liquidation's liquidator fee at the first push's marks (the same on every row of it). */
  expected_fee: number;
  symbols: string[];
  /** Per symbol, the share of `expected_fee`. */
  fees: Record<string, number>;
  /** The fee of what the venue actually assigned us (claimed rows), quote; null otherwise. */
  claimed_fee: number | null;
  /** What this row counts in the totals, quote: `claimed_fee`, a rest's share, or `expected_fee`. */
  value: number;
  /** Per symbol, the share of `value`. */
  values: Record<string, number>;
  /** Lost: ms from the first push to the loss (refusal or departure). */
  lost_after_first_push_ms: number | null;
  /** Lost after we sent: ms from our send to the loss. */
  lost_after_send_ms: number | null;
  /** When its fate was settled (assignment, refusal, departure); null while unresolved. */
  ended_at: number | null;
}

function expectedFeeOf(f: OpportunityFacts): number {
  let sum = 0;
  for (const v of Object.values(f.fees)) sum += v;
  return sum;
}

/**
 * The fate is sealed: assigned to us, refused as taken, or gone from the open list with no claim of
 * ours still awaiting its answer (it may yet be ours). Until then a skipped id may still be claimed
 * (a mark comes back, exposure frees up).
 */
export function isSettled(f: OpportunityFacts): boolean {
  return f.claimedAt !== undefined || f.takenAt !== undefined || (f.goneAt !== undefined && !f.inFlight);
}

const sum = (r: Record<string, number>): number => Object.values(r).reduce((a, b) => a + b, 0);

/** A rest smaller than this share of the whole is float noise of the venue's arithmetic, not a row. */
const REST_NOISE = 1e-9;

/** The rows of a liquidation: one, or for a claimed part its claimed row and the rows of the rest. */
export function opportunityRows(f: OpportunityFacts): OpportunityRow[] {
  const row = classifyOpportunity(f);
  if (row.outcome !== "claimed") return [row];
  const rest = restOf(f);
  if (rest.length === 0) return [row];
  return [{ ...row, part: "claimed" }, ...rest.map((r) => ({ ...row, ...r, part: "rest" as const, claimed_fee: null }))];
}

/** The outcome and reason of the liquidation as one row, in order of precedence: claimed, lost, skipped, expired. */
function classifyOpportunity(f: OpportunityFacts): OpportunityRow {
  const firstSeen = f.firstSeen ?? f.firstSentAt ?? f.claimedAt ?? f.goneAt ?? 0;
  const expected = expectedFeeOf(f);
  const row: OpportunityRow = {
    liquidation_id: f.id,
    supply: f.supply,
    first_seen: firstSeen,
    outcome: "expired",
    reason: EXPIRED_NO_END,
    part: "whole",
    expected_fee: expected,
    symbols: Object.keys(f.fees),
    fees: f.fees,
    claimed_fee: null,
    value: expected,
    values: f.fees,
    lost_after_first_push_ms: null,
    lost_after_send_ms: null,
    ended_at: f.goneAt ?? null,
  };
  const lost = (at: number, reason: string): OpportunityRow => ({
    ...row,
    outcome: "lost",
    reason,
    ended_at: at,
    lost_after_first_push_ms: Math.max(0, at - firstSeen),
    lost_after_send_ms: f.firstSentAt === undefined ? null : Math.max(0, at - f.firstSentAt),
  });
  if (f.claimedAt !== undefined) {
    const values =
      f.assigned !== undefined
        ? Object.fromEntries(Object.entries(f.assigned).map(([s, a]) => [s, a.fee]))
        : // Assigned without sizes (a lean answer): the fee our claim expected, spread like the whole.
          scaled(f.fees, (f.sentFee ?? expected) / (expected > 0 ? expected : 1));
    const claimed = sum(values);
    return { ...row, outcome: "claimed", reason: "", claimed_fee: claimed, value: claimed, values, ended_at: f.claimedAt };
  }
  if (f.takenAt !== undefined) return lost(f.takenAt, LOST_TAKEN);
  if (f.racingAt !== undefined && f.goneAt !== undefined) return lost(f.racingAt, LOST_TAKEN);
  if (f.goneAt !== undefined && f.goneWanted) return lost(f.goneAt, LOST_WHILE_QUEUED);
  if (f.dryRun) return { ...row, outcome: "dry_run", reason: "" };
  if (f.lastSkip !== undefined) return { ...row, outcome: "skipped", reason: f.lastSkip };
  if (f.refusal !== undefined) return { ...row, outcome: "expired", reason: f.refusal };
  if (f.goneAt !== undefined) return { ...row, outcome: "expired", reason: EXPIRED_LEFT };
  return row;
}

function scaled(r: Record<string, number>, k: number): Record<string, number> {
  return Object.fromEntries(Object.entries(r).map(([s, v]) => [s, v * k]));
}

type RestPart = Pick<OpportunityRow, "outcome" | "reason" | "value" | "values">;

/**
 * What of a claimed liquidation we did not get, per cause, valued at the first push's fee per unit
 * of each symbol: taken by a rival before our claim was decided (first push − open then), cut by
 * our policy (open then − asked), left (asked − assigned). Without the first push's quantities (an
 * older journal) the open quantities at our send stand for them.
 */
function restOf(f: OpportunityFacts): RestPart[] {
  if (f.sentQty === undefined) return [];
  const open = f.sentOpen ?? f.firstQty;
  const first = f.firstQty ?? open;
  if (first === undefined || open === undefined) return [];
  const causes: { outcome: RestPart["outcome"]; reason: string; values: Record<string, number> }[] = [
    { outcome: "lost", reason: LOST_TAKEN, values: {} },
    { outcome: "skipped", reason: f.cut ?? CUT_UNKNOWN, values: {} },
    { outcome: "expired", reason: EXPIRED_LEFT, values: {} },
  ];
  const whole = expectedFeeOf(f);
  for (const [symbol, fee] of Object.entries(f.fees)) {
    const q = first[symbol] ?? 0;
    if (!(q > 0) || !(fee > 0)) continue;
    const perUnit = fee / q;
    const o = Math.min(q, open[symbol] ?? q);
    const asked = Math.min(o, f.sentQty[symbol] ?? 0);
    const got = Math.min(asked, f.assigned?.[symbol]?.qty ?? asked);
    const parts = [q - o, o - asked, asked - got];
    parts.forEach((p, i) => {
      const v = p * perUnit;
      if (v > REST_NOISE * whole) (causes[i] as { values: Record<string, number> }).values[symbol] = v;
    });
  }
  return causes.filter((c) => Object.keys(c.values).length > 0).map((c) => ({ ...c, value: sum(c.values) }));
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { classifyOpportunity as classifyOpportunityForTests };
