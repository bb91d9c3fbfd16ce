/**
 * The live claimer's effects over the pipeline's steps (claimPipeline.ts), once a permit took a claim
 * (claimQueue.ts): hold its exposure, journal the intent before anything leaves (never twice: a
 * claim without an intent is not sent), check the lease, write the request, count it; what the
 * answer means is claimOutcomes.ts.
 */

import type { PauseReason } from "../engine/pauseReasons.js";
import type { ClaimDecision } from "../engine/policy.js";
import type { StateStore } from "../store/stateStore.js";
import { DuplicateClaimError, FencedError } from "../store/storeErrors.js";
import type { ClaimOutcomes } from "./claimOutcomes.js";
import type { ClaimHold, ClaimPipeline } from "./claimPipeline.js";
import type { ClaimSender } from "./claimSender.js";
import type { IdState } from "./claimState.js";

/** The live set of effects, built once by the claimer. */
export interface LiveClaimEffects {
  pipeline: ClaimPipeline;
  /** Reserve: exposure (and, with margin, margin in flight). */
  hold: ClaimHold;
  /** Journal: the intent before sending. */
  store: Pick<StateStore, "intent" | "mayLead">;
  /** Write: the single point where a claim leaves (dry run is decided there). */
  sender: ClaimSender;
  /** Count. */
  observer: { decisionLatency(seconds: number): void; submitted(): void };
  outcomes: ClaimOutcomes;
  now: () => number;
  monotonic: () => number;
  requeue: (id: number, st: IdState, expectedFee: number) => void;
  pause: (reason: PauseReason) => void;
}

export async function sendClaim(fx: LiveClaimEffects, d: ClaimDecision, st: IdState): Promise<void> {
  const id = d.liquidationId;
  st.phase = "inflight";
  fx.hold.reserve(id, d.perSymbolQty);
  const body = fx.pipeline.body(d);
  const dryRun = fx.sender.dryRun;
  try {
    const written = fx.store.intent(fx.pipeline.intent(d, body, fx.now(), dryRun, st.sentPositions));
    // The file store writes synchronously (one write(2) on the hot path); the database answers later.
    if (written !== undefined) await written;
  } catch (err) {
    fx.hold.release(id);
    if (err instanceof DuplicateClaimError) {
      // Another replica claimed it (its intent is in the shared journal): never claim it here.
      fx.outcomes.finish(id, st);
      return;
    }
    // No intent, no claim: back in the queue, and nothing leaves until the store works again
    // (or, fenced, until this replica leads again).
    fx.requeue(id, st, d.expectedFee);
    fx.pause(err instanceof FencedError ? "standby" : "journal");
    return;
  }
  if (!fx.store.mayLead()) {
    // Deposed between the intent and the send: a replica that may not lead sends nothing. The id
    // stays taken by this intent (the new leader replays it), so no one claims it twice.
    fx.hold.release(id);
    fx.outcomes.finish(id, st, { t: "outcome", id, at: fx.now(), result: "not_accepted" });
    fx.pause("standby");
    return;
  }
  // The request is written inside send() (synchronously, on a warm connection); the metrics follow.
  const sending = fx.sender.send(body);
  fx.observer.decisionLatency((fx.monotonic() - st.receivedAt) / 1000);
  if (!dryRun) fx.observer.submitted();
  let outcome: Awaited<ReturnType<ClaimSender["send"]>>;
  try {
    outcome = await sending;
  } catch (err) {
    fx.outcomes.failed(d, st, err);
    return;
  }
  if (outcome.sent) fx.outcomes.accepted(id, st, outcome.result);
  else fx.outcomes.dryRun(d, st);
}
