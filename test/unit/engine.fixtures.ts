/** Shared builders for the engine's tests (not a test file itself). */

import { compileRiskPolicy, type RiskPolicyInput } from "../../src/config/riskPolicyOf.js";
import { Exposure } from "../../src/engine/exposure.js";
import { MarginSettings } from "../../src/engine/marginSettings.js";
import { MarkBook } from "../../src/engine/marks.js";
import type { PolicyContext } from "../../src/engine/policy.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import type { Liquidation, SymbolInfo } from "../../src/engine/types.js";

export const NOW = 100_000;

/** Tier 1: BTC, ETH. Tier 2: SOL, DOGE, AVAX. */
export const SYMBOLS: SymbolInfo[] = [
  { symbol: "PERP_BTC_USDC", tier: 1, liquidatorFee: 0.006, priceTick: 0.1, minNotional: 10 },
  { symbol: "PERP_ETH_USDC", tier: 1, liquidatorFee: 0.006, priceTick: 0.01, minNotional: 10 },
  { symbol: "PERP_SOL_USDC", tier: 2, liquidatorFee: 0.01, priceTick: 0.001, minNotional: 10 },
  { symbol: "PERP_DOGE_USDC", tier: 2, liquidatorFee: 0.02, priceTick: 0.00001, minNotional: 10 },
  { symbol: "PERP_AVAX_USDC", tier: 2, liquidatorFee: 0.01, priceTick: 0.01, minNotional: 10 },
];

export const PRICES: Readonly<Record<string, number>> = {
  PERP_BTC_USDC: 100_000,
  PERP_ETH_USDC: 2_000,
  PERP_SOL_USDC: 100,
  PERP_DOGE_USDC: 0.1,
  PERP_AVAX_USDC: 20,
};

export function policyInput(over: Partial<RiskPolicyInput> = {}): RiskPolicyInput {
  return {
    dry_run: false,
    max_claim_notional: 50_000,
    max_total_exposure: 250_000,
    min_fee: 1,
    limit_price_slippage_bps: 50,
    max_mark_age_ms: 3_000,
    symbols: { allow: [], deny: [] },
    per_symbol: {},
    ...over,
  };
}

export interface CtxOptions {
  policy?: Partial<RiskPolicyInput>;
  /** Mark overrides: a number = price at age 1000 ms, `{price, age}`, or null = no mark. */
  marks?: Record<string, number | { price: number; age: number } | null>;
  held?: Record<string, number>;
  /** Held positions with the price their `position` push carried: `[symbol, qty, markPrice]`. */
  heldPriced?: [string, number, number][];
  reserved?: [number, Record<string, number>][];
  symbols?: SymbolInfo[];
  /** The account's total collateral and max leverage: margin is checked (none: it is not). */
  account?: { collateral: number; maxLeverage: number; ordersMargin?: number };
}

export function makeCtx(o: CtxOptions = {}): PolicyContext {
  const marks = new MarkBook();
  const all: Record<string, number | { price: number; age: number } | null> = { ...PRICES, ...o.marks };
  for (const [symbol, m] of Object.entries(all)) {
    if (m === null) continue;
    const { price, age } = typeof m === "number" ? { price: m, age: 1_000 } : m;
    marks.set(symbol, price, NOW - age);
  }
  const exposure = new Exposure();
  for (const [symbol, qty] of Object.entries(o.held ?? {})) exposure.setHeld(symbol, qty);
  for (const [symbol, qty, price] of o.heldPriced ?? []) exposure.setHeld(symbol, qty, price);
  for (const [id, qty] of o.reserved ?? []) exposure.reserve(id, qty);
  return {
    policy: compileRiskPolicy(policyInput(o.policy)),
    symbols: new SymbolTable(o.symbols ?? SYMBOLS),
    marks,
    exposure,
    ...(o.account !== undefined ? { account: fixedAccount(o.account.collateral, o.account.maxLeverage, o.account.ordersMargin) } : {}),
  };
}

/** An account whose collateral does not move (a margin source for the decision). */
export function fixedAccount(totalCollateral: number, maxLeverage: number, ordersMargin = 0) {
  const settings = MarginSettings.uniform(maxLeverage);
  return { marginAccount: () => ({ totalCollateral, settings, ordersMargin }) };
}

/** The fixtures' symbols with margin parameters (`base_imr` 10 % unless given: IM = notional / 10). */
export function symbolsWithMargin(baseImr = 0.1, imrFactor = 0): SymbolInfo[] {
  return SYMBOLS.map((s) => ({ ...s, margin: { baseImr, baseMmr: baseImr / 2, imrFactor } }));
}

/** `liq(7, ["PERP_BTC_USDC", 0.5], ["PERP_ETH_USDC", -3, 0.01])`; the fee defaults to the symbol's. */
export function liq(liquidationId: number, ...positions: [string, number, number?][]): Liquidation {
  return {
    liquidationId,
    timestamp: 1_000 + liquidationId,
    positions: positions.map(([symbol, positionQty, fee]) => ({
      symbol,
      positionQty,
      liquidatorFee: fee ?? SYMBOLS.find((s) => s.symbol === symbol)?.liquidatorFee ?? 0.006,
    })),
  };
}
