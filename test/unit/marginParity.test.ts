/**
 * The simulator (the venue's implementation, src/sim/margin.ts) and the engine (src/engine/margin.ts)
 * apply docs/protocol.md §7 independently; they must agree on every state. And the simulated venue's
 * `GET /v1/positions` figures are what the engine's AccountBook computes from the same answer and
 * the `/v1/public/info` rows.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AccountBook } from "../../src/engine/accountBook.js";
import { imrRate, maintenanceMarginForTests, mmrRateForTests, symbolInitialMargin } from "../../src/engine/margin.js";
import { MarginSettings } from "../../src/engine/marginSettings.js";
import { MarkBook } from "../../src/engine/marks.js";
import { type AccountMargin, imr, initialMarginOfHeld, marginOf, mmr, positionInitialMargin } from "../../src/sim/margin.js";
import { positionsDataForTests } from "../../src/sim/orderRoutes.js";
import { DEFAULT_SYMBOLS, type SymbolSpec } from "../../src/sim/symbols.js";
import { VenueCore } from "../../src/sim/venueCore.js";
import { infoRow } from "../../src/sim/venueReads.js";
import { symbolInfoFromRow } from "../../src/venue/mapping.js";
import { initialMarginOf } from "../support/marginOf.js";

const LIQUIDATOR = "0xliq";

/** The engine's parameters of a simulator symbol, read the way the daemon reads them: from its info row. */
function engineParams(spec: SymbolSpec) {
  const info = symbolInfoFromRow(infoRow(spec));
  if (info.margin === undefined) throw new Error(`${spec.symbol}: no margin parameters in its info row`);
  return info.margin;
}

describe("simulator and engine margin parity", () => {
  it("IMR, MMR and the initial margin of a set of positions agree on random states", () => {
    const spec = fc.constantFrom(...DEFAULT_SYMBOLS);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            spec,
            qty: fc.double({ min: -1e4, max: 1e4, noNaN: true }),
            mark: fc.double({ min: 1e-4, max: 2e5, noNaN: true }),
            // docs/protocol.md §10: the account's leverage of the symbol (none: the account-wide one) and its own imr_factor.
            lev: fc.option(fc.constantFrom(1, 2, 4, 5, 10, 20, 50, 100), { nil: undefined }),
            factor: fc.option(fc.double({ min: 0, max: 1e-4, noNaN: true }), { nil: undefined }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.constantFrom(1, 3, 10, 20, 50, 100),
        (rows, lev) => {
          // One row per symbol (one net position), as both sides hold them.
          const bySymbol = new Map(rows.map((r) => [r.spec.symbol, r]));
          const leverage = new Map([...bySymbol].filter(([, r]) => r.lev !== undefined).map(([s, r]) => [s, r.lev as number]));
          const imrFactor = new Map([...bySymbol].filter(([, r]) => r.factor !== undefined).map(([s, r]) => [s, r.factor as number]));
          const settings = new MarginSettings({ defaultLeverage: lev, leverage, imrFactor });
          const account: AccountMargin = { leverage: (s) => leverage.get(s) ?? lev, imrFactor: (s) => imrFactor.get(s) };
          for (const r of bySymbol.values()) {
            const n = Math.abs(r.qty) * r.mark;
            const p = settings.symbolMargin(r.spec.symbol, engineParams(r.spec));
            const m = marginOf(r.spec, account);
            const l = account.leverage(r.spec.symbol);
            expect(p.leverage).toBe(l);
            expect(imrRate(p, n, p.leverage)).toBe(imr(m, n, l));
            expect(mmrRateForTests(p, n)).toBe(mmr(m, n));
            expect(maintenanceMarginForTests(p, n)).toBeCloseTo(n * mmr(m, n), 6);
            expect(positionInitialMargin(m, n, l)).toBeCloseTo(symbolInitialMargin(p, n), 6);
          }
          const sim = initialMarginOfHeld(
            [...bySymbol.values()].map((r) => ({ symbol: r.spec.symbol, qty: r.qty })),
            (s) => bySymbol.get(s)?.spec,
            (s) => bySymbol.get(s)?.mark,
            account,
          );
          const engine = initialMarginOf(
            [...bySymbol.values()].map((r) => ({
              params: settings.symbolMargin(r.spec.symbol, engineParams(r.spec)),
              qty: r.qty,
              mark: r.mark,
            })),
          );
          expect(engine).toBeCloseTo(sim, 6);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("GET /v1/positions: total, free collateral and margin ratio are the engine's from the same rows", async () => {
    const clock = { t: 1_760_000_000_000 };
    const core = new VenueCore({ seed: 3, now: () => clock.t, orderCounts: [20] });
    core.accounts.add({ accountId: LIQUIDATOR, admin: true, collateral: 50_000, maxLeverage: 20 });
    const limit = (id: number) =>
      Object.fromEntries(
        core.book.get(id)!.positions.map((p) => [p.symbol, p.positionQty > 0 ? core.mark(p.symbol)! * 1.1 : core.mark(p.symbol)! * 0.9]),
      );
    for (const [symbol, qty] of [
      ["PERP_BTC_USDC", 2],
      ["PERP_WIF_USDC", -40_000],
    ] as const) {
      const id = core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
      const r = await core.submitClaim(LIQUIDATOR, { liquidation_id: id, ratio_qty_request: 1, limit_price: limit(id) }, clock.t);
      expect(r.ok).toBe(true);
    }
    const data = positionsDataForTests(core, LIQUIDATOR) as {
      total_collateral_value: number;
      free_collateral: number;
      margin_ratio: number;
      rows: {
        symbol: string;
        position_qty: number;
        cost_position: number;
        unsettled_pnl: number;
        mark_price: number;
        margin_mode: "CROSS";
      }[];
    };
    const marks = new MarkBook();
    for (const r of data.rows) marks.set(r.symbol, r.mark_price, clock.t);
    const book = new AccountBook();
    book.setMaxLeverage(20);
    book.applySnapshot(
      { totalCollateral: data.total_collateral_value },
      data.rows.map((r) => ({
        symbol: r.symbol,
        marginMode: r.margin_mode,
        positionQty: r.position_qty,
        costPosition: r.cost_position,
        unsettledPnl: r.unsettled_pnl,
        markPrice: r.mark_price,
      })),
    );
    const params = (s: string) => engineParams(core.symbols.get(s)!);
    expect(book.totalCollateral(marks)).toBeCloseTo(data.total_collateral_value, 6);
    expect(book.freeCollateral(params, marks)).toBeCloseTo(data.free_collateral, 6);
    expect(book.marginRatio(marks)).toBeCloseTo(data.margin_ratio, 9);
    // 2 BTC ≈ 208,500 at 20×: 5 % binds; 40,000 WIF ≈ 74,000 at the alt's 10 %.
    expect(data.free_collateral).toBeLessThan(data.total_collateral_value - 0.05 * 208_000 - 0.1 * 70_000);
  });
});
