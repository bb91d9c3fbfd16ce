/**
 * The operator's risk policy compiled (config `policy` section, README.md "Configuration") into a
 * per-symbol lookup the hot path reads with one Map get. The section itself — its types, defaults
 * and checks — is declared once, in config/policySchema.ts; config/riskPolicyOf.ts compiles it
 * into this. `dry_run` is not the engine's business (docs/architecture.md rule 4: it is enforced
 * where a claim is sent).
 */

import type { MarginLimits } from "./marginFit.js";

export type { MarginLimits };

/** Resolved limits of one symbol (global values merged with its overrides). */
export interface SymbolLimits {
  /** Largest notional at mark this symbol's part of one claim may have (see policy.ts for multi-symbol claims). */
  readonly maxClaimNotional: number;
  /** Cap on this symbol's exposure (held + reserved, worst case) at mark. */
  readonly maxTotalExposure: number;
  readonly minFee: number;
  readonly slippageBps: number;
  /** mark × upNumerator / 10⁴ is the raw limit when position_qty > 0 (10⁴ + bps). */
  readonly upNumerator: number;
  /** mark × downNumerator / 10⁴ is the raw limit when position_qty < 0 (10⁴ − bps). */
  readonly downNumerator: number;
  readonly maxMarkAgeMs: number;
  /**
   * expected_unwind_cost_bps / 10⁴: the share of a claim's notional that getting flat is expected to
   * cost, so `min_fee` judges what a claim keeps, not what it is paid.
   */
  readonly unwindCostRate: number;
}

/** Result of the allow/deny lists for one symbol. */
export type SymbolAccess = "allowed" | "denied" | "not_allowed";

export class RiskPolicy {
  /** Global values; `defaults.maxTotalExposure` is also the cap on the sum over all symbols. */
  readonly defaults: SymbolLimits;
  /** null = every symbol allowed (empty allow list). */
  readonly allow: ReadonlySet<string> | null;
  readonly deny: ReadonlySet<string>;
  readonly perSymbol: ReadonlyMap<string, SymbolLimits>;
  /** Account-wide margin limits (claimMargin.ts); global only. */
  readonly margin: MarginLimits;
  /** `extra_liquidation_ratio` in thousandths (extraRatio.ts); global only. */
  readonly extraThousandths: number;

  constructor(
    defaults: SymbolLimits,
    allow: ReadonlySet<string> | null,
    deny: ReadonlySet<string>,
    perSymbol: ReadonlyMap<string, SymbolLimits>,
    margin: MarginLimits,
    extraThousandths: number,
  ) {
    this.margin = margin;
    this.extraThousandths = extraThousandths;
    this.defaults = defaults;
    this.allow = allow;
    this.deny = deny;
    this.perSymbol = perSymbol;
  }

  /** The limits that apply to `symbol` (its overrides merged over the globals). */
  limitsFor(symbol: string): SymbolLimits {
    return this.perSymbol.get(symbol) ?? this.defaults;
  }

  /** Deny wins over allow; an empty allow list allows every symbol. */
  access(symbol: string): SymbolAccess {
    if (this.deny.has(symbol)) return "denied";
    if (this.allow !== null && !this.allow.has(symbol)) return "not_allowed";
    return "allowed";
  }

  /** The global cap on Σ |position| × mark over all symbols (held + queued + in flight). */
  get maxTotalExposure(): number {
    return this.defaults.maxTotalExposure;
  }
}
