/**
 * The account's margin in a backtest: the same decision code as the daemon (claimMargin.ts through
 * PolicyState) checks each variant's claims against a virtual account that starts with the
 * backtest's `--collateral` and grows by the liquidator fees the variant earns. The unwinds' P&L is
 * left out: it rests on the assumed slippage, and the report's slippage columns must stay one replay
 * with the same claims (docs/policy-lab.md). A capture does not hold the account's margin settings
 * (docs/protocol.md §10), so the lab takes them from the backtest (`--leverage`, `--imr-factor`,
 * `--max-notional`: labAccount.ts) and otherwise assumes the venue's usual 10× on every symbol.
 * Also the report's facts: how many claims margin skipped, and how long the variant stood at its
 * margin limit (from a margin skip until a position shrank, as the daemon re-decides margin skips then).
 */
import type { MarginSource } from "../../engine/claimMargin.js";
import type { MarginAccount } from "../../engine/marginFit.js";
import { MarginSettings } from "../../engine/marginSettings.js";

/** The backtest's starting collateral when `--collateral` is not given (quote). */
export const DEFAULT_LAB_COLLATERAL = 100_000;
/** The leverage the lab assumes of a symbol the backtest gives none for (the capture does not record the account's). */
const LAB_MAX_LEVERAGE = 10;

/**
 * The account's margin settings as a backtest gives them (plain data: it crosses to worker threads):
 * `leverage` of every symbol not named in `leverages` (default 10), and per symbol its leverage, the
 * account's own `imr_factor` and `max_notional` (docs/protocol.md §10).
 */
export interface LabAccount {
  leverage?: number;
  leverages?: Readonly<Record<string, number>>;
  imrFactor?: Readonly<Record<string, number>>;
  maxNotional?: Readonly<Record<string, number>>;
}

/** The margin settings of a backtest's account. */
function labSettings(a: LabAccount | undefined): MarginSettings {
  const map = (r: Readonly<Record<string, number>> | undefined) => new Map(Object.entries(r ?? {}));
  return new MarginSettings({
    defaultLeverage: a?.leverage ?? LAB_MAX_LEVERAGE,
    leverage: map(a?.leverages),
    imrFactor: map(a?.imrFactor),
    maxNotional: map(a?.maxNotional),
  });
}

/** How the report says what the account's settings were. */
export function describeLabAccount(a: LabAccount | undefined): string {
  const per = (name: string, r: Readonly<Record<string, number>> | undefined) =>
    r === undefined || Object.keys(r).length === 0
      ? ""
      : `; ${name} ${Object.entries(r)
          .map(([s, v]) => `${s} ${v}`)
          .join(", ")}`;
  return `${a?.leverage ?? LAB_MAX_LEVERAGE}× leverage${per("leverage", a?.leverages)}${per("imr_factor", a?.imrFactor)}${per("max_notional", a?.maxNotional)}`;
}

export interface MarginFacts {
  /** Claims (liquidations) skipped with reason `margin`. */
  margin_skips: number;
  /** Seconds from a margin skip until margin was freed (a position shrank). */
  at_margin_limit_seconds: number;
}

export class LabMargin implements MarginSource {
  readonly #collateral: number;
  readonly #earned: () => number;
  readonly #settings: MarginSettings;
  #since: number | undefined;
  #ms = 0;
  #skips = 0;

  /** `earned`: the liquidator fees the variant has earned so far; `account`: its margin settings (docs/protocol.md §10). */
  constructor(collateral: number, earned: () => number, account?: LabAccount) {
    this.#collateral = collateral;
    this.#earned = earned;
    this.#settings = labSettings(account);
  }

  marginAccount(): MarginAccount {
    return { totalCollateral: this.#collateral + this.#earned(), settings: this.#settings, ordersMargin: 0 };
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
