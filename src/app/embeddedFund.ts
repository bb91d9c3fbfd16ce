/**
 * On the embedded simulated venue (`npm start`), the insurance fund's supply is on unless the
 * config or the environment says otherwise: its route is the simulator's own, nothing real is
 * claimed, and a newcomer sees both supplies within minutes. On a real venue `insurance_fund.enabled`
 * keeps its default, false, until the operator has probed the route (`liquidator preflight`).
 */
import type { Config } from "../config/schema.js";

/** Turns the fund on for the embedded venue when `insurance_fund.enabled` was not given; true if it did. */
export function fundOnEmbedded(config: Config, given: ReadonlySet<string>, simulated: boolean): boolean {
  if (!simulated || given.has("insurance_fund.enabled") || config.insurance_fund.enabled) return false;
  config.insurance_fund.enabled = true;
  return true;
}
