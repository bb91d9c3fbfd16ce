/** The one state each liquidation id has in the claimer (claimer.ts) and its outcomes (claimOutcomes.ts). */
import type { LiquidationPosition } from "../engine/types.js";
import type { LiquidatorLiquidation } from "../venue/wire.js";

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
}

export function newState(phase: Phase, receivedAt: number, doneAt = 0): IdState {
  return { phase, receivedAt, retries: 0, repriced: 0, doneAt, timer: undefined };
}
