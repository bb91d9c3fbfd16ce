/** The one state each liquidation id has in the claimer (claimer.ts) and its outcomes (claimOutcomes.ts). */
import type { LiquidationPosition } from "../engine/types.js";
import type { LiquidatorLiquidation } from "../venue/wire.js";
import type { SkipVerdicts } from "./skipVerdicts.js";

/**
 * pending: queued for a permit; waiting: a retry timer runs; inflight: the request left; unknown: it
 * may have been applied and no answer came; done: never claimed again (until swept).
 */
export type Phase = "pending" | "waiting" | "inflight" | "unknown" | "done";

export interface IdState {
  phase: Phase;
  /** Monotonic ms at which the frame that made us want this id arrived. */
  receivedAt: number;
  retries: number;
  repriced: number;
  /** Re-decisions after a refusal with a code the failure table does not know. */
  redecided: number;
  /** Initial margin the claim added when it was taken (a claim put back is ranked with it). */
  marginNeed?: number | undefined;
  /** Refusals for margin (-1101), each followed by an account re-read. */
  rereads?: number;
  doneAt: number;
  timer: NodeJS.Timeout | undefined;
  /**
   * A `liquidatorliquidations` push for this id that arrived while the request was still in flight.
   * The venue pushes as it applies the claim, so the push can beat the HTTP answer; if that answer
   * then never comes (connection dropped after processing), the push is what settles the claim.
   */
  assignment?: LiquidatorLiquidation | undefined;
  /** Finished by a dry run: nothing was sent, so turning dry run off makes the id claimable. */
  dryRun?: boolean;
  /** The liquidation's positions when the claim was sent, and when its outcome became unknown. */
  sentPositions?: readonly LiquidationPosition[];
  failedAt?: number;
  /**
   * Accepted by an answer that did not say what it transferred (phase `unknown` while the private
   * push is awaited): never settled as not applied by the open list (claimOutcomes.ts).
   */
  acceptedWithoutFills?: boolean;
}

export function newState(phase: Phase, receivedAt: number, doneAt = 0): IdState {
  return { phase, receivedAt, retries: 0, repriced: 0, redecided: 0, doneAt, timer: undefined };
}

/** An intent without an outcome (see Claimer.markUnknown): unknown since `now`, sent against `sentPositions`. */
export function unknownState(sentPositions: readonly LiquidationPosition[], now: number): IdState {
  const st = newState("unknown", 0, 0);
  st.failedAt = now;
  st.sentPositions = sentPositions;
  return st;
}

/** Forgets finished ids that left the open list before `cutoff`, and skips of ids no longer open. */
export function sweepStates(states: Map<number, IdState>, skips: SkipVerdicts, cutoff: number, isOpen: (id: number) => boolean): void {
  for (const [id, st] of states) if (st.phase === "done" && st.doneAt < cutoff && !isOpen(id)) states.delete(id);
  skips.retain(isOpen);
}
