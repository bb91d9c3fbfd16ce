/**
 * The `policy` section compiled into the engine's RiskPolicy (engine/riskPolicy.ts). The section is
 * declared once, in policySchema.ts: its types, defaults and checks are the schema's, and every
 * caller — the config loader, SIGHUP, the lab's variants, preflight, the bench, a test — goes through
 * it, so a policy that never passed the loader cannot reach the engine unchecked (NaN caps).
 */
import type { z } from "zod";
import { type MarginLimits, RiskPolicy, type SymbolLimits } from "../engine/riskPolicy.js";
import { configErrorFrom, problemsFromZod } from "./issues.js";
import { policySchema } from "./policySchema.js";

type Policy = z.output<typeof policySchema>;
/**
 * The section as written: any key may be left out (the schema's default applies) and `per_symbol`
 * may be null (a YAML key with every override commented out). Derived from the schema's own type.
 */
export type RiskPolicyInput = {
  [K in keyof Policy]?: K extends "symbols"
    ? { [S in keyof Policy["symbols"]]?: readonly Policy["symbols"][S][number][] }
    : K extends "per_symbol"
      ? Policy[K] | null
      : Policy[K];
};
/** The limits that exist globally and per symbol, as loaded. */
type RiskLimitsInput = Pick<
  Policy,
  "max_claim_notional" | "max_total_exposure" | "min_fee" | "limit_price_slippage_bps" | "max_mark_age_ms" | "expected_unwind_cost_bps"
>;

/** Validates `input` with the config's schema, filling its defaults (ConfigError naming the key), and compiles it. */
export function compileRiskPolicy(input: RiskPolicyInput): RiskPolicy {
  const parsed = policySchema.safeParse(input);
  if (!parsed.success) throw configErrorFrom(problemsFromZod(parsed.error.issues.map((i) => ({ ...i, path: ["policy", ...i.path] }))));
  const p = parsed.data;
  const perSymbol = new Map<string, SymbolLimits>();
  for (const [symbol, over] of Object.entries(p.per_symbol)) {
    const defined = Object.fromEntries(Object.entries(over ?? {}).filter(([, v]) => v !== undefined));
    perSymbol.set(symbol, limitsOf({ ...p, ...defined }));
  }
  const margin: MarginLimits = { maxMarginUsage: p.max_margin_usage, minFreeCollateral: p.min_free_collateral };
  const allow = p.symbols.allow.length === 0 ? null : new Set(p.symbols.allow);
  // Whole thousandths: the venue's quantum of a ratio.
  const extraThousandths = Math.floor(p.extra_liquidation_ratio * 1000 + 1e-6);
  return new RiskPolicy(limitsOf(p), allow, new Set(p.symbols.deny), perSymbol, margin, extraThousandths);
}

function limitsOf(l: RiskLimitsInput): SymbolLimits {
  const bps = l.limit_price_slippage_bps;
  return {
    maxClaimNotional: l.max_claim_notional,
    maxTotalExposure: l.max_total_exposure,
    minFee: l.min_fee,
    slippageBps: bps,
    upNumerator: 10_000 + bps,
    downNumerator: 10_000 - bps,
    maxMarkAgeMs: l.max_mark_age_ms,
    unwindCostRate: l.expected_unwind_cost_bps / 10_000,
  };
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export type { RiskLimitsInput as RiskLimitsInputForTests };
