/**
 * The claim pipeline, each step once: decode (frameDecoder.ts) → decide (here: the gate, then the
 * policy) → rank (claimQueue.ts) → body and journal line (here) → sign and request text (the venue
 * client, RestCore.claimText) → write. Three sets of effects run over these steps:
 * - the live claimer (claimer.ts, claimSend.ts): reserve exposure, journal the intent, write the
 *   request, count it;
 * - the rehearsal (`rehearse` below, driven by claimRehearsal.ts): every step up to the socket, in
 *   a queue of its own, with nothing reserved, journaled, written or counted;
 * - the lab's virtual claimer (lab/virtualClaimer.ts): reserve exposure, count, and let the modelled
 *   venue answer in virtual time (it has no journal and no wire).
 * A new step goes here once; an effect of it goes into the sets that have it.
 */
import type { ClaimDecision, Decision, SkipReason } from "../engine/policy.js";
import type { RankingQueue } from "../engine/ranking.js";
import type { Liquidation, LiquidationPosition } from "../engine/types.js";
import type { IntentRecord } from "../store/journalRecords.js";
import { claimRequestBody } from "../venue/mapping.js";
import type { ClaimRequest } from "../venue/restSchemas.js";
import { intentRecord } from "./claimIntent.js";

/**
 * The protection gate, asked before deciding: the reason no new claim may be made now (a trading
 * state other than active), or undefined. Unwinding never passes through it.
 */
export type ClaimGate = (liquidation: Liquidation) => SkipReason | undefined;

/**
 * What a claim holds while it is out, reserved when it leaves and released when it is refused or
 * dropped (Exposure satisfies it). Margin in flight is one more hold beside exposure.
 */
export interface ClaimHold {
  reserve(liquidationId: number, perSymbolQty: Readonly<Record<string, number>>): void;
  release(liquidationId: number): boolean;
}

export interface ClaimPipelineOptions {
  /** The policy (PolicyState.decide). */
  decide: (liquidation: Liquidation, now: number) => Decision;
  /** The protection gate; none: always open. */
  gate?: ClaimGate;
}

/** The request text of a claim body, signed as the send would sign it, never written (RestClient.claimText). */
export interface ClaimWire {
  claimText(body: ClaimRequest): number;
}

export class ClaimPipeline {
  /** The decide step, bound once (the queue and the rehearsal call it per liquidation). */
  readonly decide: (liquidation: Liquidation, now: number) => Decision;

  constructor(o: ClaimPipelineOptions) {
    const policy = o.decide;
    const gate = o.gate;
    this.decide =
      gate === undefined
        ? policy
        : (liquidation, now) => {
            const reason = gate(liquidation);
            if (reason === undefined) return policy(liquidation, now);
            return { action: "skip", liquidationId: liquidation.liquidationId, reason, detail: "gate" };
          };
  }

  /** The body step: what the venue is asked (one object, stringified and signed by the venue client). */
  body(d: ClaimDecision): ClaimRequest {
    return claimRequestBody(d);
  }

  /** The journal line step: the intent written before the request leaves (claimIntent.ts). */
  intent(
    d: ClaimDecision,
    body: ClaimRequest,
    at: number,
    dryRun: boolean,
    open: readonly LiquidationPosition[] | undefined,
  ): IntentRecord {
    return intentRecord(d, body, at, dryRun, open);
  }

  /**
   * The rehearsal's effects over the steps: decide, rank in `queue` (its own: no claim is taken
   * from it), the body, the journal line serialised, and the signed request text from `wire`.
   * Nothing is reserved, queued, journaled, counted or written. The bytes built; 0 when skipped.
   */
  rehearse(liquidation: Liquidation, now: number, queue: RankingQueue<number>, dryRun: boolean, wire: ClaimWire): number {
    const d = this.decide(liquidation, now);
    if (d.action === "skip") return 0;
    queue.push(d.liquidationId, d.expectedFee, liquidation.timestamp, d.liquidationId);
    queue.pop();
    const body = this.body(d);
    const line = JSON.stringify(this.intent(d, body, now, dryRun, liquidation.positions));
    return line.length + wire.claimText(body);
  }
}
