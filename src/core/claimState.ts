/**
 * The state an id has in the claim queue (claimQueue.ts) before a permit takes it: `pending` (ranked,
 * waiting for a permit) or `waiting` (a retry timer runs). Once taken it belongs to the trading core
 * (tradingCore.ts) until it is settled; the queue asks the core whether an id is busy.
 */
import type { Cancel } from "./corePort.js";

export type Phase = "pending" | "waiting";

export interface IdState {
  phase: Phase;
  /** Monotonic ms at which the frame that made us want this id arrived. */
  receivedAt: number;
  /** Initial margin the claim adds when it was taken (a claim put back is ranked with it). */
  marginNeed?: number | undefined;
  /** The retry timer of a waiting id. */
  timer?: Cancel | undefined;
}

export function newState(phase: Phase, receivedAt: number): IdState {
  return { phase, receivedAt };
}
