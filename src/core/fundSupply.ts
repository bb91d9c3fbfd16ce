/**
 * The insurance fund's supply inside the trading core (docs/protocol.md §10, issue #35): a fund row is
 * decided, reserved, journaled, settled and unwound like any liquidation, under its own id (the
 * row's `liquidation_id`, the fund claim's `claim_id`: the open list keeps one id space, so an id
 * is never both). What differs is only what leaves and what the journal says of it:
 *
 * - route `claim_insurance_fund`: the row arrives as one symbol (daemon/feeds/fundFeed.ts picks it) and
 *   leaves as `POST /v1/claim_insurance_fund` `{claim_id, symbol, qty_request, limit_price}`, the
 *   quantity the decision took of it;
 * - route `liquidation`: the row as a liquidation, through `POST /v1/liquidation` as usual.
 *
 * Either way the intent carries `supply: "insurance_fund"`; an intent without it (every journal
 * written before) is a liquidation's.
 */
import type { ClaimDecision } from "../engine/policy.js";
import type { Supply } from "../engine/supply.js";
import type { Liquidation } from "../engine/types.js";
import { claimRequestBody, FUND_ROW_TYPE, fundClaimRequestBody } from "../venue/mapping.js";
import type { ClaimRequest } from "../venue/restSchemas.js";
import type { FundClaimRequest } from "../venue/supplySchemas.js";
import type { ClaimLimiter } from "./claimQueue.js";

export type { Supply } from "../engine/supply.js";

/** The endpoint a fund row is claimed through (`insurance_fund.route`). */
export type FundRoute = "claim_insurance_fund" | "liquidation";

/** What a claim sends: a liquidation's body, or a fund claim's. */
export type SendBody = ClaimRequest | FundClaimRequest;

export function supplyOf(liquidation: Pick<Liquidation, "type">): Supply {
  return liquidation.type === FUND_ROW_TYPE ? "insurance_fund" : "liquidation";
}

/**
 * The limiter a claim waits for (claimQueue.ts) under `route`: on the fund's own route a fund row's
 * claim waits for the fund's (`fund_claims`, 5/s apart from the liquidation claims', docs/protocol.md
 * §10); through /v1/liquidation it waits for the `claims` limiter, as every liquidation does.
 */
export function claimLimiterOf(route: FundRoute): (liquidation: Pick<Liquidation, "type">) => ClaimLimiter {
  if (route === "liquidation") return () => "claims";
  return (liquidation) => (liquidation.type === FUND_ROW_TYPE ? "fund_claims" : "claims");
}

export function isFundBody(body: SendBody): body is FundClaimRequest {
  return (body as FundClaimRequest).claim_id !== undefined;
}

/**
 * The body of a claim decision. A fund row on the fund's route is one symbol (the feed made it so):
 * the quantity the decision takes of it, at its limit price. Throws RangeError on what the venue
 * must not receive (more than one symbol, a quantity out of range).
 */
export function claimBodyOf(d: ClaimDecision, liquidation: Liquidation, route: FundRoute): SendBody {
  if (liquidation.type !== FUND_ROW_TYPE || route === "liquidation") return claimRequestBody(d);
  const symbols = Object.keys(d.perSymbolQty);
  const p = liquidation.positions.find((x) => x.symbol === symbols[0]);
  if (symbols.length !== 1 || p === undefined)
    throw new RangeError(`fund claim ${d.liquidationId}: one symbol per claim, got ${symbols.length}`);
  const symbol = p.symbol;
  const offer = { claimId: d.liquidationId, symbol, positionQty: p.positionQty, discount: p.liquidatorFee };
  return fundClaimRequestBody(offer, Math.abs(d.perSymbolQty[symbol] as number), d.limitPrice[symbol] as number);
}
