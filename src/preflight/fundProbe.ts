/**
 * The insurance fund's route in `claim_probe` (docs/protocol.md §10, unsettled): a fund claim on an id
 * that cannot exist is sent to `POST /v1/claim_insurance_fund` and its answer recorded beside the
 * claim forms; the daemon expects it refused as gone, like a liquidation claim on that id. Sent with
 * the fund off too (the default on a real venue): the answer is what settles the route before an
 * operator turns it on. Not with the fund on through `route: liquidation` (the ratio form is that
 * route). Nothing else is sent; no money moves.
 */
import { VenueError } from "../venue/errors.js";
import { SupplyApi } from "../venue/supplyApi.js";
import { errorCode, errorText, isUnreachable, type PreflightContext } from "./check.js";

/** One claim form's answer on the impossible id (probeChecks.ts records one per form tried). */
export interface RouteAnswer<F extends string> {
  form: F;
  symbol: string;
  code: number | string;
  message: string;
  /** The daemon reads the answer as "gone": the form passed the venue's shape checks. */
  gone: boolean;
  /** The key or the signature was refused. */
  auth: boolean;
  /** No answer came: the network failed (the error), not the claim. */
  unreachable?: unknown;
}

export type FundAnswer = RouteAnswer<"insurance_fund">;

/** The fund route's answer on `id`, or undefined when the fund is claimed through /v1/liquidation. */
export async function tryFundRoute(ctx: PreflightContext, id: number, symbol: string): Promise<FundAnswer | undefined> {
  const fund = ctx.loaded.config.insurance_fund;
  if (fund.enabled && fund.route !== "claim_insurance_fund") return undefined;
  const body = { claim_id: id, symbol, qty_request: 1, limit_price: { [symbol]: ctx.marks?.get(symbol) ?? 1 } };
  try {
    await new SupplyApi(ctx.rest).claimInsuranceFund(body, { signal: ctx.signal });
    return { form: "insurance_fund", symbol, code: "accepted", message: "", gone: false, auth: false };
  } catch (err) {
    const gone = err instanceof VenueError && err.meaning.claim === "gone";
    const auth = err instanceof VenueError && (err.kind === "bad_signature" || err.kind === "unauthorized");
    const a: FundAnswer = { form: "insurance_fund", symbol, code: errorCode(err), message: errorText(err), gone, auth };
    if (isUnreachable(err)) a.unreachable = err;
    return a;
  }
}
