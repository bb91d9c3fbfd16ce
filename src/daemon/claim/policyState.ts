/**
 * The engine's inputs besides a liquidation and the time: the compiled risk policy, the symbol
 * table, the marks and the exposure. One object owns them; the policy (SIGHUP) and the symbol table
 * (info refresh) are swapped whole, so a decision never sees half of an update. The claimer decides
 * through `decide`, always on the current context. The `unwind` section is reloadable state too: the
 * unwinder reads `unwind` on every step, so SIGHUP applies it with the policy.
 */

import { compileRiskPolicy, type RiskPolicyInput } from "../../config/riskPolicyOf.js";
import type { MarginSource } from "../../engine/claimMargin.js";
import type { Exposure } from "../../engine/exposure.js";
import { LeastRatios, withLeastRatio } from "../../engine/leastRatio.js";
import type { MarkBook } from "../../engine/marks.js";
import { type Decision, decide, type PolicyContext } from "../../engine/policy.js";
import { SymbolTable } from "../../engine/symbolInfo.js";
import type { Liquidation } from "../../engine/types.js";
import { UnwindSettings, type UnwindSettingsInput } from "../unwind/unwindSettings.js";

/** When no unwind section is given (tests of the claim path alone): the schema's defaults. */
const DEFAULT_UNWIND: UnwindSettingsInput = {
  mode: "immediate",
  scope: "claimed",
  max_slippage_bps: 50,
  max_order_notional: 25_000,
  hold: [],
  per_symbol: {},
};

export class PolicyState {
  #context: PolicyContext;
  #maxMarkAgeMs: number;
  #symbolsLoaded = false;
  /** The `unwind` section, applied in place by `applyUnwind` (the unwinder holds this object). */
  readonly unwind: UnwindSettings;

  /** `account`: the collateral the margin limits are checked against (none: not checked). */
  constructor(
    policy: RiskPolicyInput,
    marks: MarkBook,
    exposure: Exposure,
    account?: MarginSource,
    unwind: UnwindSettingsInput = DEFAULT_UNWIND,
  ) {
    const compiled = compileRiskPolicy(policy);
    this.#context = { policy: compiled, symbols: new SymbolTable(), marks, exposure, account };
    this.#maxMarkAgeMs = compiled.defaults.maxMarkAgeMs;
    this.unwind = new UnwindSettings(unwind);
  }

  get context(): PolicyContext {
    return this.#context;
  }

  /** True once a symbol table from the venue has been applied: before it, no claim's form is known. */
  get symbolsLoaded(): boolean {
    return this.#symbolsLoaded;
  }

  /** The global `max_mark_age_ms` (readiness judges the marks by it). */
  get maxMarkAgeMs(): number {
    return this.#maxMarkAgeMs;
  }

  /** Least ratios the venue named in -1201 refusals (claimSender.ts learns them): a floor on those ids' decisions. */
  readonly leastRatios = new LeastRatios();

  readonly decide = (liquidation: Liquidation, now: number): Decision =>
    withLeastRatio(decide(liquidation, this.#context, now), this.leastRatios.get(liquidation.liquidationId));

  /** A new, already validated policy (throws ConfigError on an invalid one, leaving the old in place). */
  applyPolicy(policy: RiskPolicyInput): void {
    const compiled = compileRiskPolicy(policy);
    this.#context = { ...this.#context, policy: compiled };
    this.#maxMarkAgeMs = compiled.defaults.maxMarkAgeMs;
  }

  /** A new, already validated `unwind` section (SIGHUP). */
  applyUnwind(unwind: UnwindSettingsInput): void {
    this.unwind.apply(unwind);
  }

  applySymbols(table: SymbolTable): void {
    this.#context = { ...this.#context, symbols: table };
    this.#symbolsLoaded = true;
  }
}
