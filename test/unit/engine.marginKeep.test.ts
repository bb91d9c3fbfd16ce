/**
 * The margin step's shortcuts give the slow path's answers exactly: the flat IMR under its bound
 * (marginFit.ts, margin.ts flatImrBelow) equals the formula's rate, and the held + in-flight lines
 * kept across decisions (claimMargin.ts) give the decisions a step that refills every time gives,
 * over random books, prices, accounts, symbol tables and policies changing between decisions.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRiskPolicy } from "../../src/config/riskPolicyOf.js";
import { ClaimMargin } from "../../src/engine/claimMargin.js";
import { flatImrRate, initialMargin, type MarginParams } from "../../src/engine/margin.js";
import { MarginFit } from "../../src/engine/marginFit.js";
import { MarginSettings } from "../../src/engine/marginSettings.js";
import { decide, type PolicyContext } from "../../src/engine/policy.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import { liq, makeCtx, NOW, policyInput, symbolsWithMargin } from "./engine.fixtures.js";

describe("the flat IMR under its bound is the formula's rate", () => {
  // A pool of parameter objects reused across runs with changing leverage: a rate kept for a line
  // must follow the parameters and the leverage it was computed for.
  const POOL: MarginParams[] = [
    { baseImr: 0.01, baseMmr: 0.006, imrFactor: 3.8e-7 },
    { baseImr: 0.1, baseMmr: 0.05, imrFactor: 2.1e-6 },
    { baseImr: 0.05, baseMmr: 0.025, imrFactor: 1e-4 },
    { baseImr: 0.02, baseMmr: 0.01, imrFactor: 0 },
    { baseImr: 1, baseMmr: 1, imrFactor: 0 },
  ];
  const fit = new MarginFit();

  it("equals initialMargin exactly, near the crossing and far from it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: POOL.length - 1 }),
        fc.constantFrom(0, 1, 5, 10, 20, 50, 100),
        fc.oneof(fc.double({ min: -3e-6, max: 3e-6, noNaN: true }), fc.double({ min: -0.9, max: 5, noNaN: true })),
        fc.double({ min: 0.01, max: 100_000, noNaN: true }),
        (k, lev, rel, mark) => {
          const p = POOL[k] as MarginParams;
          const flat = flatImrRate(p, lev);
          // The notional where the size term reaches the flat rate (or a broad one without a size term).
          const crossing = p.imrFactor > 0 ? (flat / p.imrFactor) ** 1.25 : 1e6;
          const notional = crossing * (1 + rel);
          fit.reset({ totalCollateral: 1e12, settings: MarginSettings.NONE, ordersMargin: 0 }, { maxMarginUsage: 1, minFreeCollateral: 0 });
          fit.hold("X", { ...p, leverage: lev, maxNotional: Number.POSITIVE_INFINITY }, mark, notional / mark);
          const want = initialMargin(p, Math.abs(notional / mark) * mark, lev);
          expect(Object.is(fit.initialMarginAt(0), want)).toBe(true);
        },
      ),
      { numRuns: 3_000 },
    );
  });
});

describe("decisions with kept margin lines equal decisions that refill every time", () => {
  const SYMS = ["PERP_BTC_USDC", "PERP_ETH_USDC", "PERP_SOL_USDC", "PERP_DOGE_USDC", "PERP_AVAX_USDC"];
  const PRICE = [100_000, 2_000, 100, 0.1, 20];
  // Flat rates that differ between the tables and with the leverage (1 / 50 is under every base IMR).
  const tables = [
    new SymbolTable(symbolsWithMargin(0.1, 1e-5)),
    new SymbolTable(symbolsWithMargin(0.03, 0)),
    new SymbolTable(symbolsWithMargin(0.02, 1e-6)),
  ];
  const policies = [
    compileRiskPolicy(policyInput({ max_margin_usage: 0.5, max_total_exposure: 1e9, max_claim_notional: 1e9, min_fee: 0 })),
    compileRiskPolicy(policyInput({ max_margin_usage: 0.9, max_total_exposure: 200_000, min_fee: 5 })),
    compileRiskPolicy(
      policyInput({ max_margin_usage: 0.2, min_free_collateral: 500, max_total_exposure: 1e9, max_claim_notional: 1e9, min_fee: 0 }),
    ),
  ];
  const sym = fc.integer({ min: 0, max: SYMS.length - 1 });
  const qty = fc.double({ min: -3, max: 3, noNaN: true, noDefaultInfinity: true });
  // Few shapes (symbols and sides), so that decisions in a row often share theirs and the kept lines
  // are used, across changes that must invalidate them.
  const SHAPES = [[0], [2], [2, 4], [0, 1], [3], [1]];
  const claimOf = fc.record({
    shape: fc.integer({ min: 0, max: SHAPES.length - 1 }),
    side: fc.constantFrom(1, -1),
    size: fc.array(fc.double({ min: 0.001, max: 3, noNaN: true }), { minLength: 2, maxLength: 2 }),
    scale: fc.integer({ min: 0, max: 2 }),
  });
  const op = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        k: fc.constant("decide" as const),
        claim: claimOf,
        // The last decision's symbols and sides again: the kept lines are used unless a change stops them.
        again: fc.boolean(),
        policies: fc.integer({ min: 1, max: 3 }),
        keep: fc.boolean(),
      }),
    },
    { weight: 2, arbitrary: fc.record({ k: fc.constant("mark" as const), s: sym, f: fc.double({ min: 0.5, max: 2, noNaN: true }) }) },
    { weight: 2, arbitrary: fc.record({ k: fc.constant("held" as const), s: sym, q: qty, iso: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("release" as const), back: fc.integer({ min: 0, max: 4 }) }) },
    {
      weight: 1,
      arbitrary: fc.record({
        k: fc.constant("commit" as const),
        back: fc.integer({ min: 0, max: 4 }),
        pending: fc.boolean(),
        s: sym,
        q: qty,
      }),
    },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("clearPending" as const), s: sym }) },
    {
      weight: 1,
      arbitrary: fc.record({
        k: fc.constant("account" as const),
        c: fc.double({ min: 0, max: 300_000, noNaN: true }),
        lev: fc.constantFrom(5, 20, 50),
      }),
    },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("table" as const), t: fc.integer({ min: 0, max: tables.length - 1 }) }) },
  );

  it("a change of leverage alone refills the kept lines (floors and fixed margin depend on it)", () => {
    const account = { totalCollateral: 50_000, settings: MarginSettings.uniform(50), ordersMargin: 0 };
    const ctx: PolicyContext = {
      ...makeCtx({ held: { PERP_ETH_USDC: 1 }, reserved: [[1, { PERP_ETH_USDC: -3 }]] }),
      symbols: tables[2] as SymbolTable,
      account: { marginAccount: () => ({ ...account }) },
      policy: policies[0] as (typeof policies)[number],
    };
    ctx.exposure.setHeld("PERP_SOL_USDC", 20, undefined, "ISOLATED");
    const l = liq(9, ["PERP_ETH_USDC", 2]);
    const before = decide(l, ctx, NOW);
    account.settings = MarginSettings.uniform(5);
    const after = decide(l, ctx, NOW);
    expect(after).toStrictEqual(decide(l, ctx, NOW, new ClaimMargin(false)));
    expect(after).not.toStrictEqual(before);
  });

  it("holds over random sequences of decisions and changes", () => {
    const reference = new ClaimMargin(false);
    fc.assert(
      fc.property(
        fc.double({ min: 1_000, max: 300_000, noNaN: true }),
        fc.array(op, { minLength: 20, maxLength: 60 }),
        (collateral, ops) => {
          const base = makeCtx();
          const account = { totalCollateral: collateral, settings: MarginSettings.uniform(50), ordersMargin: 0 };
          let ctx: PolicyContext = { ...base, symbols: tables[0] as SymbolTable, account: { marginAccount: () => ({ ...account }) } };
          const ids: number[] = [];
          let next = 1;
          let last = { shape: 0, side: 1 };
          for (const o of ops) {
            if (o.k === "decide") {
              const { size, scale } = o.claim;
              if (!o.again) last = o.claim;
              const { shape, side } = last;
              const l = liq(
                next,
                ...(SHAPES[shape] as number[]).map((s, i): [string, number] => [
                  SYMS[s] as string,
                  side * (size[i] as number) * 10 ** -scale,
                ]),
              );
              // Several policies on one state in a row, as a backtest's followers decide.
              let kept: ReturnType<typeof decide> | undefined;
              for (let p = 0; p < o.policies; p++) {
                const c = { ...ctx, policy: policies[p] as (typeof policies)[number] };
                const got = decide(l, c, NOW);
                const want = decide(l, c, NOW, reference);
                expect(got).toStrictEqual(want);
                kept ??= got;
              }
              if (o.keep && kept?.action === "claim") {
                ctx.exposure.reserve(next, kept.perSymbolQty);
                ids.push(next);
              }
              next++;
            } else if (o.k === "mark") {
              const s = SYMS[o.s] as string;
              ctx.marks.set(s, (ctx.marks.price(s) ?? (PRICE[o.s] as number)) * o.f, NOW - 500);
            } else if (o.k === "held") ctx.exposure.setHeld(SYMS[o.s] as string, o.q, undefined, o.iso ? "ISOLATED" : "CROSS");
            else if (o.k === "release" || o.k === "commit") {
              const id = ids.splice(Math.max(0, ids.length - 1 - o.back), 1)[0];
              // With none in flight, a transfer no reservation announced (the venue's word wins).
              if (id === undefined && o.k === "commit")
                ctx.exposure.commit(next++, { [SYMS[o.s] as string]: o.q }, o.pending ? "PENDING" : "CROSS");
              if (id === undefined) continue;
              const r = ctx.exposure.reservation(id) ?? {};
              if (o.k === "release") ctx.exposure.release(id);
              else ctx.exposure.commit(id, r, o.pending ? "PENDING" : "CROSS");
            } else if (o.k === "clearPending") ctx.exposure.clearPending(SYMS[o.s] as string);
            else if (o.k === "account") {
              account.totalCollateral = o.c;
              account.settings = MarginSettings.uniform(o.lev);
            } else ctx = { ...ctx, symbols: tables[o.t] as SymbolTable };
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
