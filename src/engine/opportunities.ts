/**
 * The opportunity ledger's verdict on one liquidation (docs/report.md): what the daemon knew of it
 * (first seen, last skip, its own sends and their answers, when it left the open list) in, one
 * outcome with a reason and the value at stake out. Pure, so the live metrics (daemon/opportunityLedger.ts)
 * and `liquidator report` (read from the journal) give the same answer for the same records.
 */

export const OPPORTUNITY_OUTCOMES = ["claimed", "lost", "skipped", "expired"] as const;
export type OpportunityOutcome = (typeof OPPORTUNITY_OUTCOMES)[number];

/** Lost reasons: our claim was refused because the id was already taken, or the id left while our claim waited its turn. */
export const LOST_TAKEN = "taken";
export const LOST_WHILE_QUEUED = "left_while_queued";
/** Skipped reason of a claim decided in dry run (never sent). */
export const SKIPPED_DRY_RUN = "dry_run";
/** Expired reasons: it left with no verdict of ours pending, or no end of it was ever seen. */
export const EXPIRED_LEFT = "left";
export const EXPIRED_NO_END = "no_end_seen";

/** Everything the journal says about one liquidation id (store/opportunityFold.ts builds it). */
export interface OpportunityFacts {
  id: number;
  /** Wall-clock ms the daemon first heard of it; undefined when no `seen` record exists. */
  firstSeen: number | undefined;
  /** Expected liquidator fee per symbol at the first push's marks (quote). */
  fees: Record<string, number>;
  /** The policy's last skip reason, if its last verdict was a skip. */
  lastSkip: string | undefined;
  /** When our first claim on it was sent (its intent), and the fee our last claim expected. */
  firstSentAt: number | undefined;
  sentFee: number | undefined;
  /** A claim of ours was sent and its answer is not in (an unknown outcome stays in flight until resolved). */
  inFlight: boolean;
  /** Our claim was decided in dry run and deliberately not sent. */
  dryRun: boolean;
  /** When the venue assigned us (part of) it, and the fee the claim expected. */
  claimedAt: number | undefined;
  claimedFee: number | undefined;
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
    firstSeen: undefined,
    fees: {},
    lastSkip: undefined,
    firstSentAt: undefined,
    sentFee: undefined,
    inFlight: false,
    dryRun: false,
    claimedAt: undefined,
    claimedFee: undefined,
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
  /** ms since the epoch. */
  first_seen: number;
  outcome: OpportunityOutcome;
  /** Why (empty for `claimed`). */
  reason: string;
  /** Value at stake: the liquidator fee of the whole liquidation at the first push's marks. */
  expected_fee: number;
  symbols: string[];
  /** Per symbol, the share of `expected_fee`. */
  fees: Record<string, number>;
  /** The fee our claim expected (claimed only; a partial claim takes less than the whole). */
  claimed_fee: number | null;
  /** Lost: ms from the first push to the loss (refusal or departure). */
  lost_after_first_push_ms: number | null;
  /** Lost after we sent: ms from our send to the loss. */
  lost_after_send_ms: number | null;
  /** When its fate was settled (assignment, refusal, departure); null while unresolved. */
  ended_at: number | null;
}

export function expectedFeeOf(f: OpportunityFacts): number {
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

/** The outcome and reason, in order of precedence: claimed, lost, skipped, expired. */
export function classifyOpportunity(f: OpportunityFacts): OpportunityRow {
  const firstSeen = f.firstSeen ?? f.firstSentAt ?? f.claimedAt ?? f.goneAt ?? 0;
  const row: OpportunityRow = {
    liquidation_id: f.id,
    first_seen: firstSeen,
    outcome: "expired",
    reason: EXPIRED_NO_END,
    expected_fee: expectedFeeOf(f),
    symbols: Object.keys(f.fees),
    fees: f.fees,
    claimed_fee: null,
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
  if (f.claimedAt !== undefined)
    return { ...row, outcome: "claimed", reason: "", claimed_fee: f.claimedFee ?? null, ended_at: f.claimedAt };
  if (f.takenAt !== undefined) return lost(f.takenAt, LOST_TAKEN);
  if (f.racingAt !== undefined && f.goneAt !== undefined) return lost(f.racingAt, LOST_TAKEN);
  if (f.goneAt !== undefined && f.goneWanted) return lost(f.goneAt, LOST_WHILE_QUEUED);
  if (f.dryRun) return { ...row, outcome: "skipped", reason: SKIPPED_DRY_RUN };
  if (f.lastSkip !== undefined) return { ...row, outcome: "skipped", reason: f.lastSkip };
  if (f.refusal !== undefined) return { ...row, outcome: "expired", reason: f.refusal };
  if (f.goneAt !== undefined) return { ...row, outcome: "expired", reason: EXPIRED_LEFT };
  return row;
}
