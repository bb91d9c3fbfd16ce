/**
 * The configuration schema (README.md "Configuration" names the keys): sections in venueSchema.ts and
 * policySchema.ts, the rest here. Each leaf is documented where it is declared (schemaParts.ts `doc`):
 * its meaning and the environment variable that overrides it; the env mapping, the README table and
 * the default.yaml check are derived from that (fields.ts). Parsing `{}` yields the defaults.
 */
import { z } from "zod";
import { OVERRIDE_KEY } from "./configOverridesKey.js";
import { policySchema, unwindSchema } from "./policySchema.js";
import { protectionsSchema } from "./protectionsSchema.js";
import { doc, list, MAX_TIMER_MS, section, strict } from "./schemaParts.js";
import { venueSchema } from "./venueSchema.js";

export { SYMBOL_PATTERN } from "../engine/types.js";
export { ALLOWED_KEYS_MARK, isInsecureRemoteUrl, unknownKeyProblem } from "./schemaParts.js";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

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

const shadowVariantSchema = strict({
  name: z.string().min(1).max(64),
  set: z.record(z.string().regex(OVERRIDE_KEY, { error: "is not a dotted config key (e.g. policy.min_fee)" }), z.unknown()),
});

export const configSchema = strict({
  venue: venueSchema,
  simulator: section({
    seed: doc(z.number().int().default(1), "seed of the embedded simulated market"),
    market: doc(
      z.enum(["positions", "generator"]).default("positions"),
      "the embedded simulated market: `positions` (default: traders with positions and leverage, liquidated when their margin falls below maintenance as the marks move, the insurance fund taking what nobody claims) or `generator` (liquidations drawn at random, cascades on a timer: exact control for tests)",
      "LIQUIDATOR_SIM_MARKET",
    ),
    liquidations_per_second: doc(
      z.number().min(0).nullable().default(null),
      "mean liquidations per second of the embedded simulated market (`positions`: the rate its traders are sized for; cascades and quiet spells come from positions and prices); null: the market's own, 0.2 for `positions`, 2 for `generator`",
    ),
    flavor: doc(
      z.enum(["spec", "real"]).default("spec"),
      "how the embedded simulated venue answers: `spec` (default, as docs/protocol.md writes it) or `real`, as the real venue may (strings for the tier and the envelope time, `reduce_only: null`, 'data does not exist' (HTTP 500) for an unknown order, lean claim answers, `*_order` rewards names, an unknown code for a limit-price refusal)",
      "LIQUIDATOR_SIM_FLAVOR",
    ),
  }),
  policy: policySchema,
  unwind: unwindSchema,
  protections: protectionsSchema,
  metrics: section({
    host: doc(z.string().min(1).default("0.0.0.0"), "metrics server address, default `0.0.0.0`", "LIQUIDATOR_METRICS_HOST"),
    port: doc(
      z.number().int().min(0).max(65_535).default(9464),
      "metrics server port, default `9464`; 0 picks a free one and logs it",
      "LIQUIDATOR_METRICS_PORT",
    ),
  }),
  state: section({
    dir: doc(z.string().min(1).default("./data"), "claims journal folder, default `./data`", "LIQUIDATOR_STATE_DIR"),
    backend: doc(
      z.enum(["file", "postgres"]).default("file"),
      "`file` (default: the JSONL journal in `state.dir`) or `postgres`",
      "LIQUIDATOR_STATE_BACKEND",
    ),
    postgres_url: doc(
      z
        .string()
        .default("")
        .refine((u) => u === "" || /^postgres(ql)?:\/\//.test(u), { error: "must be a postgres:// or postgresql:// URL" }),
      "`postgres://…` connection string for `state.backend: postgres`; redacted wherever printed",
      "LIQUIDATOR_POSTGRES_URL",
    ),
    capture: doc(
      z.boolean().default(false),
      "`1`/`true`: the daemon also writes a capture (same format as `record`) under `state.dir/capture/`, one file per UTC day",
      "LIQUIDATOR_CAPTURE",
    ),
    capture_max_bytes: doc(
      z
        .number()
        .int()
        .refine((v) => v === 0 || v >= 1_000_000, { error: "must be 0 (half the volume's space) or at least 1000000" })
        .default(0),
      "size cap of `state.dir/capture/` (compressed bytes, the prepared files a backtest leaves beside the captures included): past it the oldest capture files are deleted first, with their prepared files; `0` (default): half the volume's free space at start; a cap larger than the volume's free space is refused at start",
    ),
  }).superRefine((v, ctx) => {
    if (v.backend === "postgres" && v.postgres_url === "") {
      ctx.addIssue({
        code: "custom",
        path: ["postgres_url"],
        message: "is required when state.backend is postgres (set it here or with LIQUIDATOR_POSTGRES_URL)",
      });
    }
  }),
  ha: section({
    failover_ms: doc(
      z.number().int().min(2_000).max(600_000).default(5_000),
      "with `state.backend: postgres`: a standby takes over within this long of the leader's death",
    ),
  }),
  log: section({
    level: doc(z.enum(LOG_LEVELS).default("info"), "pino level", "LIQUIDATOR_LOG_LEVEL"),
    pretty: doc(z.boolean().default(false), "human-readable log lines (default on for `npm start` in a terminal)", "LIQUIDATOR_LOG_PRETTY"),
  }),
  shadow: section({
    variants: doc(
      list(shadowVariantSchema).superRefine((variants, ctx) => {
        const seen = new Set<string>();
        variants.forEach((v, i) => {
          if (seen.has(v.name))
            ctx.addIssue({ code: "custom", path: [i, "name"], message: `${v.name} is given twice; names must be unique` });
          seen.add(v.name);
        });
      }),
      "shadow variants: a list of `{name, set: {KEY: value, …}}`; each decides on the live events with those config keys changed (the keys `backtest --set` takes), through the backtest's code, sends nothing and is scored in `liquidator_shadow_*{variant}` (docs/policy-lab.md)",
    ),
  }),
  forecast: section({
    enabled: doc(
      z.boolean().default(true),
      "poll the venue's platform positions for the liquidation heatmap (`liquidator_forecast_notional_quote`; no key needed)",
      "LIQUIDATOR_FORECAST",
    ),
    interval_s: doc(
      z.number().int().min(5).max(3_600).default(30),
      "seconds between heatmap polls (within the query API's own weight budget; the venue caches its answer 5 s)",
    ),
  }),
  insurance_fund: section({
    enabled: doc(
      z.boolean().default(false),
      "claim the insurance fund's positions (the open list's `type: \"claim\"` rows, docs/protocol.md §10) under the same policy, the fee at each symbol's `claim_insurance_fund_discount`; off: those rows are ignored",
      "LIQUIDATOR_INSURANCE_FUND",
    ),
    route: doc(
      z.enum(["claim_insurance_fund", "liquidation"]).default("claim_insurance_fund"),
      "the endpoint a fund row is claimed through: `claim_insurance_fund` (`POST /v1/claim_insurance_fund`, one symbol of the row per claim, its own 5/s limiter) or `liquidation` (`POST /v1/liquidation`, the row as a liquidation); unsettled on the venue, `preflight` probes it",
      "LIQUIDATOR_INSURANCE_FUND_ROUTE",
    ),
  }),
  rewards: section({
    poll_interval_ms: doc(
      z.number().int().min(1000).max(MAX_TIMER_MS).default(60_000),
      "how often epochs (and the campaign) are polled, ms",
    ),
    campaign: doc(campaignSchema.nullable().default(null), "campaign statistics to poll, or null"),
  }),
});

export type Config = z.output<typeof configSchema>;
export type PolicyConfig = Config["policy"];
