/**
 * The limits a live daemon must be given explicitly. The built-in values suit the embedded simulator's
 * market, not an account: a daemon started on real money with them would claim up to 50,000 a claim,
 * 250,000 in total and any fee worth 1. `liquidator run` in live mode refuses to start (exit 78) until
 * each is set in the config file or its environment variable; config/live-example.yaml sets them.
 */

import type { Problem } from "./issues.js";
import type { Config } from "./schema.js";

const LIVE_REQUIRED_KEYS = ["policy.max_claim_notional", "policy.max_total_exposure", "policy.min_fee"] as const;

/** The dotted leaf keys present in a raw config tree (file values with environment values over them). */
export function givenKeys(raw: Record<string, unknown>): ReadonlySet<string> {
  const out = new Set<string>();
  const walk = (node: unknown, prefix: string): void => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      if (node !== undefined && node !== null) out.add(prefix);
      return;
    }
    for (const [k, v] of Object.entries(node)) walk(v, prefix === "" ? k : `${prefix}.${k}`);
  };
  walk(raw, "");
  return out;
}

/** One problem per required limit a live config leaves to its built-in value; none outside live mode. */
export function liveLimitProblems(config: Config, given: ReadonlySet<string>): Problem[] {
  if (config.venue.mode !== "live") return [];
  return LIVE_REQUIRED_KEYS.filter((key) => !given.has(key)).map((key) => ({
    key,
    problem:
      "must be set explicitly when venue.mode is live, in a dry run too (the built-in value is sized for the simulator); " +
      "config/live-example.yaml has conservative values to start from",
  }));
}
