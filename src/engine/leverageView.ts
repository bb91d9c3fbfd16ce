/**
 * What the account's leverage settings cost (docs/protocol.md §10), pure: each allowed symbol's setting, the
 * venue's maximum for it, and the initial margin one `max_claim_notional` claim needs at each. A
 * symbol below its maximum needs more margin per claim than it must (`liquidator leverage`, the
 * preflight `leverage` check).
 *
 * A symbol's maximum: the venue's row says it where it does; otherwise `min(max_futures_leverage,
 * ⌊1 / base_imr⌋)` (a setting past 1 / base_imr changes nothing: the IMR's floor is base_imr).
 */
import { initialMargin, type MarginParams } from "./margin.js";
import type { MarginSettings } from "./marginSettings.js";

/** The largest leverage a symbol may be set to, or undefined when neither source says. */
function symbolMaxLeverage(pub: MarginParams | undefined, venueMax: number | undefined, rowMax?: number): number | undefined {
  if (rowMax !== undefined && rowMax > 0) return rowMax;
  const byImr = pub !== undefined && pub.baseImr > 0 && pub.baseImr < 1 ? Math.floor(1 / pub.baseImr + 1e-9) : undefined;
  if (byImr === undefined) return venueMax;
  return venueMax === undefined ? byImr : Math.min(venueMax, byImr);
}

export interface LeverageLine {
  symbol: string;
  /** The account's setting (undefined: the venue listed none and client info gave no max_leverage). */
  leverage: number | undefined;
  /** The venue's maximum for the symbol (undefined: unknown). */
  max: number | undefined;
  /** The notional of one claim at the cap: the symbol's max_claim_notional, or its max_notional when smaller. */
  claimNotional: number;
  /** Initial margin of one such claim at the setting (at 1× when unknown) and at the maximum. */
  marginAtSetting: number;
  marginAtMax: number | undefined;
  /** Below its maximum: claims there need more margin than they must. */
  belowMax: boolean;
}

export interface LeverageSymbol {
  symbol: string;
  pub: MarginParams;
  /** The symbol's `max_claim_notional` (its override, else the global). */
  maxClaimNotional: number;
  /** The `max_leverage` of its leverages row, when the venue sends one. */
  rowMax?: number | undefined;
}

/** One line per symbol: its setting, its maximum, and what one claim needs at each. */
export function leverageLines(symbols: readonly LeverageSymbol[], settings: MarginSettings, venueMax: number | undefined): LeverageLine[] {
  return symbols.map((s) => {
    const m = settings.symbolMargin(s.symbol, s.pub);
    const leverage = settings.leverageOf(s.symbol);
    const max = symbolMaxLeverage(s.pub, venueMax, s.rowMax);
    const claimNotional = Math.min(s.maxClaimNotional, settings.maxNotionalOf(s.symbol));
    return {
      symbol: s.symbol,
      leverage,
      max,
      claimNotional,
      marginAtSetting: initialMargin(m, claimNotional, m.leverage),
      marginAtMax: max === undefined ? undefined : initialMargin(m, claimNotional, max),
      belowMax: max !== undefined && (leverage === undefined || leverage < max),
    };
  });
}
