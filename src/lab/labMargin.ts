/**
 * The account's margin in a backtest: the same decision code as the daemon (claimMargin.ts through
 * PolicyState) checks each variant's claims against a virtual account that starts with the
 * backtest's `--collateral` and grows by the liquidator fees the variant earns. The unwinds' P&L is
 * left out: it rests on the assumed slippage, and the report's slippage columns must stay one replay
 * with the same claims (docs/policy-lab.md). A capture does not hold the account's `max_leverage`, so the lab assumes the
 * venue's usual 10×. Also the report's facts: how many claims margin skipped, and how long the
 * variant stood at its margin limit (from a margin skip until a position shrank, as the daemon
 * re-decides margin skips then).
 */
import type { MarginSource } from "../engine/claimMargin.js";
import type { MarginAccount } from "../engine/marginFit.js";

/** The backtest's starting collateral when `--collateral` is not given (quote). */
export const DEFAULT_LAB_COLLATERAL = 100_000;
/** The account leverage the lab assumes (the capture does not record `GET /v1/client/info`). */
export const LAB_MAX_LEVERAGE = 10;

export interface MarginFacts {
  /** Claims (liquidations) skipped with reason `margin`. */
  margin_skips: number;
  /** Seconds from a margin skip until margin was freed (a position shrank). */
  at_margin_limit_seconds: number;
}

export class LabMargin implements MarginSource {
  readonly #collateral: number;
  readonly #earned: () => number;
  #since: number | undefined;
  #ms = 0;
  #skips = 0;

  /** `earned`: the liquidator fees the variant has earned so far. */
  constructor(collateral: number, earned: () => number) {
    this.#collateral = collateral;
    this.#earned = earned;
  }

  marginAccount(): MarginAccount {
    return { totalCollateral: this.#collateral + this.#earned(), maxLeverage: LAB_MAX_LEVERAGE, ordersMargin: 0 };
  }

  /** A decision skipped a claim for margin at `at`. */
  skipped(at: number): void {
    this.#skips++;
    this.#since ??= at;
  }

  /** Margin was freed at `at` (a position shrank): the limit no longer holds claims back. */
  freed(at: number): void {
    if (this.#since === undefined) return;
    this.#ms += Math.max(0, at - this.#since);
    this.#since = undefined;
  }

  finish(now: number): MarginFacts {
    this.freed(now);
    return { margin_skips: this.#skips, at_margin_limit_seconds: Math.round(this.#ms) / 1000 };
  }
}
