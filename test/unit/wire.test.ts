import { describe, expect, test } from "vitest";
import { heldFromRows } from "../../src/venue/mapping.js";
import { positionsSchema } from "../../src/venue/restSchemas.js";
import {
  BAD_MESSAGE_REASONS,
  frameTimestamp,
  isSymbol,
  MAX_ABS_QTY,
  MAX_ITEMS_FOR_TESTS,
  MAX_PERPS_FOR_TESTS,
  MAX_PRICE,
  parseLiquidationEntryForTests,
  parseLiquidations,
  parseLiquidatorLiquidation,
  parseMarkPrice,
  parseMarkPrices,
  parsePositions,
  routeTopic,
} from "../../src/venue/wire.js";

// Payloads as the venue sends them (docs/protocol.md §5), parsed from JSON text like the stream does.
const json = <T = unknown>(text: string): T => JSON.parse(text) as T;

const LIQ_TEXT =
  '{"liquidationId":101,"timestamp":1684821114917,"type":"liquidated","positionsByPerp":[' +
  '{"symbol":"PERP_NEAR_USDC","positionQty":12.6,"liquidatorFee":0.0175},' +
  '{"symbol":"PERP_BTC_USDC","positionQty":-0.5,"liquidatorFee":0.006}]}';

const ASSIGNED_TEXT =
  '{"liquidationId":1,"timestamp":1684821114917,"type":"liquidated","assigned":1,"positionsByPerp":[' +
  '{"symbol":"PERP_NEAR_USDC","positionQty":12.6,"costPositionTransfer":20.05668,"transferPrice":1.5918,' +
  '"liquidatorFee":0.0175,"absLiquidatorFee":0.350992}]}';

function liq(overrides: Record<string, unknown> = {}, posOverrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    liquidationId: 7,
    timestamp: 1_700_000_000_000,
    type: "liquidated",
    positionsByPerp: [{ symbol: "PERP_ETH_USDC", positionQty: 2, liquidatorFee: 0.01, ...posOverrides }],
    ...overrides,
  };
}

function assigned(overrides: Record<string, unknown> = {}, posOverrides: Record<string, unknown> = {}): Record<string, unknown> {
  const base = json<Record<string, unknown>>(ASSIGNED_TEXT);
  const pos = (base.positionsByPerp as Record<string, unknown>[])[0]!;
  return { ...base, positionsByPerp: [{ ...pos, ...posOverrides }], ...overrides };
}

describe("valid frames for every topic", () => {
  test("liquidation: typed camelCase entries, extra wire fields not passed through", () => {
    const r = parseLiquidations(json(`[${LIQ_TEXT}]`));
    expect(r).toEqual({
      dropped: 0,
      items: [
        {
          liquidationId: 101,
          timestamp: 1684821114917,
          type: "liquidated",
          positionsByPerp: [
            { symbol: "PERP_NEAR_USDC", positionQty: 12.6, liquidatorFee: 0.0175 },
            { symbol: "PERP_BTC_USDC", positionQty: -0.5, liquidatorFee: 0.006 },
          ],
        },
      ],
    });
    const extra = parseLiquidationEntryForTests({ ...liq(), junk: 1 });
    expect(extra).toBeDefined();
    expect(Object.keys(extra!)).toEqual(["liquidationId", "timestamp", "type", "positionsByPerp"]);
  });

  test("liquidation: an empty positionsByPerp is a removal; missing timestamp/type tolerated only then", () => {
    expect(parseLiquidationEntryForTests({ liquidationId: 9, positionsByPerp: [] })).toEqual({
      liquidationId: 9,
      timestamp: 0,
      type: "",
      positionsByPerp: [],
    });
    expect(parseLiquidationEntryForTests({ liquidationId: 9, timestamp: 5, type: "liquidated", positionsByPerp: [] })).toEqual({
      liquidationId: 9,
      timestamp: 5,
      type: "liquidated",
      positionsByPerp: [],
    });
    expect(parseLiquidationEntryForTests({ ...liq(), type: undefined })).toBeUndefined();
    expect(parseLiquidationEntryForTests({ ...liq(), timestamp: undefined })).toBeUndefined();
    expect(parseLiquidationEntryForTests({ liquidationId: 9, type: 5, positionsByPerp: [] })).toBeUndefined();
  });

  test("liquidation: a zero remaining quantity on one symbol is valid (partly claimed)", () => {
    expect(parseLiquidationEntryForTests(liq({}, { positionQty: 0 }))?.positionsByPerp[0]?.positionQty).toBe(0);
  });

  test("markprices and {symbol}@markprice", () => {
    expect(parseMarkPrices(json('[{"symbol":"PERP_BTC_USDC","price":64000.5},{"symbol":"PERP_ETH_USDC","price":3100}]'))).toEqual({
      dropped: 0,
      items: [
        { symbol: "PERP_BTC_USDC", price: 64000.5 },
        { symbol: "PERP_ETH_USDC", price: 3100 },
      ],
    });
    expect(parseMarkPrice(json('{"symbol":"PERP_BTC_USDC","price":64000.5}'), "PERP_BTC_USDC")).toEqual({
      symbol: "PERP_BTC_USDC",
      price: 64000.5,
    });
  });

  test("liquidatorliquidations: one typed object; assigned number or boolean", () => {
    expect(parseLiquidatorLiquidation(json(ASSIGNED_TEXT))).toEqual({
      liquidationId: 1,
      timestamp: 1684821114917,
      type: "liquidated",
      assigned: 1,
      positionsByPerp: [
        {
          symbol: "PERP_NEAR_USDC",
          positionQty: 12.6,
          costPositionTransfer: 20.05668,
          transferPrice: 1.5918,
          liquidatorFee: 0.0175,
          absLiquidatorFee: 0.350992,
        },
      ],
    });
    expect(parseLiquidatorLiquidation(assigned({ assigned: true }))?.assigned).toBe(1);
    expect(parseLiquidatorLiquidation(assigned({ assigned: false }))?.assigned).toBe(0);
    expect(parseLiquidatorLiquidation(assigned({ assigned: undefined }))?.assigned).toBeUndefined();
    // A short claim: negative quantity and cost.
    const short = parseLiquidatorLiquidation(assigned({}, { positionQty: -3, costPositionTransfer: -4.7 }));
    expect(short?.positionsByPerp[0]?.costPositionTransfer).toBe(-4.7);
  });

  test("position: optional fields typed, null/absent become undefined, flat avg price 0 accepted", () => {
    const p = parsePositions(
      json(
        '{"positions":[{"symbol":"PERP_ETH_USDC","positionQty":3.1408,"costPosition":5706.5,"averageOpenPrice":1804.51,"markPrice":1816.9,"pnl24H":-338.9},' +
          '{"symbol":"PERP_BTC_USDC","positionQty":0,"averageOpenPrice":0,"markPrice":null}]}',
      ),
    );
    expect(p).toEqual({
      positions: [
        {
          symbol: "PERP_ETH_USDC",
          positionQty: 3.1408,
          averageOpenPrice: 1804.51,
          markPrice: 1816.9,
          costPosition: 5706.5,
          marginMode: "CROSS",
        },
        {
          symbol: "PERP_BTC_USDC",
          positionQty: 0,
          averageOpenPrice: 0,
          markPrice: undefined,
          costPosition: undefined,
          marginMode: "CROSS",
        },
      ],
    });
    expect(parsePositions({ positions: [] })).toEqual({ positions: [] });
  });

  test("position: its leverage setting is read (docs/protocol.md §10); one that is no usable number reads as absent, the row kept", () => {
    const p = parsePositions(
      json(
        '{"positions":[{"symbol":"PERP_ETH_USDC","positionQty":1,"leverage":4},{"symbol":"PERP_BTC_USDC","positionQty":1,"leverage":"x"},' +
          '{"symbol":"PERP_SOL_USDC","positionQty":1,"leverage":-3}]}',
      ),
    );
    expect(p?.positions.map((x) => x.leverage)).toEqual([4, undefined, undefined]);
  });

  test("position: a symbol repeated with two margin modes is two positions (docs/protocol.md §9)", () => {
    const p = parsePositions(
      json(
        '{"positions":[{"symbol":"PERP_ETH_USDC","positionQty":2,"marginMode":"CROSS"},' +
          '{"symbol":"PERP_ETH_USDC","positionQty":-1.5,"marginMode":"ISOLATED"},' +
          '{"symbol":"PERP_BTC_USDC","positionQty":0.1,"marginMode":null}]}',
      ),
    );
    expect(p?.positions.map((x) => [x.symbol, x.marginMode, x.positionQty])).toEqual([
      ["PERP_ETH_USDC", "CROSS", 2],
      ["PERP_ETH_USDC", "ISOLATED", -1.5],
      ["PERP_BTC_USDC", "CROSS", 0.1],
    ]);
    // Absent is CROSS, so an absent and an explicit CROSS of one symbol are the same position twice.
    expect(
      parsePositions({
        positions: [
          { symbol: "PERP_A_B", positionQty: 1 },
          { symbol: "PERP_A_B", positionQty: 2, marginMode: "CROSS" },
        ],
      }),
    ).toBeUndefined();
    expect(
      parsePositions({
        positions: [
          { symbol: "PERP_A_B", positionQty: 1, marginMode: "ISOLATED" },
          { symbol: "PERP_A_B", positionQty: 2, marginMode: "ISOLATED" },
        ],
      }),
    ).toBeUndefined();
    // A mode no order can address would mis-state which position to close: the push is refused whole.
    expect(parsePositions({ positions: [{ symbol: "PERP_A_B", positionQty: 1, marginMode: "PORTFOLIO" }] })).toBeUndefined();
    expect(parsePositions({ positions: [{ symbol: "PERP_A_B", positionQty: 1, marginMode: 1 }] })).toBeUndefined();
  });

  test("GET /v1/positions rows: one per symbol and margin mode, absent or null = CROSS", () => {
    const data = positionsSchema.parse({
      rows: [
        { symbol: "PERP_ETH_USDC", position_qty: 2, margin_mode: "CROSS" },
        { symbol: "PERP_ETH_USDC", position_qty: -1, margin_mode: "ISOLATED" },
        { symbol: "PERP_BTC_USDC", position_qty: 0.5 },
        { symbol: "PERP_SOL_USDC", position_qty: 3, margin_mode: null },
      ],
    });
    expect(heldFromRows(data.rows).map((r) => [r.symbol, r.marginMode, r.positionQty])).toEqual([
      ["PERP_ETH_USDC", "CROSS", 2],
      ["PERP_ETH_USDC", "ISOLATED", -1],
      ["PERP_BTC_USDC", "CROSS", 0.5],
      ["PERP_SOL_USDC", "CROSS", 3],
    ]);
    expect(positionsSchema.safeParse({ rows: [{ symbol: "PERP_A_B", position_qty: 1, margin_mode: "PORTFOLIO" }] }).success).toBe(false);
  });

  test("routeTopic maps each subscribable topic to its stream and kind", () => {
    expect(routeTopic("liquidation")).toEqual({ kind: "liquidation", stream: "public", symbol: undefined });
    expect(routeTopic("markprices")).toEqual({ kind: "markprices", stream: "public", symbol: undefined });
    expect(routeTopic("PERP_BTC_USDC@markprice")).toEqual({ kind: "markprice", stream: "public", symbol: "PERP_BTC_USDC" });
    expect(routeTopic("liquidatorliquidations")).toEqual({ kind: "liquidatorliquidations", stream: "private", symbol: undefined });
    expect(routeTopic("position")).toEqual({ kind: "position", stream: "private", symbol: undefined });
    for (const t of ["", "orderbook", "btc@markprice", "PERP_BTC_USDC@trade", "@markprice", "PERP_BTC_USDC@markprice@markprice"]) {
      expect(routeTopic(t)).toBeUndefined();
    }
  });

  test("bad reasons form a small closed set of distinct labels", () => {
    expect(new Set(BAD_MESSAGE_REASONS).size).toBe(BAD_MESSAGE_REASONS.length);
    for (const r of BAD_MESSAGE_REASONS) expect(r).toMatch(/^[a-z_]+$/);
  });
});

describe("rejection rules", () => {
  test("non-finite numbers (JSON 1e999 parses to Infinity) and NaN", () => {
    expect(
      parseLiquidationEntryForTests(
        json(
          '{"liquidationId":1,"timestamp":1,"type":"t","positionsByPerp":[{"symbol":"PERP_A_B","positionQty":1e999,"liquidatorFee":0.01}]}',
        ),
      ),
    ).toBeUndefined();
    expect(parseMarkPrice(json('{"symbol":"PERP_A_B","price":1e999}'))).toBeUndefined();
    expect(parseMarkPrice({ symbol: "PERP_A_B", price: Number.NaN })).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({ timestamp: Number.POSITIVE_INFINITY }))).toBeUndefined();
    expect(parseLiquidatorLiquidation(assigned({}, { costPositionTransfer: Number.NaN }))).toBeUndefined();
    expect(parsePositions({ positions: [{ symbol: "PERP_A_B", positionQty: Number.NEGATIVE_INFINITY }] })).toBeUndefined();
  });

  test("non-positive prices", () => {
    for (const price of [0, -1, -0.0001]) {
      expect(parseMarkPrice({ symbol: "PERP_A_B", price })).toBeUndefined();
      expect(parseLiquidatorLiquidation(assigned({}, { transferPrice: price }))).toBeUndefined();
      if (price < 0) expect(parsePositions({ positions: [{ symbol: "PERP_A_B", positionQty: 1, markPrice: price }] })).toBeUndefined();
    }
    // A flat position may report no mark as 0: it is read as "no mark", not as a bad push.
    expect(parsePositions({ positions: [{ symbol: "PERP_A_B", positionQty: 0, markPrice: 0 }] })?.positions[0]?.markPrice).toBeUndefined();
    expect(parsePositions({ positions: [{ symbol: "PERP_A_B", positionQty: 1, averageOpenPrice: -1 }] })).toBeUndefined();
  });

  test("ids: non-integer, negative, or beyond 2^53 (cannot be trusted, docs/protocol.md §5)", () => {
    for (const id of [1.5, -1, 2 ** 53, 1e20, "101", null]) {
      expect(parseLiquidationEntryForTests(liq({ liquidationId: id }))).toBeUndefined();
      expect(parseLiquidatorLiquidation(assigned({ liquidationId: id }))).toBeUndefined();
    }
    // Text form too: 9007199254740993 parses to an imprecise double.
    expect(
      parseLiquidationEntryForTests(json('{"liquidationId":9007199254740993,"timestamp":1,"type":"t","positionsByPerp":[]}')),
    ).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({ liquidationId: 2 ** 53 - 1 }))).toBeDefined();
  });

  test("symbols not matching PERP_<BASE>_<QUOTE>", () => {
    for (const s of [
      "BTC_USDC",
      "PERP_BTC",
      "perp_btc_usdc",
      "PERP_BTC_USDC_X",
      "PERP__USDC",
      "PERP_BTC-USDC",
      " PERP_BTC_USDC",
      "PERP_BTC_USDC\n",
      42,
    ]) {
      expect(isSymbol(s)).toBe(false);
      expect(parseMarkPrice({ symbol: s, price: 1 })).toBeUndefined();
      expect(parseLiquidationEntryForTests(liq({}, { symbol: s }))).toBeUndefined();
    }
    expect(isSymbol("PERP_1000PEPE_USDC")).toBe(true);
    expect(isSymbol(`PERP_${"A".repeat(33)}_USDC`)).toBe(false);
  });

  test("a {symbol}@markprice frame carrying another symbol", () => {
    expect(parseMarkPrice({ symbol: "PERP_ETH_USDC", price: 1 }, "PERP_BTC_USDC")).toBeUndefined();
  });

  test("wrong types", () => {
    expect(parseLiquidations({})).toBeUndefined();
    expect(parseLiquidations("[]")).toBeUndefined();
    expect(parseMarkPrices(null)).toBeUndefined();
    expect(parseMarkPrice([{ symbol: "PERP_A_B", price: 1 }])).toBeUndefined();
    expect(parseMarkPrice({ symbol: "PERP_A_B", price: "1" })).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({ positionsByPerp: {} }))).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({ positionsByPerp: undefined }))).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({ positionsByPerp: [null] }))).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({ type: 3 }))).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({ type: "" }))).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({ type: "x".repeat(65) }))).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({}, { positionQty: "2" }))).toBeUndefined();
    expect(parseLiquidatorLiquidation([])).toBeUndefined();
    expect(parseLiquidatorLiquidation(assigned({ assigned: "yes" }))).toBeUndefined();
    expect(parseLiquidatorLiquidation(assigned({ positionsByPerp: "x" }))).toBeUndefined();
    expect(parsePositions({ positions: {} })).toBeUndefined();
    expect(parsePositions([])).toBeUndefined();
    expect(parsePositions({ positions: [{ symbol: "PERP_A_B", positionQty: 1, costPosition: "5" }] })).toBeUndefined();
  });

  test("absurd sizes: arrays over the bounds, |qty| and prices over the bounds, timestamps in µs", () => {
    const mark = { symbol: "PERP_A_B", price: 1 };
    expect(parseMarkPrices(new Array(MAX_ITEMS_FOR_TESTS + 1).fill(mark))).toBeUndefined();
    expect(parseMarkPrices(new Array(MAX_ITEMS_FOR_TESTS).fill(mark))?.items.length).toBe(MAX_ITEMS_FOR_TESTS);
    expect(parseLiquidations(new Array(MAX_ITEMS_FOR_TESTS + 1).fill(liq()))).toBeUndefined();
    expect(parsePositions({ positions: new Array(MAX_ITEMS_FOR_TESTS + 1).fill({ symbol: "PERP_A_B", positionQty: 1 }) })).toBeUndefined();
    const perps = Array.from({ length: MAX_PERPS_FOR_TESTS + 1 }, (_, i) => ({
      symbol: `PERP_S${i}_USDC`,
      positionQty: 1,
      liquidatorFee: 0.01,
    }));
    expect(parseLiquidationEntryForTests(liq({ positionsByPerp: perps }))).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({ positionsByPerp: perps.slice(0, MAX_PERPS_FOR_TESTS) }))).toBeDefined();
    expect(parseLiquidationEntryForTests(liq({}, { positionQty: MAX_ABS_QTY * 10 }))).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({}, { positionQty: -MAX_ABS_QTY * 10 }))).toBeUndefined();
    expect(parseMarkPrice({ symbol: "PERP_A_B", price: MAX_PRICE * 2 })).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({ timestamp: 1_700_000_000_000_000 }))).toBeUndefined();
    expect(parseLiquidationEntryForTests(liq({ timestamp: -1 }))).toBeUndefined();
  });

  test("fee outside [0, 1)", () => {
    for (const fee of [-0.001, 1, 1.5, Number.NaN]) {
      expect(parseLiquidationEntryForTests(liq({}, { liquidatorFee: fee }))).toBeUndefined();
      expect(parseLiquidatorLiquidation(assigned({}, { liquidatorFee: fee }))).toBeUndefined();
    }
    expect(parseLiquidationEntryForTests(liq({}, { liquidatorFee: 0 }))).toBeDefined();
    expect(parseLiquidatorLiquidation(assigned({}, { absLiquidatorFee: -0.1 }))).toBeUndefined();
  });

  test("duplicate symbols inside one liquidation, assignment, or position snapshot", () => {
    const p = { symbol: "PERP_A_B", positionQty: 1, liquidatorFee: 0.01 };
    expect(parseLiquidationEntryForTests(liq({ positionsByPerp: [p, p] }))).toBeUndefined();
    // The large-list path (Set) as well as the small one.
    const many = Array.from({ length: 20 }, (_, i) => ({ ...p, symbol: `PERP_S${i}_USDC` }));
    expect(parseLiquidationEntryForTests(liq({ positionsByPerp: many }))).toBeDefined();
    expect(parseLiquidationEntryForTests(liq({ positionsByPerp: [...many, many[3]] }))).toBeUndefined();
    const a = (assigned().positionsByPerp as unknown[])[0];
    expect(parseLiquidatorLiquidation(assigned({ positionsByPerp: [a, a] }))).toBeUndefined();
    const pos = { symbol: "PERP_A_B", positionQty: 1 };
    expect(parsePositions({ positions: [pos, pos] })).toBeUndefined();
  });

  test("one bad assigned position or position rejects the whole push", () => {
    const good = (assigned().positionsByPerp as unknown[])[0];
    expect(parseLiquidatorLiquidation(assigned({ positionsByPerp: [good, { symbol: "PERP_X_Y" }] }))).toBeUndefined();
    expect(
      parsePositions({
        positions: [
          { symbol: "PERP_A_B", positionQty: 1 },
          { symbol: "nope", positionQty: 1 },
        ],
      }),
    ).toBeUndefined();
  });
});

describe("frame ts", () => {
  test("absent is fine, a sane number is kept, anything else marks the frame malformed", () => {
    expect(frameTimestamp(undefined)).toBeUndefined();
    expect(frameTimestamp(1_700_000_000_000)).toBe(1_700_000_000_000);
    for (const v of ["1700000000000", null, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e17, {}]) {
      expect(frameTimestamp(v)).toBeNull();
    }
  });
});

describe("bad entries inside arrays", () => {
  test("a mixed liquidation array keeps the good entries, in order, and counts the dropped ones", () => {
    const data = json(
      `[${LIQ_TEXT},` +
        '{"liquidationId":1.5,"timestamp":1,"type":"t","positionsByPerp":[]},' +
        '"garbage",' +
        '{"liquidationId":102,"timestamp":1,"type":"t","positionsByPerp":[{"symbol":"PERP_A_B","positionQty":1,"liquidatorFee":1}]},' +
        '{"liquidationId":103,"positionsByPerp":[]},' +
        "null]",
    );
    const r = parseLiquidations(data);
    expect(r?.dropped).toBe(4);
    expect(r?.items.map((e) => e.liquidationId)).toEqual([101, 103]);
    expect(r?.items[1]?.positionsByPerp).toEqual([]);
  });

  test("a mixed markprices array keeps the good entries", () => {
    const r = parseMarkPrices([{ symbol: "PERP_A_B", price: 2 }, { symbol: "PERP_C_D", price: -2 }, 5, { symbol: "PERP_E_F", price: 3 }]);
    expect(r).toEqual({
      dropped: 2,
      items: [
        { symbol: "PERP_A_B", price: 2 },
        { symbol: "PERP_E_F", price: 3 },
      ],
    });
  });

  test("all-bad and empty arrays", () => {
    expect(parseLiquidations([1, 2, 3])).toEqual({ items: [], dropped: 3 });
    expect(parseLiquidations([])).toEqual({ items: [], dropped: 0 });
  });
});
