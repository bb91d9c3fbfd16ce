import { describe, expect, expectTypeOf, it } from "vitest";
import { compileRiskPolicy, type RiskPolicyInput } from "../../src/config/riskPolicyOf.js";
import type { PolicyConfig } from "../../src/config/schema.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import { ConfigError } from "../../src/errors.js";
import { symbolInfoFromRow } from "../../src/venue/mapping.js";
import { defaultConfig } from "../support/defaultConfig.js";
import { policyInput, SYMBOLS } from "./engine.fixtures.js";

/**
 * The `policy` section declared once (config/policySchema.ts) and compiled into the engine's
 * RiskPolicy by config/riskPolicyOf.ts: the schema's types, defaults and checks, no second validator.
 */
describe("compileRiskPolicy", () => {
  it("an empty section is the schema's defaults, exactly what the loaded default config compiles to", () => {
    const fromNothing = compileRiskPolicy({});
    const loaded = compileRiskPolicy(defaultConfig().policy);
    expect(fromNothing).toEqual(loaded);
    expect(fromNothing.margin).toEqual({ maxMarginUsage: 0.5, minFreeCollateral: 0 });
    expect(fromNothing.extraThousandths).toBe(0);
  });

  it("the config's zod-inferred policy type is assignable to the engine's input", () => {
    expectTypeOf<PolicyConfig>().toExtend<RiskPolicyInput>();
    const input: RiskPolicyInput = defaultConfig().policy;
    expect(compileRiskPolicy(input).defaults).toMatchObject({
      maxClaimNotional: 50_000,
      maxTotalExposure: 250_000,
      minFee: 1,
      slippageBps: 50,
      maxMarkAgeMs: 3_000,
    });
  });

  it("merges per-symbol overrides over the globals", () => {
    const p = compileRiskPolicy(
      policyInput({
        per_symbol: {
          PERP_BTC_USDC: {
            max_claim_notional: 100_000,
            limit_price_slippage_bps: 30,
            max_mark_age_ms: 2_000,
            expected_unwind_cost_bps: 12,
          },
        },
      }),
    );
    expect(p.limitsFor("PERP_BTC_USDC")).toEqual({
      maxClaimNotional: 100_000,
      maxTotalExposure: 250_000,
      minFee: 1,
      slippageBps: 30,
      upNumerator: 10_030,
      downNumerator: 9_970,
      maxMarkAgeMs: 2_000,
      unwindCostRate: 0.0012,
    });
    expect(p.limitsFor("PERP_ETH_USDC")).toBe(p.defaults);
    expect(p.defaults.unwindCostRate).toBe(0);
    expect(p.defaults.maxClaimNotional).toBe(50_000);
    expect(p.maxTotalExposure).toBe(250_000);
  });

  it("an override given as undefined keeps the global (zod's optional keys)", () => {
    const p = compileRiskPolicy(policyInput({ per_symbol: { PERP_BTC_USDC: { min_fee: undefined, max_total_exposure: 1_000 } } }));
    expect(p.limitsFor("PERP_BTC_USDC")).toMatchObject({ minFee: 1, maxTotalExposure: 1_000 });
  });

  it("allow / deny: empty allow = all, deny wins", () => {
    const all = compileRiskPolicy(policyInput());
    expect(all.allow).toBeNull();
    expect(all.access("PERP_ANY_USDC")).toBe("allowed");
    const p = compileRiskPolicy(policyInput({ symbols: { allow: ["PERP_BTC_USDC", "PERP_ETH_USDC"], deny: ["PERP_ETH_USDC"] } }));
    expect(p.access("PERP_BTC_USDC")).toBe("allowed");
    expect(p.access("PERP_ETH_USDC")).toBe("denied");
    expect(p.access("PERP_SOL_USDC")).toBe("not_allowed");
  });

  it("dry_run and a null per_symbol are accepted and ignored", () => {
    const p = compileRiskPolicy({ ...policyInput(), dry_run: true, per_symbol: null });
    expect(p.perSymbol.size).toBe(0);
  });

  it.each<[string, Partial<RiskPolicyInput>, string]>([
    ["max_claim_notional 0", { max_claim_notional: 0 }, "policy.max_claim_notional"],
    ["max_total_exposure NaN", { max_total_exposure: Number.NaN }, "policy.max_total_exposure"],
    ["min_fee negative", { min_fee: -1 }, "policy.min_fee"],
    ["bps over 10,000", { limit_price_slippage_bps: 10_001 }, "policy.limit_price_slippage_bps"],
    ["max_mark_age_ms 0", { max_mark_age_ms: 0 }, "policy.max_mark_age_ms"],
    ["unwind cost negative", { expected_unwind_cost_bps: -1 }, "policy.expected_unwind_cost_bps"],
    ["bad allow entry", { symbols: { allow: ["btc"], deny: [] } }, "policy.symbols.allow[0]"],
    [
      "bad per-symbol value",
      { per_symbol: { PERP_BTC_USDC: { min_fee: Number.POSITIVE_INFINITY } } },
      "policy.per_symbol.PERP_BTC_USDC.min_fee",
    ],
    ["bad per-symbol key", { per_symbol: { PERP_BTC_USDC: { dry_run: true } as never } }, "policy.per_symbol.PERP_BTC_USDC.dry_run"],
    ["bad per-symbol symbol", { per_symbol: { __proto__x: {} } }, "policy.per_symbol.__proto__x"],
  ])("%s → ConfigError naming the key", (_name, over, key) => {
    let err: unknown;
    try {
      compileRiskPolicy(policyInput(over));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe(key);
  });
});

describe("SymbolTable", () => {
  it("builds from trusted infos and resolves the tick's decimals", () => {
    const t = new SymbolTable(SYMBOLS);
    expect(t.size).toBe(SYMBOLS.length);
    expect(t.get("PERP_DOGE_USDC")).toMatchObject({ tier: 2, priceTick: 0.00001, priceDecimals: 5 });
    expect(t.has("PERP_XRP_USDC")).toBe(false);
    expect(() => new SymbolTable([...SYMBOLS, SYMBOLS[0]!])).toThrow(/listed twice/);
    expect(() => new SymbolTable([{ ...SYMBOLS[0]!, priceTick: 0 }])).toThrow(RangeError);
  });

  it("fromUntrusted keeps usable infos and reports the others (rows mapped by venue/mapping.ts)", () => {
    const rows: unknown[] = [
      { symbol: "PERP_BTC_USDC", liquidation_tier: 1, liquidator_fee: 0.006, quote_tick: 0.1, min_notional: 10, extra: "ignored" },
      { symbol: "PERP_PEPE_USDC", liquidation_tier: 2, liquidator_fee: 0.012, quote_tick: 1e-8, min_notional: 5 },
      { symbol: "PERP_BTC_USDC", liquidation_tier: 1, liquidator_fee: 0.006, quote_tick: 0.1, min_notional: 10 },
      { symbol: "PERP_BAD1_USDC", liquidation_tier: 3, liquidator_fee: 0.006, quote_tick: 0.1, min_notional: 10 },
      { symbol: "PERP_BAD2_USDC", liquidation_tier: 1, liquidator_fee: "0.006%", quote_tick: 0.1, min_notional: 10 },
      { symbol: "PERP_BAD3_USDC", liquidation_tier: 1, liquidator_fee: 0.006, quote_tick: -0.1, min_notional: 10 },
      { symbol: "PERP_BAD4_USDC", liquidation_tier: 1, liquidator_fee: 0.006, quote_tick: 0.1, min_notional: Number.NaN },
      { symbol: "__proto__", liquidation_tier: 1, liquidator_fee: 0.006, quote_tick: 0.1, min_notional: 1 },
      { symbol: "PERP_BAD5_USDC", liquidation_tier: 1, liquidator_fee: 1, quote_tick: 0.1, min_notional: 1 },
      null,
      "row",
    ];
    const { table, rejected } = SymbolTable.fromUntrusted(rows.map(symbolInfoFromRow));
    expect([...table.symbols()]).toEqual(["PERP_BTC_USDC", "PERP_PEPE_USDC"]);
    expect(table.get("PERP_PEPE_USDC")).toMatchObject({ tier: 2, liquidatorFee: 0.012, priceTick: 1e-8, priceDecimals: 8, minNotional: 5 });
    expect(rejected.map((r) => r.symbol)).toEqual([
      "PERP_BTC_USDC",
      "PERP_BAD1_USDC",
      "PERP_BAD2_USDC",
      "PERP_BAD3_USDC",
      "PERP_BAD4_USDC",
      "__proto__",
      "PERP_BAD5_USDC",
      "?",
      "?",
    ]);
    expect(rejected[0]?.problem).toBe("listed twice");
  });
});
