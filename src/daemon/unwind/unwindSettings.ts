/**
 * The `unwind` section compiled for the unwinder: mode, scope, held symbols, per-symbol limits.
 * SIGHUP applies a new section (`apply`, from PolicyState with the policy): the unwinder and the
 * unwind scope read it on every step, so a raised `max_slippage_bps` takes effect on the next slice.
 */
import type { UnwindLimits } from "../../engine/unwindPlan.js";

export interface UnwindSettingsInput {
  mode: "immediate" | "off";
  /** Absent (older callers, the lab): `claimed`. */
  scope?: "claimed" | "all";
  max_slippage_bps: number;
  max_order_notional: number;
  hold: readonly string[];
  per_symbol: Readonly<Record<string, { max_slippage_bps?: number | undefined; max_order_notional?: number | undefined }>>;
}

interface Compiled {
  mode: "immediate" | "off";
  scope: "claimed" | "all";
  hold: ReadonlySet<string>;
  defaults: UnwindLimits;
  perSymbol: ReadonlyMap<string, UnwindLimits>;
}

function compile(input: UnwindSettingsInput): Compiled {
  const defaults = { maxSlippageBps: input.max_slippage_bps, maxOrderNotional: input.max_order_notional };
  const perSymbol = new Map<string, UnwindLimits>();
  for (const [symbol, o] of Object.entries(input.per_symbol)) {
    perSymbol.set(symbol, {
      maxSlippageBps: o.max_slippage_bps ?? defaults.maxSlippageBps,
      maxOrderNotional: o.max_order_notional ?? defaults.maxOrderNotional,
    });
  }
  return { mode: input.mode, scope: input.scope ?? "claimed", hold: new Set(input.hold), defaults, perSymbol };
}

export class UnwindSettings {
  /** Swapped whole by `apply`: a step never sees half of a reload. */
  #c: Compiled;

  constructor(input: UnwindSettingsInput) {
    this.#c = compile(input);
  }

  /** A new, already validated section (SIGHUP). */
  apply(input: UnwindSettingsInput): void {
    this.#c = compile(input);
  }

  get mode(): "immediate" | "off" {
    return this.#c.mode;
  }

  /** `claimed`: only what claims assigned is closed (claimedPositions.ts); `all`: every position. */
  get scope(): "claimed" | "all" {
    return this.#c.scope;
  }

  /** Whether positions of `symbol` are closed (mode immediate and not held). */
  unwinds(symbol: string): boolean {
    return this.#c.mode === "immediate" && !this.#c.hold.has(symbol);
  }

  limitsFor(symbol: string): UnwindLimits {
    return this.#c.perSymbol.get(symbol) ?? this.#c.defaults;
  }
}
