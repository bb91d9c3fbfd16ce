/**
 * The claim answers of a capture: transports that pass every claim through and record the venue's
 * answer (applied, or refused with its code: a -1202 is someone else's take) once it is back. Both
 * endpoints are recorded alike, under the id the open list knows the row by (a fund claim's
 * `claim_id`, docs/protocol.md §10), so a replay counts the fund's claims as the account's own too.
 * The record is enqueued after the answer, so the claim itself never waits for the capture.
 */

import type { ClaimTransport, FundClaimTransport } from "../../daemon/claim/claimSender.js";
import type { CaptureTap } from "../../daemon/records/captureTap.js";
import type { ClaimRequest, ClaimResult } from "../../venue/restSchemas.js";
import type { FundClaimRequest } from "../../venue/supplySchemas.js";

/** The venue code of a refusal, -1 when the claim failed below the venue (transport, timeout). */
function codeOf(err: unknown): number {
  const c = (err as { venueCode?: unknown }).venueCode;
  return typeof c === "number" && Number.isFinite(c) ? c : -1;
}

async function recorded(
  tap: CaptureTap,
  now: () => number,
  id: number,
  request: ClaimRequest | FundClaimRequest,
  send: () => Promise<ClaimResult>,
): Promise<ClaimResult> {
  const sentAt = now();
  try {
    const result = await send();
    tap.record({ k: "claim", at: now(), sentAt, id, code: 0, request, result });
    return result;
  } catch (err) {
    tap.record({ k: "claim", at: now(), sentAt, id, code: codeOf(err), request });
    throw err;
  }
}

export function capturingTransport(inner: ClaimTransport, tap: CaptureTap, now: () => number = Date.now): ClaimTransport {
  return {
    claimLiquidation: (body, opts) => recorded(tap, now, body.liquidation_id, body, () => inner.claimLiquidation(body, opts)),
  };
}

export function capturingFundTransport(inner: FundClaimTransport, tap: CaptureTap, now: () => number = Date.now): FundClaimTransport {
  return {
    claimInsuranceFund: (body, opts) => recorded(tap, now, body.claim_id, body, () => inner.claimInsuranceFund(body, opts)),
  };
}
