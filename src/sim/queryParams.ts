/**
 * Query-string checks shared by the REST handlers: unknown parameter → -1004, malformed → -1005
 * (docs/protocol.md §3). An empty value counts as absent, as docs/protocol.md §A.4.4 speaks of "sort_by is empty".
 */
import { type Checked, ok, refused } from "./venueRefusal.js";

/** The parameters present, by name; refuses unknown names and repeated names. */
export function readParams(search: URLSearchParams, allowed: readonly string[]): Checked<Map<string, string>> {
  const out = new Map<string, string>();
  const allowedSet = new Set(allowed);
  const seen = new Set<string>();
  for (const [name, value] of search) {
    if (!allowedSet.has(name)) return refused(-1004, name);
    if (seen.has(name)) return refused(-1005, `${name} given more than once`);
    seen.add(name);
    if (value !== "") out.set(name, value);
  }
  return ok(out);
}

/** A positive integer written in plain decimal digits, within [min, max]. */
export function intParam(params: Map<string, string>, name: string, fallback: number, min: number, max: number): Checked<number> {
  const raw = params.get(name);
  if (raw === undefined) return ok(fallback);
  if (!/^\d{1,15}$/.test(raw)) return refused(-1005, `${name} must be an integer in [${min}, ${max}]`);
  const n = Number(raw);
  if (n < min || n > max) return refused(-1005, `${name} must be an integer in [${min}, ${max}], got ${raw}`);
  return ok(n);
}

/** docs/protocol.md §A.4.4: times are 13-digit millisecond timestamps. */
export function timeParam(params: Map<string, string>, name: string): Checked<number | undefined> {
  const raw = params.get(name);
  if (raw === undefined) return ok(undefined);
  if (!/^\d{13}$/.test(raw)) return refused(-1005, `${name} must be a 13-digit millisecond timestamp`);
  return ok(Number(raw));
}

/** One of a fixed set of values (case-sensitive, as the venue's enums are upper case). */
export function enumParam<T extends string>(params: Map<string, string>, name: string, values: readonly T[]): Checked<T | undefined> {
  const raw = params.get(name);
  if (raw === undefined) return ok(undefined);
  if (!(values as readonly string[]).includes(raw)) return refused(-1005, `${name} must be one of ${values.join(", ")}`);
  return ok(raw as T);
}

/** A start/end pair must not be inverted. */
export function rangeParams(
  params: Map<string, string>,
  startName: string,
  endName: string,
): Checked<{ start: number | undefined; end: number | undefined }> {
  const start = timeParam(params, startName);
  if (!start.ok) return start;
  const end = timeParam(params, endName);
  if (!end.ok) return end;
  if (start.value !== undefined && end.value !== undefined && start.value > end.value) {
    return refused(-1005, `${startName} must not be after ${endName}`);
  }
  return ok({ start: start.value, end: end.value });
}
