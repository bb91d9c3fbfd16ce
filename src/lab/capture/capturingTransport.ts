/**
 * The claim answers of a capture: a ClaimTransport that passes every claim through and records the
 * venue's answer (applied, or refused with its code: a -1202 is someone else's take) once it is back.
 * The record is enqueued after the answer, so the claim itself never waits for the capture.
 */

import type { ClaimTransport } from "../../daemon/claim/claimSender.js";
import type { CaptureTap } from "../../daemon/records/captureTap.js";
import type { ClaimRequest, ClaimResult } from "../../venue/restSchemas.js";

/** The venue code of a refusal, -1 when the claim failed below the venue (transport, timeout). */
function codeOf(err: unknown): number {
  const c = (err as { venueCode?: unknown }).venueCode;
  return typeof c === "number" && Number.isFinite(c) ? c : -1;
}

export function capturingTransport(inner: ClaimTransport, tap: CaptureTap, now: () => number = Date.now): ClaimTransport {
  return {
    async claimLiquidation(body: ClaimRequest, opts?: { signal?: AbortSignal; permitHeld?: boolean }): Promise<ClaimResult> {
      const sentAt = now();
      try {
        const result = await inner.claimLiquidation(body, opts);
        tap.record({ k: "claim", at: now(), sentAt, id: body.liquidation_id, code: 0, request: body, result });
        return result;
      } catch (err) {
        tap.record({ k: "claim", at: now(), sentAt, id: body.liquidation_id, code: codeOf(err), request: body });
        throw err;
      }
    },
  };
}
