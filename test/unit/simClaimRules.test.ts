import { describe, expect, it } from "vitest";
import {
  addToPosition,
  type ClaimContext,
  evaluateClaim,
  FULL_TAKE_HIGH_TIER_FOR_TESTS,
  FULL_TAKE_LOW_TIER_FOR_TESTS,
  type HeldPosition,
  parseClaimBody,
  quantiseRatioForTests,
} from "../../src/sim/claimRules.js";
import type { BookedLiquidation } from "../../src/sim/liquidationBook.js";
import type { AccountMargin } from "../../src/sim/margin.js";
import { ListedSymbols, type SymbolSpec } from "../../src/sim/symbols.js";

// A small table of our own, so the numbers in these tests do not depend on the simulator's defaults.
const SPECS: SymbolSpec[] = [
  {
    symbol: "PERP_LOW_USDC",
    tier: 1,
    liquidatorFee: 0.01,
    baseTick: 0.01,
    qtyStep: 0.001,
    minNotional: 10,
    startPrice: 100,
    volatilityPerSec: 0,
  },
  {
    symbol: "PERP_LOWB_USDC",
    tier: 1,
    liquidatorFee: 0.006,
    baseTick: 0.01,
    qtyStep: 0.001,
    minNotional: 10,
    startPrice: 50,
    volatilityPerSec: 0,
  },
  {
    symbol: "PERP_HIGH_USDC",
    tier: 2,
    liquidatorFee: 0.02,
    baseTick: 0.0001,
    qtyStep: 1,
    minNotional: 10,
    startPrice: 2,
    volatilityPerSec: 0,
  },
  {
    symbol: "PERP_HIGHB_USDC",
    tier: 2,
    liquidatorFee: 0.025,
    baseTick: 0.0001,
    qtyStep: 1,
    minNotional: 10,
    startPrice: 4,
    volatilityPerSec: 0,
  },
];
const table = new ListedSymbols(SPECS);
const MARKS: Record<string, number> = { PERP_LOW_USDC: 100, PERP_LOWB_USDC: 50, PERP_HIGH_USDC: 2, PERP_HIGHB_USDC: 4 };

function liq(positions: [string, number][], id = 7): BookedLiquidation {
  return {
    liquidationId: id,
    timestamp: 1_700_000_000_000,
    type: "liquidated",
    expiresAt: Number.MAX_SAFE_INTEGER,
    positions: positions.map(([symbol, positionQty]) => ({ symbol, positionQty, liquidatorFee: table.get(symbol)?.liquidatorFee ?? 0 })),
  };
}

function ctx(
  overrides: {
    collateral?: number;
    positions?: Map<string, HeldPosition>;
    marks?: Record<string, number>;
    maxLeverage?: number;
    otherMargin?: number;
    margin?: AccountMargin;
    growsPastMaxNotional?: ClaimContext["growsPastMaxNotional"];
  } = {},
): ClaimContext {
  const marks = overrides.marks ?? MARKS;
  return {
    symbol: (s) => table.get(s),
    mark: (s) => marks[s],
    positions: overrides.positions ?? new Map(),
    collateral: overrides.collateral ?? 1e9,
    margin: overrides.margin ?? overrides.maxLeverage ?? 10,
    ...(overrides.otherMargin !== undefined ? { otherMargin: overrides.otherMargin } : {}),
    ...(overrides.growsPastMaxNotional !== undefined ? { growsPastMaxNotional: overrides.growsPastMaxNotional } : {}),
  };
}

/** A claim body; limit prices are filled in by `run` so that they never trip the side rule, unless given. */
function body(id: number, ratio: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { liquidation_id: id, ratio_qty_request: ratio, limit_price: "generous", ...extra };
}

function run(b: unknown, l: BookedLiquidation | undefined, c: ClaimContext = ctx()) {
  if (typeof b === "object" && b !== null && (b as Record<string, unknown>).limit_price === "generous") {
    // Longs: a limit far above mark; shorts: far below.
    const limits = Object.fromEntries(
      (l?.positions ?? []).map((p) => [p.symbol, p.positionQty >= 0 ? MARKS[p.symbol]! * 10 : MARKS[p.symbol]! / 10]),
    );
    b = { ...(b as Record<string, unknown>), limit_price: limits };
  }
  const parsed = parseClaimBody(b);
  if (!parsed.ok) return { code: parsed.refusal.code, message: parsed.refusal.message };
  const out = evaluateClaim(parsed.value, l, c);
  return out.ok ? { code: 0, value: out.value } : { code: out.refusal.code, message: out.refusal.message };
}

describe("ratio range and the 0.001 quantum (docs/protocol.md §4)", () => {
  it.each([
    [1, 1000],
    [0.5, 500],
    [0.29, 290],
    [0.57, 570],
    [0.0015, 1],
    [0.001, 1],
    [0.9999, 999],
    [0.123456, 123],
  ])("%s quantises down to %s thousandths", (ratio, thousandths) => {
    const q = quantiseRatioForTests(ratio, "r");
    expect(q.ok && q.value).toBe(thousandths);
  });

  it.each([[0], [-0.5], [1.0001], [2], [0.0009], ["0.5"], [null], [true], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    "%s is refused with -1005",
    (ratio) => {
      const q = quantiseRatioForTests(ratio, "r");
      expect(q.ok).toBe(false);
      if (!q.ok) expect(q.refusal.code).toBe(-1005);
    },
  );
});

describe("body shape", () => {
  it.each([
    ["not an object", [], -1005],
    ["null", null, -1005],
    ["missing liquidation_id", { ratio_qty_request: 1, limit_price: {} }, -1005],
    ["string liquidation_id", { liquidation_id: "7", ratio_qty_request: 1, limit_price: {} }, -1005],
    ["fractional liquidation_id", { liquidation_id: 7.5, ratio_qty_request: 1, limit_price: {} }, -1005],
    ["missing ratio", { liquidation_id: 7, limit_price: {} }, -1005],
    ["missing limit_price", { liquidation_id: 7, ratio_qty_request: 1 }, -1005],
    ["limit_price an array", { liquidation_id: 7, ratio_qty_request: 1, limit_price: [1] }, -1005],
    ["limit_price zero", { liquidation_id: 7, ratio_qty_request: 1, limit_price: { PERP_LOW_USDC: 0 } }, -1005],
    ["limit_price negative", { liquidation_id: 7, ratio_qty_request: 1, limit_price: { PERP_LOW_USDC: -1 } }, -1005],
    ["limit_price a string", { liquidation_id: 7, ratio_qty_request: 1, limit_price: { PERP_LOW_USDC: "100" } }, -1005],
    ["unknown field", { liquidation_id: 7, ratio_qty_request: 1, limit_price: {}, foo: 1 }, -1004],
    ["extra ratio with ratio < 1", { liquidation_id: 7, ratio_qty_request: 0.5, limit_price: {}, extra_liquidation_ratio: 0.1 }, -1005],
    ["extra ratio > 1", { liquidation_id: 7, ratio_qty_request: 1, limit_price: {}, extra_liquidation_ratio: 1.5 }, -1005],
    ["symbols not an array", { liquidation_id: 7, ratio_qty_request: 1, limit_price: {}, symbols: { PERP_HIGH_USDC: 1 } }, -1005],
    ["symbols empty", { liquidation_id: 7, ratio_qty_request: 1, limit_price: {}, symbols: [] }, -1005],
    [
      "symbols entry with unknown key",
      { liquidation_id: 7, ratio_qty_request: 1, limit_price: {}, symbols: [{ symbol: "PERP_HIGH_USDC", ratio_qty_request: 1, x: 1 }] },
      -1004,
    ],
    [
      "symbols entry without ratio",
      { liquidation_id: 7, ratio_qty_request: 1, limit_price: {}, symbols: [{ symbol: "PERP_HIGH_USDC" }] },
      -1005,
    ],
    [
      "symbols entry ratio 0",
      { liquidation_id: 7, ratio_qty_request: 1, limit_price: {}, symbols: [{ symbol: "PERP_HIGH_USDC", ratio_qty_request: 0 }] },
      -1005,
    ],
    [
      "symbols listing one symbol twice",
      {
        liquidation_id: 7,
        ratio_qty_request: 1,
        limit_price: {},
        symbols: [
          { symbol: "PERP_HIGH_USDC", ratio_qty_request: 1 },
          { symbol: "PERP_HIGH_USDC", ratio_qty_request: 1 },
        ],
      },
      -1005,
    ],
  ])("%s → %s", (_name, b, code) => {
    const parsed = parseClaimBody(b);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.refusal.code).toBe(code);
  });

  it("accepts extra_liquidation_ratio with ratio 1, and null optional fields", () => {
    expect(parseClaimBody({ liquidation_id: 7, ratio_qty_request: 1, limit_price: {}, extra_liquidation_ratio: 0.2 }).ok).toBe(true);
    expect(
      parseClaimBody({ liquidation_id: 7, ratio_qty_request: 1, limit_price: {}, extra_liquidation_ratio: null, symbols: null }).ok,
    ).toBe(true);
  });
});

describe("limit_price side rule (docs/protocol.md §A.4.5), both sides", () => {
  // Big enough to allow partial claims, so only the price rule is being tested.
  it.each([
    ["long, limit above mark", 200, 100.5, 0],
    ["long, limit equal to mark", 200, 100, 0],
    ["long, mark above limit", 200, 99.99, -1203],
    ["short, limit below mark", -200, 99.5, 0],
    ["short, limit equal to mark", -200, 100, 0],
    ["short, mark below limit", -200, 100.01, -1203],
  ])("%s → %s", (_name, qty, limit, code) => {
    const r = run(body(7, 0.5, { limit_price: { PERP_LOW_USDC: limit } }), liq([["PERP_LOW_USDC", qty]]));
    expect(r.code).toBe(code);
  });

  it("a claimed symbol without a limit price is refused with -1005; unclaimed symbols need none", () => {
    const l = liq([
      ["PERP_HIGH_USDC", 5000],
      ["PERP_HIGHB_USDC", 3000],
    ]);
    expect(run({ liquidation_id: 7, ratio_qty_request: 1, limit_price: { PERP_HIGH_USDC: 10 } }, l).code).toBe(-1005);
    const viaSymbols = run(
      {
        liquidation_id: 7,
        ratio_qty_request: 1,
        limit_price: { PERP_HIGH_USDC: 10 },
        symbols: [{ symbol: "PERP_HIGH_USDC", ratio_qty_request: 1 }],
      },
      l,
    );
    expect(viaSymbols.code).toBe(0);
  });

  it("checks every claimed symbol: one past its limit refuses the whole claim", () => {
    const l = liq([
      ["PERP_LOW_USDC", 100],
      ["PERP_LOWB_USDC", -100],
    ]);
    const r = run({ liquidation_id: 7, ratio_qty_request: 1, limit_price: { PERP_LOW_USDC: 101, PERP_LOWB_USDC: 51 } }, l);
    expect(r.code).toBe(-1203);
  });
});

describe("tier rules", () => {
  it("low-tier symbols cannot be claimed through symbols (-1005)", () => {
    const l = liq([
      ["PERP_LOW_USDC", 500],
      ["PERP_HIGH_USDC", 10_000],
    ]);
    const r = run(body(7, 1, { symbols: [{ symbol: "PERP_LOW_USDC", ratio_qty_request: 1 }] }), l);
    expect(r.code).toBe(-1005);
  });

  it("a symbol outside the liquidation is refused (-1005)", () => {
    const r = run(body(7, 1, { symbols: [{ symbol: "PERP_HIGHB_USDC", ratio_qty_request: 1 }] }), liq([["PERP_HIGH_USDC", 10_000]]));
    expect(r.code).toBe(-1005);
  });

  it("high tier through symbols: each at its own ratio, other symbols untouched", () => {
    // HIGH: 10,000 × 2 = 20,000 notional; HIGHB: 3,000 × 4 = 12,000; LOW: 50 × 100 = 5,000.
    const l = liq([
      ["PERP_LOW_USDC", 50],
      ["PERP_HIGH_USDC", 10_000],
      ["PERP_HIGHB_USDC", -3_000],
    ]);
    const r = run(
      body(7, 0.1, {
        symbols: [
          { symbol: "PERP_HIGH_USDC", ratio_qty_request: 0.25 },
          { symbol: "PERP_HIGHB_USDC", ratio_qty_request: 0.5 },
        ],
      }),
      l,
    );
    expect(r.code).toBe(0);
    if (r.code !== 0 || r.value === undefined) return;
    expect(r.value.transfers.map((t) => [t.symbol, t.positionQty])).toEqual([
      ["PERP_HIGH_USDC", 2500],
      ["PERP_HIGHB_USDC", -1500],
    ]);
    expect(Object.fromEntries(r.value.remaining)).toEqual({ PERP_LOW_USDC: 50, PERP_HIGH_USDC: 7500, PERP_HIGHB_USDC: -1500 });
    expect(r.value.fullyClaimed).toBe(false);
  });

  it("without symbols the ratio applies proportionally to every remaining symbol, low and high", () => {
    const l = liq([
      ["PERP_LOW_USDC", 100],
      ["PERP_HIGH_USDC", -4000],
    ]);
    const r = run(body(7, 0.4), l);
    expect(r.code).toBe(0);
    if (r.code !== 0 || r.value === undefined) return;
    expect(r.value.transfers.map((t) => [t.symbol, t.positionQty])).toEqual([
      ["PERP_LOW_USDC", 40],
      ["PERP_HIGH_USDC", -1600],
    ]);
  });
});

describe("full-take thresholds (10,000 with any low tier, else 5,000)", () => {
  it("the constants are the claim rules' numbers (docs/protocol.md §11)", () => {
    expect([FULL_TAKE_LOW_TIER_FOR_TESTS, FULL_TAKE_HIGH_TIER_FOR_TESTS]).toEqual([10_000, 5_000]);
  });

  // Notionals at the marks above: LOW 100/unit, HIGH 2/unit, HIGHB 4/unit.
  it.each([
    ["low tier just below 10,000, partial", [["PERP_LOW_USDC", 99.99]], 0.5, -1201],
    ["low tier just below 10,000, full", [["PERP_LOW_USDC", 99.99]], 1, 0],
    ["low tier at 10,000, partial", [["PERP_LOW_USDC", 100]], 0.5, 0],
    ["high tier just below 5,000, partial", [["PERP_HIGH_USDC", 2499]], 0.5, -1201],
    ["high tier just below 5,000, full", [["PERP_HIGH_USDC", 2499]], 1, 0],
    ["high tier at 5,000, partial", [["PERP_HIGH_USDC", 2500]], 0.5, 0],
    [
      "mixed 9,000 (any low tier → 10,000), partial",
      [
        ["PERP_LOW_USDC", 30],
        ["PERP_HIGH_USDC", 3000],
      ],
      0.5,
      -1201,
    ],
    [
      "high-tier only 9,000, partial",
      [
        ["PERP_HIGH_USDC", 2500],
        ["PERP_HIGHB_USDC", -1000],
      ],
      0.5,
      0,
    ],
    ["short positions count by absolute notional", [["PERP_LOW_USDC", -100]], 0.5, 0],
  ] as [string, [string, number][], number, number][])("%s → %s", (_name, positions, ratio, code) => {
    expect(run(body(7, ratio), liq(positions)).code).toBe(code);
  });

  it.each([
    ["listed symbol below 5,000 at ratio < 1", 2499, 0.5, -1201],
    ["listed symbol below 5,000 at ratio 1", 2499, 1, 0],
    ["listed symbol at 5,000 at ratio < 1", 2500, 0.5, 0],
  ])("through symbols: %s → %s", (_name, qty, ratio, code) => {
    const l = liq([
      ["PERP_HIGH_USDC", qty],
      ["PERP_HIGHB_USDC", 10_000],
    ]);
    expect(run(body(7, 0.5, { symbols: [{ symbol: "PERP_HIGH_USDC", ratio_qty_request: ratio }] }), l).code).toBe(code);
  });

  it("the threshold is judged on the remaining quantity, so a partly claimed liquidation can fall below it", () => {
    const l = liq([["PERP_LOW_USDC", 150]]); // 15,000
    const first = run(body(7, 0.5), l);
    expect(first.code).toBe(0);
    if (first.code !== 0 || first.value === undefined) return;
    l.positions[0]!.positionQty = first.value.remaining.get("PERP_LOW_USDC")!; // 75 → 7,500
    expect(run(body(7, 0.5), l).code).toBe(-1201);
    expect(run(body(7, 1), l).code).toBe(0);
  });
});

describe("-1202 and -1101", () => {
  it("an unknown, expired or fully claimed liquidation is -1202", () => {
    expect(run(body(7, 1), undefined).code).toBe(-1202);
    expect(run(body(7, 1), liq([["PERP_LOW_USDC", 0]])).code).toBe(-1202);
  });

  it("refuses with -1101 when the initial margin held after the claim exceeds collateral (10×: 10 % binds)", () => {
    const l = liq([["PERP_LOW_USDC", 100]]); // 10,000 at mark → 1,000 initial margin
    expect(run(body(7, 1), l, ctx({ collateral: 999 })).code).toBe(-1101);
    expect(run(body(7, 1), l, ctx({ collateral: 1000 })).code).toBe(0);
  });

  it("counts positions already held, at mark", () => {
    const l = liq([["PERP_LOW_USDC", 100]]);
    const held = new Map([["PERP_HIGH_USDC", { qty: -5000, averageOpenPrice: 1 }]]); // 10,000 at mark 2 → 1,000
    expect(run(body(7, 1), l, ctx({ collateral: 1999, positions: held })).code).toBe(-1101);
    expect(run(body(7, 1), l, ctx({ collateral: 2000, positions: held })).code).toBe(0);
    // Isolated positions and open orders count too.
    expect(run(body(7, 1), l, ctx({ collateral: 2000, positions: held, otherMargin: 1 })).code).toBe(-1101);
  });

  it("per-symbol IMR (docs/protocol.md §7): at 100× a tier-1 symbol needs its base 1 %", () => {
    const l = liq([["PERP_LOW_USDC", 100]]); // 10,000 at mark
    expect(run(body(7, 1), l, ctx({ collateral: 99.99, maxLeverage: 100 })).code).toBe(-1101);
    expect(run(body(7, 1), l, ctx({ collateral: 100, maxLeverage: 100 })).code).toBe(0);
  });

  it("the 4/5 term: 1,000,000 of a tier-2 symbol (10 %, 2.1e-6) needs 10^4.8 × 2.1e-6 = 13.25 %: 132,501.04", () => {
    const l = liq([["PERP_HIGH_USDC", -500_000]]); // 1,000,000 at mark 2
    expect(run(body(7, 1), l, ctx({ collateral: 132_500, maxLeverage: 100 })).code).toBe(-1101);
    expect(run(body(7, 1), l, ctx({ collateral: 132_502, maxLeverage: 100 })).code).toBe(0);
  });

  it("docs/protocol.md §10: each symbol at the account's leverage for it, with the account's own imr_factor", () => {
    const l = liq([["PERP_LOW_USDC", 100]]); // 10,000 at mark
    const at = (lev: Record<string, number>, factor: Record<string, number> = {}): AccountMargin => ({
      leverage: (s) => lev[s] ?? 10,
      imrFactor: (s) => factor[s],
    });
    // 4× on this symbol: 2,500; 10× elsewhere changes nothing.
    expect(run(body(7, 1), l, ctx({ collateral: 2_499, margin: at({ PERP_LOW_USDC: 4 }) })).code).toBe(-1101);
    expect(run(body(7, 1), l, ctx({ collateral: 2_500, margin: at({ PERP_LOW_USDC: 4, PERP_HIGH_USDC: 1 }) })).code).toBe(0);
    // The account's imr_factor 1e-3 (the public one is far smaller): 10,000^0.8 × 1e-3 = 1.585 → 15,849.
    expect(run(body(7, 1), l, ctx({ collateral: 15_848, margin: at({}, { PERP_LOW_USDC: 1e-3 }) })).code).toBe(-1101);
    expect(run(body(7, 1), l, ctx({ collateral: 15_850, margin: at({}, { PERP_LOW_USDC: 1e-3 }) })).code).toBe(0);
  });

  it("docs/protocol.md §10: a claim that would grow a symbol past the account's max_notional is refused with -1101", () => {
    const l = liq([["PERP_LOW_USDC", 100]]); // 10,000 at mark
    const cap = (n: number) => (_s: string, before: number, after: number, mark: number) =>
      Math.abs(after) * mark > n && Math.abs(after) > Math.abs(before);
    expect(run(body(7, 1), l, ctx({ growsPastMaxNotional: cap(9_999) })).code).toBe(-1101);
    expect(run(body(7, 1), l, ctx({ growsPastMaxNotional: cap(10_000) })).code).toBe(0);
  });
});

describe("extra_liquidation_ratio (docs/protocol.md §10): a position grown since it was published", () => {
  const grown = () => {
    const l = liq([["PERP_LOW_USDC", 130]]);
    const p = l.positions[0] as (typeof l.positions)[number];
    p.grownBy = 30; // published 100, grown by 30 since
    return l;
  };
  const taken = (r: ReturnType<typeof run>) => ("value" in r ? r.value?.transfers[0]?.positionQty : r.code);

  it("ratio 1 takes what was published; with an extra, up to that fraction more of it; never past the live quantity", () => {
    expect(taken(run(body(7, 1), grown()))).toBe(100);
    expect(taken(run(body(7, 1, { extra_liquidation_ratio: 0.2 }), grown()))).toBe(120);
    expect(taken(run(body(7, 1, { extra_liquidation_ratio: 0.5 }), grown()))).toBe(130);
  });

  it("nothing grown: ratio 1 takes everything, extra or not", () => {
    expect(taken(run(body(7, 1, { extra_liquidation_ratio: 0.2 }), liq([["PERP_LOW_USDC", 130]])))).toBe(130);
  });
});

describe("response arithmetic (docs/protocol.md §11)", () => {
  it.each([
    ["long, partial", "PERP_LOW_USDC", 123.456, 0.333, 100],
    ["short, partial", "PERP_LOWB_USDC", -321.5, 0.25, 50],
    ["long, full", "PERP_HIGH_USDC", 7777, 1, 2],
    ["short, full", "PERP_HIGHB_USDC", -2000, 1, 4],
  ])("%s", (_name, symbol, qty, ratio, mark) => {
    const r = run(body(7, ratio), liq([[symbol, qty]]));
    expect(r.code).toBe(0);
    if (r.code !== 0 || r.value === undefined) return;
    const fee = table.get(symbol)!.liquidatorFee;
    // Rounded toward zero to the symbol's quantity step (docs/protocol.md §11).
    const step = table.get(symbol)!.qtyStep;
    const q = ratio === 1 ? qty : Math.sign(qty) * Math.floor(Math.abs(qty * ratio) / step + 1e-9) * step;
    const t = r.value.transfers[0]!;
    expect(t.positionQty).toBeCloseTo(q, 9);
    // At the mark: the fee is credited to the holding, not also taken off the price (docs/protocol.md §6).
    expect(t.transferPrice).toBe(mark);
    expect(t.costPositionTransfer).toBeCloseTo(t.positionQty * t.transferPrice, 9);
    expect(t.absLiquidatorFee).toBeCloseTo(Math.abs(t.costPositionTransfer) * fee, 9);
    expect(t.liquidatorFee).toBe(fee);
    expect(r.value.remaining.get(symbol)).toBeCloseTo(qty - q, 9);
    expect(r.value.fullyClaimed).toBe(ratio === 1);
  });

  it("a partial claim lands on the symbol's quantity step, toward zero; so does what stays open", () => {
    // 0.333 of 123.456 is 41.110848: assigned 41.11 on the 0.001 grid, 82.346 stays open.
    const r = run(body(7, 0.333), liq([["PERP_LOW_USDC", 123.456]]));
    expect(r.code).toBe(0);
    if (r.code !== 0 || r.value === undefined) return;
    expect(r.value.transfers[0]!.positionQty).toBe(41.11);
    expect(r.value.remaining.get("PERP_LOW_USDC")).toBe(82.346);
    // A short: toward zero is up.
    const s = run(body(7, 0.333), liq([["PERP_LOW_USDC", -123.456]]));
    expect(s.code === 0 && s.value?.transfers[0]?.positionQty).toBe(-41.11);
  });

  it("a share below one step transfers nothing of that symbol, and it stays open whole", () => {
    // A proportional half: 100 of the low-tier symbol; half of 0.9 units of a step-1 symbol is none.
    const r = run(
      body(7, 0.5, { limit_price: { PERP_LOW_USDC: 1000, PERP_HIGH_USDC: 1 } }),
      liq([
        ["PERP_LOW_USDC", 200],
        ["PERP_HIGH_USDC", -0.9],
      ]),
    );
    expect(r.code).toBe(0);
    if (r.code !== 0 || r.value === undefined) return;
    expect(r.value.transfers.map((t) => [t.symbol, t.positionQty])).toEqual([["PERP_LOW_USDC", 100]]);
    expect(r.value.remaining.get("PERP_HIGH_USDC")).toBe(-0.9);
  });

  it("successive partial claims leave exact remaining quantities and end fully claimed", () => {
    const l = liq([["PERP_LOW_USDC", 300]]);
    let claimed = 0;
    for (const ratio of [0.5, 0.5, 1]) {
      const r = run(body(7, ratio), l);
      expect(r.code).toBe(0);
      if (r.code !== 0 || r.value === undefined) return;
      claimed += r.value.transfers[0]!.positionQty;
      l.positions[0]!.positionQty = r.value.remaining.get("PERP_LOW_USDC")!;
    }
    expect(claimed).toBeCloseTo(300, 9);
    expect(l.positions[0]!.positionQty).toBe(0);
  });

  it("updates the claimant's position with a volume-weighted average price", () => {
    const held = new Map([["PERP_LOW_USDC", { qty: 10, averageOpenPrice: 90 }]]);
    const r = run(body(7, 1), liq([["PERP_LOW_USDC", 30]]), ctx({ positions: held }));
    expect(r.code).toBe(0);
    if (r.code !== 0 || r.value === undefined) return;
    const after = r.value.positionsAfter.get("PERP_LOW_USDC")!;
    expect(after.qty).toBe(40);
    expect(after.averageOpenPrice).toBeCloseTo((10 * 90 + 30 * 100) / 40, 9);
  });

  it("addToPosition: reducing keeps the average, flipping starts anew, closing zeroes", () => {
    expect(addToPosition({ qty: 10, averageOpenPrice: 5 }, -4, 7)).toEqual({ qty: 6, averageOpenPrice: 5 });
    expect(addToPosition({ qty: 10, averageOpenPrice: 5 }, -15, 7)).toEqual({ qty: -5, averageOpenPrice: 7 });
    expect(addToPosition({ qty: 10, averageOpenPrice: 5 }, -10, 7)).toEqual({ qty: 0, averageOpenPrice: 0 });
  });
});
