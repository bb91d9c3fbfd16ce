/**
 * Numbers as the venue writes them in REST answers (docs/protocol.md §9): a JSON number, or the same number
 * in a decimal string, since the venue has used both for ids, timestamps and the numeric fields of
 * rows. Tolerant of the spelling only: a value that is not a finite decimal number (an empty or
 * blank string, hex, `NaN`, `Infinity`, `null`, a boolean, an overflow like `1e999`) is refused,
 * never coerced to 0 or 1 the way `Number()` or `z.coerce` would; range checks stay with the caller.
 *
 * Not used on the public stream's frames (wire.ts): their shape is confirmed, and that path takes no
 * schema library and no extra work per field.
 */
import { z } from "zod";

/** What a wire number may be before it is corrupt: a timestamp in µs or ns is caught (year 5138). */
export const MAX_ABS_QTY = 1e12;
export const MAX_PRICE = 1e12;
export const MAX_ABS_NOTIONAL = 1e18;
export const MAX_TIMESTAMP_MS = 1e14;
/** A leverage setting beyond this is corrupt (the venue's are 1–100, docs/protocol.md §10). */
export const MAX_LEVERAGE = 1_000;

/** Optional sign, digits with an optional fraction (or a bare fraction), optional exponent. */
const DECIMAL = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
/** Far longer than any price, quantity or id the venue writes; bounds the regex work on junk. */
const MAX_DECIMAL_LENGTH = 64;

/** The finite number a wire value spells, or undefined when it spells none. */
export function numberFrom(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (typeof v !== "string" || v.length > MAX_DECIMAL_LENGTH || !DECIMAL.test(v)) return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

/** A safe integer from a number or a decimal string (ids, ms timestamps), else undefined. */
export function integerFrom(v: unknown): number | undefined {
  const n = numberFrom(v);
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

const decimalString = z.string().transform((v, ctx) => {
  const n = numberFrom(v);
  if (n === undefined) {
    ctx.addIssue({ code: "custom", message: "not a finite number (or decimal string)" });
    return z.NEVER;
  }
  return n;
});

/**
 * A zod schema reading a number or a decimal string, then checking the number against `inner`
 * (bounds, integer): e.g. `wireNumber(z.number().min(0).max(MAX_PRICE))`. A plain number is checked
 * by `inner` first and directly (the open list's rows are many); only a string takes the longer way.
 */
export function wireNumber<T extends z.ZodType<number, number>>(inner: T) {
  return z.union([inner, decimalString.pipe(inner)]);
}

/** An integer id or ms timestamp, as a number or a decimal string. */
export const wireInt = wireNumber(z.number().int());

/** A finite number of any size, as a number or a decimal string. */
export const wireFinite = wireNumber(z.number());
