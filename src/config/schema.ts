/**
 * The configuration schema (prompts/config.md is the shape; INTERFACE.md names the keys). Every
 * object is strict: an unknown key is an error, because a misspelt risk limit silently falling back
 * to its default is exactly the failure an operator cannot see. Parsing `{}` yields the defaults.
 */
import { z } from "zod";

import { SYMBOL_PATTERN } from "../engine/types.js";

export { SYMBOL_PATTERN } from "../engine/types.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** The five policy keys a `policy.per_symbol.<SYMBOL>` entry may override. */
export const OVERRIDABLE_POLICY_KEYS = [
  "max_claim_notional",
  "max_total_exposure",
  "min_fee",
  "limit_price_slippage_bps",
  "max_mark_age_ms",
] as const;

// setTimeout silently fires at once for delays above 2^31-1 ms: cap every duration below that.
const MAX_TIMER_MS = 2_147_483_647;

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

function strict<T extends z.ZodRawShape>(shape: T) {
  // The message carries the allowed keys so the formatter can name them without walking the schema.
  const allowed = Object.keys(shape).join(",");
  return z.strictObject(shape, {
    error: (issue) => (issue.code === "unrecognized_keys" ? `${ALLOWED_KEYS_MARK}${allowed}` : undefined),
  });
}

/** A section: `venue:` left empty in YAML is null, which means "all defaults", like omitting it. */
function section<T extends z.ZodRawShape>(shape: T) {
  return z.preprocess((v) => (v === null || v === undefined ? {} : v), strict(shape));
}

function list<T extends z.ZodType>(item: T) {
  return z.preprocess((v) => (v === null || v === undefined ? [] : v), z.array(item));
}

const symbol = z
  .string()
  .regex(SYMBOL_PATTERN, { error: "is not a venue symbol; expected PERP_<BASE>_<QUOTE> in capitals, e.g. PERP_BTC_USDC" });

const positiveNotional = z.number().gt(0);
const fee = z.number().min(0);
const bps = z.number().min(0).max(10_000);
const durationMs = z.number().int().gt(0).max(MAX_TIMER_MS);

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
 * (PROTOCOL.md §1), so a trailing slash is dropped and a query or fragment is refused; credentials
 * in the URL are refused because the effective config is printed and logged.
 */
function baseUrl(schemes: readonly ["http", "https"] | readonly ["ws", "wss"]) {
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

const venueSchema = section({
  mode: z.enum(["simulator", "live"]).default("simulator"),
  base_url: baseUrl(["http", "https"]).default(""),
  ws_url: baseUrl(["ws", "wss"]).default(""),
  ws_private_url: baseUrl(["ws", "wss"]).default(""),
  header_prefix: z
    .string()
    .regex(/^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/, { error: "must be a header-name prefix of letters, digits and inner dashes, e.g. service" })
    .default("service"),
  // Appended to stream paths (PROTOCOL.md §1): keep it to URL-safe characters.
  account_id: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]*$/, { error: "may contain only letters, digits and _ . : - (e.g. 0x1a2b...)" })
    .default(""),
  allow_insecure: z.boolean().default(false),
  request_timeout_ms: durationMs.default(5000),
  // PROTOCOL.md §4: public reads 10/s per IP, claims 5/s, admin orders 10/s.
  limits: section({
    public_per_second: z.number().gt(0).default(10),
    claims_per_second: z.number().gt(0).default(5),
    admin_orders_per_second: z.number().gt(0).default(10),
    // PROTOCOL.md §6: GET /v1/positions allows 30 per 10 s.
    account_reads_per_second: z.number().gt(0).default(3),
  }),
}).superRefine((v, ctx) => {
  if (v.mode !== "live") return;
  const required = [
    ["base_url", "LIQUIDATOR_BASE_URL"],
    ["ws_url", "LIQUIDATOR_WS_URL"],
    ["ws_private_url", "LIQUIDATOR_WS_PRIVATE_URL"],
    ["account_id", "LIQUIDATOR_ACCOUNT_ID"],
  ] as const;
  for (const [key, variable] of required) {
    if (v[key] === "") {
      ctx.addIssue({ code: "custom", path: [key], message: `is required when venue.mode is live (set it here or with ${variable})` });
    }
  }
  if (v.allow_insecure) return;
  for (const key of ["base_url", "ws_url", "ws_private_url"] as const) {
    if (isInsecureRemoteUrl(v[key])) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message:
          "venue.mode: live refuses plain http:// / ws:// URLs unless venue.allow_insecure: true (loopback hosts excepted); use https:// / wss://",
      });
    }
  }
});

// `PERP_BTC_USDC:` with every override commented out is null: no overrides, like an empty section.
const symbolOverrides = section({
  max_claim_notional: positiveNotional.optional(),
  max_total_exposure: positiveNotional.optional(),
  min_fee: fee.optional(),
  limit_price_slippage_bps: bps.optional(),
  max_mark_age_ms: durationMs.optional(),
});

const policySchema = section({
  dry_run: z.boolean().default(false),
  max_claim_notional: positiveNotional.default(50_000),
  max_total_exposure: positiveNotional.default(250_000),
  min_fee: fee.default(1),
  limit_price_slippage_bps: bps.default(50),
  max_mark_age_ms: durationMs.default(3000),
  symbols: section({
    allow: list(symbol),
    deny: list(symbol),
  }),
  per_symbol: z.preprocess(
    (v) => (v === null || v === undefined ? {} : v),
    z.record(
      z.string().regex(SYMBOL_PATTERN, { error: "is not a venue symbol; expected PERP_<BASE>_<QUOTE> in capitals, e.g. PERP_BTC_USDC" }),
      symbolOverrides,
    ),
  ),
});

const campaignSchema = strict({
  campaign_id: z.number().int().min(0),
  account_id: z.string().min(1).optional(),
  address: z.string().min(1).optional(),
  order_tag: z.string().optional(),
}).superRefine((v, ctx) => {
  const given = (v.account_id === undefined ? 0 : 1) + (v.address === undefined ? 0 : 1);
  if (given !== 1) {
    ctx.addIssue({ code: "custom", message: "exactly one of account_id / address must be set for a campaign" });
  }
});

export const configSchema = strict({
  venue: venueSchema,
  simulator: section({
    seed: z.number().int().default(1),
    liquidations_per_second: z.number().min(0).default(2),
  }),
  policy: policySchema,
  metrics: section({
    host: z.string().min(1).default("0.0.0.0"),
    port: z.number().int().min(0).max(65_535).default(9464),
  }),
  state: section({
    dir: z.string().min(1).default("./data"),
  }),
  log: section({
    level: z.enum(LOG_LEVELS).default("info"),
    pretty: z.boolean().default(false),
  }),
  rewards: section({
    poll_interval_ms: z.number().int().min(1000).max(MAX_TIMER_MS).default(60_000),
    campaign: campaignSchema.nullable().default(null),
  }),
});

export type Config = z.output<typeof configSchema>;
export type VenueConfig = Config["venue"];
export type PolicyConfig = Config["policy"];
export type SymbolOverrides = PolicyConfig["per_symbol"][string];
export type CampaignConfig = NonNullable<Config["rewards"]["campaign"]>;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The built-in defaults (what an empty or absent config file means). */
export function defaultConfig(): Config {
  return configSchema.parse({});
}
