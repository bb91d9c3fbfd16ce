/**
 * The engine's own input and output types: camelCase domain objects, independent of the wire. The
 * daemon maps stream payloads (camelCase, docs/protocol.md §5) and REST rows (snake_case, docs/protocol.md §4)
 * into these after validating them; the engine re-checks the numbers it relies on, because a bad
 * value must become a skip, never a claim.
 */

import type { MarginParams } from "./margin.js";

/**
 * Symbols as the venue writes them (`PERP_<BASE>_<QUOTE>`, docs/protocol.md §4.2); the lengths
 * are bounded so hostile input cannot make a label or a record key without limit.
 */
export const SYMBOL_PATTERN = /^PERP_[A-Z0-9]{1,32}_[A-Z0-9]{1,16}$/;

/** One position offered by a liquidation (`positionsByPerp[i]` / `positions_by_perp[i]`). */
/**
 * The venue keeps one net position per symbol AND margin mode (docs/protocol.md §9): a cross and an
 * isolated position can coexist on one symbol. Absent on the wire means CROSS.
 */
export type MarginMode = "CROSS" | "ISOLATED";
export const MARGIN_MODES: readonly MarginMode[] = ["CROSS", "ISOLATED"];

export interface LiquidationPosition {
  readonly symbol: string;
  /** Signed quantity the liquidator takes over (same sign) when it claims; 0 = already fully claimed. */
  readonly positionQty: number;
  /** Fraction, e.g. 0.006 (docs/protocol.md §11). */
  readonly liquidatorFee: number;
}

/** An open liquidation as the daemon currently knows it (remaining quantities). */
export interface Liquidation {
  readonly liquidationId: number;
  /** Venue timestamp (ms); used only for ordering ties in the ranking. */
  readonly timestamp: number;
  readonly positions: readonly LiquidationPosition[];
  /**
   * The venue's `type` of the row or push as sent (`liquidated`, `claim`: docs/protocol.md §9, §10), kept so
   * that what is claimed where can follow it; absent when the venue sent none.
   */
  readonly type?: string | undefined;
}

/** A mark price and when the daemon received it (the daemon's clock, ms). */
export interface Mark {
  readonly symbol: string;
  readonly price: number;
  readonly receivedAt: number;
}

/** Something that can price a symbol (the MarkBook); used for exposure notionals. */
export interface PriceSource {
  /** Last known mark of `symbol` regardless of age, or undefined. */
  price(symbol: string): number | undefined;
  /**
   * The source's own record of `symbol`, whose `price` follows every later update (MarkBook keeps
   * one entry per symbol for good): a reader may hold it instead of looking the price up each time.
   */
  get?(symbol: string): { readonly price: number } | undefined;
  /**
   * Changes whenever a price does (MarkBook: every mark taken). A source without one is read afresh
   * by every decision; with one, what a decision computed from the prices may be kept while it holds.
   */
  readonly version?: number;
}

/** One row of `GET /v1/public/info` (docs/protocol.md §4) in domain form. */
export interface SymbolInfo {
  readonly symbol: string;
  /** docs/protocol.md §11: 1 = low risk (proportional claims only), 2 = high risk (per-symbol claims allowed). */
  readonly tier: 1 | 2;
  readonly liquidatorFee: number;
  /** Price tick; every limit price sent is a whole number of ticks. */
  readonly priceTick: number;
  readonly minNotional: number;
  /** Order filters (docs/protocol.md §4.2); absent when the venue's row does not carry them. */
  readonly orderFilters?: OrderFilters | undefined;
  /**
   * Margin parameters (docs/protocol.md §7: `base_imr`, `base_mmr`, `imr_factor`); absent when the row
   * does not carry all three usable: then margin charges the symbol its whole notional (margin.ts `UNKNOWN_MARGIN`).
   */
  readonly margin?: MarginParams | undefined;
}

/** What an order on a symbol must respect: quantities on the `qtyTick` grid from `qtyMin`, prices within `priceRange` of the mark. */
export interface OrderFilters {
  /** `base_tick`: the quantity step. */
  readonly qtyTick: number;
  /** `base_min` / `base_max`. */
  readonly qtyMin: number;
  readonly qtyMax: number;
  /** `price_range`: an order price must lie within mark × (1 ± priceRange). */
  readonly priceRange: number;
}

/** Why a liquidation was not claimed: the bounded `reason` label of `claims_skipped_total`. */
export const SKIP_REASONS = [
  "invalid_liquidation", // malformed input: bad id, no open position, non-finite qty, bad fee, duplicate symbol
  "unknown_symbol", // an open symbol missing from GET /v1/public/info: its tier, tick are unknown
  "symbol_denied", // in policy.symbols.deny
  "symbol_not_allowed", // not in a non-empty policy.symbols.allow
  "mark_missing", // no usable mark price
  "mark_stale", // mark older than max_mark_age_ms
  "limit_tick", // the limit quantised to the tick would be on the wrong side of the mark
  "below_min_fee", // expected fee < min_fee
  "ratio_zero", // max_claim_notional leaves less than 0.001 of the position
  "over_caps", // a full take is required (notional under the venue's threshold) but our caps cut the ratio
  "exposure_cap", // max_total_exposure (global or the symbol's) leaves no room
  "margin", // max_margin_usage / min_free_collateral leave no room (or a held position cannot be valued)
  "protection", // the trading state is not active (a protection tripped, or a drain): no new claims
  "cooldown", // a symbol of it cools after a loss streak (protections.loss_streak)
] as const;
/** The reasons the claim pipeline's gate gives (protections), before `decide` is asked. */
export const GATE_SKIP_REASONS: readonly SkipReason[] = ["protection", "cooldown"];
export type SkipReason = (typeof SKIP_REASONS)[number];

/** One symbol of a per-symbol claim and its ratio (a multiple of 0.001 in (0, 1]). */
export interface SymbolRatio {
  readonly symbol: string;
  readonly ratio: number;
}

/** Quantity transferred to (or traded by) the account at a price, with the fee paid or earned. */
export interface Fill {
  readonly symbol: string;
  /** Signed base quantity. */
  readonly qty: number;
  readonly price: number;
  /** Quote; for a claim, the liquidator fee earned. */
  readonly fee: number;
}

export interface ClaimDecision {
  readonly action: "claim";
  readonly liquidationId: number;
  /** `ratio_qty_request`: a multiple of 0.001 in (0, 1]; with `symbols`, the largest symbol ratio. */
  readonly ratio: number;
  /** Per-symbol claim (all symbols high tier); undefined for a proportional claim. */
  readonly symbols: readonly SymbolRatio[] | undefined;
  /** `limit_price` for every claimed symbol, already on the symbol's tick. */
  readonly limitPrice: Readonly<Record<string, number>>;
  /** docs/protocol.md §11: Σ |q| × mark × liquidator_fee over the claimed symbols (the ranking key). */
  readonly expectedFee: number;
  /** Σ |q| × mark over the claimed symbols. */
  readonly notional: number;
  /**
   * Signed quantity taken per claimed symbol (rounded to 1e-9 like the venue): reserve it in Exposure.
   * With `extraRatio`, the most the claim may take (the quantity × (1 + extra)).
   */
  readonly perSymbolQty: Readonly<Record<string, number>>;
  /** `extra_liquidation_ratio` sent with a ratio-1 claim (docs/protocol.md §10; extraRatio.ts); absent: none. */
  readonly extraRatio?: number;
  /** Initial margin the claim adds to held + in flight (quote, claimMargin.ts); absent when margin is not checked. */
  readonly marginNeed?: number;
  /** The margin budget left before the claim (quote); absent (read as unlimited) when margin is not checked. */
  readonly marginRoom?: number;
  /**
   * Why the claim takes less than the whole liquidation, when it does (the opportunity ledger's
   * "cut by" rows: what a cap cost): the cap that cut the ratio (`max_claim_notional`,
   * `exposure_cap`, `margin`), or the skip reason of a symbol a per-symbol claim left out.
   */
  readonly cut?: CutReason | undefined;
}

/** What cut a claim below the whole liquidation (ClaimDecision.cut). */
export type CutReason = "max_claim_notional" | SkipReason;

export interface SkipDecision {
  readonly action: "skip";
  readonly liquidationId: number;
  readonly reason: SkipReason;
  /** The symbol concerned, or a short constant; for logs, never a metric label. */
  readonly detail: string | undefined;
}

export type Decision = ClaimDecision | SkipDecision;
