/**
 * `liquidator check-config` as an operator runs it: the compiled CLI in a child process, real files,
 * real exit statuses. The build goes to a private folder under node_modules/.cache (so the package's
 * dependencies resolve and dist/ is left alone). tsc emits even when files outside this command's
 * import graph have type errors; `npm test` type-checks the tree separately.
 */
import { randomBytes } from "node:crypto";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { base58 } from "@scure/base";
import { describe, expect } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/commands/dispatch.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import type { Build } from "../support/buildOnce.js";
import type { CliResult } from "../support/daemonProcess.js";
import { type Rig, test } from "../support/rig.js";

async function writeConfig(dir: string, name: string, doc: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof doc === "string" ? doc : stringify(doc));
  return path;
}

/** A fresh working dir, and the compiled CLI run there with only `env` of the LIQUIDATOR_* variables. */
async function setUp({ rig, build }: { rig: Rig; build: Build }) {
  const dir = await rig.dir("check-config");
  return {
    dir,
    runCli: (args: string[], env: Record<string, string> = {}): Promise<CliResult> => rig.cli(build.cli, args, env, dir),
    writeConfig: (name: string, doc: unknown) => writeConfig(dir, name, doc),
  };
}

const liveVenue = {
  mode: "live",
  base_url: "https://api.example.com",
  ws_url: "wss://ws.example.com",
  ws_private_url: "wss://ws-private.example.com",
  account_id: "0xabc",
};
/** The limits live mode wants set explicitly (config/liveLimits.ts). */
const liveLimits = { max_claim_notional: 2_000, max_total_exposure: 10_000, min_fee: 3 };

describe("check-config child process", () => {
  test("valid live config: exit 0, effective config on stdout, secret nowhere", async ({ rig, build }) => {
    const { runCli, writeConfig } = await setUp({ rig, build });
    const pair = generateKeyPair();
    const path = await writeConfig("valid.yaml", { venue: liveVenue, policy: liveLimits });
    const r = await runCli(["check-config", "--config", path], { LIQUIDATOR_SECRET: pair.secret, LIQUIDATOR_DRY_RUN: "yes" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("min_fee: 3");
    expect(r.stdout).toContain("dry_run: true");
    expect(r.stdout).toContain("<redacted>");
    expect(r.stdout).toContain(pair.publicKey);
    expect(r.stdout + r.stderr).not.toContain(pair.secret);
  });

  test("secret from a 0600 file, --json output, secret nowhere", async ({ rig, build }) => {
    const { dir, runCli, writeConfig } = await setUp({ rig, build });
    const pair = generateKeyPair();
    const secretPath = join(dir, "secret");
    await writeFile(secretPath, `${pair.secret}\n`);
    await chmod(secretPath, 0o600);
    const path = await writeConfig("valid-json.yaml", { venue: liveVenue, policy: liveLimits });
    const r = await runCli(["check-config", "--json"], { LIQUIDATOR_CONFIG: path, LIQUIDATOR_SECRET_FILE: secretPath });
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as {
      config_file: string;
      secret: { source: string; public_key: string };
      config: { venue: { mode: string } };
    };
    expect(out.config_file).toBe(path);
    expect(out.secret).toMatchObject({ source: "LIQUIDATOR_SECRET_FILE", public_key: pair.publicKey });
    expect(out.config.venue.mode).toBe("live");
    expect(r.stdout + r.stderr).not.toContain(pair.secret);
  });

  test("invalid file: exit 78, the key on stderr, nothing on stdout, secret nowhere", async ({ rig, build }) => {
    const { runCli, writeConfig } = await setUp({ rig, build });
    const pair = generateKeyPair();
    const path = await writeConfig("invalid.yaml", { venue: liveVenue, policy: { ...liveLimits, limit_price_slippage_bps: 10001 } });
    const r = await runCli(["check-config", "--config", path], { LIQUIDATOR_SECRET: pair.secret });
    expect(r.status).toBe(78);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("policy.limit_price_slippage_bps");
    expect(r.stderr).toContain("<= 10000");
    expect(r.stdout + r.stderr).not.toContain(pair.secret);
  });

  test("live config leaving the limits to their built-in values: exit 78 naming each key", async ({ rig, build }) => {
    const { runCli, writeConfig } = await setUp({ rig, build });
    const pair = generateKeyPair();
    const path = await writeConfig("no-limits.yaml", { venue: liveVenue, policy: { max_claim_notional: 2_000 } });
    const r = await runCli(["check-config", "--config", path], { LIQUIDATOR_SECRET: pair.secret });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain("policy.max_total_exposure");
    expect(r.stderr).toContain("policy.min_fee");
    expect(r.stderr).not.toContain("policy.max_claim_notional");
    expect(r.stderr).toContain("live-example.yaml");
    // `run` refuses the same config before any network I/O (the venue URLs here resolve nowhere).
    const run = await runCli(["run", "--config", path], { LIQUIDATOR_SECRET: pair.secret, LIQUIDATOR_METRICS_PORT: "0" });
    expect(run.status).toBe(78);
    expect(run.stderr).toContain("policy.max_total_exposure");
  });

  test("config/live-example.yaml is a valid live config", async ({ rig, build }) => {
    const { runCli } = await setUp({ rig, build });
    const pair = generateKeyPair();
    const example = fileURLToPath(new URL("../../config/live-example.yaml", import.meta.url));
    const r = await runCli(["check-config", "--config", example, "--json"], {
      LIQUIDATOR_SECRET: pair.secret,
      LIQUIDATOR_ACCOUNT_ID: `0x${"ab".repeat(32)}`,
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { config: { venue: { mode: string; preset: string }; policy: { symbols: { allow: string[] } } } };
    expect(out.config.venue).toMatchObject({ mode: "live", preset: "orderly-testnet" });
    expect(out.config.policy.symbols.allow).toEqual(["PERP_BTC_USDC", "PERP_ETH_USDC"]);
  });

  test("an account id the real venue cannot have (0x12) is refused with a preset: exit 78 naming the key", async ({ rig, build }) => {
    const { runCli } = await setUp({ rig, build });
    const example = fileURLToPath(new URL("../../config/live-example.yaml", import.meta.url));
    const r = await runCli(["check-config", "--config", example], {
      LIQUIDATOR_SECRET: generateKeyPair().secret,
      LIQUIDATOR_ACCOUNT_ID: "0x12",
    });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain("venue.account_id");
    expect(r.stderr).toContain("64 hex digits");
  });

  test("malformed secret: exit 78 naming LIQUIDATOR_SECRET, the text never echoed", async ({ rig, build }) => {
    const { runCli } = await setUp({ rig, build });
    const text = base58.encode(randomBytes(31));
    const r = await runCli(["check-config"], { LIQUIDATOR_SECRET: text });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain("LIQUIDATOR_SECRET");
    expect(r.stdout + r.stderr).not.toContain(text);
  });

  test("group-readable secret file: exit 78 with chmod advice", async ({ rig, build }) => {
    const { dir, runCli } = await setUp({ rig, build });
    const pair = generateKeyPair();
    const secretPath = join(dir, "secret-open");
    await writeFile(secretPath, pair.secret);
    await chmod(secretPath, 0o644);
    const r = await runCli(["check-config"], { LIQUIDATOR_SECRET_FILE: secretPath });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain("chmod 600");
    expect(r.stdout + r.stderr).not.toContain(pair.secret);
  });

  test("missing file and YAML syntax error: exit 78 naming the file", async ({ rig, build }) => {
    const { dir, runCli, writeConfig } = await setUp({ rig, build });
    const missing = join(dir, "missing.yaml");
    const r1 = await runCli(["check-config", "--config", missing]);
    expect(r1.status).toBe(78);
    expect(r1.stderr).toContain(missing);
    const broken = await writeConfig("broken.yaml", "policy:\n  min_fee: [1\n");
    const r2 = await runCli(["check-config", "--config", broken]);
    expect(r2.status).toBe(78);
    expect(r2.stderr).toMatch(/YAML syntax error at line \d+/);
  });

  test("no file, no environment: exit 0 on the defaults", async ({ rig, build }) => {
    const { runCli } = await setUp({ rig, build });
    const r = await runCli(["check-config"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("mode: simulator");
    expect(r.stdout).toContain("file: none");
  });

  test("unknown option: exit 64", async ({ rig, build }) => {
    const { runCli } = await setUp({ rig, build });
    const r = await runCli(["check-config", "--bogus"]);
    expect(r.status).toBe(64);
  });
});

describe("check-config in process", () => {
  function capture(): { stream: NodeJS.WritableStream; text: () => string } {
    let text = "";
    const stream = {
      write: (s: string) => {
        text += s;
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    return { stream, text: () => text };
  }

  test("dispatch maps an invalid config to 78 with one message on stderr", async ({ rig }) => {
    const path = await writeConfig(await rig.dir("check-config"), "inproc.yaml", { policy: { min_fee: -1 } });
    const out = capture();
    const err = capture();
    const status = await main(["check-config", "--config", path], {
      stdout: out.stream,
      stderr: err.stream,
      env: {},
      signal: new AbortController().signal,
    });
    expect(status).toBe(78);
    expect(out.text()).toBe("");
    expect(err.text()).toMatch(/^liquidator check-config: config policy\.min_fee: must be >= 0/);
  });
});
