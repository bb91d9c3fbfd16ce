/**
 * The live account's claims, told to the shadows (shadowFeed.ts) as they leave: a ClaimTransport that
 * notes the id and send time before passing the claim through, and forgets the id when the venue
 * refuses it. A Map write before the send: the claim does not wait for the shadows.
 */
import type { ClaimTransport } from "../../daemon/claim/claimSender.js";
import type { ClaimRequest, ClaimResult } from "../../venue/restSchemas.js";

export interface OwnClaims {
  ownSent(id: number, sentAt: number): void;
  ownRefused(id: number): void;
}

export function ownClaimsTransport(inner: ClaimTransport, own: OwnClaims, now: () => number = Date.now): ClaimTransport {
  return {
    async claimLiquidation(body: ClaimRequest, opts?: { signal?: AbortSignal; permitHeld?: boolean }): Promise<ClaimResult> {
      own.ownSent(body.liquidation_id, now());
      try {
        return await inner.claimLiquidation(body, opts);
      } catch (err) {
        // A venue refusal: not ours. Anything else may have reached the venue: it stays ours.
        if (typeof (err as { venueCode?: unknown }).venueCode === "number") own.ownRefused(body.liquidation_id);
        throw err;
      }
    },
  };
}
