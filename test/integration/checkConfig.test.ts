/**
 * `liquidator check-config` as an operator runs it: the compiled CLI in a child process, real files,
 * real exit statuses. The build goes to a private folder under node_modules/.cache (so the package's
 * dependencies resolve and dist/ is left alone). tsc emits even when files outside this command's
 * import graph have type errors; `npm test` type-checks the tree separately.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { base58 } from "@scure/base";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { main } from "../../src/commands/dispatch.js";
import { generateKeyPair } from "../../src/venue/signer.js";

const root = join(import.meta.dirname, "../..");
let buildDir: string;
let dir: string;

beforeAll(async () => {
  await mkdir(join(root, "node_modules/.cache"), { recursive: true });
  buildDir = await mkdtemp(join(root, "node_modules/.cache/check-config-test-"));
  dir = await mkdtemp(join(tmpdir(), "liq-check-config-"));
  const tsc = join(root, "node_modules/.bin/tsc");
  const result = spawnSync(tsc, ["-p", "tsconfig.build.json", "--outDir", buildDir], { cwd: root, encoding: "utf8" });
  for (const file of ["cli.js", "commands/dispatch.js", "commands/checkConfig.js", "config/loadConfig.js"]) {
    const ok = await stat(join(buildDir, file)).then(
      () => true,
      () => false,
    );
    if (!ok) throw new Error(`build did not emit ${file}: ${result.stdout}${result.stderr}`);
  }
});

afterAll(async () => {
  await rm(buildDir, { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
});

/** The test runner's environment minus every LIQUIDATOR_* variable, plus `env`. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("LIQUIDATOR_")) out[k] = v;
  return { ...out, ...env };
}

function runCli(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(buildDir, "cli.js"), ...args], {
      cwd: dir,
      env: cleanEnv(env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

async function writeConfig(name: string, doc: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof doc === "string" ? doc : stringify(doc));
  return path;
}

const liveVenue = {
  mode: "live",
  base_url: "https://api.example.com",
  ws_url: "wss://ws.example.com",
  ws_private_url: "wss://ws-private.example.com",
  account_id: "0xabc",
};

describe("check-config child process", () => {
  test("valid live config: exit 0, effective config on stdout, secret nowhere", async () => {
    const pair = generateKeyPair();
    const path = await writeConfig("valid.yaml", { venue: liveVenue, policy: { min_fee: 3 } });
    const r = await runCli(["check-config", "--config", path], { LIQUIDATOR_SECRET: pair.secret, LIQUIDATOR_DRY_RUN: "yes" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("min_fee: 3");
    expect(r.stdout).toContain("dry_run: true");
    expect(r.stdout).toContain("<redacted>");
    expect(r.stdout).toContain(pair.publicKey);
    expect(r.stdout + r.stderr).not.toContain(pair.secret);
  });

  test("secret from a 0600 file, --json output, secret nowhere", async () => {
    const pair = generateKeyPair();
    const secretPath = join(dir, "secret");
    await writeFile(secretPath, `${pair.secret}\n`);
    await chmod(secretPath, 0o600);
    const path = await writeConfig("valid-json.yaml", { venue: liveVenue });
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

  test("invalid file: exit 78, the key on stderr, nothing on stdout, secret nowhere", async () => {
    const pair = generateKeyPair();
    const path = await writeConfig("invalid.yaml", { venue: liveVenue, policy: { limit_price_slippage_bps: 10001 } });
    const r = await runCli(["check-config", "--config", path], { LIQUIDATOR_SECRET: pair.secret });
    expect(r.status).toBe(78);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("policy.limit_price_slippage_bps");
    expect(r.stderr).toContain("<= 10000");
    expect(r.stdout + r.stderr).not.toContain(pair.secret);
  });

  test("malformed secret: exit 78 naming LIQUIDATOR_SECRET, the text never echoed", async () => {
    const text = base58.encode(randomBytes(31));
    const r = await runCli(["check-config"], { LIQUIDATOR_SECRET: text });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain("LIQUIDATOR_SECRET");
    expect(r.stdout + r.stderr).not.toContain(text);
  });

  test("group-readable secret file: exit 78 with chmod advice", async () => {
    const pair = generateKeyPair();
    const secretPath = join(dir, "secret-open");
    await writeFile(secretPath, pair.secret);
    await chmod(secretPath, 0o644);
    const r = await runCli(["check-config"], { LIQUIDATOR_SECRET_FILE: secretPath });
    expect(r.status).toBe(78);
    expect(r.stderr).toContain("chmod 600");
    expect(r.stdout + r.stderr).not.toContain(pair.secret);
  });

  test("missing file and YAML syntax error: exit 78 naming the file", async () => {
    const missing = join(dir, "missing.yaml");
    const r1 = await runCli(["check-config", "--config", missing]);
    expect(r1.status).toBe(78);
    expect(r1.stderr).toContain(missing);
    const broken = await writeConfig("broken.yaml", "policy:\n  min_fee: [1\n");
    const r2 = await runCli(["check-config", "--config", broken]);
    expect(r2.status).toBe(78);
    expect(r2.stderr).toMatch(/YAML syntax error at line \d+/);
  });

  test("no file, no environment: exit 0 on the defaults", async () => {
    const r = await runCli(["check-config"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("mode: simulator");
    expect(r.stdout).toContain("file: none");
  });

  test("unknown option: exit 64", async () => {
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

  test("dispatch maps an invalid config to 78 with one message on stderr", async () => {
    const path = await writeConfig("inproc.yaml", { policy: { min_fee: -1 } });
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
