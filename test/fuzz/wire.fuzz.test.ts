/**
 * Bad input, stream side (issue: "Reliability and security", item 4): every inbound frame parser of
 * src/venue/wire.ts, fed arbitrary values and mutations of valid payloads.
 *
 * Properties, for every input:
 *  (a) no parser throws;
 *  (b) whatever a parser accepts satisfies the documented invariants (finite positive prices,
 *      finite bounded quantities, safe-integer ids, valid symbols, fees in [0, 1), bounded sizes, no
 *      duplicate symbols), holds only known fields copied faithfully from the input (never coerced or
 *      clamped), and an array push accounts for every row (kept + dropped).
 *
 * About 91,000 generated inputs here; with the pipeline, REST and socket fuzz files the suite feeds
 * well over 100,000 (see RUNS in each file).
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  frameTimestamp,
  MAX_ITEMS_FOR_TESTS,
  MAX_PERPS_FOR_TESTS,
  MAX_TIMESTAMP_MS,
  parseLiquidationEntryForTests,
  parseLiquidations,
  parseLiquidatorLiquidation,
  parseMarkPrice,
  parseMarkPrices,
  parsePositions,
  routeTopic,
} from "../../src/venue/wire.js";
import {
  arbitraryInput,
  arbitraryText,
  BAD_SYMBOLS,
  check,
  checkSymbol,
  mutated,
  SYMBOLS,
  show,
  throughJson,
  tryParse,
  validLiquidationEntry,
  validLiquidationPush,
  validLiquidatorLiquidation,
  validMarkPrice,
  validMarkPrices,
  validPositionPush,
} from "./fuzzInputs.js";
import {
  checkLiquidationEntry,
  checkLiquidations,
  checkLiquidatorLiquidation,
  checkMarkPrice,
  checkMarkPrices,
  checkPositionPush,
} from "./wireInvariants.js";

/** numRuns per property; their sum is the number of generated inputs of this file. */
const RUNS = {
  arbitraryValues: 15_000,
  arbitraryText: 10_000,
  liquidationPush: 20_000,
  liquidationEntry: 6_000,
  markPrices: 10_000,
  markPrice: 5_000,
  liquidatorLiquidation: 8_000,
  positions: 8_000,
  topics: 5_000,
  timestamps: 4_000,
} as const;

/** Every data parser on one input; each result checked against its invariants. */
function parseEverything(v: unknown): void {
  checkLiquidations(parseLiquidations(v), v);
  const entry = parseLiquidationEntryForTests(v);
  if (entry !== undefined) checkLiquidationEntry(entry, v);
  checkMarkPrices(parseMarkPrices(v), v);
  const mark = parseMarkPrice(v);
  if (mark !== undefined) checkMarkPrice(mark, v);
  const onTopic = parseMarkPrice(v, "PERP_BTC_USDC");
  if (onTopic !== undefined) checkMarkPrice(onTopic, v, "PERP_BTC_USDC");
  const ll = parseLiquidatorLiquidation(v);
  if (ll !== undefined) checkLiquidatorLiquidation(ll, v);
  const pos = parsePositions(v);
  if (pos !== undefined) checkPositionPush(pos, v);
  checkFrameTimestamp(v);
}

function checkFrameTimestamp(v: unknown): void {
  const ts = frameTimestamp(v);
  if (v === undefined) return check(ts === undefined, "absent ts reads undefined");
  const valid = typeof v === "number" && v >= 0 && v <= MAX_TIMESTAMP_MS;
  if (valid) return check(ts === v, () => `valid ts ${v} is kept`);
  check(ts === null, () => `invalid ts ${show(v)} reads null, got ${show(ts)}`);
}

describe("stream parsers never throw and accept only valid data", () => {
  test("arbitrary values (JSON and beyond: NaN, boxed, Map, typed arrays, null prototypes...)", () => {
    fc.assert(fc.property(arbitraryInput, parseEverything), { numRuns: RUNS.arbitraryValues });
  });

  test("arbitrary text that JSON.parse accepts", () => {
    fc.assert(
      fc.property(arbitraryText, (text) => {
        const r = tryParse(text);
        if (r.ok) parseEverything(r.value);
      }),
      { numRuns: RUNS.arbitraryText },
    );
  });

  test("mutated `liquidation` pushes", () => {
    // Sanity: the unmutated generator is valid, so mutations start from data that reaches the deep checks.
    fc.assert(
      fc.property(validLiquidationPush, (data) => {
        const r = parseLiquidations(throughJson(data));
        expect(r?.dropped).toBe(0);
        expect(r?.items.length).toBe(data.length);
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(mutated(validLiquidationPush), (data) => checkLiquidations(parseLiquidations(data), data)),
      { numRuns: RUNS.liquidationPush },
    );
  });

  test("mutated single liquidation entries", () => {
    fc.assert(
      fc.property(mutated(validLiquidationEntry), (e) => {
        const out = parseLiquidationEntryForTests(e);
        if (out !== undefined) checkLiquidationEntry(out, e);
      }),
      { numRuns: RUNS.liquidationEntry },
    );
  });

  test("mutated `markprices` pushes", () => {
    fc.assert(
      fc.property(validMarkPrices, (data) => {
        expect(parseMarkPrices(data)).toEqual({ items: data, dropped: 0 });
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(mutated(validMarkPrices), (data) => checkMarkPrices(parseMarkPrices(data), data)),
      { numRuns: RUNS.markPrices },
    );
  });

  test("mutated `{symbol}@markprice` payloads, with and without the topic's symbol", () => {
    fc.assert(
      fc.property(mutated(validMarkPrice), fc.constantFrom(undefined, ...SYMBOLS), (m, expected) => {
        const out = parseMarkPrice(m, expected);
        if (out !== undefined) checkMarkPrice(out, m, expected);
      }),
      { numRuns: RUNS.markPrice },
    );
  });

  test("mutated `liquidatorliquidations` pushes", () => {
    fc.assert(
      fc.property(validLiquidatorLiquidation, (v) => {
        expect(parseLiquidatorLiquidation(throughJson(v))).toBeDefined();
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(mutated(validLiquidatorLiquidation), (v) => {
        const out = parseLiquidatorLiquidation(v);
        if (out !== undefined) checkLiquidatorLiquidation(out, v);
      }),
      { numRuns: RUNS.liquidatorLiquidation },
    );
  });

  test("mutated `position` pushes", () => {
    fc.assert(
      fc.property(validPositionPush, (v) => {
        expect(parsePositions(throughJson(v))).toBeDefined();
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(mutated(validPositionPush), (v) => {
        const out = parsePositions(v);
        if (out !== undefined) checkPositionPush(out, v);
      }),
      { numRuns: RUNS.positions },
    );
  });

  const NAMED_TOPICS = new Set(["liquidation", "markprices", "liquidatorliquidations", "position", "executionreport", "balance"]);

  test("routeTopic: only the liquidator's topics, `{symbol}@markprice` only for a valid symbol", () => {
    const topic = fc.oneof(
      fc.string(),
      fc.constantFrom(
        "liquidation",
        "markprices",
        "liquidatorliquidations",
        "position",
        "executionreport",
        "balance",
        "@markprice",
        "markprice",
        "LIQUIDATION",
      ),
      fc
        .constantFrom(...SYMBOLS, ...BAD_SYMBOLS)
        .chain((s) => fc.constantFrom(`${s}@markprice`, `${s}@markprice@markprice`, `${s}@MARKPRICE`, `${s}@`, `@${s}`)),
      fc.string().map((s) => `${s}@markprice`),
    );
    fc.assert(
      fc.property(topic, (t) => {
        const r = routeTopic(t);
        const known = NAMED_TOPICS.has(t);
        if (known) check(r?.kind === t && r.symbol === undefined, () => `${t} routes to itself`);
        if (r === undefined || known) return;
        check(
          r.kind === "markprice" && r.stream === "public",
          () => `only {symbol}@markprice may route besides the named topics, got ${t}`,
        );
        checkSymbol(r.symbol, "topic symbol");
        check(t === `${r.symbol}@markprice`, "the topic is exactly {symbol}@markprice");
      }),
      { numRuns: RUNS.topics },
    );
  });

  test("frameTimestamp: a number in [0, MAX_TIMESTAMP_MS], or null when present and invalid", () => {
    const ts = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.constantFrom(undefined, null, -0, MAX_TIMESTAMP_MS, MAX_TIMESTAMP_MS + 1, 1e400, "1700000000000"),
      fc.jsonValue({ maxDepth: 1 }),
    );
    fc.assert(fc.property(ts, checkFrameTimestamp), { numRuns: RUNS.timestamps });
  });

  test("absurd sizes: arrays past the bounds are refused whole, at the bound they are parsed", () => {
    const row = {
      liquidationId: 1,
      timestamp: 1,
      type: "liquidated",
      positionsByPerp: [{ symbol: "PERP_BTC_USDC", positionQty: 1, liquidatorFee: 0.01 }],
    };
    expect(parseLiquidations(new Array(MAX_ITEMS_FOR_TESTS + 1).fill(row))).toBeUndefined();
    expect(parseLiquidations(new Array(MAX_ITEMS_FOR_TESTS + 1))).toBeUndefined(); // sparse: no per-row work either
    expect(parseLiquidations(new Array(MAX_ITEMS_FOR_TESTS).fill(row))?.items.length).toBe(MAX_ITEMS_FOR_TESTS);
    expect(parseMarkPrices(new Array(MAX_ITEMS_FOR_TESTS + 1).fill({ symbol: "PERP_BTC_USDC", price: 1 }))).toBeUndefined();
    expect(
      parsePositions({ positions: new Array(MAX_ITEMS_FOR_TESTS + 1).fill({ symbol: "PERP_BTC_USDC", positionQty: 1 }) }),
    ).toBeUndefined();
    const perps = Array.from({ length: MAX_PERPS_FOR_TESTS + 1 }, (_, i) => ({
      symbol: `PERP_S${i}_USDC`,
      positionQty: 1,
      liquidatorFee: 0.01,
    }));
    expect(parseLiquidationEntryForTests({ ...row, positionsByPerp: perps })).toBeUndefined();
    expect(parseLiquidationEntryForTests({ ...row, positionsByPerp: perps.slice(0, MAX_PERPS_FOR_TESTS) })?.positionsByPerp.length).toBe(
      MAX_PERPS_FOR_TESTS,
    );
    // Many symbols: the duplicate check must still see a repeat at the end (the Set path).
    expect(parseLiquidationEntryForTests({ ...row, positionsByPerp: [...perps.slice(0, 20), perps[3]] })).toBeUndefined();
  });
});
