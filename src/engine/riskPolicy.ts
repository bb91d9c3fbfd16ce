/**
 * The operator's risk policy (config `policy` section, README.md "Configuration"), compiled
 * once per (re)load into a per-symbol lookup the hot path reads with one Map get. `dry_run` is not
 * the engine's business (docs/architecture.md rule 4: it is enforced where a claim is sent) and is ignored here.
 */

import { ConfigError } from "../errors.js";
import type { MarginLimits } from "./marginFit.js";
import { SYMBOL_PATTERN } from "./types.js";

/** The five keys that exist globally and per symbol (README.md "Configuration"). */
export interface RiskLimitsInput {
  max_claim_notional: number;
  max_total_exposure: number;
  min_fee: number;
  limit_price_slippage_bps: number;
  max_mark_age_ms: number;
  /** Absent = 0: `min_fee` is compared with the gross fee. */
  expected_unwind_cost_bps?: number;
}

/**
 * The config's `policy` section exactly as README.md "Configuration" writes it (snake_case). Deliberately a little
 * wider than the zod-inferred type (readonly arrays, optional `dry_run` / `per_symbol`, null) so that
 * type is assignable to it however its defaults are written.
 */
export interface RiskPolicyInput extends RiskLimitsInput {
  dry_run?: boolean;
  /** Absent = 0.5 (docs/operations.md "Margin"): initial margin after a claim as a share of total collateral. */
  max_margin_usage?: number;
  /** Absent = 0: free collateral (quote) that must remain after a claim. */
  min_free_collateral?: number;
  /** Absent = 0 (docs/protocol.md §10): with ratio 1, ask for up to this fraction more if the live quantity grew. */
  extra_liquidation_ratio?: number;
  symbols: { allow: readonly string[]; deny: readonly string[] };
  per_symbol?: Readonly<Record<string, Partial<RiskLimitsInput>>> | null;
}

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

const MAX_TIMER_MS = 2_147_483_647;

/** `policy.max_margin_usage` [0.5] and `policy.min_free_collateral` [0] (docs/operations.md "Margin"). */
export const DEFAULT_MARGIN_LIMITS: MarginLimits = { maxMarginUsage: 0.5, minFreeCollateral: 0 };

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
    margin: MarginLimits = DEFAULT_MARGIN_LIMITS,
    extraThousandths = 0,
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

type LimitKey = keyof RiskLimitsInput;

function checkValue(key: LimitKey, value: unknown, path: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) throw new ConfigError(path, "must be a finite number");
  switch (key) {
    case "max_claim_notional":
    case "max_total_exposure":
      if (!(value > 0)) throw new ConfigError(path, "must be > 0");
      break;
    case "min_fee":
      if (!(value >= 0)) throw new ConfigError(path, "must be >= 0");
      break;
    case "limit_price_slippage_bps":
    case "expected_unwind_cost_bps":
      if (!(value >= 0 && value <= 10_000)) throw new ConfigError(path, "must be in [0, 10000]");
      break;
    case "max_mark_age_ms":
      if (!(value > 0 && value <= MAX_TIMER_MS)) throw new ConfigError(path, `must be in (0, ${MAX_TIMER_MS}]`);
      break;
  }
  return value;
}

function resolve(base: Required<RiskLimitsInput>, over: Partial<RiskLimitsInput>, prefix: string): SymbolLimits {
  const pick = (key: LimitKey): number => {
    const v = over[key];
    return v === undefined ? base[key] : checkValue(key, v, `${prefix}.${key}`);
  };
  const bps = pick("limit_price_slippage_bps");
  return {
    maxClaimNotional: pick("max_claim_notional"),
    maxTotalExposure: pick("max_total_exposure"),
    minFee: pick("min_fee"),
    slippageBps: bps,
    upNumerator: 10_000 + bps,
    downNumerator: 10_000 - bps,
    maxMarkAgeMs: pick("max_mark_age_ms"),
    unwindCostRate: pick("expected_unwind_cost_bps") / 10_000,
  };
}

const LIMIT_KEYS: readonly LimitKey[] = [
  "max_claim_notional",
  "max_total_exposure",
  "min_fee",
  "limit_price_slippage_bps",
  "max_mark_age_ms",
  "expected_unwind_cost_bps",
];

/** Keys an input may leave out (a policy written before they existed), with the value that changes nothing. */
const OPTIONAL_LIMIT_DEFAULTS: Partial<Record<LimitKey, number>> = { expected_unwind_cost_bps: 0 };

function symbolSet(list: readonly string[], path: string): Set<string> {
  const out = new Set<string>();
  list.forEach((s, i) => {
    if (typeof s !== "string" || !SYMBOL_PATTERN.test(s))
      throw new ConfigError(`${path}[${i}]`, "is not a venue symbol PERP_<BASE>_<QUOTE>");
    out.add(s);
  });
  return out;
}

/**
 * Compile the `policy` section. The config loader has validated it already; the values are checked
 * again (ConfigError naming the key) because a policy that reaches the engine unchecked — a test, a
 * reload path — must not turn into NaN caps.
 */
export function compileRiskPolicy(input: RiskPolicyInput): RiskPolicy {
  const base = {} as Required<RiskLimitsInput>;
  for (const key of LIMIT_KEYS) base[key] = checkValue(key, input[key] ?? OPTIONAL_LIMIT_DEFAULTS[key], `policy.${key}`);
  const defaults = resolve(base, {}, "policy");

  const allowList = symbolSet(input.symbols?.allow ?? [], "policy.symbols.allow");
  const deny = symbolSet(input.symbols?.deny ?? [], "policy.symbols.deny");

  const perSymbol = new Map<string, SymbolLimits>();
  const overrides = input.per_symbol ?? {};
  for (const symbol of Object.keys(overrides)) {
    const prefix = `policy.per_symbol.${symbol}`;
    if (!SYMBOL_PATTERN.test(symbol)) throw new ConfigError(prefix, "is not a venue symbol PERP_<BASE>_<QUOTE>");
    const over = overrides[symbol] ?? {};
    for (const key of Object.keys(over)) {
      if (!(LIMIT_KEYS as readonly string[]).includes(key))
        throw new ConfigError(`${prefix}.${key}`, `unknown key; expected one of: ${LIMIT_KEYS.join(", ")}`);
    }
    perSymbol.set(symbol, resolve(base, over, prefix));
  }

  return new RiskPolicy(defaults, allowList.size === 0 ? null : allowList, deny, perSymbol, marginLimits(input), extraThousandths(input));
}

/** `extra_liquidation_ratio` in [0, 1], as whole thousandths (the venue's quantum of a ratio). */
function extraThousandths(input: RiskPolicyInput): number {
  const extra = input.extra_liquidation_ratio ?? 0;
  if (typeof extra !== "number" || !(extra >= 0 && extra <= 1))
    throw new ConfigError("policy.extra_liquidation_ratio", "must be in [0, 1]");
  return Math.floor(extra * 1000 + 1e-6);
}

function marginLimits(input: RiskPolicyInput): MarginLimits {
  const usage = input.max_margin_usage ?? DEFAULT_MARGIN_LIMITS.maxMarginUsage;
  if (typeof usage !== "number" || !(usage > 0 && usage <= 1)) throw new ConfigError("policy.max_margin_usage", "must be in (0, 1]");
  const free = input.min_free_collateral ?? DEFAULT_MARGIN_LIMITS.minFreeCollateral;
  if (typeof free !== "number" || !Number.isFinite(free) || free < 0) throw new ConfigError("policy.min_free_collateral", "must be >= 0");
  return { maxMarginUsage: usage, minFreeCollateral: free };
}
