/**
 * Generators and invariant checks shared by the fuzz tests (test/fuzz/*.fuzz.test.ts). Not a test
 * file itself.
 *
 * Purely random input rarely gets past the first `typeof` of a parser, so most generated inputs are
 * *mutations of valid payloads*: a valid frame (stream camelCase, docs/protocol.md §5) or REST row
 * (snake_case, docs/protocol.md §4) with one to three edits at random places in its tree: a value replaced
 * by something hostile (NaN, ±Infinity, negative, zero, huge, unsafe integers beyond 2^53, wrong
 * types, bad symbols), a key deleted, an extra key added (`__proto__` included, as JSON.parse creates
 * it), an array element duplicated (duplicate symbols), a value wrapped in an array or object, or an
 * array blown up past the parsers' size bounds.
 *
 * Mutated trees reach a parser in two ways: as they are (the parser's input type is `unknown`, so
 * NaN and undefined must be survivable too), or through JSON text, exactly as the stream client and
 * the REST client see them — where ±Infinity is written `1e400` (JSON.parse turns it into Infinity)
 * and an unsafe integer is written with all its digits.
 */
import fc from "fast-check";

export const SYMBOLS = ["PERP_BTC_USDC", "PERP_ETH_USDC", "PERP_SOL_USDC", "PERP_DOGE_USDC"] as const;
/** The symbol grammar the parsers promise (wire.ts, docs/protocol.md §11). */
export const SYMBOL_RE = /^PERP_[A-Z0-9]+_[A-Z0-9]+$/;

// ── hostile values ───────────────────────────────────────────────────────────────────────────────

/** Written into JSON text in place of these marker strings (see `toJsonText`). */
const INF_MARK = "\u0000fuzz:inf";
const NEG_INF_MARK = "\u0000fuzz:-inf";
const BIG_INT_MARK = "\u0000fuzz:bigint";
const BIG_INT_TEXT = "123456789012345678901234567890";

/** Values a numeric field must survive. Several are valid for some fields (0 for a quantity). */
export const BAD_NUMBERS: readonly unknown[] = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  INF_MARK,
  NEG_INF_MARK,
  BIG_INT_MARK,
  -1,
  -0.000001,
  0,
  -0,
  1e-320,
  Number.MIN_VALUE,
  1e12 + 1,
  1e15,
  1e18 + 1e3,
  1e300,
  Number.MAX_VALUE,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  1.5,
  1e14 + 1,
];

/** Strings where a symbol belongs (wrong case, wrong shape, padding, control chars, prototype keys). */
export const BAD_SYMBOLS: readonly string[] = [
  "",
  "perp_btc_usdc",
  "PERP_BTC",
  "PERP__USDC",
  "BTC_USDC",
  "PERP_BTC_USDC ",
  " PERP_BTC_USDC",
  "PERP_BTC_USDC\n",
  "PERP_BTC-USDC",
  "PERP_BTC_USDC_X",
  "__proto__",
  "constructor",
  "toString",
  `PERP_${"A".repeat(40)}_USDC`,
  "PERP_BTC_USDC\u0000",
  "ＰERP_BTC_USDC",
  "PERP_UNKNOWN_USDC", // well formed, but in no symbol table
];

/** Values of the wrong type for any field. */
export const WRONG_TYPES: readonly unknown[] = [
  null,
  true,
  false,
  "",
  "1",
  "0.5",
  "NaN",
  "Infinity",
  "-1",
  {},
  [],
  [1],
  { value: 1 },
  "x".repeat(300),
];

/** Keys an attacker (or a newer venue) might add. */
export const EXTRA_KEYS: readonly string[] = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "extra",
  "liquidation_id",
  "symbol",
  "positionsbyperp",
];

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...BAD_NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom(...BAD_SYMBOLS) },
  { weight: 2, arbitrary: fc.constantFrom(...WRONG_TYPES) },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

// ── mutation of a valid tree ─────────────────────────────────────────────────────────────────────

export type MutationOp =
  | { op: "replace"; at: number; value: unknown }
  | { op: "delete"; at: number }
  | { op: "extra"; at: number; key: string; value: unknown }
  | { op: "duplicate"; at: number }
  | { op: "wrap"; at: number; inArray: boolean }
  | { op: "blowUp"; at: number; length: number };

/** Array lengths just past the parsers' bounds (wire.ts MAX_PERPS = 1,000, MAX_ITEMS = 10,000). */
export const ABSURD_LENGTHS = [1_001, 10_001] as const;

export const mutationOp: fc.Arbitrary<MutationOp> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ op: fc.constant("replace" as const), at: fc.nat(), value: hostileValue }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("delete" as const), at: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("extra" as const),
      at: fc.nat(),
      key: fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ maxLength: 8 })),
      value: hostileValue,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("duplicate" as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("wrap" as const), at: fc.nat(), inArray: fc.boolean() }) },
);

/** One to three edits that keep sizes ordinary (for frames on a socket, where size has its own test). */
export const smallMutations: fc.Arbitrary<MutationOp[]> = fc.array(mutationOp, { minLength: 1, maxLength: 3 });

const blowUp: fc.Arbitrary<MutationOp> = fc.record({
  op: fc.constant("blowUp" as const),
  at: fc.nat(),
  length: fc.constantFrom(...ABSURD_LENGTHS),
});

/**
 * One to three edits, and in about 1 % of cases an array blown up past the bounds as the last one
 * (rare and last: a 10,001-element array costs more than a hundred ordinary runs).
 */
export const mutations: fc.Arbitrary<MutationOp[]> = fc
  .tuple(
    fc.array(mutationOp, { minLength: 1, maxLength: 3 }),
    fc.oneof({ weight: 99, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: blowUp }),
  )
  .map(([ops, big]) => (big === null ? ops : [...ops, big]));

type Container = Record<string, unknown> | unknown[];
interface Slot {
  parent: Container | undefined;
  key: string | number;
  value: unknown;
}

function isContainer(v: unknown): v is Container {
  return typeof v === "object" && v !== null;
}

/** Every place in the tree (the root included), depth first. */
function slots(root: { v: unknown }): Slot[] {
  const out: Slot[] = [{ parent: root as unknown as Container, key: "v", value: root.v }];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      v.forEach((child, i) => {
        out.push({ parent: v, key: i, value: child });
        walk(child);
      });
    } else if (isContainer(v)) {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        out.push({ parent: o, key: k, value: o[k] });
        walk(o[k]);
      }
    }
  };
  walk(root.v);
  return out;
}

/** Own enumerable data property, even for `__proto__` (what JSON.parse does with that key). */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function deepCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => deepCopy(x)) as T;
  if (isContainer(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) setOwn(out, k, deepCopy((v as Record<string, unknown>)[k]));
    return out as T;
  }
  return v;
}

/** Applies the edits to a copy of `valid`; each edit picks its place by `at` modulo the places there are. */
export function mutate(valid: unknown, ops: readonly MutationOp[]): unknown {
  const root = { v: deepCopy(valid) };
  for (const m of ops) {
    const all = slots(root);
    const s = all[m.at % all.length] as Slot;
    const parent = s.parent as Container;
    switch (m.op) {
      case "replace":
        (parent as Record<string | number, unknown>)[s.key] = deepCopy(m.value);
        break;
      case "delete":
        if (Array.isArray(parent)) parent.splice(s.key as number, 1);
        else if (parent === (root as unknown)) root.v = undefined;
        else delete (parent as Record<string, unknown>)[s.key as string];
        break;
      case "extra":
        if (Array.isArray(s.value)) s.value.push(deepCopy(m.value));
        else if (isContainer(s.value)) setOwn(s.value as Record<string, unknown>, m.key, deepCopy(m.value));
        else (parent as Record<string | number, unknown>)[s.key] = deepCopy(m.value);
        break;
      case "duplicate":
        if (Array.isArray(s.value) && s.value.length > 0) s.value.push(deepCopy(s.value[0]));
        else if (Array.isArray(parent)) parent.push(deepCopy(s.value));
        break;
      case "wrap":
        (parent as Record<string | number, unknown>)[s.key] = m.inArray ? [s.value] : { value: s.value };
        break;
      case "blowUp": {
        const fill = Array.isArray(s.value) ? (s.value[0] ?? null) : s.value;
        (parent as Record<string | number, unknown>)[s.key] = Array.from({ length: m.length }, () => fill);
        break;
      }
    }
  }
  return root.v;
}

/** JSON text of a tree, with the hostile numbers JSON can carry written as a venue would send them. */
export function toJsonText(v: unknown): string {
  const text = JSON.stringify(v, (_k, x: unknown) => {
    if (x === Number.POSITIVE_INFINITY) return INF_MARK;
    if (x === Number.NEGATIVE_INFINITY) return NEG_INF_MARK;
    return x;
  });
  if (text === undefined) return "null";
  return text
    .replaceAll(JSON.stringify(INF_MARK), "1e400")
    .replaceAll(JSON.stringify(NEG_INF_MARK), "-1e400")
    .replaceAll(JSON.stringify(BIG_INT_MARK), BIG_INT_TEXT);
}

/** What a JSON-speaking peer would hand over: the tree through `toJsonText` and JSON.parse. */
export function throughJson(v: unknown): unknown {
  return JSON.parse(toJsonText(v));
}

/** A mutated tree, delivered either as is or through JSON text. */
export function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, mutations, fc.boolean()).map(([v, ops, asJson]) => {
    const m = mutate(v, ops);
    return asJson ? throughJson(m) : m;
  });
}

// ── valid payloads (the starting points) ─────────────────────────────────────────────────────────

const symbol = fc.constantFrom(...SYMBOLS);
const id = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 10_000_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(1, 2 ** 31, Number.MAX_SAFE_INTEGER) },
);
const ms = fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 });
const qty = fc.oneof(fc.double({ min: 1e-6, max: 1e5, noNaN: true }), fc.double({ min: -1e5, max: -1e-6, noNaN: true }));
const fee = fc.oneof(fc.constantFrom(0.006, 0.01, 0.02), fc.double({ min: 0, max: 0.05, noNaN: true }));
const price = fc.oneof(fc.double({ min: 1e-4, max: 2e5, noNaN: true }), fc.constantFrom(100_000, 3_000, 150, 0.12));

/** A stream `liquidation` entry (camelCase); 1 in 8 is a removal (empty positionsByPerp). */
export const validLiquidationEntry: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  {
    weight: 7,
    arbitrary: fc.record({
      liquidationId: id,
      timestamp: ms,
      type: fc.constantFrom("liquidated", "claim"),
      positionsByPerp: fc.uniqueArray(fc.record({ symbol, positionQty: qty, liquidatorFee: fee }), {
        minLength: 1,
        maxLength: 4,
        selector: (p) => p.symbol,
      }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      { liquidationId: id, timestamp: ms, type: fc.constant("liquidated"), positionsByPerp: fc.constant([]) },
      { requiredKeys: ["liquidationId", "positionsByPerp"] },
    ),
  },
);

export const validLiquidationPush = fc.array(validLiquidationEntry, { minLength: 0, maxLength: 6 });

export const validMarkPrice = fc.record({ symbol, price });
export const validMarkPrices = fc.array(validMarkPrice, { minLength: 0, maxLength: 6 });

export const validLiquidatorLiquidation = fc.record(
  {
    liquidationId: id,
    timestamp: ms,
    type: fc.constantFrom("claim", "liquidated"),
    assigned: fc.oneof(fc.constant(1), fc.constant(true), fc.constant(0), fc.constant(null)),
    positionsByPerp: fc.uniqueArray(
      fc.record({
        symbol,
        positionQty: qty,
        costPositionTransfer: fc.double({ min: -1e9, max: 1e9, noNaN: true }),
        transferPrice: price,
        liquidatorFee: fee,
        absLiquidatorFee: fc.double({ min: 0, max: 1e6, noNaN: true }),
      }),
      { minLength: 1, maxLength: 3, selector: (p) => p.symbol },
    ),
  },
  { requiredKeys: ["liquidationId", "timestamp", "type", "positionsByPerp"] },
);

export const validPositionPush = fc.record({
  positions: fc.uniqueArray(
    fc.record(
      {
        symbol,
        positionQty: fc.oneof(qty, fc.constant(0)),
        averageOpenPrice: fc.oneof(price, fc.constant(0), fc.constant(null)),
        markPrice: fc.oneof(price, fc.constant(0), fc.constant(null)),
        costPosition: fc.double({ min: -1e9, max: 1e9, noNaN: true }),
        unsettledPnl: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
      },
      { requiredKeys: ["symbol", "positionQty"] },
    ),
    { minLength: 0, maxLength: 4, selector: (p) => p.symbol },
  ),
});

/** REST `GET /v1/public/liquidation` row (snake_case). */
export const validOpenLiquidationRow = fc.record({
  liquidation_id: id,
  timestamp: ms,
  type: fc.constantFrom("liquidated", "claim"),
  positions_by_perp: fc.uniqueArray(fc.record({ symbol, position_qty: qty, liquidator_fee: fee }), {
    minLength: 1,
    maxLength: 4,
    selector: (p) => p.symbol,
  }),
});

// ── arbitrary input (no structure at all) ────────────────────────────────────────────────────────

/** JSON values, JS values that JSON cannot even express, and strings that JSON.parse accepted. */
export const arbitraryInput: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue() },
  {
    weight: 2,
    arbitrary: fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
    }),
  },
  { weight: 1, arbitrary: fc.anything().map((v) => throughJson(v)) },
);

/** Text a socket might carry: JSON, near-JSON, random characters, random bytes read as UTF-8. */
export const arbitraryText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.json() },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 64 }) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...'{}[],:"0123456789.-eE truefalsn\\u'), maxLength: 64 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString("utf8")) },
  { weight: 1, arbitrary: fc.json().chain((j) => fc.nat({ max: Math.max(0, j.length - 1) }).map((n) => j.slice(0, n))) },
);

export function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

// ── invariants of what a parser accepted ─────────────────────────────────────────────────────────
// Plain throwing checks rather than `expect`: they run millions of times per file, and fast-check
// reports the failing input with the message.

export class InvariantError extends Error {}

/** `what` is a function when it formats values: messages are built only on failure (hot loop). */
export function check(cond: boolean, what: string | (() => string)): asserts cond {
  if (!cond) throw new InvariantError(typeof what === "string" ? what : what());
}

/** A value in a message; never throws (inputs may be null-prototype objects, BigInts, cycles...). */
export function show(v: unknown): string {
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? `${x}n` : x)) ?? typeof v;
  } catch {
    return Object.prototype.toString.call(v);
  }
}

export function checkFinite(v: unknown, what: string): asserts v is number {
  check(typeof v === "number" && Number.isFinite(v), () => `${what} is a finite number, got ${show(v)}`);
}

export function checkSymbol(v: unknown, what = "symbol"): asserts v is string {
  check(typeof v === "string" && SYMBOL_RE.test(v) && v.length <= 54, () => `${what} is PERP_<BASE>_<QUOTE>, got ${show(v)}`);
}

export function checkId(v: unknown, what = "id"): asserts v is number {
  check(Number.isSafeInteger(v) && (v as number) >= 0, () => `${what} is a safe integer >= 0, got ${show(v)}`);
}

export function checkFee(v: unknown, what = "fee"): void {
  checkFinite(v, what);
  check(v >= 0 && v < 1, () => `${what} in [0, 1), got ${v}`);
}

export function checkPrice(v: unknown, max: number, what = "price"): void {
  checkFinite(v, what);
  check(v > 0 && v <= max, () => `${what} in (0, ${max}], got ${v}`);
}

export function checkBounded(v: unknown, bound: number, what: string): void {
  checkFinite(v, what);
  check(Math.abs(v) <= bound, () => `${what} within ±${bound}, got ${v}`);
}

export function checkKeys(obj: object, keys: readonly string[], what: string): void {
  const got = Object.keys(obj);
  check(
    got.length === keys.length && keys.every((k) => got.includes(k)),
    () => `${what} has exactly keys ${keys.join(",")}, got ${got.join(",")}`,
  );
}

/** The value was taken from the input as is (not coerced, clamped or rounded). */
export function checkSame(out: unknown, input: unknown, what: string): void {
  check(Object.is(out, input), () => `${what} copied faithfully: ${show(input)} became ${show(out)}`);
}

export function checkNoDuplicateSymbols(list: readonly { symbol: string }[], what: string): void {
  check(new Set(list.map((p) => p.symbol)).size === list.length, `${what}: no duplicate symbol`);
}

/** Property read the way the parsers read it (`v.key`); the input is known to be an object. */
export function field(input: unknown, key: string): unknown {
  return (input as Record<string, unknown>)[key];
}
