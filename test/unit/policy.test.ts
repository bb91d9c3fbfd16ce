import { describe, expect, it } from "vitest";
import { type ClaimDecision, type Decision, decide, GATE_SKIP_REASONS, SKIP_REASONS, type SkipReason } from "../../src/engine/policy.js";
import type { Liquidation } from "../../src/engine/types.js";
import { type CtxOptions, liq, makeCtx, NOW, symbolsWithMargin } from "./engine.fixtures.js";

const BTC = "PERP_BTC_USDC";
const ETH = "PERP_ETH_USDC";
const SOL = "PERP_SOL_USDC";
const DOGE = "PERP_DOGE_USDC";
const AVAX = "PERP_AVAX_USDC";
const XRP = "PERP_XRP_USDC"; // not in the symbol table

interface SkipCase {
  name: string;
  ctx?: CtxOptions;
  liq: Liquidation;
  reason: SkipReason;
  detail?: string;
}

const raw = (liquidationId: number, positions: unknown[]): Liquidation =>
  ({ liquidationId, timestamp: 1, positions }) as unknown as Liquidation;

// Marks (fixtures): BTC 100,000  ETH 2,000  SOL 100  DOGE 0.1  AVAX 20, all 1 s old at NOW.
// Policy defaults: claim 50,000, exposure 250,000, min_fee 1, 50 bps, 3,000 ms.
const skipCases: SkipCase[] = [
  { name: "liquidation_id 0", liq: liq(0, [BTC, 0.01]), reason: "invalid_liquidation", detail: "liquidation_id" },
  { name: "fractional liquidation_id", liq: liq(1.5, [BTC, 0.01]), reason: "invalid_liquidation", detail: "liquidation_id" },
  { name: "negative liquidation_id", liq: liq(-3, [BTC, 0.01]), reason: "invalid_liquidation", detail: "liquidation_id" },
  { name: "no positions", liq: raw(5, []), reason: "invalid_liquidation", detail: "no_positions" },
  {
    name: "positions not an array",
    liq: { liquidationId: 5, timestamp: 1, positions: null } as unknown as Liquidation,
    reason: "invalid_liquidation",
  },
  { name: "every quantity zero", liq: liq(5, [BTC, 0], [ETH, 0]), reason: "invalid_liquidation", detail: "no_quantity" },
  { name: "NaN quantity", liq: liq(5, [BTC, Number.NaN]), reason: "invalid_liquidation", detail: BTC },
  { name: "infinite quantity", liq: liq(5, [SOL, 1], [BTC, Number.POSITIVE_INFINITY]), reason: "invalid_liquidation", detail: BTC },
  { name: "negative fee", liq: liq(5, [BTC, 0.01, -0.001]), reason: "invalid_liquidation", detail: BTC },
  { name: "NaN fee", liq: liq(5, [BTC, 0.01, Number.NaN]), reason: "invalid_liquidation", detail: BTC },
  { name: "fee of 1", liq: liq(5, [BTC, 0.01, 1]), reason: "invalid_liquidation", detail: BTC },
  { name: "quantity as a string", liq: raw(5, [{ symbol: BTC, positionQty: "1", liquidatorFee: 0.006 }]), reason: "invalid_liquidation" },
  {
    name: "position without symbol",
    liq: raw(5, [{ positionQty: 1, liquidatorFee: 0.006 }]),
    reason: "invalid_liquidation",
    detail: "position",
  },
  { name: "duplicate symbol", liq: liq(5, [BTC, 0.01], [BTC, 0.02]), reason: "invalid_liquidation", detail: "duplicate_symbol" },
  {
    name: "duplicate symbol in a long payload",
    liq: liq(5, ...Array.from({ length: 20 }, (_, i): [string, number] => [`PERP_X${i % 19}_USDC`, 1])),
    reason: "invalid_liquidation",
    detail: "duplicate_symbol",
  },
  {
    name: "long payload without duplicates is not invalid",
    liq: liq(5, ...Array.from({ length: 20 }, (_, i): [string, number] => [`PERP_X${i}_USDC`, 1])),
    reason: "unknown_symbol",
  },
  { name: "notional overflows", liq: liq(5, [BTC, 1e305]), reason: "invalid_liquidation", detail: BTC },

  { name: "unknown symbol alone", liq: liq(5, [XRP, 10]), reason: "unknown_symbol", detail: XRP },
  {
    name: "unknown symbol among high tier (its tier decides the form)",
    liq: liq(5, [SOL, 100], [XRP, 10]),
    reason: "unknown_symbol",
    detail: XRP,
  },
  {
    name: "unknown symbol even when denied",
    ctx: { policy: { symbols: { allow: [], deny: [XRP] } } },
    liq: liq(5, [XRP, 10]),
    reason: "unknown_symbol",
  },

  {
    name: "denied (low tier)",
    ctx: { policy: { symbols: { allow: [], deny: [BTC] } } },
    liq: liq(5, [BTC, 0.05]),
    reason: "symbol_denied",
    detail: BTC,
  },
  {
    name: "one denied symbol blocks a low-tier claim",
    ctx: { policy: { symbols: { allow: [], deny: [ETH] } } },
    liq: liq(5, [BTC, 0.05], [ETH, 1]),
    reason: "symbol_denied",
    detail: ETH,
  },
  {
    name: "not in the allow list",
    ctx: { policy: { symbols: { allow: [ETH], deny: [] } } },
    liq: liq(5, [BTC, 0.05]),
    reason: "symbol_not_allowed",
    detail: BTC,
  },
  {
    name: "deny wins over allow",
    ctx: { policy: { symbols: { allow: [BTC], deny: [BTC] } } },
    liq: liq(5, [BTC, 0.05]),
    reason: "symbol_denied",
  },
  {
    name: "every high-tier symbol denied: the first one's reason",
    ctx: { policy: { symbols: { allow: [], deny: [SOL, DOGE] } } },
    liq: liq(5, [SOL, 10], [DOGE, 1000]),
    reason: "symbol_denied",
    detail: SOL,
  },

  { name: "no mark", ctx: { marks: { [BTC]: null } }, liq: liq(5, [BTC, 0.05]), reason: "mark_missing", detail: BTC },
  {
    name: "no mark for one low-tier symbol",
    ctx: { marks: { [ETH]: null } },
    liq: liq(5, [BTC, 0.05], [ETH, 1]),
    reason: "mark_missing",
    detail: ETH,
  },
  {
    name: "mark 1 ms too old",
    ctx: { marks: { [BTC]: { price: 100_000, age: 3_001 } } },
    liq: liq(5, [BTC, 0.05]),
    reason: "mark_stale",
    detail: BTC,
  },
  {
    name: "per-symbol max_mark_age_ms",
    ctx: { policy: { per_symbol: { [BTC]: { max_mark_age_ms: 500 } } } },
    liq: liq(5, [BTC, 0.05]),
    reason: "mark_stale",
  },

  // 0 bps and a mark off the 0.1 grid: the floor is below the mark (the claim would be refused).
  {
    name: "limit below the mark after the tick (q > 0)",
    ctx: { policy: { limit_price_slippage_bps: 0 }, marks: { [BTC]: 100_000.05 } },
    liq: liq(5, [BTC, 0.05]),
    reason: "limit_tick",
    detail: BTC,
  },
  {
    name: "limit above the mark after the tick (q < 0)",
    ctx: { marks: { [DOGE]: 0.000004 } },
    liq: liq(5, [DOGE, -1e9]),
    reason: "limit_tick",
    detail: DOGE,
  },

  { name: "whole liquidation pays less than min_fee", liq: liq(5, [BTC, 0.001]), reason: "below_min_fee" },
  // 5,000 × 0.006 + 2,000 × 0.006 = 42 < ETH's 100.
  {
    name: "strictest min_fee of the claimed symbols",
    ctx: { policy: { per_symbol: { [ETH]: { min_fee: 100 } } } },
    liq: liq(5, [BTC, 0.05], [ETH, -1]),
    reason: "below_min_fee",
  },
  // Full fee 600, but 100 of notional at ratio 0.001 pays 0.6 < 1.
  {
    name: "fee below min_fee once the ratio is cut",
    ctx: { policy: { max_claim_notional: 100 } },
    liq: liq(5, [BTC, 1]),
    reason: "below_min_fee",
  },
  { name: "high tier: fee below min_fee", ctx: { policy: { min_fee: 1_000 } }, liq: liq(5, [SOL, 100]), reason: "below_min_fee" },
  // expected_unwind_cost_bps: 5,000 × (0.006 − 0.005) = 5 kept < 10 (the gross 30 would pass).
  {
    name: "fee net of the unwind cost below min_fee",
    ctx: { policy: { min_fee: 10, expected_unwind_cost_bps: 50 } },
    liq: liq(5, [BTC, 0.05]),
    reason: "below_min_fee",
  },
  // 5,000 × (0.006 − 0.007) = −5: the claim would lose money getting flat, even at min_fee 0.
  {
    name: "unwind cost above the fee rate, min_fee 0",
    ctx: { policy: { min_fee: 0, expected_unwind_cost_bps: 70 } },
    liq: liq(5, [BTC, 0.05]),
    reason: "below_min_fee",
  },
  // High tier, per-symbol cost: 10,000 × (0.01 − 0.0095) = 5 < 10.
  {
    name: "high tier: per-symbol unwind cost",
    ctx: { policy: { min_fee: 10, per_symbol: { [SOL]: { expected_unwind_cost_bps: 95 } } } },
    liq: liq(5, [SOL, 100]),
    reason: "below_min_fee",
  },

  {
    name: "cap leaves under 0.001 (low tier)",
    ctx: { policy: { max_claim_notional: 10, min_fee: 0 } },
    liq: liq(5, [BTC, 1]),
    reason: "ratio_zero",
  },
  // 1e-9 × 0.4 rounds to 0 at the venue's 1e-9 quantity precision: nothing would be transferred.
  {
    name: "quantity lost to 1e-9 rounding",
    ctx: { policy: { max_claim_notional: 4_000, min_fee: 0 }, marks: { [AVAX]: 1e13 } },
    liq: liq(5, [AVAX, 1e-9]),
    reason: "ratio_zero",
  },
  {
    name: "cap leaves under 0.001 (high tier)",
    ctx: { policy: { max_claim_notional: 10, min_fee: 0 } },
    liq: liq(5, [SOL, 1000]),
    reason: "ratio_zero",
    detail: SOL,
  },

  {
    name: "full take required (5,000 < 10,000) but cap is 4,000",
    ctx: { policy: { max_claim_notional: 4_000 } },
    liq: liq(5, [BTC, 0.05]),
    reason: "over_caps",
  },
  {
    name: "full take required across symbols (8,000 < 10,000)",
    ctx: { policy: { max_claim_notional: 5_000 } },
    liq: liq(5, [BTC, 0.04], [ETH, 2]),
    reason: "over_caps",
  },
  {
    name: "high-tier symbol under 5,000 cannot be taken whole",
    ctx: { policy: { max_claim_notional: 1_000 } },
    liq: liq(5, [SOL, 30]),
    reason: "over_caps",
    detail: SOL,
  },

  { name: "held exposure at the global cap", ctx: { held: { [ETH]: 125 } }, liq: liq(5, [BTC, 0.1]), reason: "exposure_cap" },
  {
    name: "held + reserved at the global cap",
    ctx: { held: { [ETH]: 62.5 }, reserved: [[7, { [BTC]: 1.25 }]] },
    liq: liq(5, [BTC, 0.1]),
    reason: "exposure_cap",
  },
  {
    name: "per-symbol max_total_exposure reached",
    ctx: { policy: { per_symbol: { [BTC]: { max_total_exposure: 60_000 } } }, held: { [BTC]: 0.6 } },
    liq: liq(5, [BTC, 0.1]),
    reason: "exposure_cap",
  },
  { name: "same side adds to a position at the cap", ctx: { held: { [BTC]: 2.5 } }, liq: liq(5, [BTC, 0.1]), reason: "exposure_cap" },
  // Budget 4,000 but the 5,000 liquidation must be taken whole: exposure is what binds.
  { name: "full take required, exposure binds", ctx: { held: { [ETH]: 123 } }, liq: liq(5, [BTC, 0.05]), reason: "exposure_cap" },
  { name: "held symbol without any price", ctx: { held: { [XRP]: 10 } }, liq: liq(5, [BTC, 0.05]), reason: "exposure_cap" },
  {
    name: "margin leaves no room for a full take",
    ctx: { symbols: symbolsWithMargin(), account: { collateral: 800, maxLeverage: 20 } },
    liq: liq(5, [BTC, 0.05]),
    reason: "margin",
  },
  { name: "high tier at the exposure cap", ctx: { held: { [ETH]: 125 } }, liq: liq(5, [SOL, 1000]), reason: "exposure_cap", detail: SOL },
];

interface ClaimCase {
  name: string;
  ctx?: CtxOptions;
  liq: Liquidation;
  ratio: number;
  symbols?: { symbol: string; ratio: number }[];
  limitPrice: Record<string, number>;
  perSymbolQty: Record<string, number>;
  notional: number;
  fee: number;
}

const claimCases: ClaimCase[] = [
  // 100,000 × (1 + 50/10⁴) = 100,500, on the 0.1 grid.
  {
    name: "small low-tier liquidation taken whole",
    liq: liq(5, [BTC, 0.05]),
    ratio: 1,
    limitPrice: { [BTC]: 100_500 },
    perSymbolQty: { [BTC]: 0.05 },
    notional: 5_000,
    fee: 30,
  },
  // 5,000 × (0.006 − 0.005) = 5 kept ≥ 1: claimed, and the decision still reports the gross fee.
  {
    name: "fee net of the unwind cost still above min_fee",
    ctx: { policy: { expected_unwind_cost_bps: 50 } },
    liq: liq(5, [BTC, 0.05]),
    ratio: 1,
    limitPrice: { [BTC]: 100_500 },
    perSymbolQty: { [BTC]: 0.05 },
    notional: 5_000,
    fee: 30,
  },
  {
    name: "ratio cut to max_claim_notional",
    liq: liq(5, [BTC, 1]),
    ratio: 0.5,
    limitPrice: { [BTC]: 100_500 },
    perSymbolQty: { [BTC]: 0.5 },
    notional: 50_000,
    fee: 300,
  },
  // 50,000 / 60,000 = 0.8333… → 0.833 (down); 2,000 × 0.995 = 1,990.
  {
    name: "short, ratio quantised down",
    liq: liq(5, [ETH, -30]),
    ratio: 0.833,
    limitPrice: { [ETH]: 1_990 },
    perSymbolQty: { [ETH]: -24.99 },
    notional: 49_980,
    fee: 299.88,
  },
  {
    name: "two low-tier symbols, one ratio",
    liq: liq(5, [BTC, 0.3], [ETH, -15]),
    ratio: 0.833,
    limitPrice: { [BTC]: 100_500, [ETH]: 1_990 },
    perSymbolQty: { [BTC]: 0.2499, [ETH]: -12.495 },
    notional: 49_980,
    fee: 299.88,
  },
  // Any low-tier symbol → proportional over all, no `symbols`; SOL 100 × 0.995 = 99.5.
  {
    name: "low + high tier: proportional",
    liq: liq(5, [BTC, 0.2], [SOL, -100]),
    ratio: 1,
    limitPrice: { [BTC]: 100_500, [SOL]: 99.5 },
    perSymbolQty: { [BTC]: 0.2, [SOL]: -100 },
    notional: 30_000,
    fee: 220,
  },
  {
    name: "zero-quantity symbol is neither claimed nor priced",
    liq: liq(5, [BTC, 0.05], [ETH, 0]),
    ratio: 1,
    limitPrice: { [BTC]: 100_500 },
    perSymbolQty: { [BTC]: 0.05 },
    notional: 5_000,
    fee: 30,
  },
  // DOGE (fee 0.02) first: whole, 10,000 spends 0.2 of the budget; SOL gets 0.8 × 50,000 / 100,000 = 0.4.
  {
    name: "high tier: per symbol, budget to the highest fee rate first",
    liq: liq(5, [SOL, 1_000], [DOGE, -100_000]),
    ratio: 1,
    symbols: [
      { symbol: SOL, ratio: 0.4 },
      { symbol: DOGE, ratio: 1 },
    ],
    limitPrice: { [SOL]: 100.5, [DOGE]: 0.0995 },
    perSymbolQty: { [SOL]: 400, [DOGE]: -100_000 },
    notional: 50_000,
    fee: 600,
  },
  {
    name: "high tier: every open symbol at one ratio is the top-level ratio alone (no `symbols`)",
    liq: liq(5, [SOL, 100], [DOGE, -1_000]),
    ratio: 1,
    symbols: undefined,
    limitPrice: { [SOL]: 100.5, [DOGE]: 0.0995 },
    perSymbolQty: { [SOL]: 100, [DOGE]: -1_000 },
    notional: 10_100,
    fee: 102,
  },
  {
    name: "high tier: a denied symbol is left out",
    ctx: { policy: { symbols: { allow: [], deny: [DOGE] } } },
    liq: liq(5, [SOL, 100], [DOGE, -1_000]),
    ratio: 1,
    symbols: [{ symbol: SOL, ratio: 1 }],
    limitPrice: { [SOL]: 100.5 },
    perSymbolQty: { [SOL]: 100 },
    notional: 10_000,
    fee: 100,
  },
  {
    name: "high tier: a stale symbol is left out",
    ctx: { marks: { [DOGE]: { price: 0.1, age: 10_000 } } },
    liq: liq(5, [DOGE, -1_000], [SOL, 100]),
    ratio: 1,
    symbols: [{ symbol: SOL, ratio: 1 }],
    limitPrice: { [SOL]: 100.5 },
    perSymbolQty: { [SOL]: 100 },
    notional: 10_000,
    fee: 100,
  },
  // Equal fee rates: liquidation order. SOL (3,000) whole spends 0.06; AVAX 0.94 × 50,000 / 60,000 = 0.7833 → 0.783.
  {
    name: "high tier: small symbol whole, large one cut",
    liq: liq(5, [SOL, 30], [AVAX, 3_000]),
    ratio: 1,
    symbols: [
      { symbol: SOL, ratio: 1 },
      { symbol: AVAX, ratio: 0.783 },
    ],
    limitPrice: { [SOL]: 100.5, [AVAX]: 20.1 },
    perSymbolQty: { [SOL]: 30, [AVAX]: 2_349 },
    notional: 49_980,
    fee: 499.8,
  },
  // SOL (3,000 < 5,000) would need 1 but the cap allows 2/3: left out; AVAX 2,000 / 10,000 = 0.2.
  {
    name: "high tier: small symbol over the cap left out, the other cut",
    ctx: { policy: { max_claim_notional: 2_000 } },
    liq: liq(5, [SOL, 30], [AVAX, 500]),
    ratio: 0.2,
    symbols: [{ symbol: AVAX, ratio: 0.2 }],
    limitPrice: { [AVAX]: 20.1 },
    perSymbolQty: { [AVAX]: 100 },
    notional: 2_000,
    fee: 20,
  },
  {
    name: "per-symbol max_claim_notional above the global",
    ctx: { policy: { per_symbol: { [BTC]: { max_claim_notional: 100_000 } } } },
    liq: liq(5, [BTC, 1]),
    ratio: 1,
    limitPrice: { [BTC]: 100_500 },
    perSymbolQty: { [BTC]: 1 },
    notional: 100_000,
    fee: 600,
  },
  // Budget: 50,000 / 100,000 + 50,000 / 50,000 = 1.5 per unit ratio → 0.666.
  {
    name: "per-symbol max_claim_notional in a multi-symbol claim",
    ctx: { policy: { per_symbol: { [BTC]: { max_claim_notional: 100_000 } } } },
    liq: liq(5, [BTC, 0.5], [ETH, -25]),
    ratio: 0.666,
    limitPrice: { [BTC]: 100_500, [ETH]: 1_990 },
    perSymbolQty: { [BTC]: 0.333, [ETH]: -16.65 },
    notional: 66_600,
    fee: 399.6,
  },
  {
    name: "per-symbol slippage",
    ctx: { policy: { per_symbol: { [BTC]: { limit_price_slippage_bps: 10 } } } },
    liq: liq(5, [BTC, 0.05]),
    ratio: 1,
    limitPrice: { [BTC]: 100_100 },
    perSymbolQty: { [BTC]: 0.05 },
    notional: 5_000,
    fee: 30,
  },
  // Held BTC 2.5 = the global cap: a short claim cannot raise the worst case (it may fail, or reduce).
  {
    name: "opposite side of a position at the cap",
    ctx: { held: { [BTC]: 2.5 } },
    liq: liq(5, [BTC, -1]),
    ratio: 0.5,
    limitPrice: { [BTC]: 99_500 },
    perSymbolQty: { [BTC]: -0.5 },
    notional: 50_000,
    fee: 300,
  },
  {
    name: "ratio cut by the global exposure left",
    ctx: { policy: { max_claim_notional: 1e6 }, held: { [ETH]: 100 } },
    liq: liq(5, [BTC, 1]),
    ratio: 0.5,
    limitPrice: { [BTC]: 100_500 },
    perSymbolQty: { [BTC]: 0.5 },
    notional: 50_000,
    fee: 300,
  },
  {
    name: "ratio cut by the symbol's exposure cap",
    ctx: { policy: { max_claim_notional: 1e6, per_symbol: { [BTC]: { max_total_exposure: 60_000 } } } },
    liq: liq(5, [BTC, 1]),
    ratio: 0.6,
    limitPrice: { [BTC]: 100_500 },
    perSymbolQty: { [BTC]: 0.6 },
    notional: 60_000,
    fee: 360,
  },
  {
    name: "held exposure below the cap leaves room",
    ctx: { held: { [ETH]: 62.5 } },
    liq: liq(5, [BTC, 0.1]),
    ratio: 1,
    limitPrice: { [BTC]: 100_500 },
    perSymbolQty: { [BTC]: 0.1 },
    notional: 10_000,
    fee: 60,
  },
  {
    name: "a held symbol without a mark, priced from its position push",
    ctx: { heldPriced: [[XRP, 10, 1.5]] },
    liq: liq(5, [BTC, 0.05]),
    ratio: 1,
    limitPrice: { [BTC]: 100_500 },
    perSymbolQty: { [BTC]: 0.05 },
    notional: 5_000,
    fee: 30,
  },
  {
    name: "mark exactly max_mark_age_ms old",
    ctx: { marks: { [BTC]: { price: 100_000, age: 3_000 } } },
    liq: liq(5, [BTC, 0.05]),
    ratio: 1,
    limitPrice: { [BTC]: 100_500 },
    perSymbolQty: { [BTC]: 0.05 },
    notional: 5_000,
    fee: 30,
  },
  {
    name: "0 bps on the grid: limit = mark",
    ctx: { policy: { limit_price_slippage_bps: 0 } },
    liq: liq(5, [BTC, 0.05], [ETH, -1]),
    ratio: 1,
    limitPrice: { [BTC]: 100_000, [ETH]: 2_000 },
    perSymbolQty: { [BTC]: 0.05, [ETH]: -1 },
    notional: 7_000,
    fee: 42,
  },
  // 10,000 bps short: raw limit 0, sent as one tick.
  {
    name: "10,000 bps short: one tick",
    ctx: { policy: { limit_price_slippage_bps: 10_000 } },
    liq: liq(5, [DOGE, -100_000]),
    ratio: 1,
    // One symbol: the top-level ratio alone (docs/protocol.md §10: `symbols` only where it changes the meaning).
    symbols: undefined,
    limitPrice: { [DOGE]: 0.00001 },
    perSymbolQty: { [DOGE]: -100_000 },
    notional: 10_000,
    fee: 200,
  },
  // Off-grid mark: 100,000.05 × 1.005 = 100,500.05025 → floor 100,500.0 (≥ mark, ≤ raw).
  {
    name: "limit floored to the tick",
    ctx: { marks: { [BTC]: 100_000.05 } },
    liq: liq(5, [BTC, 0.05]),
    ratio: 1,
    limitPrice: { [BTC]: 100_500 },
    perSymbolQty: { [BTC]: 0.05 },
    notional: 5_000.0025,
    fee: 30.000015,
  },
  // 2,000.123 × 0.995 = 1,990.122385 → ceil 1,990.13.
  {
    name: "limit ceiled to the tick",
    ctx: { marks: { [ETH]: 2_000.123 } },
    liq: liq(5, [ETH, -1]),
    ratio: 1,
    limitPrice: { [ETH]: 1_990.13 },
    perSymbolQty: { [ETH]: -1 },
    notional: 2_000.123,
    fee: 12.000738,
  },
];

function isSkip(d: Decision): d is Extract<Decision, { action: "skip" }> {
  return d.action === "skip";
}

describe("decide: skips", () => {
  it.each(skipCases)("$name → $reason", (c) => {
    const d = decide(c.liq, makeCtx(c.ctx), NOW);
    expect(d.action).toBe("skip");
    if (!isSkip(d)) return;
    expect(d.reason).toBe(c.reason);
    expect(d.liquidationId).toBe(c.liq.liquidationId);
    if (c.detail !== undefined) expect(d.detail).toBe(c.detail);
  });

  it("covers every skip reason decide gives (the gate's are the protections' tests')", () => {
    const seen = new Set(skipCases.map((c) => c.reason));
    expect([...SKIP_REASONS].filter((r) => !seen.has(r) && !GATE_SKIP_REASONS.includes(r))).toEqual([]);
  });
});

describe("decide: claims", () => {
  it.each(claimCases)("$name", (c) => {
    const ctx = makeCtx(c.ctx);
    const d = decide(c.liq, ctx, NOW);
    expect(d).toMatchObject({ action: "claim", liquidationId: c.liq.liquidationId, ratio: c.ratio });
    const claim = d as ClaimDecision;
    expect(claim.symbols).toEqual(c.symbols);
    expect(claim.limitPrice).toEqual(c.limitPrice);
    expect(Object.keys(claim.perSymbolQty).sort()).toEqual(Object.keys(c.perSymbolQty).sort());
    for (const [s, q] of Object.entries(c.perSymbolQty)) expect(claim.perSymbolQty[s]).toBeCloseTo(q, 9);
    expect(claim.notional).toBeCloseTo(c.notional, 6);
    expect(claim.expectedFee).toBeCloseTo(c.fee, 6);
  });

  it("releasing a reservation turns an exposure_cap skip into a claim", () => {
    const ctx = makeCtx({ held: { [ETH]: 62.5 }, reserved: [[7, { [BTC]: 1.25 }]] });
    expect(decide(liq(5, [BTC, 0.1]), ctx, NOW)).toMatchObject({ action: "skip", reason: "exposure_cap" });
    ctx.exposure.release(7);
    expect(decide(liq(5, [BTC, 0.1]), ctx, NOW)).toMatchObject({ action: "claim", ratio: 1 });
  });

  it("a burst cannot pass the cap: each reserved claim shrinks the next one", () => {
    const ctx = makeCtx({ policy: { max_total_exposure: 120_000 } });
    const ratios: number[] = [];
    for (let id = 1; id <= 4; id++) {
      const d = decide(liq(id, [SOL, 500]), ctx, NOW); // 50,000 each, high tier
      if (d.action === "claim") {
        ctx.exposure.reserve(id, d.perSymbolQty);
        ratios.push(d.ratio);
      } else {
        ratios.push(0);
      }
    }
    // 50,000 + 50,000 + 20,000 (ratio 0.4) = the cap; then nothing.
    expect(ratios).toEqual([1, 1, 0.4, 0]);
    expect(ctx.exposure.totalNotional(ctx.marks)).toBeCloseTo(120_000, 6);
  });

  it("is deterministic and does not touch its inputs", () => {
    const ctx = makeCtx({ held: { [ETH]: 10 } });
    const l = liq(9, [SOL, 1_000], [DOGE, -100_000]);
    const before = JSON.stringify(l);
    const a = decide(l, ctx, NOW);
    const b = decide(l, ctx, NOW);
    expect(a).toEqual(b);
    expect(JSON.stringify(l)).toBe(before);
    expect(ctx.exposure.reservationCount).toBe(0);
  });

  it("NaN `now` makes every mark stale", () => {
    expect(decide(liq(5, [BTC, 0.05]), makeCtx(), Number.NaN)).toMatchObject({ action: "skip", reason: "mark_stale" });
  });
});

describe("what cut a claim below the whole liquidation (the report's cut rows)", () => {
  const claim = (d: Decision): ClaimDecision => {
    if (d.action !== "claim") throw new Error(`skipped: ${d.reason}`);
    return d;
  };
  it("a whole claim names no cut", () => {
    expect(claim(decide(liq(1, [BTC, 0.2]), makeCtx(), NOW)).cut).toBeUndefined();
  });
  it("max_claim_notional: 1 BTC (100,000) under a 50,000 cap", () => {
    const d = claim(decide(liq(1, [BTC, 1]), makeCtx(), NOW));
    expect(d.ratio).toBe(0.5);
    expect(d.cut).toBe("max_claim_notional");
  });
  it("exposure_cap: room for 30,000 when the claim cap would allow 50,000", () => {
    const d = claim(decide(liq(1, [BTC, 1]), makeCtx({ policy: { max_total_exposure: 30_000 } }), NOW));
    expect(d.ratio).toBeCloseTo(0.3, 3);
    expect(d.cut).toBe("exposure_cap");
  });
  it("a per-symbol claim that leaves a denied symbol out names its reason", () => {
    const d = claim(decide(liq(1, [SOL, 100], [DOGE, 100_000]), makeCtx({ policy: { symbols: { allow: [], deny: [DOGE] } } }), NOW));
    expect(d.symbols?.map((s) => s.symbol)).toEqual([SOL]);
    expect(d.cut).toBe("symbol_denied");
  });
  it("a per-symbol claim cut by the claim cap", () => {
    const d = claim(decide(liq(1, [SOL, 1_000]), makeCtx({ policy: { max_claim_notional: 60_000 } }), NOW));
    expect(d.ratio).toBe(0.6);
    expect(d.cut).toBe("max_claim_notional");
  });
});
