/**
 * What every value a stream parser (src/venue/wire.ts) accepts must satisfy, written from the bounds
 * its header documents, plus "faithful": each field of the result is the input's own value (nothing
 * coerced, clamped or rounded, no unknown field passed through, no reference to the input kept).
 * Shared by the fuzz tests; not a test file itself.
 */
import {
  type ArrayResult,
  type LiquidationEntry,
  type LiquidatorLiquidation,
  MAX_ABS_NOTIONAL,
  MAX_ABS_QTY,
  MAX_ITEMS_FOR_TESTS,
  MAX_LEVERAGE,
  MAX_PERPS_FOR_TESTS,
  MAX_PRICE,
  MAX_TIMESTAMP_MS,
  type MarkPrice,
  type PositionPush,
  parseLiquidationEntryForTests,
  parseMarkPrice,
} from "../../src/venue/wire.js";
import {
  check,
  checkBounded,
  checkFee,
  checkFinite,
  checkId,
  checkKeys,
  checkNoDuplicateSymbols,
  checkPrice,
  checkSame,
  checkSymbol,
  field,
} from "./fuzzInputs.js";

const MAX_TYPE_LENGTH = 64;

function checkTimestamp(v: unknown, what: string): void {
  checkFinite(v, what);
  check(v >= 0 && v <= MAX_TIMESTAMP_MS, () => `${what} in [0, ${MAX_TIMESTAMP_MS}], got ${v}`);
}

function checkType(v: unknown, allowEmpty: boolean, what: string): void {
  check(
    typeof v === "string" && v.length <= MAX_TYPE_LENGTH && (allowEmpty || v.length > 0),
    () => `${what} is a string of 1..64 chars, got ${JSON.stringify(v)}`,
  );
}

function inputArray(input: unknown, key: string, what: string): unknown[] {
  const raw = field(input, key);
  check(Array.isArray(raw), () => `${what}: accepted although ${key} is not an array`);
  return raw;
}

export function checkLiquidationEntry(out: LiquidationEntry, input: unknown): void {
  check(out !== input, "a fresh object, not the input");
  checkKeys(out, ["liquidationId", "timestamp", "type", "positionsByPerp"], "liquidation entry");
  checkId(out.liquidationId, "liquidationId");
  checkSame(out.liquidationId, field(input, "liquidationId"), "liquidationId");
  const raw = inputArray(input, "positionsByPerp", "liquidation entry");
  check(out.positionsByPerp !== raw, "positionsByPerp is a fresh array");
  const removal = out.positionsByPerp.length === 0;
  checkTimestamp(out.timestamp, "timestamp");
  checkType(out.type, removal, "type");
  // A removal may omit timestamp / type (wire.ts): they read 0 / "".
  if (!(removal && field(input, "timestamp") === undefined && out.timestamp === 0))
    checkSame(out.timestamp, field(input, "timestamp"), "timestamp");
  if (!(removal && field(input, "type") === undefined && out.type === "")) checkSame(out.type, field(input, "type"), "type");
  check(
    out.positionsByPerp.length === raw.length && raw.length <= MAX_PERPS_FOR_TESTS,
    () => `positionsByPerp keeps all ${raw.length} rows (at most ${MAX_PERPS_FOR_TESTS})`,
  );
  out.positionsByPerp.forEach((p, i) => {
    const w = `positionsByPerp[${i}]`;
    checkKeys(p, ["symbol", "positionQty", "liquidatorFee"], w);
    checkSymbol(p.symbol, `${w}.symbol`);
    checkBounded(p.positionQty, MAX_ABS_QTY, `${w}.positionQty`);
    checkFee(p.liquidatorFee, `${w}.liquidatorFee`);
    for (const k of ["symbol", "positionQty", "liquidatorFee"] as const) checkSame(p[k], field(raw[i], k), `${w}.${k}`);
  });
  checkNoDuplicateSymbols(out.positionsByPerp, "positionsByPerp");
}

/** An array push: undefined exactly when `data` is not an array or too long; else every row accounted for. */
export function checkArrayResult<T>(
  r: ArrayResult<T> | undefined,
  data: unknown,
  accepts: (row: unknown) => T | undefined,
  checkItem: (item: T, input: unknown) => void,
  what: string,
): void {
  const shapeOk = Array.isArray(data) && data.length <= MAX_ITEMS_FOR_TESTS;
  check(
    (r !== undefined) === shapeOk,
    () => `${what}: ${shapeOk ? "a bounded array must be parsed" : "not an array within bounds, yet parsed"}`,
  );
  if (r === undefined) return;
  const rows = data as unknown[];
  check(r.items.length + r.dropped === rows.length, () => `${what}: ${r.items.length} kept + ${r.dropped} dropped = ${rows.length} rows`);
  let j = 0;
  for (let i = 0; i < rows.length; i++) {
    if (accepts(rows[i]) === undefined) continue;
    const item = r.items[j++];
    check(item !== undefined, () => `${what}: row ${i} is valid alone but was dropped`);
    checkItem(item, rows[i]);
  }
  check(j === r.items.length, () => `${what}: kept rows are the valid ones, in order`);
}

export function checkLiquidations(r: ArrayResult<LiquidationEntry> | undefined, data: unknown): void {
  checkArrayResult(r, data, parseLiquidationEntryForTests, checkLiquidationEntry, "liquidation push");
}

export function checkMarkPrice(out: MarkPrice, input: unknown, expectedSymbol?: string): void {
  check(out !== input, "a fresh object, not the input");
  checkKeys(out, ["symbol", "price"], "mark price");
  checkSymbol(out.symbol, "mark symbol");
  checkPrice(out.price, MAX_PRICE, "mark price");
  checkSame(out.symbol, field(input, "symbol"), "mark symbol");
  checkSame(out.price, field(input, "price"), "mark price");
  if (expectedSymbol !== undefined)
    check(out.symbol === expectedSymbol, () => `mark of ${out.symbol} accepted on ${expectedSymbol}@markprice`);
}

export function checkMarkPrices(r: ArrayResult<MarkPrice> | undefined, data: unknown): void {
  checkArrayResult(
    r,
    data,
    (row) => parseMarkPrice(row),
    (m, input) => checkMarkPrice(m, input),
    "markprices push",
  );
}

export function checkLiquidatorLiquidation(out: LiquidatorLiquidation, input: unknown): void {
  check(out !== input, "a fresh object, not the input");
  checkKeys(out, ["liquidationId", "timestamp", "type", "assigned", "positionsByPerp"], "liquidatorliquidations");
  checkId(out.liquidationId, "liquidationId");
  checkTimestamp(out.timestamp, "timestamp");
  checkType(out.type, false, "type");
  for (const k of ["liquidationId", "timestamp", "type"] as const) checkSame(out[k], field(input, k), k);
  const assigned = field(input, "assigned");
  if (assigned === undefined || assigned === null) check(out.assigned === undefined, "absent assigned reads undefined");
  else if (typeof assigned === "boolean") check(out.assigned === (assigned ? 1 : 0), "boolean assigned reads 1/0");
  else {
    checkBounded(out.assigned, MAX_ABS_QTY, "assigned");
    checkSame(out.assigned, assigned, "assigned");
  }
  const raw = inputArray(input, "positionsByPerp", "liquidatorliquidations");
  check(
    out.positionsByPerp !== raw && out.positionsByPerp.length === raw.length && raw.length <= MAX_PERPS_FOR_TESTS,
    "positionsByPerp: a fresh array of every row",
  );
  const keys = ["symbol", "positionQty", "costPositionTransfer", "transferPrice", "liquidatorFee", "absLiquidatorFee"] as const;
  out.positionsByPerp.forEach((p, i) => {
    const w = `positionsByPerp[${i}]`;
    checkKeys(p, keys, w);
    checkSymbol(p.symbol, `${w}.symbol`);
    checkBounded(p.positionQty, MAX_ABS_QTY, `${w}.positionQty`);
    checkBounded(p.costPositionTransfer, MAX_ABS_NOTIONAL, `${w}.costPositionTransfer`);
    checkPrice(p.transferPrice, MAX_PRICE, `${w}.transferPrice`);
    checkFee(p.liquidatorFee, `${w}.liquidatorFee`);
    checkBounded(p.absLiquidatorFee, MAX_ABS_NOTIONAL, `${w}.absLiquidatorFee`);
    check(p.absLiquidatorFee >= 0, () => `${w}.absLiquidatorFee >= 0, got ${p.absLiquidatorFee}`);
    for (const k of keys) checkSame(p[k], field(raw[i], k), `${w}.${k}`);
  });
  checkNoDuplicateSymbols(out.positionsByPerp, "positionsByPerp");
}

export function checkPositionPush(out: PositionPush, input: unknown): void {
  check(out !== input, "a fresh object, not the input");
  checkKeys(out, ["positions"], "position push");
  const raw = inputArray(input, "positions", "position push");
  check(
    out.positions !== raw && out.positions.length === raw.length && raw.length <= MAX_ITEMS_FOR_TESTS,
    "positions: a fresh array of every row",
  );
  out.positions.forEach((p, i) => {
    const w = `positions[${i}]`;
    checkKeys(p, ["symbol", "positionQty", "averageOpenPrice", "markPrice", "costPosition", "marginMode", "leverage"], w);
    // docs/protocol.md §10: the leverage is informational; one that is no usable number reads as absent, never refuses the push.
    const lev = field(raw[i], "leverage");
    checkSame(p.leverage, typeof lev === "number" && lev > 0 && lev <= MAX_LEVERAGE ? lev : undefined, `${w}.leverage`);
    // docs/protocol.md §9: absent or null is CROSS; anything else but the two modes refuses the push.
    const mode = field(raw[i], "marginMode");
    checkSame(p.marginMode, mode === undefined || mode === null ? "CROSS" : mode, `${w}.marginMode`);
    checkSymbol(p.symbol, `${w}.symbol`);
    checkBounded(p.positionQty, MAX_ABS_QTY, `${w}.positionQty`);
    checkSame(p.symbol, field(raw[i], "symbol"), `${w}.symbol`);
    checkSame(p.positionQty, field(raw[i], "positionQty"), `${w}.positionQty`);
    const optional = (key: "averageOpenPrice" | "markPrice" | "costPosition", ok: (x: number) => boolean, absentToo: unknown[]): void => {
      const v = field(raw[i], key);
      if (v === undefined || v === null || absentToo.includes(v))
        return check(p[key] === undefined, () => `${w}.${key} absent reads undefined`);
      checkFinite(p[key], `${w}.${key}`);
      check(ok(p[key] as number), () => `${w}.${key} within bounds, got ${p[key]}`);
      checkSame(p[key], v, `${w}.${key}`);
    };
    optional("averageOpenPrice", (x) => x >= 0 && x <= MAX_PRICE, []);
    // A flat position may report markPrice 0: it means "no mark" (wire.ts).
    optional("markPrice", (x) => x > 0 && x <= MAX_PRICE, [0]);
    optional("costPosition", (x) => Math.abs(x) <= MAX_ABS_NOTIONAL, []);
  });
  checkNoDuplicateSymbols(out.positions, "positions");
}
