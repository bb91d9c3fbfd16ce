/**
 * The REST routes of docs/protocol.md §10's other supply: `GET /v1/public/insurancefund` (public, 10/s per
 * IP), `POST /v1/claim_insurance_fund` (signed, 5/s per account in a window of its own) and `POST
 * /v1/public/query` (public, its own weight pool: publicQuery.ts). Rules live in insuranceFund.ts
 * and publicQuery.ts; restServer.ts counts the limits.
 */
import type { WireFlavor } from "./flavor.js";
import type { InsuranceFund } from "./insuranceFund.js";
import type { PublicQuery } from "./publicQuery.js";
import { readParams } from "./queryParams.js";
import { jsonBody, type Route } from "./restRoute.js";
import type { Signatory } from "./signatureCheck.js";
import type { VenueCore } from "./venueCore.js";
import { ok } from "./venueRefusal.js";

export function supplyRoutes(core: VenueCore, fund: InsuranceFund, query: PublicQuery, flavor: WireFlavor): [string, Route][] {
  return [
    [
      "/v1/public/insurancefund",
      {
        method: "GET",
        limit: "public",
        signed: false,
        handler: (ctx) => {
          const p = readParams(ctx.search, []);
          return p.ok ? ok(fund.data()) : p;
        },
      },
    ],
    [
      "/v1/claim_insurance_fund",
      {
        method: "POST",
        limit: "claims",
        signed: true,
        handler: async (ctx) => {
          const accountId = (ctx.signatory as Signatory).accountId;
          const body = jsonBody(ctx);
          if (!body.ok) {
            core.logRejectedClaim(accountId, ctx.receivedAt, body.refusal.code, body.refusal.message);
            return body;
          }
          const result = await fund.claim(accountId, body.value, ctx.receivedAt);
          return result.ok ? ok(flavor.claimAnswer(result.value)) : { ok: false, refusal: flavor.claimRefusal(result.refusal) };
        },
      },
    ],
    [
      "/v1/public/query",
      {
        method: "POST",
        limit: "query",
        signed: false,
        handler: (ctx) => {
          const body = jsonBody(ctx);
          return body.ok ? query.handle(ctx.ip, body.value, ctx.receivedAt) : body;
        },
      },
    ],
  ];
}
