import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { base58 } from "@scure/base";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parse as parseYaml, stringify } from "yaml";
import { withConfigTables } from "../../src/config/configDocs.js";
import { ENV_OVERRIDES_FOR_TESTS } from "../../src/config/envOverrides.js";
import { configFields } from "../../src/config/fields.js";
import { liveLimitProblems } from "../../src/config/liveLimits.js";
import { type LoadedConfig, loadConfig } from "../../src/config/loadConfig.js";
import { renderEffectiveConfig, renderEffectiveConfigJson } from "../../src/config/redact.js";
import { reloadPolicy } from "../../src/config/reloadPolicy.js";
import { ConfigError } from "../../src/errors.js";
import { REDACTED } from "../../src/redaction.js";
import { SIM_FLAVORS } from "../../src/sim/flavor.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import { defaultConfig } from "../support/defaultConfig.js";

let dir: string;
let fileCounter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "liq-config-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeTemp(text: string, mode = 0o600): Promise<string> {
  const path = join(dir, `c${fileCounter++}.yaml`);
  await writeFile(path, text);
  await chmod(path, mode); // explicit: the umask must not decide what the test checks
  return path;
}

/** Loads `doc` (an object written as YAML, raw YAML text, or no file) with `env`. */
async function load(doc: unknown, env: NodeJS.ProcessEnv = {}): Promise<LoadedConfig> {
  if (doc === undefined) return loadConfig({ env });
  const text = typeof doc === "string" ? doc : stringify(doc);
  return loadConfig({ path: await writeTemp(text), env });
}

async function configError(doc: unknown, env: NodeJS.ProcessEnv = {}): Promise<ConfigError> {
  try {
    await load(doc, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError, config loaded");
}

const https = {
  base_url: "https://api.example.com",
  ws_url: "wss://ws.example.com",
  ws_private_url: "wss://ws-private.example.com",
  account_id: "0xabc123",
};
const liveVenue = { mode: "live", ...https };

describe("invalid configurations name the key", () => {
  const secret = generateKeyPair().secret;
  const cases: { name: string; doc: unknown; env?: NodeJS.ProcessEnv; key: string; says?: RegExp }[] = [
    { name: "unknown top-level key", doc: { metrix: {} }, key: "metrix", says: /unknown key.*did you mean metrics/ },
    {
      name: "unknown nested key",
      doc: { venue: { bas_url: "https://x.example" } },
      key: "venue.bas_url",
      says: /expected one of: .*base_url/,
    },
    {
      name: "unknown key inside per_symbol",
      doc: { policy: { per_symbol: { PERP_BTC_USDC: { min_fe: 1 } } } },
      key: "policy.per_symbol.PERP_BTC_USDC.min_fe",
      says: /did you mean min_fee/,
    },
    {
      name: "policy key that per_symbol may not override",
      doc: { policy: { per_symbol: { PERP_BTC_USDC: { dry_run: true } } } },
      key: "policy.per_symbol.PERP_BTC_USDC.dry_run",
      says: /unknown key/,
    },
    { name: "secret in YAML (top level)", doc: { secret: "whatever" }, key: "secret", says: /LIQUIDATOR_SECRET or LIQUIDATOR_SECRET_FILE/ },
    {
      name: "secret in YAML (venue)",
      doc: { venue: { secret: "whatever" } },
      key: "venue.secret",
      says: /never read from the config file/,
    },
    {
      name: "wrong type (string for number)",
      doc: { policy: { min_fee: "abc" } },
      key: "policy.min_fee",
      says: /expected a number, got a string/,
    },
    { name: "wrong type (number for boolean)", doc: { policy: { dry_run: 1 } }, key: "policy.dry_run", says: /expected true or false/ },
    { name: "wrong type (section is a list)", doc: { venue: [1] }, key: "venue", says: /expected a mapping/ },
    { name: "non-integer duration", doc: { policy: { max_mark_age_ms: 1.5 } }, key: "policy.max_mark_age_ms", says: /integer/ },
    { name: "negative bps", doc: { policy: { limit_price_slippage_bps: -1 } }, key: "policy.limit_price_slippage_bps", says: />= 0/ },
    { name: "bps > 10000", doc: { policy: { limit_price_slippage_bps: 10001 } }, key: "policy.limit_price_slippage_bps", says: /<= 10000/ },
    {
      name: "per_symbol bps > 10000",
      doc: { policy: { per_symbol: { PERP_BTC_USDC: { limit_price_slippage_bps: 20000 } } } },
      key: "policy.per_symbol.PERP_BTC_USDC.limit_price_slippage_bps",
      says: /<= 10000/,
    },
    { name: "zero claim cap", doc: { policy: { max_claim_notional: 0 } }, key: "policy.max_claim_notional", says: /> 0/ },
    { name: "negative exposure cap", doc: { policy: { max_total_exposure: -5 } }, key: "policy.max_total_exposure", says: /> 0/ },
    { name: "negative min_fee", doc: { policy: { min_fee: -0.01 } }, key: "policy.min_fee", says: />= 0/ },
    {
      name: "per_symbol negative min_fee",
      doc: { policy: { per_symbol: { PERP_ETH_USDC: { min_fee: -1 } } } },
      key: "policy.per_symbol.PERP_ETH_USDC.min_fee",
    },
    { name: "zero mark age", doc: { policy: { max_mark_age_ms: 0 } }, key: "policy.max_mark_age_ms", says: /> 0/ },
    {
      name: "bad symbol in allow list",
      doc: { policy: { symbols: { allow: ["PERP_BTC_USDC", "btc"] } } },
      key: "policy.symbols.allow[1]",
      says: /PERP_<BASE>_<QUOTE>/,
    },
    { name: "bad symbol in deny list", doc: { policy: { symbols: { deny: ["PERP_BTC"] } } }, key: "policy.symbols.deny[0]" },
    {
      name: "bad per_symbol symbol",
      doc: { policy: { per_symbol: { perp_btc_usdc: { min_fee: 1 } } } },
      key: "policy.per_symbol.perp_btc_usdc",
      says: /not a venue symbol/,
    },
    { name: "port out of range in YAML", doc: { metrics: { port: 70000 } }, key: "metrics.port", says: /<= 65535/ },
    { name: "poll interval below 1000", doc: { rewards: { poll_interval_ms: 999 } }, key: "rewards.poll_interval_ms", says: />= 1000/ },
    { name: "unknown log level", doc: { log: { level: "loud" } }, key: "log.level", says: /one of: fatal, error/ },
    { name: "unknown mode", doc: { venue: { mode: "prod" } }, key: "venue.mode", says: /simulator, live/ },
    { name: "REST URL with ws scheme", doc: { venue: { base_url: "wss://x.example" } }, key: "venue.base_url", says: /https:\/\// },
    { name: "stream URL with https scheme", doc: { venue: { ws_url: "https://x.example" } }, key: "venue.ws_url", says: /wss:\/\// },
    { name: "not a URL", doc: { venue: { ws_private_url: "x.example" } }, key: "venue.ws_private_url", says: /not a valid URL/ },
    { name: "credentials in URL", doc: { venue: { base_url: "https://u:p@x.example" } }, key: "venue.base_url", says: /credentials/ },
    {
      name: "campaign with both account_id and address",
      doc: { rewards: { campaign: { campaign_id: 7, account_id: "0x1", address: "0x2" } } },
      key: "rewards.campaign",
      says: /exactly one of account_id \/ address/,
    },
    { name: "campaign with neither", doc: { rewards: { campaign: { campaign_id: 7 } } }, key: "rewards.campaign" },
    {
      name: "live without base_url",
      doc: { venue: { ...liveVenue, base_url: "" } },
      env: { LIQUIDATOR_SECRET: secret },
      key: "venue.base_url",
      says: /required when venue.mode is live/,
    },
    {
      name: "live without account_id",
      doc: { venue: { ...liveVenue, account_id: "" } },
      env: { LIQUIDATOR_SECRET: secret },
      key: "venue.account_id",
      says: /LIQUIDATOR_ACCOUNT_ID/,
    },
    { name: "live without secret", doc: { venue: liveVenue }, key: "LIQUIDATOR_SECRET", says: /no secret is set/ },
    {
      name: "live with plain http to a remote host",
      doc: { venue: { ...liveVenue, base_url: "http://api.example.com" } },
      env: { LIQUIDATOR_SECRET: secret },
      key: "venue.base_url",
      says: /venue.mode: live refuses plain http:\/\/ \/ ws:\/\/ URLs unless venue.allow_insecure: true/,
    },
    {
      name: "live with plain ws to a remote host",
      doc: { venue: { ...liveVenue, ws_private_url: "ws://10.0.0.5:8080" } },
      env: { LIQUIDATOR_SECRET: secret },
      key: "venue.ws_private_url",
      says: /allow_insecure/,
    },
    {
      name: "both secret variables",
      doc: undefined,
      env: { LIQUIDATOR_SECRET: secret, LIQUIDATOR_SECRET_FILE: "/nonexistent" },
      key: "LIQUIDATOR_SECRET",
      says: /set only one/,
    },
    {
      name: "env bad boolean",
      doc: undefined,
      env: { LIQUIDATOR_DRY_RUN: "maybe" },
      key: "LIQUIDATOR_DRY_RUN",
      says: /policy\.dry_run.*1, true, yes, 0, false, no/,
    },
    {
      name: "env bad boolean (insecure)",
      doc: undefined,
      env: { LIQUIDATOR_ALLOW_INSECURE: "2" },
      key: "LIQUIDATOR_ALLOW_INSECURE",
      says: /venue\.allow_insecure/,
    },
    {
      name: "env bad boolean (pretty)",
      doc: undefined,
      env: { LIQUIDATOR_LOG_PRETTY: "on" },
      key: "LIQUIDATOR_LOG_PRETTY",
      says: /log\.pretty/,
    },
    {
      name: "env port not a number",
      doc: undefined,
      env: { LIQUIDATOR_METRICS_PORT: "http" },
      key: "LIQUIDATOR_METRICS_PORT",
      says: /metrics\.port.*must be a number/,
    },
    { name: "env port too large", doc: undefined, env: { LIQUIDATOR_METRICS_PORT: "65536" }, key: "LIQUIDATOR_METRICS_PORT" },
    { name: "env port negative", doc: undefined, env: { LIQUIDATOR_METRICS_PORT: "-1" }, key: "LIQUIDATOR_METRICS_PORT" },
    {
      name: "env bad mode (schema-checked)",
      doc: undefined,
      env: { LIQUIDATOR_VENUE: "prod" },
      key: "LIQUIDATOR_VENUE",
      says: /venue\.mode.*simulator, live/,
    },
    {
      name: "env bad URL (schema-checked)",
      doc: undefined,
      env: { LIQUIDATOR_BASE_URL: "ftp://x" },
      key: "LIQUIDATOR_BASE_URL",
      says: /venue\.base_url/,
    },
  ];

  test.each(cases)("$name → $key", async ({ doc, env, key, says }) => {
    const err = await configError(doc, env);
    expect(err.key).toBe(key);
    expect(err.code).toBe("LIQ_CONFIG");
    expect(err.message).toContain(key);
    if (says !== undefined) expect(err.message).toMatch(says);
  });

  test("a secret pasted into the YAML is refused without echoing it", async () => {
    const pasted = generateKeyPair().secret;
    const err = await configError({ venue: { private_key: pasted }, secret: pasted });
    expect(err.key).toBe("venue.private_key");
    expect(err.message).toContain("config secret:");
    expect(err.message).not.toContain(pasted);
  });

  test("several problems are all reported, key of the first in .key", async () => {
    const err = await configError({ policy: { min_fee: -1, limit_price_slippage_bps: 99999 }, metrix: 1 }, { LIQUIDATOR_DRY_RUN: "x" });
    expect(err.key).toBe("LIQUIDATOR_DRY_RUN");
    for (const key of ["LIQUIDATOR_DRY_RUN", "policy.min_fee", "policy.limit_price_slippage_bps", "metrix"]) {
      expect(err.message).toContain(`config ${key}:`);
    }
    expect(err.message.split("\n")).toHaveLength(4);
  });

  test("a cross-field problem is reported alongside a type error elsewhere", async () => {
    const err = await configError({ venue: { mode: "live" }, policy: { min_fee: "x" } }, { LIQUIDATOR_SECRET: secret });
    expect(err.message).toContain("venue.base_url");
    expect(err.message).toContain("policy.min_fee");
  });
});

describe("file-level problems", () => {
  test("missing file names the file", async () => {
    const path = join(dir, "does-not-exist.yaml");
    const err = await loadConfig({ path, env: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe(path);
    expect((err as ConfigError).message).toMatch(/no such file/);
  });

  test("LIQUIDATOR_CONFIG is used when no path is given, and a missing one is an error too", async () => {
    const path = await writeTemp(stringify({ policy: { min_fee: 7 } }));
    expect((await loadConfig({ env: { LIQUIDATOR_CONFIG: path } })).config.policy.min_fee).toBe(7);
    expect((await loadConfig({ env: { LIQUIDATOR_CONFIG: path } })).path).toBe(path);
    const other = await writeTemp(stringify({ policy: { min_fee: 8 } }));
    expect((await loadConfig({ path: other, env: { LIQUIDATOR_CONFIG: path } })).config.policy.min_fee).toBe(8);
    const missing = join(dir, "nope.yaml");
    await expect(loadConfig({ env: { LIQUIDATOR_CONFIG: missing } })).rejects.toMatchObject({ key: missing });
  });

  test("YAML syntax error gives the line and does not quote the source", async () => {
    const err = await configError("policy:\n  min_fee: 1\n  symbols: [PERP_BTC_USDC\nlog: {}\nsecret_text_here: 1\n");
    expect(err.message).toMatch(/YAML syntax error at line \d+, column \d+/);
    expect(err.message).not.toContain("secret_text_here");
    expect(err.message).not.toContain("\n");
  });

  test("duplicate keys are a syntax error with the line", async () => {
    const err = await configError("policy:\n  min_fee: 1\n  min_fee: 2\n");
    expect(err.message).toMatch(/line 3/);
  });

  test("top level that is not a mapping", async () => {
    const err = await configError("- 1\n- 2\n");
    expect(err.message).toMatch(/top level must be a mapping/);
  });

  test("empty file and comment-only file mean defaults", async () => {
    expect((await load("")).config).toEqual(defaultConfig());
    expect((await load("# nothing here\n")).config).toEqual(defaultConfig());
  });
});

describe("defaults", () => {
  test("no file and no environment = the documented defaults", async () => {
    const { config, secret, path } = await loadConfig({ env: {} });
    expect(path).toBeUndefined();
    expect(secret).toBeUndefined();
    expect(config).toEqual(defaultConfig());
    expect(config.venue.mode).toBe("simulator");
    expect(config.venue.header_prefix).toBe("service");
    expect(config.venue.limits).toEqual({
      public_per_second: 10,
      claims_per_second: 5,
      admin_orders_per_second: 10,
      account_reads_per_second: 3,
      orders_per_second: 10,
    });
    expect(config.policy).toMatchObject({
      dry_run: false,
      max_claim_notional: 50000,
      max_total_exposure: 250000,
      min_fee: 1,
      limit_price_slippage_bps: 50,
      max_mark_age_ms: 3000,
    });
    expect(config.metrics).toEqual({ host: "0.0.0.0", port: 9464 });
    expect(config.state.dir).toBe("./data");
    expect(config.log).toEqual({ level: "info", pretty: false });
    expect(config.rewards).toEqual({ poll_interval_ms: 60000, campaign: null });
  });

  test("config/default.yaml loads to exactly the schema defaults", async () => {
    const path = join(import.meta.dirname, "../../config/default.yaml");
    const loaded = await loadConfig({ path, env: {} });
    expect(loaded.config).toEqual(defaultConfig());
  });

  test("config/default.yaml spells out every key of the defaults", async () => {
    const path = join(import.meta.dirname, "../../config/default.yaml");
    const raw = parseYaml(await readFile(path, "utf8")) as Record<string, unknown>;
    const missing: string[] = [];
    const walk = (defaults: unknown, doc: unknown, prefix: string): void => {
      if (typeof defaults !== "object" || defaults === null || Array.isArray(defaults)) return;
      for (const [k, v] of Object.entries(defaults)) {
        const d = (doc as Record<string, unknown> | null | undefined)?.[k];
        if (d === undefined) missing.push(`${prefix}${k}`);
        else walk(v, d, `${prefix}${k}.`);
      }
    };
    walk(defaultConfig(), raw, "");
    expect(missing).toEqual([]);
  });

  test("config/default.yaml documents every key with its environment variable (both derived from the schema)", async () => {
    const text = await readFile(join(import.meta.dirname, "../../config/default.yaml"), "utf8");
    const fields = configFields();
    expect(fields.length).toBeGreaterThan(20);
    for (const f of fields) {
      const leaf = f.key.split(".").at(-1) as string;
      expect(text, f.key).toMatch(new RegExp(`^\\s*${leaf}:`, "m"));
      if (f.env !== undefined) expect(text, `${f.key} names ${f.env}`).toContain(`env: ${f.env}`);
    }
  });

  test("the PostgreSQL URL is required for the postgres backend, and never printed with its password", async () => {
    await expect(loadConfig({ env: { LIQUIDATOR_STATE_BACKEND: "postgres" } })).rejects.toThrow(/state\.postgres_url.*required/);
    const loaded = await loadConfig({
      env: { LIQUIDATOR_STATE_BACKEND: "postgres", LIQUIDATOR_POSTGRES_URL: "postgres://liq:hunter2@db:5432/liq" },
    });
    expect(renderEffectiveConfig(loaded)).not.toContain("hunter2");
    expect(renderEffectiveConfigJson(loaded)).not.toContain("hunter2");
    expect(renderEffectiveConfig(loaded)).toContain("db:5432");
  });

  test("simulator.flavor takes exactly the simulator's flavors (declared twice: config/ may not import sim/)", async () => {
    for (const flavor of SIM_FLAVORS) {
      expect((await loadConfig({ env: { LIQUIDATOR_SIM_FLAVOR: flavor } })).config.simulator.flavor).toBe(flavor);
    }
    await expect(loadConfig({ env: { LIQUIDATOR_SIM_FLAVOR: "live" } })).rejects.toThrow(/simulator\.flavor/);
    expect(defaultConfig().simulator.flavor).toBe("spec");
  });

  test("a venue preset fills the real venue's URLs and header prefix; explicit keys win", async () => {
    const secret = generateKeyPair().secret;
    const { config } = await loadConfig({
      env: {
        LIQUIDATOR_VENUE: "live",
        LIQUIDATOR_VENUE_PRESET: "orderly-mainnet",
        LIQUIDATOR_ACCOUNT_ID: `0x${"ab".repeat(32)}`,
        LIQUIDATOR_SECRET: secret,
      },
    });
    expect(config.venue).toMatchObject({
      base_url: "https://api.orderly.org",
      ws_url: "wss://ws-evm.orderly.org",
      ws_private_url: "wss://ws-private-evm.orderly.org",
      header_prefix: "orderly",
    });
    const path = await writeTemp(stringify({ venue: { preset: "orderly-testnet", base_url: "https://proxy.example" } }));
    const mixed = await loadConfig({ path, env: { LIQUIDATOR_WS_URL: "wss://ws.proxy.example" } });
    expect(mixed.config.venue).toMatchObject({
      base_url: "https://proxy.example",
      ws_url: "wss://ws.proxy.example",
      ws_private_url: "wss://testnet-ws-private-evm.orderly.org",
      header_prefix: "orderly",
    });
  });

  test("null sections and lists (left empty in YAML) mean defaults", async () => {
    const { config } = await load("venue:\npolicy:\n  symbols:\n    allow:\n  per_symbol:\nrewards:\n  campaign:\n");
    expect(config).toEqual(defaultConfig());
  });

  test("a per_symbol entry left empty means no overrides", async () => {
    const { config } = await load("policy:\n  per_symbol:\n    PERP_BTC_USDC:\n");
    expect(config.policy.per_symbol).toEqual({ PERP_BTC_USDC: {} });
  });

  test("URLs are trimmed and lose a trailing slash (paths are appended to them)", async () => {
    const { config } = await load({ venue: { base_url: " https://api.example.com/v/ ", ws_url: "wss://ws.example.com/" } });
    expect(config.venue.base_url).toBe("https://api.example.com/v");
    expect(config.venue.ws_url).toBe("wss://ws.example.com");
  });
});

describe("environment over YAML", () => {
  const yamlValues = {
    venue: {
      mode: "simulator",
      base_url: "https://yaml.example",
      ws_url: "wss://yaml.example",
      ws_private_url: "wss://yaml-private.example",
      header_prefix: "yaml",
      account_id: "yaml-account",
      allow_insecure: false,
    },
    metrics: { host: "127.0.0.1", port: 1111 },
    state: { dir: "/yaml/state", backend: "postgres", postgres_url: "postgres://yaml@db:5432/liq" },
    policy: { dry_run: false },
    log: { level: "warn", pretty: false },
  };
  const overrides: { variable: string; value: string; pick: (c: LoadedConfig["config"]) => unknown; expected: unknown }[] = [
    { variable: "LIQUIDATOR_VENUE", value: "live", pick: (c) => c.venue.mode, expected: "live" },
    { variable: "LIQUIDATOR_BASE_URL", value: "https://env.example/", pick: (c) => c.venue.base_url, expected: "https://env.example" },
    { variable: "LIQUIDATOR_WS_URL", value: "wss://env.example", pick: (c) => c.venue.ws_url, expected: "wss://env.example" },
    {
      variable: "LIQUIDATOR_WS_PRIVATE_URL",
      value: "wss://env-private.example",
      pick: (c) => c.venue.ws_private_url,
      expected: "wss://env-private.example",
    },
    { variable: "LIQUIDATOR_HEADER_PREFIX", value: "orderly", pick: (c) => c.venue.header_prefix, expected: "orderly" },
    { variable: "LIQUIDATOR_ACCOUNT_ID", value: "0xenv", pick: (c) => c.venue.account_id, expected: "0xenv" },
    { variable: "LIQUIDATOR_ALLOW_INSECURE", value: "yes", pick: (c) => c.venue.allow_insecure, expected: true },
    { variable: "LIQUIDATOR_CLAIM_REHEARSAL_MS", value: "0", pick: (c) => c.venue.claim_rehearsal_ms, expected: 0 },
    { variable: "LIQUIDATOR_METRICS_HOST", value: "::", pick: (c) => c.metrics.host, expected: "::" },
    { variable: "LIQUIDATOR_METRICS_PORT", value: "0", pick: (c) => c.metrics.port, expected: 0 },
    { variable: "LIQUIDATOR_STATE_DIR", value: "/env/state", pick: (c) => c.state.dir, expected: "/env/state" },
    { variable: "LIQUIDATOR_DRY_RUN", value: "1", pick: (c) => c.policy.dry_run, expected: true },
    { variable: "LIQUIDATOR_MAX_CLAIM_NOTIONAL", value: "2500", pick: (c) => c.policy.max_claim_notional, expected: 2_500 },
    { variable: "LIQUIDATOR_MAX_TOTAL_EXPOSURE", value: "12000.5", pick: (c) => c.policy.max_total_exposure, expected: 12_000.5 },
    { variable: "LIQUIDATOR_MIN_FEE", value: "0", pick: (c) => c.policy.min_fee, expected: 0 },
    { variable: "LIQUIDATOR_MAX_MARGIN_USAGE", value: "0.8", pick: (c) => c.policy.max_margin_usage, expected: 0.8 },
    { variable: "LIQUIDATOR_MIN_FREE_COLLATERAL", value: "250", pick: (c) => c.policy.min_free_collateral, expected: 250 },
    { variable: "LIQUIDATOR_CAPTURE", value: "true", pick: (c) => c.state.capture, expected: true },
    { variable: "LIQUIDATOR_LOG_LEVEL", value: "debug", pick: (c) => c.log.level, expected: "debug" },
    { variable: "LIQUIDATOR_LOG_PRETTY", value: "TRUE", pick: (c) => c.log.pretty, expected: true },
    { variable: "LIQUIDATOR_VENUE_PRESET", value: "orderly-testnet", pick: (c) => c.venue.preset, expected: "orderly-testnet" },
    { variable: "LIQUIDATOR_UNWIND_MODE", value: "off", pick: (c) => c.unwind.mode, expected: "off" },
    { variable: "LIQUIDATOR_UNWIND_SCOPE", value: "all", pick: (c) => c.unwind.scope, expected: "all" },
    { variable: "LIQUIDATOR_STATE_BACKEND", value: "file", pick: (c) => c.state.backend, expected: "file" },
    { variable: "LIQUIDATOR_SIM_FLAVOR", value: "real", pick: (c) => c.simulator.flavor, expected: "real" },
    { variable: "LIQUIDATOR_SIM_MARKET", value: "generator", pick: (c) => c.simulator.market, expected: "generator" },
    { variable: "LIQUIDATOR_FORECAST", value: "0", pick: (c) => c.forecast.enabled, expected: false },
    { variable: "LIQUIDATOR_INSURANCE_FUND", value: "1", pick: (c) => c.insurance_fund.enabled, expected: true },
    {
      variable: "LIQUIDATOR_INSURANCE_FUND_ROUTE",
      value: "liquidation",
      pick: (c) => c.insurance_fund.route,
      expected: "liquidation",
    },
    {
      variable: "LIQUIDATOR_POSTGRES_URL",
      value: "postgres://u:p@db:5432/liq",
      pick: (c) => c.state.postgres_url,
      expected: "postgres://u:p@db:5432/liq",
    },
  ];

  test("the table covers every override variable", () => {
    expect(overrides.map((o) => o.variable).sort()).toEqual(ENV_OVERRIDES_FOR_TESTS.map((o) => o.variable).sort());
  });

  test.each(overrides)("$variable overrides its key", async ({ variable, value, pick, expected }) => {
    const path = await writeTemp(stringify(yamlValues));
    // live mode needs a secret; give one to every case so each checks only its own variable
    const env = { [variable]: value, LIQUIDATOR_SECRET: generateKeyPair().secret };
    const without = await loadConfig({ path, env: { LIQUIDATOR_SECRET: env.LIQUIDATOR_SECRET } });
    expect(pick(without.config)).not.toEqual(expected);
    const loaded = await loadConfig({ path, env });
    expect(pick(loaded.config)).toEqual(expected);
    expect(loaded.envOverrides).toEqual([variable]);
  });

  test.each([
    ["1", true],
    ["true", true],
    ["Yes", true],
    ["TRUE", true],
    ["0", false],
    ["false", false],
    ["NO", false],
    [" no ", false],
  ])("boolean word %j = %s", async (word, expected) => {
    const base = await writeTemp(stringify({ policy: { dry_run: !expected } }));
    const { config } = await loadConfig({ path: base, env: { LIQUIDATOR_DRY_RUN: word } });
    expect(config.policy.dry_run).toBe(expected);
  });

  test("an empty variable counts as unset", async () => {
    const { config, envOverrides } = await load({ metrics: { port: 1234 } }, { LIQUIDATOR_METRICS_PORT: "", LIQUIDATOR_SECRET: "" });
    expect(config.metrics.port).toBe(1234);
    expect(envOverrides).toEqual([]);
  });
});

describe("live mode", () => {
  const secret = generateKeyPair().secret;

  test("complete https config with a secret is accepted", async () => {
    const loaded = await load({ venue: liveVenue }, { LIQUIDATOR_SECRET: secret });
    expect(loaded.config.venue.mode).toBe("live");
    expect(loaded.secret).toBe(secret);
    expect(loaded.secretSource).toBe("LIQUIDATOR_SECRET");
  });

  test("plain URLs to a remote host are accepted with allow_insecure", async () => {
    const venue = { ...liveVenue, base_url: "http://api.example.com", ws_url: "ws://ws.example.com", allow_insecure: true };
    const { config } = await load({ venue }, { LIQUIDATOR_SECRET: secret });
    expect(config.venue.base_url).toBe("http://api.example.com");
    const viaEnv = await load(
      { venue: { ...venue, allow_insecure: false } },
      { LIQUIDATOR_SECRET: secret, LIQUIDATOR_ALLOW_INSECURE: "true" },
    );
    expect(viaEnv.config.venue.allow_insecure).toBe(true);
  });

  test.each(["http://127.0.0.1:8080", "http://127.3.2.1", "http://localhost:9000", "http://[::1]:8080"])(
    "plain URL to loopback %s is accepted without allow_insecure",
    async (url) => {
      const ws = url.replace(/^http/, "ws");
      const { config } = await load(
        { venue: { ...liveVenue, base_url: url, ws_url: ws, ws_private_url: ws } },
        { LIQUIDATOR_SECRET: secret },
      );
      expect(config.venue.allow_insecure).toBe(false);
      expect(config.venue.base_url).toBe(url);
    },
  );

  test("limits left to their built-in values are named; set in the file or the environment they are given", async () => {
    const partial = await load({ venue: liveVenue, policy: { max_claim_notional: 2_000 } }, { LIQUIDATOR_SECRET: secret });
    expect(liveLimitProblems(partial.config, partial.given ?? new Set()).map((p) => p.key)).toEqual([
      "policy.max_total_exposure",
      "policy.min_fee",
    ]);
    const full = await load(
      { venue: liveVenue, policy: { max_claim_notional: 2_000, max_total_exposure: 9_000, min_fee: 0 } },
      { LIQUIDATOR_SECRET: secret },
    );
    expect(liveLimitProblems(full.config, full.given ?? new Set())).toEqual([]);
    const viaEnv = await load(
      { venue: liveVenue },
      { LIQUIDATOR_SECRET: secret, LIQUIDATOR_MAX_CLAIM_NOTIONAL: "2000", LIQUIDATOR_MAX_TOTAL_EXPOSURE: "9000", LIQUIDATOR_MIN_FEE: "1" },
    );
    expect(liveLimitProblems(viaEnv.config, viaEnv.given ?? new Set())).toEqual([]);
    // Outside live mode the built-in values are what the simulator is sized for.
    const sim = await load({});
    expect(liveLimitProblems(sim.config, sim.given ?? new Set())).toEqual([]);
  });

  test("plain URLs are fine in simulator mode", async () => {
    const { config } = await load({ venue: { base_url: "http://10.1.2.3:8080" } });
    expect(config.venue.base_url).toBe("http://10.1.2.3:8080");
  });
});

describe("secret", () => {
  test("malformed secret: ConfigError on LIQUIDATOR_SECRET that never echoes it", async () => {
    const texts = [base58.encode(randomBytes(31)), base58.encode(randomBytes(40)), `${generateKeyPair().secret.slice(0, 40)}0OIl`];
    for (const text of texts) {
      const err = await configError(undefined, { LIQUIDATOR_SECRET: text });
      expect(err.key).toBe("LIQUIDATOR_SECRET");
      expect(err.message).toContain("LIQUIDATOR_SECRET");
      expect(err.message).not.toContain(text);
      expect(err.message).not.toContain(text.slice(0, 12));
    }
  });

  test("an ed25519:-prefixed secret and surrounding whitespace are accepted", async () => {
    const { secret } = generateKeyPair();
    expect((await load(undefined, { LIQUIDATOR_SECRET: `ed25519:${secret}` })).secret).toBe(`ed25519:${secret}`);
    expect((await load(undefined, { LIQUIDATOR_SECRET: ` ${secret}\n` })).secret).toBe(secret);
  });

  test("secret file with mode 0600 is read (trimmed)", async () => {
    const { secret } = generateKeyPair();
    const path = join(dir, "secret-ok");
    await writeFile(path, `${secret}\n`);
    await chmod(path, 0o600);
    const loaded = await load({ venue: liveVenue }, { LIQUIDATOR_SECRET_FILE: path });
    expect(loaded.secret).toBe(secret);
    expect(loaded.secretSource).toBe("LIQUIDATOR_SECRET_FILE");
  });

  test.each([0o644, 0o640, 0o604, 0o660])("secret file with mode %o is refused with chmod advice", async (mode) => {
    const { secret } = generateKeyPair();
    const path = join(dir, `secret-${mode.toString(8)}`);
    await writeFile(path, secret);
    await chmod(path, mode);
    const err = await configError(undefined, { LIQUIDATOR_SECRET_FILE: path });
    expect(err.key).toBe("LIQUIDATOR_SECRET_FILE");
    expect(err.message).toContain(path);
    expect(err.message).toContain(`chmod 600 ${path}`);
    expect(err.message).not.toContain(secret);
  });

  test("missing, empty or malformed secret file is refused without echoing content", async () => {
    await expect(load(undefined, { LIQUIDATOR_SECRET_FILE: join(dir, "no-secret") })).rejects.toMatchObject({
      key: "LIQUIDATOR_SECRET_FILE",
    });
    const empty = join(dir, "secret-empty");
    await writeFile(empty, "\n");
    await chmod(empty, 0o600);
    await expect(load(undefined, { LIQUIDATOR_SECRET_FILE: empty })).rejects.toThrow(/empty/);
    const bad = join(dir, "secret-bad");
    const text = base58.encode(randomBytes(20));
    await writeFile(bad, text);
    await chmod(bad, 0o600);
    const err = await configError(undefined, { LIQUIDATOR_SECRET_FILE: bad });
    expect(err.key).toBe("LIQUIDATOR_SECRET_FILE");
    expect(err.message).not.toContain(text);
  });
});

describe("effective config rendering", () => {
  test("YAML shows <redacted>, the source and public key, never the secret, and loads back", async () => {
    const pair = generateKeyPair();
    const loaded = await load(
      { venue: liveVenue, policy: { per_symbol: { PERP_BTC_USDC: { min_fee: 2 } } } },
      { LIQUIDATOR_SECRET: pair.secret, LIQUIDATOR_DRY_RUN: "1" },
    );
    const out = renderEffectiveConfig(loaded);
    expect(out).not.toContain(pair.secret);
    expect(out).toContain(REDACTED);
    expect(out).toContain("LIQUIDATOR_SECRET");
    expect(out).toContain(pair.publicKey);
    expect(out).toContain("LIQUIDATOR_DRY_RUN");
    const again = await load(out, { LIQUIDATOR_SECRET: pair.secret });
    expect(again.config).toEqual(loaded.config);
  });

  test("JSON form carries the same facts and no secret", async () => {
    const pair = generateKeyPair();
    const loaded = await load({ venue: liveVenue }, { LIQUIDATOR_SECRET: pair.secret });
    const out = renderEffectiveConfigJson(loaded);
    expect(out).not.toContain(pair.secret);
    const parsed = JSON.parse(out) as { config: unknown; secret: { set: boolean; value: string; public_key: string } };
    expect(parsed.config).toEqual(loaded.config);
    expect(parsed.secret).toMatchObject({ set: true, value: REDACTED, public_key: pair.publicKey });
  });

  test("the secret is scrubbed even if it was pasted into another key", async () => {
    const pair = generateKeyPair();
    const loaded = await load({ state: { dir: `/data/${pair.secret}` } }, { LIQUIDATOR_SECRET: pair.secret });
    expect(renderEffectiveConfig(loaded)).not.toContain(pair.secret);
    expect(renderEffectiveConfigJson(loaded)).not.toContain(pair.secret);
  });
});

describe("reloadPolicy", () => {
  test("valid file: ok with the new policy and keys needing a restart", async () => {
    const path = await writeTemp(stringify({ policy: { min_fee: 3 } }));
    const current = (await loadConfig({ path, env: {} })).config;
    await writeFile(path, stringify({ policy: { min_fee: 5 }, metrics: { port: 1 } }));
    const result = await reloadPolicy(path, {}, current);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.policy.min_fee).toBe(5);
    expect(result.needsRestart).toEqual(["metrics.port"]);
  });

  test("every changed key old → new; policy, unwind, protections and shadow apply now, the rest after a restart", async () => {
    const path = await writeTemp(stringify({ policy: { min_fee: 3 }, unwind: { max_slippage_bps: 10 } }));
    const current = (await loadConfig({ path, env: {} })).config;
    await writeFile(
      path,
      stringify({
        policy: { min_fee: 3, symbols: { deny: ["PERP_ETH_USDC"] } },
        unwind: { max_slippage_bps: 40, hold: ["PERP_BTC_USDC"] },
        protections: { daily_loss_limit: 500 },
        state: { backend: "postgres", postgres_url: "postgres://liq:hunter2@db:5432/liq" },
      }),
    );
    const result = await reloadPolicy(path, {}, current);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.changes).toEqual([
      { key: "policy.symbols.deny", from: [], to: ["PERP_ETH_USDC"], live: true },
      { key: "protections.daily_loss_limit", from: null, to: 500, live: true },
      { key: "state.backend", from: "file", to: "postgres", live: false },
      { key: "state.postgres_url", from: "", to: expect.not.stringContaining("hunter2"), live: false },
      { key: "unwind.hold", from: [], to: ["PERP_BTC_USDC"], live: true },
      { key: "unwind.max_slippage_bps", from: 10, to: 40, live: true },
    ]);
    expect(result.needsRestart).toEqual(["state.backend", "state.postgres_url"]);
  });

  test("invalid file: not ok, never throws", async () => {
    const path = await writeTemp(stringify({ policy: { min_fee: -3 } }));
    const result = await reloadPolicy(path, {});
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.key).toBe("policy.min_fee");
    const missing = await reloadPolicy(join(dir, "gone.yaml"), {});
    expect(missing.ok).toBe(false);
  });

  test("live mode: a reload that drops an explicit limit is refused, the running policy kept", async () => {
    const env = { LIQUIDATOR_SECRET: generateKeyPair().secret };
    const path = await writeTemp(
      stringify({ venue: liveVenue, policy: { max_claim_notional: 2_000, max_total_exposure: 9_000, min_fee: 1 } }),
    );
    expect((await reloadPolicy(path, env)).ok).toBe(true);
    await writeFile(path, stringify({ venue: liveVenue, policy: { max_claim_notional: 2_000, min_fee: 1 } }));
    const result = await reloadPolicy(path, env);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("policy.max_total_exposure");
  });
});

describe("the README's and the real venue's account", () => {
  test("the README's run against a standalone simulator is a valid live config, its dry run included", async () => {
    const readme = await readFile(join(import.meta.dirname, "../../README.md"), "utf8");
    const from = readme.indexOf("liquidator simulate --port 8080 &");
    const block = readme.slice(from, readme.indexOf("liquidator run --dry-run", from));
    const env: Record<string, string> = { LIQUIDATOR_DRY_RUN: "1" };
    for (const m of block.replace(/\\\n/g, " ").matchAll(/(LIQUIDATOR_[A-Z_]+)=(\S+)/g)) env[m[1] as string] = m[2] as string;
    env.LIQUIDATOR_ACCOUNT_ID = `0x${"d3".repeat(32)}`;
    env.LIQUIDATOR_SECRET = generateKeyPair().secret;
    const loaded = await loadConfig({ env });
    expect(loaded.config.venue.mode).toBe("live");
    expect(liveLimitProblems(loaded.config, loaded.given ?? new Set())).toEqual([]);
  });

  test("with a preset, an account id the real venue cannot have (0x12) is refused, naming the key", async () => {
    const env = { LIQUIDATOR_VENUE: "live", LIQUIDATOR_VENUE_PRESET: "orderly-testnet", LIQUIDATOR_SECRET: generateKeyPair().secret };
    await expect(loadConfig({ env: { ...env, LIQUIDATOR_ACCOUNT_ID: "0x12" } })).rejects.toThrow(/venue\.account_id.*64 hex digits/);
    expect((await loadConfig({ env: { ...env, LIQUIDATOR_ACCOUNT_ID: `0x${"0a".repeat(32)}` } })).config.venue.account_id).toHaveLength(66);
  });
});

describe("README configuration tables", () => {
  test("are the ones the schema declares (npm run docs:config rewrites them)", async () => {
    const readme = await readFile(join(import.meta.dirname, "../../README.md"), "utf8");
    expect(withConfigTables(readme)).toBe(readme);
  });
});
