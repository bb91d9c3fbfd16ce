/** The `unwind` section compiled for the unwinder: mode, held symbols, per-symbol limits. */
import type { UnwindLimits } from "../engine/unwindPlan.js";

export interface UnwindSettingsInput {
  mode: "immediate" | "off";
  /** Absent (older callers, the lab): `claimed`. */
  scope?: "claimed" | "all";
  max_slippage_bps: number;
  max_order_notional: number;
  hold: readonly string[];
  per_symbol: Readonly<Record<string, { max_slippage_bps?: number | undefined; max_order_notional?: number | undefined }>>;
}

export class UnwindSettings {
  readonly mode: "immediate" | "off";
  /** `claimed`: only what claims assigned is closed (claimedPositions.ts); `all`: every position. */
  readonly scope: "claimed" | "all";
  readonly #hold: ReadonlySet<string>;
  readonly #defaults: UnwindLimits;
  readonly #perSymbol = new Map<string, UnwindLimits>();

  constructor(input: UnwindSettingsInput) {
    this.mode = input.mode;
    this.scope = input.scope ?? "claimed";
    this.#hold = new Set(input.hold);
    this.#defaults = { maxSlippageBps: input.max_slippage_bps, maxOrderNotional: input.max_order_notional };
    for (const [symbol, o] of Object.entries(input.per_symbol)) {
      this.#perSymbol.set(symbol, {
        maxSlippageBps: o.max_slippage_bps ?? this.#defaults.maxSlippageBps,
        maxOrderNotional: o.max_order_notional ?? this.#defaults.maxOrderNotional,
      });
    }
  }

  /** Whether positions of `symbol` are closed (mode immediate and not held). */
  unwinds(symbol: string): boolean {
    return this.mode === "immediate" && !this.#hold.has(symbol);
  }

  limitsFor(symbol: string): UnwindLimits {
    return this.#perSymbol.get(symbol) ?? this.#defaults;
  }
}
