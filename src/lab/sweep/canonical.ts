/** JSON with every object's keys sorted: equal for configs equal in value. */
export function canonical(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(canonical).join(",")}]`;
  if (x !== null && typeof x === "object") {
    const keys = Object.keys(x).sort();
    return `{${keys
      .filter((k) => (x as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((x as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  // JSON.stringify loses -0 and non-finite numbers; those must not make two values look equal.
  if (typeof x === "number") return Object.is(x, -0) ? "-0" : Number.isFinite(x) ? String(x) : `"${x}"`;
  return JSON.stringify(x) ?? "undefined";
}
