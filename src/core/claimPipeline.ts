/**
 * The claim pipeline, each step once: decode (frameDecoder.ts) → decide (here: the gate, then the
 * policy) → rank (claimQueue.ts) → body and journal line (claimLife.ts) → sign and request text (the
 * venue client, RestCore.claimText) → write. The trading core runs the steps after the rank with the
 * effects of its port (the live daemon: reserve, journal, write; the lab: reserve, the modelled
 * venue); the rehearsal (`rehearse` below, driven by daemon/claim/claimRehearsal.ts) runs every step up
 * to the socket in a queue of its own, with nothing reserved, journaled, written or counted.
 */
import type { ClaimDecision, Decision, SkipReason } from "../engine/policy.js";
import type { Liquidation } from "../engine/types.js";
import { claimRequestBody } from "../venue/mapping.js";
import type { ClaimRequest } from "../venue/restSchemas.js";
import { ClaimQueue } from "./claimQueue.js";
import { intentRecord } from "./sentClaim.js";

/**
 * The protection gate, asked before deciding: the reason no new claim may be made now (a trading
 * state other than active), or undefined. Unwinding never passes through it.
 */
export type ClaimGate = (liquidation: Liquidation) => SkipReason | undefined;

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
  /** The rehearsal's queue: the claim queue's own code, on data no claim is ever taken from. */
  #rehearsal: ClaimQueue | undefined;
  #sample: Liquidation | undefined;
  #sampleAt = 0;
  #taken: ClaimDecision | undefined;

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

  /**
   * The rehearsal's effects over the steps: decide and rank in a claim queue of its own (the same
   * code; no claim is taken from the real one), the body, the journal line serialised, and the
   * signed request text from `wire`. Nothing is reserved, journaled, counted or written. The bytes
   * built; 0 when the policy skips it.
   */
  rehearse(liquidation: Liquidation, now: number, dryRun: boolean, wire: ClaimWire): number {
    this.#rehearsal ??= new ClaimQueue({
      decide: this.decide,
      now: () => this.#sampleAt,
      book: { get: (id) => (id === this.#sample?.liquidationId ? this.#sample : undefined) },
      busy: () => false,
      skipped: () => undefined,
      queued: () => undefined,
      dispatch: (d) => {
        this.#taken = d;
      },
    });
    this.#sample = liquidation;
    this.#sampleAt = now;
    this.#taken = undefined;
    this.#rehearsal.offer(liquidation, 0);
    this.#rehearsal.take(undefined);
    this.#sample = undefined;
    const d = this.#taken;
    if (d === undefined) return 0;
    const body = this.body(d);
    const line = JSON.stringify(intentRecord(d, body, now, dryRun, liquidation.positions, 1));
    return line.length + wire.claimText(body);
  }
}
