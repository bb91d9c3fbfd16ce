/**
 * The live account's claims, told to the shadows (shadowFeed.ts) as they leave: transports that note
 * the id and send time before passing the claim through, and forget the id when the venue refuses
 * it. Both endpoints alike: a fund claim's `claim_id` is the id its row has in the open list
 * (docs/protocol.md §10), and a fund row the account took is not a rival's take. A Map write before
 * the send: the claim does not wait for the shadows.
 */
import type { ClaimTransport, FundClaimTransport } from "../../daemon/claim/claimSender.js";
import type { ClaimResult } from "../../venue/restSchemas.js";

export interface OwnClaims {
  ownSent(id: number, sentAt: number): void;
  ownRefused(id: number): void;
}

async function told(own: OwnClaims, now: () => number, id: number, send: () => Promise<ClaimResult>): Promise<ClaimResult> {
  own.ownSent(id, now());
  try {
    return await send();
  } catch (err) {
    // A venue refusal: not ours. Anything else may have reached the venue: it stays ours.
    if (typeof (err as { venueCode?: unknown }).venueCode === "number") own.ownRefused(id);
    throw err;
  }
}

export function ownClaimsTransport(inner: ClaimTransport, own: OwnClaims, now: () => number = Date.now): ClaimTransport {
  return { claimLiquidation: (body, opts) => told(own, now, body.liquidation_id, () => inner.claimLiquidation(body, opts)) };
}

export function ownFundClaimsTransport(inner: FundClaimTransport, own: OwnClaims, now: () => number = Date.now): FundClaimTransport {
  return { claimInsuranceFund: (body, opts) => told(own, now, body.claim_id, () => inner.claimInsuranceFund(body, opts)) };
}
