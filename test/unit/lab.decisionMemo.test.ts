/**
 * A decision given back without deciding (lab/sweep/decisionMemo.ts) is the decision a fresh `decide`
 * makes at that moment, over random sequences of decisions and of the changes a replay makes between
 * them: reservations and releases, held positions, marks, fees earned, a new symbol table, time.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MarginSettings } from "../../src/engine/marginSettings.js";
import { decide, type PolicyContext } from "../../src/engine/policy.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import { DecisionMemo } from "../../src/lab/sweep/decisionMemo.js";
import { liq, makeCtx, NOW, SYMBOLS, symbolsWithMargin } from "./engine.fixtures.js";

const TEN_X = MarginSettings.uniform(10);

const SYMS = ["PERP_ETH_USDC", "PERP_SOL_USDC", "PERP_DOGE_USDC"];
const LIQS = [
  liq(1, ["PERP_ETH_USDC", 8]),
  liq(2, ["PERP_SOL_USDC", -300], ["PERP_DOGE_USDC", 90_000]),
  liq(3, ["PERP_DOGE_USDC", -400_000]),
];
const TABLES = [new SymbolTable(symbolsWithMargin(0.1)), new SymbolTable(symbolsWithMargin(0.5)), new SymbolTable(SYMBOLS)];

const op = fc.oneof(
  fc.record({ k: fc.constant("decide" as const), i: fc.integer({ min: 0, max: 2 }) }),
  // Offered, then taken at once: the same liquidation decided twice in a row.
  fc.record({ k: fc.constant("twice" as const), i: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ k: fc.constant("reserve" as const), i: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ k: fc.constant("release" as const), i: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ k: fc.constant("held" as const), s: fc.integer({ min: 0, max: 2 }), q: fc.double({ min: -50, max: 50, noNaN: true }) }),
  fc.record({ k: fc.constant("mark" as const), s: fc.integer({ min: 0, max: 2 }), f: fc.double({ min: 0.9, max: 1.1, noNaN: true }) }),
  fc.record({ k: fc.constant("earn" as const), x: fc.integer({ min: 100, max: 5_000 }) }),
  fc.record({ k: fc.constant("table" as const), t: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ k: fc.constant("tick" as const), ms: fc.constantFrom(1, 500, 5_000) }),
);

/** A world a memo decides in: the context (reassignable, as a new symbol table swaps it), the fees earned and the memo. */
function memoWorld() {
  const w = {
    earned: 0,
    ctx: undefined as unknown as PolicyContext,
    memo: undefined as unknown as DecisionMemo,
  };
  const base = makeCtx({ policy: { max_total_exposure: 60_000, min_fee: 0 } });
  w.ctx = {
    ...base,
    symbols: TABLES[0] as SymbolTable,
    account: { marginAccount: () => ({ totalCollateral: 2_000 + w.earned, settings: TEN_X, ordersMargin: 0 }) },
  };
  w.memo = new DecisionMemo({
    context: () => w.ctx,
    exposure: base.exposure,
    marks: base.marks,
    earned: () => w.earned,
    decide: (l, at) => decide(l, w.ctx, at),
  });
  return w;
}

describe("a decision memo", () => {
  it("decides again once the collateral grew (a claim's fee earned), though nothing else changed", () => {
    const w = memoWorld();
    const l = LIQS[0] as (typeof LIQS)[number];
    const first = w.memo.decide(l, NOW);
    expect(w.memo.decide(l, NOW)).toBe(first);
    w.earned = 3_000;
    const second = w.memo.decide(l, NOW);
    expect(second).not.toStrictEqual(first);
    expect(second).toStrictEqual(decide(l, w.ctx, NOW));
    expect(w.memo.hits).toBe(1);
  });

  it("gives back only what deciding afresh gives", () => {
    let hits = 0;
    fc.assert(
      fc.property(fc.array(op, { minLength: 10, maxLength: 60 }), (ops) => {
        const w = memoWorld();
        const { memo } = w;
        let now = NOW;
        for (const o of ops) {
          const ctx = w.ctx;
          if (o.k === "decide" || o.k === "twice") {
            const l = LIQS[o.i] as (typeof LIQS)[number];
            expect(memo.decide(l, now)).toStrictEqual(decide(l, ctx, now));
            if (o.k === "twice") expect(memo.decide(l, now)).toStrictEqual(decide(l, ctx, now));
          } else if (o.k === "reserve") {
            const d = decide(LIQS[o.i] as (typeof LIQS)[number], ctx, now);
            if (d.action === "claim" && !ctx.exposure.hasReservation(d.liquidationId))
              ctx.exposure.reserve(d.liquidationId, d.perSymbolQty);
          } else if (o.k === "release") ctx.exposure.release(o.i + 1);
          else if (o.k === "held") ctx.exposure.setHeld(SYMS[o.s] as string, o.q);
          else if (o.k === "mark") {
            const s = SYMS[o.s] as string;
            ctx.marks.set(s, (ctx.marks.price(s) as number) * o.f, now - 100);
          } else if (o.k === "earn") w.earned += o.x;
          else if (o.k === "table") w.ctx = { ...ctx, symbols: TABLES[o.t] as SymbolTable };
          else now += o.ms;
        }
        hits += memo.hits;
      }),
      { numRuns: 1_000 },
    );
    // Not a memo that never remembers.
    expect(hits).toBeGreaterThan(100);
  });
});
