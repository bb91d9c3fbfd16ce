/**
 * The unwind slice (engine/unwindPlan.ts) and the P&L ledger (engine/pnlLedger.ts): pure, so
 * checked exhaustively by property.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { PnlLedger } from "../../src/engine/pnlLedger.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import { floorOnGrid, planUnwind } from "../../src/engine/unwindPlan.js";

const ETH = "PERP_ETH_USDC";
const table = new SymbolTable([
  {
    symbol: ETH,
    tier: 1,
    liquidatorFee: 0.008,
    priceTick: 0.01,
    minNotional: 10,
    orderFilters: { qtyTick: 0.001, qtyMin: 0.001, qtyMax: 1_000, priceRange: 0.03 },
  },
  { symbol: "PERP_BARE_USDC", tier: 2, liquidatorFee: 0.02, priceTick: 0.0001, minNotional: 10 },
]);
const info = table.get(ETH)!;

describe("planUnwind", () => {
  test("a long is sold, a short bought, reduce-only slices no bigger than the position or the notional cap", () => {
    expect(planUnwind(2, 3_000, info, { maxSlippageBps: 50, maxOrderNotional: 1_000_000 })).toEqual({
      kind: "order",
      side: "SELL",
      qty: 2,
      price: 2985,
    });
    expect(planUnwind(-2, 3_000, info, { maxSlippageBps: 50, maxOrderNotional: 1_000_000 })).toEqual({
      kind: "order",
      side: "BUY",
      qty: 2,
      price: 3015,
    });
    // 3,000 of notional at most: 1 ETH per slice.
    expect(planUnwind(2.5, 3_000, info, { maxSlippageBps: 50, maxOrderNotional: 3_000 })).toMatchObject({ qty: 1 });
  });

  test("what is left below the minimum order is dust; symbols without filters or marks are blocked", () => {
    expect(planUnwind(0.0004, 3_000, info, { maxSlippageBps: 50, maxOrderNotional: 1e6 })).toEqual({ kind: "dust", qty: 0.0004 });
    expect(planUnwind(1, 0.2, table.get("PERP_BARE_USDC")!, { maxSlippageBps: 50, maxOrderNotional: 1e6 })).toEqual({
      kind: "blocked",
      reason: "no_filters",
    });
    expect(planUnwind(1, undefined, info, { maxSlippageBps: 50, maxOrderNotional: 1e6 })).toEqual({ kind: "blocked", reason: "no_mark" });
    expect(planUnwind(0, 3_000, info, { maxSlippageBps: 50, maxOrderNotional: 1e6 })).toEqual({ kind: "flat" });
  });

  test("the price never passes the venue's price range, whatever the slippage setting", () => {
    expect(planUnwind(1, 3_000, info, { maxSlippageBps: 1_000, maxOrderNotional: 1e6 })).toMatchObject({ price: 2910 });
  });

  test("property: never an order that could grow the position; on the grids; no worse than the bound", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -500, max: 500, noNaN: true }),
        fc.double({ min: 1, max: 100_000, noNaN: true }),
        fc.integer({ min: 0, max: 300 }),
        fc.double({ min: 5, max: 1e7, noNaN: true }),
        (held, mark, bps, cap) => {
          const plan = planUnwind(held, mark, info, { maxSlippageBps: bps, maxOrderNotional: cap });
          if (plan.kind !== "order") return;
          expect(plan.side).toBe(held > 0 ? "SELL" : "BUY");
          expect(plan.qty).toBeGreaterThan(0);
          expect(plan.qty).toBeLessThanOrEqual(Math.abs(held) + 1e-12);
          expect(Math.abs(plan.qty / 0.001 - Math.round(plan.qty / 0.001))).toBeLessThan(1e-6);
          expect(Math.abs(plan.price / 0.01 - Math.round(plan.price / 0.01))).toBeLessThan(1e-6);
          const worst = Math.min(bps, 300) / 10_000;
          if (plan.side === "SELL") expect(plan.price).toBeGreaterThanOrEqual(mark * (1 - worst) - 1e-9);
          else expect(plan.price).toBeLessThanOrEqual(mark * (1 + worst) + 1e-9);
        },
      ),
    );
  });

  test("floorOnGrid: the largest base_min + n × base_tick not above x", () => {
    expect(floorOnGrid(1.2349, 0.01, 0.005, 6)).toBe(1.23);
    expect(floorOnGrid(0.004, 0.01, 0.005, 6)).toBeUndefined();
    expect(floorOnGrid(0.3, 0.1, 0.1, 6)).toBe(0.3);
  });

  test("floorOnGrid gives the double that printing origin + n × step with toFixed and parsing it gives", () => {
    // The string route the integer one replaces, kept here as the reference.
    const byString = (x: number, origin: number, step: number, decimals: number): number | undefined => {
      if (!(x >= origin)) return undefined;
      const n = Math.floor((x - origin) / step + 1e-7);
      let q = Number((origin + n * step).toFixed(decimals));
      if (q > x) q = Number((origin + (n - 1) * step).toFixed(decimals));
      return q >= origin ? q : undefined;
    };
    // Grids as the venue gives them (origin and step with the grid's decimals), and some whose
    // origin or step has more decimals than `decimals` covers, which must take the string route.
    const decimal = (units: number, d: number) => Number((units / 10 ** d).toFixed(d));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom(0, 0, 0, 1, 3),
        fc.constantFrom(0, 0, 0, 1, 3),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: -2, max: 14 }),
        (d, stepUnits, originSteps, extraStep, extraOrigin, frac, magnitude) => {
          const step = decimal(stepUnits * 10 ** extraStep + (extraStep > 0 ? 1 : 0), d + extraStep);
          const origin = decimal(originSteps * stepUnits * 10 ** extraOrigin + (extraOrigin > 0 ? 7 : 0), d + extraOrigin);
          const x = origin + frac * 10 ** magnitude;
          expect(floorOnGrid(x, origin, step, d + 2)).toBe(byString(x, origin, step, d + 2));
        },
      ),
      { numRuns: 20_000 },
    );
  });
});

describe("PnlLedger", () => {
  const T = Date.UTC(2026, 10, 24, 12);

  test("FIFO lots per claim: each claim's realized P&L, fees shared pro rata, liquidator fees earned at the claim", () => {
    const l = new PnlLedger();
    l.claim(1, ETH, 2, 3_000, 48, T); // long 2 at 3,000, fee 48
    l.claim(2, ETH, 1, 3_010, 24, T + 1); // long 1 more at 3,010
    l.fill(ETH, -2.5, 3_020, 3, T + 2); // sells 2 of claim 1 (+40) and 0.5 of claim 2 (+5)
    const [c1, c2] = l.claims();
    expect(c1).toMatchObject({ claimId: 1, liquidatorFee: 48, trading: 40 });
    expect(c1!.fees).toBeCloseTo(2.4, 12);
    expect(c2!.trading).toBeCloseTo(5, 12);
    expect(c2!.fees).toBeCloseTo(0.6, 12);
    expect(c2!.open.get(ETH)).toBeCloseTo(0.5, 12);
    expect(l.held(ETH)).toBeCloseTo(0.5, 12);
    expect(l.unrealized(() => 3_030)).toBeCloseTo(0.5 * 20, 9);
    const t = l.totals();
    expect(t.net).toBeCloseTo(48 + 24 + 45 - 3, 9);
  });

  test("an opposite claim closes held lots first, at its transfer price", () => {
    const l = new PnlLedger();
    l.claim(1, ETH, 1, 3_000, 10, T);
    l.claim(2, ETH, -3, 2_990, 30, T + 1);
    expect(l.held(ETH)).toBeCloseTo(-2, 12);
    expect(l.claims()[0]!.trading).toBeCloseTo(-10, 12);
    l.fill(ETH, 2, 2_980, 1, T + 2);
    expect(l.held(ETH)).toBeCloseTo(0, 12);
    expect(l.claims()[1]!.trading).toBeCloseTo(20, 12);
  });

  test("property: once flat, Σ per-claim net equals the account's cash flow (the venue's accounting)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            qty: fc.double({ min: -5, max: 5, noNaN: true }),
            price: fc.double({ min: 100, max: 200, noNaN: true }),
            fee: fc.double({ min: 0, max: 2, noNaN: true }),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        fc.double({ min: 100, max: 200, noNaN: true }),
        (claims, exit) => {
          const l = new PnlLedger();
          let cash = 0;
          let held = 0;
          claims.forEach((c, i) => {
            if (Math.abs(c.qty) < 1e-6) return;
            l.claim(i + 1, ETH, c.qty, c.price, c.fee, T + i);
            cash += -c.qty * c.price + c.fee;
            held += c.qty;
          });
          if (Math.abs(held) > 1e-9) {
            l.fill(ETH, -held, exit, 0.5, T + 100);
            cash += held * exit - 0.5;
          }
          const perClaim = l.claims().reduce((a, c) => a + c.liquidatorFee + c.trading - c.fees, 0);
          const t = l.totals();
          expect(t.net).toBeCloseTo(cash, 6);
          expect(perClaim).toBeCloseTo(t.net, 6);
        },
      ),
    );
  });

  test("property: a ledger that forgets closed claims has the same totals and holds only claims with open lots", () => {
    const SOL = "PERP_SOL_USDC";
    const op = fc.record({
      kind: fc.constantFrom("claim", "fill"),
      symbol: fc.constantFrom(ETH, SOL),
      qty: fc.double({ min: -5, max: 5, noNaN: true }),
      price: fc.double({ min: 100, max: 200, noNaN: true }),
      fee: fc.double({ min: 0, max: 2, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
        const kept = new PnlLedger();
        const lean = new PnlLedger({ keepClosedClaims: false });
        ops.forEach((o, i) => {
          if (Math.abs(o.qty) < 1e-6) return;
          for (const l of [kept, lean]) {
            if (o.kind === "claim") l.claim(Math.floor(i / 2) + 1, o.symbol, o.qty, o.price, o.fee, T + i * 3_600_000);
            else l.fill(o.symbol, o.qty, o.price, o.fee, T + i * 3_600_000);
          }
        });
        const a = kept.totals();
        const b = lean.totals();
        for (const k of ["liquidatorFee", "trading", "fees", "net"] as const) expect(b[k]).toBeCloseTo(a[k], 6);
        const open = new Set(
          kept
            .claims()
            .filter((c) => [...c.open.values()].some((q) => Math.abs(q) > 1e-9))
            .map((c) => c.claimId),
        );
        const leanIds = new Set(lean.claims().map((c) => c.claimId));
        for (const id of open) expect(leanIds.has(id)).toBe(true);
        expect(leanIds.size).toBeLessThanOrEqual(open.size + 2);
        expect(lean.byDay()).toEqual(kept.byDay());
      }),
    );
  });

  test("forgetting closed claims: a claim id that closes its own lot and opens the rest keeps a record", () => {
    // Found by the property above: the same id transferred twice on one symbol, the second time
    // opposite and a little larger. Closing its own lot folded the record the rest then opened under.
    const l = new PnlLedger({ keepClosedClaims: false });
    l.claim(1, ETH, 0.000001, 100, 0.5, T);
    l.claim(1, ETH, -0.000001000001, 100, 0.25, T + 1);
    expect(l.claims().map((c) => c.claimId)).toEqual([1]);
    expect(l.claims()[0]?.open.get(ETH)).toBeCloseTo(-0.000000000001, 15);
    expect(l.totals().liquidatorFee).toBeCloseTo(0.75, 12);
  });

  test("forgetting closed claims: a day of claims each closed at once leaves no claim record", () => {
    const l = new PnlLedger({ keepClosedClaims: false });
    for (let i = 1; i <= 1_000; i++) {
      l.claim(i, ETH, 1, 3_000, 2, T + i);
      l.fill(ETH, -1, 3_001, 0.5, T + i);
    }
    expect(l.claims()).toHaveLength(0);
    expect(l.totals().net).toBeCloseTo(1_000 * (2 + 1 - 0.5), 6);
  });
});
