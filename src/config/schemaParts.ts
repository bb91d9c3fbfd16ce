/**
 * The building blocks of the configuration schema (schema.ts): strict sections, documented leaves,
 * the value types. Every object is strict: an unknown key is an error, because a misspelt risk limit
 * silently falling back to its default is exactly the failure an operator cannot see.
 */
import { z } from "zod";

import { SYMBOL_PATTERN } from "../engine/types.js";

// setTimeout silently fires at once for delays above 2^31-1 ms: cap every duration below that.
export const MAX_TIMER_MS = 2_147_483_647;

/** Keys whose name suggests key material get a message pointing at the only place secrets come from. */
const SECRET_LIKE = /secret|private_?key|seed/i;

function closest(key: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3; // suggest only near misses (typos), not arbitrary keys
  for (const candidate of allowed) {
    const d = editDistance(key, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/**
 * Message for one unknown key at a place whose allowed keys are `allowed`. Exported for the issue
 * formatter, which splits zod's one-issue-per-object into one problem per key.
 */
export function unknownKeyProblem(key: string, allowed: readonly string[]): string {
  if (SECRET_LIKE.test(key)) {
    return "secrets are never read from the config file; set LIQUIDATOR_SECRET or LIQUIDATOR_SECRET_FILE (a file of mode 0600) instead";
  }
  const hint = closest(key, allowed);
  const expected = allowed.length > 0 ? `expected one of: ${allowed.join(", ")}` : "no keys are allowed here";
  return `unknown key${hint === undefined ? "" : ` (did you mean ${hint}?)`}; ${expected}`;
}

/** Prefix of the unknown-key message of every strict object; the allowed keys follow, comma-separated. */
export const ALLOWED_KEYS_MARK = "allowed-keys:";

export function strict<T extends z.ZodRawShape>(shape: T) {
  // The message carries the allowed keys so the formatter can name them without walking the schema.
  const allowed = Object.keys(shape).join(",");
  return z.strictObject(shape, {
    error: (issue) => (issue.code === "unrecognized_keys" ? `${ALLOWED_KEYS_MARK}${allowed}` : undefined),
  });
}

/** A section: `venue:` left empty in YAML is null, which means "all defaults", like omitting it. */
export function section<T extends z.ZodRawShape>(shape: T) {
  return z.preprocess((v) => (v === null || v === undefined ? {} : v), strict(shape));
}

export function list<T extends z.ZodType>(item: T) {
  return z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(item));
}

export const symbol = z
  .string()
  .regex(SYMBOL_PATTERN, { error: "is not a venue symbol; expected PERP_<BASE>_<QUOTE> in capitals, e.g. PERP_BTC_USDC" });

export const positiveNotional = z.number().gt(0);
export const fee = z.number().min(0);
export const bps = z.number().min(0).max(10_000);
export const durationMs = z.number().int().gt(0).max(MAX_TIMER_MS);

function isLoopbackHost(hostname: string): boolean {
  // URL normalises IPv4 forms (127.1, 0x7f.1) to dotted quads and wraps IPv6 in brackets.
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** True for a plain-text URL to a host other than loopback. */
export function isInsecureRemoteUrl(url: string): boolean {
  if (url === "") return false;
  try {
    const u = new URL(url);
    return (u.protocol === "http:" || u.protocol === "ws:") && !isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}

/**
 * A base URL: empty (unset) or an absolute URL with one of `schemes`. Paths are appended to it
 * (docs/protocol.md §1), so a trailing slash is dropped and a query or fragment is refused; credentials
 * in the URL are refused because the effective config is printed and logged.
 */
export function baseUrl(schemes: readonly ["http", "https"] | readonly ["ws", "wss"]) {
  const expected = `expected an absolute ${schemes[1]}:// URL (or ${schemes[0]}:// to a loopback host), e.g. ${schemes[1]}://api.example.com`;
  return z
    .string()
    .trim()
    .superRefine((s, ctx) => {
      if (s === "") return;
      let u: URL;
      try {
        u = new URL(s);
      } catch {
        ctx.addIssue({ code: "custom", message: `is not a valid URL; ${expected}` });
        return;
      }
      if (!schemes.some((p) => u.protocol === `${p}:`)) {
        ctx.addIssue({ code: "custom", message: `has scheme ${u.protocol}//; ${expected}` });
      } else if (u.username !== "" || u.password !== "") {
        ctx.addIssue({
          code: "custom",
          message: "must not contain credentials (user:password@); the venue authenticates by signed headers",
        });
      } else if (u.search !== "" || u.hash !== "") {
        ctx.addIssue({ code: "custom", message: "must not contain a query or fragment; paths are appended to it" });
      }
    })
    .transform((s) => s.replace(/\/+$/, ""));
}

/** What the operator reads about a leaf: its meaning, and the environment variable that overrides it. */
export interface FieldDoc {
  description: string;
  env?: string;
}

/** A documented config leaf: the env mapping, the README table and the default.yaml check derive from it (fields.ts). */
export function doc<T extends z.ZodType>(schema: T, description: string, env?: string): T {
  const meta: FieldDoc = env === undefined ? { description } : { description, env };
  return schema.meta(meta as unknown as Record<string, unknown>) as T;
}
