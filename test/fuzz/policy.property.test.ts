/**
 * Property tests of the decision engine: for random symbol tables, marks (prices, ages, missing),
 * policies (caps, overrides, lists), exposure (held, reserved, unpriced) and liquidations, no claim
 * ever breaks a safety rule, and every claim is one the simulated venue's rules accept.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileRiskPolicy, type RiskLimitsInputForTests, type RiskPolicyInput } from "../../src/config/riskPolicyOf.js";
import { Exposure, worstQty } from "../../src/engine/exposure.js";
import { MarkBook } from "../../src/engine/marks.js";
import { type ClaimDecision, decide, type PolicyContext, SKIP_REASONS } from "../../src/engine/policy.js";
import { roundQty } from "../../src/engine/quantize.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import type { Liquidation, SymbolInfo } from "../../src/engine/types.js";
import { evaluateClaim, parseClaimBody } from "../../src/sim/claimRules.js";
import type { SymbolSpec } from "../../src/sim/symbols.js";
import { claimRequestBody } from "../../src/venue/mapping.js";
import { rawLimitPrice } from "../support/rawLimitPrice.js";

/** docs/protocol.md §4.1 / §7, written here rather than imported: a wrong constant in the policy must fail this. */
const FULL_TAKE_LOW_TIER = 10_000;
const FULL_TAKE_HIGH_TIER = 5_000;

const NUM_RUNS = 4_000;
const NOW = 1_000_000;
const UNIVERSE = ["PERP_A_USDC", "PERP_B_USDC", "PERP_C_USDC", "PERP_D_USDC", "PERP_E_USDC", "PERP_F_USDC"];
const UNKNOWN = "PERP_UNKNOWN_USDC"; // never in the symbol table
const UNPRICED = "PERP_NOMARK_USDC"; // may be held, never has a mark
const TICKS = [5, 1, 0.5, 0.1, 0.01, 0.001, 0.0001, 0.00025, 0.000001, 1e-8];
/** Relative slack for float sums compared with caps (the engine's arithmetic vs the test's). */
const EPS = 1e-9;
/**
 * The venue rounds quantities to 1e-9 (docs/protocol.md §11) and the engine reserves what the venue will
 * transfer, so a part may exceed r × |position| by up to 5e-10 units: at most 5e-10 × mark of
 * notional per symbol — dust, but a strict float comparison would see it.
 */
const QTY_DUST = 5e-10;

const dbl = (min: number, max: number): fc.Arbitrary<number> => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });

const infoArb = (symbol: string): fc.Arbitrary<SymbolInfo> =>
  fc.record({
    symbol: fc.constant(symbol),
    tier: fc.constantFrom<1 | 2>(1, 2),
    liquidatorFee: dbl(0, 0.05),
    priceTick: fc.constantFrom(...TICKS),
    minNotional: fc.constant(10),
  });

// Prices over many magnitudes relative to the tick: on the grid, off it, and (rarely) below one tick.
const priceArb = (tick: number): fc.Arbitrary<number> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 10_000_000 }).map((n) => Number((n * tick).toFixed(8))) },
    { weight: 3, arbitrary: dbl(1, 1e7).map((x) => x * tick) },
    { weight: 1, arbitrary: dbl(1e-7, 2e5) },
  );
const ageArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 2_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 8_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 3_000, 3_001) },
);
const markArb = (tick: number): fc.Arbitrary<{ price: number; age: number } | null> =>
  fc.option(fc.record({ price: priceArb(tick), age: ageArb }), { freq: 20 });

const limitsArb: fc.Arbitrary<Partial<RiskLimitsInputForTests>> = fc.record(
  {
    max_claim_notional: fc.oneof(dbl(1, 200_000), fc.constantFrom(4_000, 5_000, 10_000, 50_000)),
    max_total_exposure: dbl(100, 1e6),
    min_fee: fc.oneof(fc.constant(0), dbl(0, 200)),
    limit_price_slippage_bps: fc.oneof(fc.constantFrom(0, 1, 50, 9_999, 10_000), fc.integer({ min: 0, max: 10_000 }), dbl(0, 10_000)),
    max_mark_age_ms: fc.oneof({ weight: 3, arbitrary: fc.constant(3_000) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 6_000 }) }),
  },
  { requiredKeys: [] },
);

const policyArb: fc.Arbitrary<RiskPolicyInput> = fc.record({
  dry_run: fc.boolean(),
  max_claim_notional: fc.oneof(dbl(1, 200_000), fc.constantFrom(5_000, 10_000, 50_000)),
  max_total_exposure: fc.oneof(dbl(100, 1e6), fc.constant(250_000)),
  min_fee: fc.oneof(fc.constant(0), fc.constant(1), dbl(0, 200)),
  limit_price_slippage_bps: fc.oneof(fc.constantFrom(0, 50, 10_000), fc.integer({ min: 0, max: 10_000 })),
  max_mark_age_ms: fc.oneof({ weight: 3, arbitrary: fc.constant(3_000) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 6_000 }) }),
  symbols: fc.record({
    allow: fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.subarray(UNIVERSE) }),
    deny: fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.subarray(UNIVERSE, { maxLength: 2 }) }),
  }),
  per_symbol: fc.dictionary(fc.constantFrom(...UNIVERSE), limitsArb, { maxKeys: 3 }),
});

interface PositionSpec {
  symIdx: number; // index in UNIVERSE, or UNIVERSE.length = the unknown symbol
  long: boolean;
  notional: number; // target notional at mark (the quantity is derived from it)
  zero: boolean;
  fee: number | null; // null = the symbol's fee
}

const positionArb: fc.Arbitrary<PositionSpec> = fc.record({
  symIdx: fc.oneof(
    { weight: 40, arbitrary: fc.integer({ min: 0, max: UNIVERSE.length - 1 }) },
    { weight: 1, arbitrary: fc.constant(UNIVERSE.length) },
  ),
  long: fc.boolean(),
  notional: fc.oneof(dbl(0.01, 300_000), fc.constantFrom(4_999.99, 5_000, 9_999.99, 10_000, 50_000, 1e-9)),
  zero: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  fee: fc.option(dbl(0, 0.05), { freq: 3 }),
});

interface World {
  infos: SymbolInfo[];
  marks: ({ price: number; age: number } | null)[];
  policy: RiskPolicyInput;
  held: [number, number][]; // [symIdx (UNIVERSE.length = unpriced), notional signed]
  reserved: [number, number][][]; // per reservation: [symIdx, notional signed]
  positions: PositionSpec[];
  liquidationId: number;
}

const symbolWorldArb = fc.tuple(...UNIVERSE.map((s) => infoArb(s).chain((info) => fc.tuple(fc.constant(info), markArb(info.priceTick)))));

const worldArb: fc.Arbitrary<World> = fc
  .record({
    symbols: symbolWorldArb,
    policy: policyArb,
    held: fc.array(fc.tuple(fc.integer({ min: 0, max: UNIVERSE.length }), dbl(-300_000, 300_000)), { maxLength: 4 }),
    reserved: fc.array(
      fc.array(fc.tuple(fc.integer({ min: 0, max: UNIVERSE.length - 1 }), dbl(-100_000, 100_000)), { minLength: 1, maxLength: 3 }),
      { maxLength: 3 },
    ),
    positions: fc.uniqueArray(positionArb, { minLength: 1, maxLength: 4, selector: (p) => p.symIdx }),
    liquidationId: fc.integer({ min: 1, max: 1_000_000 }),
  })
  .map(({ symbols, ...rest }) => ({ ...rest, infos: symbols.map(([i]) => i), marks: symbols.map(([, m]) => m) }));

function priceFor(w: World, idx: number): number {
  return w.marks[idx]?.price ?? 1;
}

function buildExposure(w: World): Exposure {
  const e = new Exposure();
  for (const [idx, n] of w.held) {
    if (idx === UNIVERSE.length) e.setHeld(UNPRICED, n / 1000);
    else e.setHeld(UNIVERSE[idx] as string, n / priceFor(w, idx));
  }
  w.reserved.forEach((r, i) => {
    const q: Record<string, number> = {};
    for (const [idx, n] of r) q[UNIVERSE[idx] as string] = n / priceFor(w, idx);
    e.reserve(1_000_000_000 + i, q);
  });
  return e;
}

function build(w: World): { ctx: PolicyContext; liq: Liquidation } {
  const marks = new MarkBook();
  w.marks.forEach((m, i) => {
    if (m !== null) marks.set(UNIVERSE[i] as string, m.price, NOW - m.age);
  });
  const ctx: PolicyContext = {
    policy: compileRiskPolicy(w.policy),
    symbols: new SymbolTable(w.infos),
    marks,
    exposure: buildExposure(w),
  };
  const liq: Liquidation = {
    liquidationId: w.liquidationId,
    timestamp: 1,
    positions: w.positions.map((p) => {
      const symbol = p.symIdx === UNIVERSE.length ? UNKNOWN : (UNIVERSE[p.symIdx] as string);
      const qty = p.zero ? 0 : ((p.long ? 1 : -1) * p.notional) / priceFor(w, p.symIdx);
      return { symbol, positionQty: qty, liquidatorFee: p.fee ?? w.infos[p.symIdx]?.liquidatorFee ?? 0.01 };
    }),
  };
  return { ctx, liq };
}

function allFinite(v: unknown): boolean {
  if (typeof v === "number") return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(allFinite);
  if (typeof v === "object" && v !== null) return Object.values(v).every(allFinite);
  return true;
}

/** Decimals of a number as JSON prints it ("1.23e-7" → 9, "100.5" → 1, "1e+21" → 0). */
function printedDecimals(s: string): number {
  const [mantissa, exp] = s.split("e");
  const frac = mantissa?.split(".")[1]?.length ?? 0;
  return Math.max(0, frac - Number(exp ?? 0));
}

const isThousandths = (r: number): boolean => r > 0 && r <= 1 && Math.round(r * 1000) / 1000 === r;

/** Every safety property of one claim decision. */
function checkClaim(d: ClaimDecision, w: World, ctx: PolicyContext, liq: Liquidation): void {
  const { policy, symbols, marks } = ctx;
  expect(allFinite(d)).toBe(true);
  expect(isThousandths(d.ratio)).toBe(true);

  const open = liq.positions.filter((p) => p.positionQty !== 0);
  const anyLow = open.some((p) => symbols.get(p.symbol)?.tier === 1);
  const claimed = Object.keys(d.limitPrice).sort();
  expect(Object.keys(d.perSymbolQty).sort()).toEqual(claimed);

  // Form and full-take rules (docs/protocol.md §11).
  const ratioOf = new Map<string, number>();
  if (anyLow) {
    expect(d.symbols).toBeUndefined();
    expect(claimed).toEqual(open.map((p) => p.symbol).sort());
    for (const p of open) ratioOf.set(p.symbol, d.ratio);
    const total = open.reduce((s, p) => s + Math.abs(p.positionQty) * (marks.price(p.symbol) as number), 0);
    if (total < FULL_TAKE_LOW_TIER) expect(d.ratio).toBe(1);
  } else if (d.symbols === undefined) {
    // docs/protocol.md §10: every open symbol at one ratio is the top-level ratio alone.
    expect(claimed).toEqual(open.map((p) => p.symbol).sort());
    for (const p of open) ratioOf.set(p.symbol, d.ratio);
  } else {
    const listed = d.symbols.map((s) => s.symbol).sort();
    expect(listed).toEqual(claimed);
    for (const s of d.symbols) {
      expect(isThousandths(s.ratio)).toBe(true);
      expect(symbols.get(s.symbol)?.tier).toBe(2);
      ratioOf.set(s.symbol, s.ratio);
    }
    expect(d.ratio).toBe(Math.max(...d.symbols.map((s) => s.ratio)));
    // `symbols` only where it changes the meaning: a symbol left out, or two ratios that differ.
    expect(listed.length < open.length || new Set(d.symbols.map((s) => s.ratio)).size > 1).toBe(true);
  }

  let budgetUsed = 0;
  let budgetDust = 0;
  let exposureDust = 0;
  let fee = 0;
  let notional = 0;
  let minFee = 0;
  const after = buildExposure(w);
  after.reserve(d.liquidationId, d.perSymbolQty);
  for (const symbol of claimed) {
    const pos = open.find((p) => p.symbol === symbol)!;
    const info = symbols.get(symbol)!;
    const lim = policy.limitsFor(symbol);
    const m = marks.get(symbol)!;
    // Lists, freshness.
    expect(policy.access(symbol)).toBe("allowed");
    expect(m).toBeDefined();
    expect(NOW - m.receivedAt).toBeLessThanOrEqual(lim.maxMarkAgeMs);
    // The limit: right side of the mark, within the slippage, on the tick.
    const limit = d.limitPrice[symbol]!;
    expect(limit > 0 && Number.isFinite(limit)).toBe(true);
    const bound = rawLimitPrice(pos.positionQty, m.price, lim.slippageBps);
    if (pos.positionQty > 0) {
      expect(limit).toBeGreaterThanOrEqual(m.price);
      expect(limit).toBeLessThanOrEqual(bound);
    } else {
      expect(limit).toBeLessThanOrEqual(m.price);
      expect(limit >= bound || limit === info.priceTick).toBe(true);
    }
    const ticks = limit / info.priceTick;
    expect(Math.abs(ticks - Math.round(ticks))).toBeLessThanOrEqual(Math.max(1e-6, Math.abs(ticks) * 1e-12));
    // The quantity: the venue's arithmetic, same sign.
    const r = ratioOf.get(symbol)!;
    const k = Math.round(r * 1000);
    const q = d.perSymbolQty[symbol]!;
    expect(q).toBe(k === 1000 ? pos.positionQty : roundQty((pos.positionQty * k) / 1000));
    expect(q === 0 || Math.sign(q) === Math.sign(pos.positionQty)).toBe(true);
    const part = Math.abs(q) * m.price;
    if (!anyLow && Math.abs(pos.positionQty) * m.price < FULL_TAKE_HIGH_TIER) expect(r).toBe(1);
    // Claim notional: each part under its own cap, the parts together within one claim's budget.
    const dust = QTY_DUST * m.price * (1 + EPS);
    expect(part).toBeLessThanOrEqual(lim.maxClaimNotional * (1 + EPS) + dust);
    budgetUsed += part / lim.maxClaimNotional;
    budgetDust += dust / lim.maxClaimNotional;
    exposureDust += dust;
    notional += part;
    fee += part * pos.liquidatorFee;
    minFee = Math.max(minFee, lim.minFee);
    // Projected exposure of this symbol, with the claim reserved.
    const v = after.get(symbol);
    const projected = v === undefined ? 0 : worstQty(v) * m.price;
    expect(projected).toBeLessThanOrEqual(lim.maxTotalExposure * (1 + EPS) + dust);
  }
  expect(budgetUsed).toBeLessThanOrEqual(1 + EPS + budgetDust);
  expect(notional).toBeGreaterThan(0);
  expect(d.notional).toBeCloseTo(notional, 6);
  expect(Math.abs(d.expectedFee - fee)).toBeLessThanOrEqual(1e-9 * Math.max(1, fee));
  expect(d.expectedFee).toBeGreaterThanOrEqual(minFee);
  // Projected total exposure, held + every reservation + this claim.
  expect(after.totalNotional(marks)).toBeLessThanOrEqual(policy.maxTotalExposure * (1 + EPS) + exposureDust);

  // The body prints as the numbers themselves: 3-decimal ratios, no NaN turned into null.
  const body = claimRequestBody(d);
  const json = JSON.stringify(body);
  expect(JSON.parse(json)).toEqual(body);
  expect(json).not.toMatch(/null|NaN|Infinity/);
  for (const m of json.matchAll(/"ratio_qty_request":([0-9.e-]+)/g)) expect(m[1]).toMatch(/^(1|0\.\d{1,3})$/);
  // Each limit prints with no more decimals than its tick has (no 0.30000000000000004).
  for (const m of json.matchAll(/"(PERP_[A-Z0-9]+_[A-Z0-9]+)":([0-9.e+-]+)/g)) {
    expect(printedDecimals(m[2]!)).toBeLessThanOrEqual(symbols.get(m[1]!)!.priceDecimals);
  }
}

/** The simulated venue's rules (src/sim/claimRules.ts) accept the claim at the same marks. */
function checkVenueAccepts(d: ClaimDecision, w: World, ctx: PolicyContext, liq: Liquidation): void {
  const parsed = parseClaimBody(JSON.parse(JSON.stringify(claimRequestBody(d))));
  expect(parsed.ok ? "ok" : parsed.refusal.message).toBe("ok");
  if (!parsed.ok) return;
  const out = evaluateClaim(
    parsed.value,
    {
      liquidationId: liq.liquidationId,
      timestamp: 1,
      type: "liquidated",
      positions: liq.positions.map((p) => ({ ...p })),
      expiresAt: NOW + 60_000,
    },
    {
      symbol: (name) => {
        const i = ctx.symbols.get(name);
        return i === undefined
          ? undefined
          : ({ ...i, baseTick: i.priceTick, qtyStep: 1e-9, startPrice: 1, volatilityPerSec: 0 } as SymbolSpec);
      },
      // The venue knows every mark; the daemon may lack some (of symbols it does not claim).
      mark: (name) => ctx.marks.price(name) ?? 1,
      positions: new Map(),
      collateral: Number.POSITIVE_INFINITY,
      margin: 10,
    },
  );
  expect(out.ok ? "ok" : out.refusal.message).toBe("ok");
  if (!out.ok) return;
  // The venue assigns the share rounded toward zero to its quantity step (here 1e-9: docs/protocol.md
  // §7); the engine sizes it to the nearest 1e-9. Never more than the engine expects, at most a step less.
  for (const t of out.value.transfers) {
    const expected = d.perSymbolQty[t.symbol] as number;
    expect(Math.sign(t.positionQty)).toBe(Math.sign(expected));
    expect(Math.abs(t.positionQty)).toBeLessThanOrEqual(Math.abs(expected) * (1 + 1e-15));
    expect(Math.abs(expected) - Math.abs(t.positionQty)).toBeLessThanOrEqual(1e-9 + Math.abs(expected) * 1e-12);
  }
  void w;
}

describe("policy properties", () => {
  it("every claim is safe: limit side and slippage, ratio, caps, exposure, freshness, fee, no NaN", () => {
    let claims = 0;
    const reasons = new Set<string>();
    fc.assert(
      fc.property(worldArb, (w) => {
        const { ctx, liq } = build(w);
        const d = decide(liq, ctx, NOW);
        if (d.action === "skip") {
          expect(SKIP_REASONS).toContain(d.reason);
          reasons.add(d.reason);
          return;
        }
        claims++;
        checkClaim(d, w, ctx, liq);
      }),
      { numRuns: NUM_RUNS },
    );
    // The generator must exercise both outcomes, or the properties above prove little.
    expect(claims).toBeGreaterThan(NUM_RUNS / 20);
    expect(reasons.size).toBeGreaterThanOrEqual(8);
  });

  it("the simulated venue's rules accept every claim made at the current marks", () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const { ctx, liq } = build(w);
        const d = decide(liq, ctx, NOW);
        if (d.action === "claim") checkVenueAccepts(d, w, ctx, liq);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("a decision is a function of its inputs (same inputs, same decision; inputs untouched)", () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const { ctx, liq } = build(w);
        const before = JSON.stringify({ liq, ex: ctx.exposure.snapshot(), marks: ctx.marks.snapshot() });
        const a = decide(liq, ctx, NOW);
        const b = decide(liq, build(w).ctx, NOW);
        expect(a).toEqual(b);
        expect(JSON.stringify({ liq, ex: ctx.exposure.snapshot(), marks: ctx.marks.snapshot() })).toBe(before);
      }),
      { numRuns: 2_000 },
    );
  });

  it("a burst of reserved claims never takes the book past the exposure cap", () => {
    fc.assert(
      fc.property(worldArb, fc.array(fc.array(positionArb, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 6 }), (w, burst) => {
        const { ctx } = build(w);
        const startTotal = ctx.exposure.totalNotional(ctx.marks);
        let dust = 1e-6;
        burst.forEach((positions, i) => {
          const unique = positions.filter((p, j) => positions.findIndex((o) => o.symIdx === p.symIdx) === j);
          const { liq } = build({ ...w, positions: unique.map((p) => ({ ...p, zero: false })), liquidationId: 1 + i });
          const d = decide(liq, ctx, NOW);
          if (d.action === "claim") {
            ctx.exposure.reserve(d.liquidationId, d.perSymbolQty);
            for (const symbol of Object.keys(d.perSymbolQty)) dust += QTY_DUST * (ctx.marks.price(symbol) ?? 0) * (1 + EPS);
          }
        });
        const total = ctx.exposure.totalNotional(ctx.marks);
        // Either every claim fit under the cap, or nothing was added to a book already over it.
        if (startTotal <= ctx.policy.maxTotalExposure) expect(total).toBeLessThanOrEqual(ctx.policy.maxTotalExposure * (1 + EPS) + dust);
        else expect(total).toBeLessThanOrEqual(startTotal * (1 + EPS) + dust);
      }),
      { numRuns: 2_000 },
    );
  });
});
