/**
 * The `venue` section: which venue, where, as which account, and its rate limits. A preset fills the
 * real venue's hosts and auth header prefix (docs/protocol.md §1); keys given explicitly, in the
 * file or the environment, win over the preset.
 */
import { z } from "zod";
import { baseUrl, doc, durationMs, isInsecureRemoteUrl, section, strict } from "./schemaParts.js";

const VENUE_PRESETS = {
  "orderly-mainnet": {
    base_url: "https://api.orderly.org",
    ws_url: "wss://ws-evm.orderly.org",
    ws_private_url: "wss://ws-private-evm.orderly.org",
    header_prefix: "orderly",
  },
  "orderly-testnet": {
    base_url: "https://testnet-api.orderly.org",
    ws_url: "wss://testnet-ws-evm.orderly.org",
    ws_private_url: "wss://testnet-ws-private-evm.orderly.org",
    header_prefix: "orderly",
  },
} as const;
type VenuePreset = keyof typeof VENUE_PRESETS;

const PRESET_NAMES = Object.keys(VENUE_PRESETS) as [VenuePreset, ...VenuePreset[]];

/** The real venue's account ids: `0x` and 64 hex digits (a 32-byte hash; docs/protocol.md §1, README "Going live"). */
const ORDERLY_ACCOUNT_ID = /^0x[0-9a-fA-F]{64}$/;

/** Fill the keys the preset provides and the raw section does not set (null and "" count as unset). */
function withPreset(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const r = raw as Record<string, unknown>;
  const preset = typeof r.preset === "string" ? VENUE_PRESETS[r.preset as VenuePreset] : undefined;
  if (preset === undefined) return raw;
  const out: Record<string, unknown> = { ...r };
  for (const [key, value] of Object.entries(preset)) if (out[key] === undefined || out[key] === null || out[key] === "") out[key] = value;
  return out;
}

const LIVE_REQUIRED = ["base_url", "ws_url", "ws_private_url", "account_id"] as const;

const venueFields = {
  mode: doc(
    z.enum(["simulator", "live"]).default("simulator"),
    "`simulator` (default: an embedded simulated venue on loopback) or `live`",
    "LIQUIDATOR_VENUE",
  ),
  preset: doc(
    z.enum(PRESET_NAMES).nullable().default(null),
    "`orderly-mainnet` or `orderly-testnet`: fills the three URLs and the header prefix; explicit keys win",
    "LIQUIDATOR_VENUE_PRESET",
  ),
  base_url: doc(baseUrl(["http", "https"]).default(""), "REST base", "LIQUIDATOR_BASE_URL"),
  ws_url: doc(baseUrl(["ws", "wss"]).default(""), "public stream base (`/ws/stream/{account_id}` is appended)", "LIQUIDATOR_WS_URL"),
  ws_private_url: doc(
    baseUrl(["ws", "wss"]).default(""),
    "private stream base (`/v2/ws/private/stream/{account_id}` is appended)",
    "LIQUIDATOR_WS_PRIVATE_URL",
  ),
  header_prefix: doc(
    z
      .string()
      .regex(/^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/, { error: "must be a header-name prefix of letters, digits and inner dashes, e.g. service" })
      .default("service"),
    "auth header prefix, default `service`",
    "LIQUIDATOR_HEADER_PREFIX",
  ),
  // Appended to stream paths: keep it to URL-safe characters.
  account_id: doc(
    z
      .string()
      .regex(/^[A-Za-z0-9_.:-]*$/, { error: "may contain only letters, digits and _ . : - (e.g. 0x1a2b...)" })
      .default(""),
    "account id",
    "LIQUIDATOR_ACCOUNT_ID",
  ),
  allow_insecure: doc(
    z.boolean().default(false),
    "live mode refuses plain `http://`/`ws://` to non-loopback hosts unless true",
    "LIQUIDATOR_ALLOW_INSECURE",
  ),
  request_timeout_ms: doc(durationMs.default(5000), "time limit of one REST request, ms"),
  claim_rehearsal_ms: doc(
    z.number().int().min(0).max(1_000).default(2),
    "every this many ms the claim path runs on the last liquidation seen, sending nothing, so the next claim finds it in the CPU caches (~5 % of a core at 2 on the build machine); 0: off",
    "LIQUIDATOR_CLAIM_REHEARSAL_MS",
  ),
  limits: section({
    public_per_second: doc(z.number().gt(0).default(10), "public reads per second (the venue allows 10/s per IP)"),
    claims_per_second: doc(z.number().gt(0).default(5), "claims per second (the venue allows 5/s)"),
    admin_orders_per_second: doc(z.number().gt(0).default(10), "admin order listings per second (10/s)"),
    account_reads_per_second: doc(z.number().gt(0).default(3), "signed account reads per second (positions: 30 per 10 s)"),
    orders_per_second: doc(z.number().gt(0).default(10), "unwind orders per second (the venue allows 10/s per account)"),
  }),
};

export const venueSchema = z.preprocess(
  (v) => withPreset(v === null || v === undefined ? {} : v),
  strict(venueFields).superRefine((v, ctx) => {
    if (v.mode !== "live") return;
    // A typo'd or truncated id would authenticate nowhere (and name another journal): refused here,
    // before any request, where the venue's format is known.
    if (v.preset !== undefined && v.preset !== null && v.account_id !== "" && !ORDERLY_ACCOUNT_ID.test(v.account_id))
      ctx.addIssue({
        code: "custom",
        path: ["account_id"],
        message: `is not an account id of ${v.preset}: expected 0x and 64 hex digits (the id the venue shows for the account), got ${v.account_id.length} characters`,
      });
    for (const key of LIVE_REQUIRED) {
      if (v[key] === "") {
        const variable = venueFields[key].meta()?.env as string;
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `is required when venue.mode is live (set it here, with ${variable}, or with venue.preset)`,
        });
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
  }),
);
