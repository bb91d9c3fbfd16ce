/**
 * A leader's followers in families (decisionGroup.ts): policies that differ in `min_fee`,
 * `limit_price_slippage_bps` and `max_total_exposure` alone, whose decisions one traced decision
 * settles (engine/decisionTrace.ts), and what such a family remembers at one decision.
 */
import type { Config } from "../../config/schema.js";
import {
  type Agreement,
  capsAgree,
  type DecideTrace,
  limitsAgree,
  newDecideTrace,
  type TracedContext,
} from "../../engine/decisionTrace.js";
import type { RiskPolicy, SymbolLimits } from "../../engine/riskPolicy.js";
import { canonical } from "./canonical.js";

/**
 * What must be equal for two policies' decisions to be settled by one trace: the policy but
 * `min_fee`, `limit_price_slippage_bps` and `max_total_exposure`, globally and per symbol.
 */
export function familyKey(policy: Config["policy"]): string {
  const { min_fee: _fee, limit_price_slippage_bps: _bps, max_total_exposure: _cap, per_symbol, ...rest } = policy;
  const perSymbol =
    per_symbol === undefined || per_symbol === null
      ? per_symbol
      : Object.fromEntries(
          Object.entries(per_symbol).map(([symbol, limits]) => {
            const { min_fee: _f, limit_price_slippage_bps: _b, max_total_exposure: _c, ...other } = limits ?? {};
            return [symbol, other];
          }),
        );
  return canonical({ ...rest, per_symbol: perSymbol });
}

/**
 * `limitsAgree` and `capsAgree` at one decision, each computed once for the family's policies alike
 * in the keys it reads (a sweep's list of slippages or caps), not once per policy.
 */
export class FamilyAgreement implements Agreement {
  readonly policies: readonly RiskPolicy[];
  readonly #limitsClass = new Map<RiskPolicy, number>();
  readonly #capsClass = new Map<RiskPolicy, number>();
  /** Per class at this decision: 0 not known yet, 1 agrees, 2 does not. */
  readonly #limits: Int8Array;
  readonly #caps: Int8Array;
  #trace: DecideTrace = newDecideTrace();
  #ctx: TracedContext | undefined;

  constructor(policies: readonly RiskPolicy[]) {
    this.policies = policies;
    this.#limits = new Int8Array(classes(policies, this.#limitsClass, (l) => l.slippageBps));
    this.#caps = new Int8Array(classes(policies, this.#capsClass, (l) => l.maxTotalExposure));
  }

  at(trace: DecideTrace, ctx: TracedContext): void {
    this.#trace = trace;
    this.#ctx = ctx;
    this.#limits.fill(0);
    this.#caps.fill(0);
  }

  limits(policy: RiskPolicy): boolean {
    const c = this.#limitsClass.get(policy) as number;
    if (this.#limits[c] === 0) this.#limits[c] = limitsAgree(this.#trace, policy, this.#ctx as TracedContext) ? 1 : 2;
    return this.#limits[c] === 1;
  }

  caps(policy: RiskPolicy): boolean {
    const c = this.#capsClass.get(policy) as number;
    if (this.#caps[c] === 0) this.#caps[c] = capsAgree(this.#trace, policy, this.#ctx as TracedContext) ? 1 : 2;
    return this.#caps[c] === 1;
  }
}

/** Numbers each policy by its value of `key`, globally and per symbol (symbols sorted); returns how many classes. */
function classes(policies: readonly RiskPolicy[], out: Map<RiskPolicy, number>, key: (l: SymbolLimits) => number): number {
  const ids = new Map<string, number>();
  for (const p of policies) {
    const perSymbol = [...p.perSymbol].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([s, l]) => `${s}:${key(l)}`);
    const k = `${key(p.defaults)}|${perSymbol.join(",")}`;
    if (!ids.has(k)) ids.set(k, ids.size);
    out.set(p, ids.get(k) as number);
  }
  return ids.size;
}
