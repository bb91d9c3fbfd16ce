/**
 * The secret never appears in anything the program writes (docs/architecture.md rule 7): the compiled CLI runs
 * as an operator runs it (a child process, built from the sources into a private folder under
 * node_modules/.cache like checkConfig.test.ts does) against the simulated venue, with logging at
 * `trace`, JSON and pretty, through the happy path and the error paths (claims refused with -1002,
 * 5xx HTML answers, dropped sockets, refused private auth, a wrong key for the account, an
 * unreachable venue, a malformed secret, a group-readable secret file), plus every answer of the
 * metrics server and `check-config`/`orders` output. Every byte of stdout and stderr is searched for
 * the secret in every encoding a careless log call could produce, and for fragments of it.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createPrivateKey, createPublicKey } from "node:crypto";
import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { base58 } from "@scure/base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { type SimulatorHandle, startSimulator } from "../../src/sim/startSimulator.js";
import { generateKeyPair, parseSecret } from "../../src/venue/signer.js";
import { sampleValue, waitFor } from "../support/observeHarness.js";

const root = join(import.meta.dirname, "../..");
const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
// DER prefix of a PKCS#8 ed25519 private key; the 32-byte seed follows it (RFC 8410).
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

// ---- the leak detector ----------------------------------------------------------------------

interface Form {
  name: string;
  value: string;
  /** Fragments of this length are searched too (a truncated print); 0 = the whole value only. */
  window: number;
  /** Fragments start at or after this index (what precedes is not secret, e.g. a DER prefix). */
  from?: number;
  caseInsensitive?: boolean;
  /** Compared with every whitespace of the output removed (util.inspect wraps and pads arrays). */
  squash?: boolean;
}

/** The secret as text in every encoding a log call, an inspect or an error message could produce. */
function secretForms(secret: string): Form[] {
  const seed = Buffer.from(parseSecret(secret));
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
  const pub = Buffer.from(createPublicKey(key).export({ format: "jwk" }).x as string, "base64url");
  const der = key.export({ format: "der", type: "pkcs8" });
  const hex = seed.toString("hex");
  const decimal = [...seed].map(String);
  return [
    { name: "base58 seed (the secret)", value: secret, window: 16 },
    { name: "base58 of seed+public key (64-byte secret key)", value: base58.encode(Buffer.concat([seed, pub])), window: 16 },
    { name: "hex", value: hex, window: 24, caseInsensitive: true },
    { name: "hex of the secret's text", value: Buffer.from(secret).toString("hex"), window: 24, caseInsensitive: true },
    { name: "base64 of the secret's text", value: Buffer.from(secret).toString("base64"), window: 16 },
    { name: "hex spaced (<Buffer ..>)", value: hex.match(/../g)?.join(" ") ?? "", window: 35, caseInsensitive: true },
    { name: "base64", value: seed.toString("base64"), window: 16 },
    { name: "base64url (jwk d)", value: seed.toString("base64url"), window: 16 },
    { name: "base64 of seed+public key", value: Buffer.concat([seed, pub]).toString("base64"), window: 16 },
    // Base64 characters from 22 on depend on seed bytes only (16-byte prefix = 21⅓ characters).
    { name: "PKCS#8 DER base64 (PEM body)", value: der.toString("base64"), window: 16, from: 22 },
    { name: "decimal bytes (JSON array, util.inspect)", value: decimal.join(","), window: 0, squash: true },
  ];
}

/** Names of the forms (or fragments) of `secret` found in `text`. */
function findLeaks(text: string, secret: string): string[] {
  const lower = text.toLowerCase();
  const squashed = text.replace(/\s+/g, "");
  const found: string[] = [];
  for (const f of secretForms(secret)) {
    const hay = f.squash ? squashed : f.caseInsensitive ? lower : text;
    const value = f.caseInsensitive ? f.value.toLowerCase() : f.value;
    if (hay.includes(value)) {
      found.push(f.name);
      continue;
    }
    if (f.window === 0) continue;
    for (let i = f.from ?? 0; i + f.window <= value.length; i++) {
      if (hay.includes(value.slice(i, i + f.window))) {
        found.push(`${f.name} (fragment at ${i})`);
        break;
      }
    }
  }
  return found;
}

// ---- the compiled CLI -----------------------------------------------------------------------

let buildDir: string;
let dir: string;
let sim: SimulatorHandle;
/** A key registered for the simulator's liquidator account: the secret under test. */
const pair = generateKeyPair();
let totalBytes = 0;

beforeAll(async () => {
  await mkdir(join(root, "node_modules/.cache"), { recursive: true });
  buildDir = await mkdtemp(join(root, "node_modules/.cache/secret-leak-test-"));
  dir = await mkdtemp(join(tmpdir(), "liq-secret-leak-"));
  const result = spawnSync(join(root, "node_modules/.bin/tsc"), ["-p", "tsconfig.build.json", "--outDir", buildDir], {
    cwd: root,
    encoding: "utf8",
  });
  for (const file of ["cli.js", "app/runDaemon.js", "commands/run.js", "commands/orders.js"]) {
    const ok = await stat(join(buildDir, file)).then(
      () => true,
      () => false,
    );
    if (!ok) throw new Error(`build did not emit ${file}: ${result.stdout}${result.stderr}`);
  }
  sim = await startSimulator({ port: 0, seed: 11, scenario: { ...QUIET_SCENARIO } });
  sim.core.accounts.registerKey(sim.accountId, pair.publicKey);
});

/** Children still running when a test ends (it failed before stopping them): killed, so no stray daemon claims in the next test. */
const running = new Set<Cli>();

afterEach(async () => {
  for (const cli of running) {
    cli.child.kill("SIGKILL");
    await cli.exited.catch(() => undefined);
  }
  running.clear();
  sim?.faults.rest.clear();
  sim?.faults.streams.reset();
});

afterAll(async () => {
  await sim?.close();
  if (buildDir !== undefined) await rm(buildDir, { recursive: true, force: true });
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** The test runner's environment minus every LIQUIDATOR_* variable, plus `env`. */
function cleanEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("LIQUIDATOR_")) out[k] = v;
  return { ...out, ...env };
}

interface Cli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

function startCli(args: string[], env: Record<string, string>): Cli {
  const child = spawn(process.execPath, [join(buildDir, "cli.js"), ...args], {
    cwd: dir,
    env: cleanEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (s: string) => (stdout += s));
  child.stderr?.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => resolve(status));
  });
  const cli: Cli = { child, stdout: () => stdout, stderr: () => stderr, exited };
  running.add(cli);
  void exited.finally(() => running.delete(cli)).catch(() => undefined);
  return cli;
}

async function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; out: string; stdout: string; stderr: string }> {
  const cli = startCli(args, env);
  const status = await cli.exited;
  return { status, out: cli.stdout() + cli.stderr(), stdout: cli.stdout(), stderr: cli.stderr() };
}

/** Every output checked for every secret of the test; counts the bytes so the test shows it saw some. */
function expectNoLeak(label: string, text: string, secrets: readonly string[]): void {
  totalBytes += Buffer.byteLength(text);
  for (const s of secrets) expect(findLeaks(text, s), `${label} leaks the secret`).toEqual([]);
}

function liveEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    LIQUIDATOR_VENUE: "live",
    LIQUIDATOR_BASE_URL: sim.baseUrl,
    LIQUIDATOR_WS_URL: sim.wsUrl,
    LIQUIDATOR_WS_PRIVATE_URL: sim.wsPrivateUrl,
    LIQUIDATOR_ACCOUNT_ID: sim.accountId,
    LIQUIDATOR_METRICS_HOST: "127.0.0.1",
    LIQUIDATOR_METRICS_PORT: "0",
    LIQUIDATOR_LOG_LEVEL: "trace",
    ...extra,
  };
}

async function writeConfig(name: string, doc: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, stringify(doc));
  return path;
}

/** The metrics URL the daemon logged at startup (JSON or pretty lines). */
function metricsUrlIn(stdout: string): string | undefined {
  const pretty = /metrics server listening[^\n]*\n\s+url: "(http:\/\/[^"]+)"/.exec(stdout);
  if (pretty?.[1] !== undefined) return pretty[1];
  for (const line of stdout.split("\n")) {
    if (!line.includes('"metrics server listening"')) continue;
    try {
      const url = (JSON.parse(line) as { url?: unknown }).url;
      if (typeof url === "string") return url;
    } catch {
      // a partial line: the next poll sees it whole
    }
  }
  return undefined;
}

interface Daemon {
  cli: Cli;
  url: string;
  get(path: string): Promise<{ status: number; text: string }>;
  metric(name: string, labels?: string): Promise<number | undefined>;
  /** waitFor, with the tail of the daemon's output in the timeout error. */
  until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false): Promise<T>;
  /** SIGTERM, then the exit status and everything written. */
  stop(): Promise<{ status: number | null; stdout: string; stderr: string }>;
}

async function startDaemon(env: Record<string, string>, label: string): Promise<Daemon> {
  const statePath = await mkdtemp(join(dir, "state-"));
  const cli = startCli(["run"], { LIQUIDATOR_STATE_DIR: statePath, ...env });
  let exitedEarly = false;
  void cli.exited.then(() => (exitedEarly = true));
  try {
    const url = await waitFor(() => {
      if (exitedEarly) throw new Error(`daemon exited:\n${cli.stdout()}\n${cli.stderr()}`);
      return metricsUrlIn(cli.stdout());
    }, `${label}: metrics URL in the log`);
    const get = async (path: string): Promise<{ status: number; text: string }> => {
      const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
      return { status: res.status, text: await res.text() };
    };
    return {
      cli,
      url,
      get,
      metric: async (name, labels = "") => sampleValue((await get("/metrics")).text, name, labels),
      until: (what, check) =>
        waitFor(check, what).catch((err: unknown) => {
          // The tail of the log explains a timeout; it is secret-free or the test fails anyway.
          throw new Error(`${String(err)}\n--- ${label} output (tail) ---\n${(cli.stdout() + cli.stderr()).slice(-4000)}`);
        }),
      stop: async () => {
        cli.child.kill("SIGTERM");
        const status = await cli.exited;
        return { status, stdout: cli.stdout(), stderr: cli.stderr() };
      },
    };
  } catch (err) {
    cli.child.kill("SIGKILL");
    await cli.exited;
    throw err;
  }
}

/** Sum of every `claims_result_total` series. */
async function resultCount(d: Daemon): Promise<number> {
  const text = (await d.get("/metrics")).text;
  let sum = 0;
  for (const line of text.split("\n")) if (line.startsWith("liquidator_claims_result_total{")) sum += Number(line.split(" ").pop());
  return sum;
}

/** GETs every path of the metrics server (and a 404), checks them, returns the bodies. */
async function serverAnswers(d: Daemon): Promise<string> {
  let all = "";
  for (const path of ["/metrics", "/readyz", "/healthz", "/nope", "/metrics?x=1"]) {
    const r = await d.get(path);
    all += `${path} ${r.status}\n${r.text}\n`;
  }
  return all;
}

// ---- the tests ------------------------------------------------------------------------------

describe("the leak detector", () => {
  it("finds the secret in every encoding and in fragments, and nothing in harmless key material", () => {
    const forms = secretForms(pair.secret);
    expect(forms.length).toBeGreaterThanOrEqual(9);
    for (const f of forms) {
      expect(findLeaks(`x ${f.value} y`, pair.secret), f.name).toContain(f.name);
      if (f.window > 0) {
        const start = f.from ?? 0;
        const fragment = f.value.slice(start + 1, start + 1 + f.window);
        expect(findLeaks(`"${fragment}…"`, pair.secret).length, `${f.name} fragment`).toBeGreaterThan(0);
      }
    }
    expect(findLeaks(Buffer.from(parseSecret(pair.secret)).toString("hex").toUpperCase(), pair.secret)).toContain("hex");
    // What util.inspect (a logged object holding the key bytes) prints.
    const seed = parseSecret(pair.secret);
    expect(findLeaks(inspect(Buffer.from(seed)), pair.secret).length).toBeGreaterThan(0);
    expect(findLeaks(inspect(seed), pair.secret).length).toBeGreaterThan(0);
    expect(findLeaks(JSON.stringify({ key: Buffer.from(seed) }), pair.secret).length).toBeGreaterThan(0);
    expect(findLeaks(inspect(seed, { maxArrayLength: 8 }), pair.secret)).toEqual([]); // 8 of 32 bytes: too short to tell
    // What the daemon may print: its public key, the account id, another key's secret.
    const other = generateKeyPair();
    expect(findLeaks(`${pair.publicKey} ${sim.accountId} ${other.secret} ${other.publicKey}`, pair.secret)).toEqual([]);
  });
});

describe("the secret never appears in any output", () => {
  it("daemon at trace (JSON logs): claims won and refused (-1002, 5xx HTML, reset), bad frames, refused private auth, every HTTP answer", async () => {
    const config = await writeConfig("trace.yaml", {
      log: { level: "trace" },
      venue: { request_timeout_ms: 1500 },
      rewards: { poll_interval_ms: 1000, campaign: { campaign_id: 2, account_id: sim.accountId } },
    });
    const d = await startDaemon(
      liveEnv({ LIQUIDATOR_CONFIG: config, LIQUIDATOR_SECRET: pair.secret, LIQUIDATOR_BUILD_COMMIT: "leaktest" }),
      "trace",
    );
    const { core, faults } = sim;
    await d.until("ready", async () => (await d.get("/readyz")).status === 200);
    let results = 0;
    const claimAndWait = async (what: string, symbol: string, qty: number): Promise<void> => {
      core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
      results += 1;
      await d.until(`claim outcome: ${what}`, async () => (await resultCount(d)) >= results);
    };
    await claimAndWait("success", "PERP_BTC_USDC", 0.05);
    faults.rest.venueError(-1002, { path: "/v1/liquidation", method: "POST", times: 1 });
    await claimAndWait("-1002 invalid signature", "PERP_ETH_USDC", 1);
    faults.rest.serverError(502, { path: "/v1/liquidation", method: "POST", body: "html", times: 1 });
    await claimAndWait("502 HTML", "PERP_SOL_USDC", 20);
    faults.rest.reset({ path: "/v1/liquidation", method: "POST", phase: "after", times: 1 });
    await claimAndWait("reset after processing (unknown outcome)", "PERP_BNB_USDC", 5);
    expect(await d.metric("liquidator_claims_result_total", 'code="-1002"')).toBeGreaterThanOrEqual(1);

    faults.streams.sendMalformed(20);
    await d.until("bad frames counted", async () => ((await d.metric("liquidator_ws_bad_messages_total", 'stream="private"')) ?? 0) > 0);
    faults.streams.failAuth(true);
    faults.streams.dropAll("private");
    await d.until("private auth refused", async () => (await d.get("/readyz")).text.includes("private_stream_"));
    faults.streams.failAuth(false);
    // Four 503 HTML pages (a proxy in front of the venue) fail at least one poll, with or without
    // the RestClient's 3 retries of a GET.
    faults.rest.serverError(503, { path: "/v1/public/trading_rewards/epoch_info", body: "html", times: 4 });
    await d.until("ready again", async () => (await d.get("/readyz")).status === 200);
    await d.until("a failed rewards poll", async () => ((await d.metric("liquidator_poll_errors_total", 'target="epoch_info"')) ?? 0) > 0);

    const answers = await serverAnswers(d);
    expect(answers).toMatch(/liquidator_build_info\{version="[^"]+",commit="leaktest",node="v\d+/);
    const { status, stdout, stderr } = await d.stop();
    expect(status).toBe(0);
    // The output is real: JSON lines at several levels, including the key's public half.
    expect(stdout).toContain(pair.publicKey);
    expect(stdout).toContain('"claim accepted"');
    expect(stdout).toMatch(/"level":"warn"/);
    expectNoLeak("trace run stdout", stdout, [pair.secret]);
    expectNoLeak("trace run stderr", stderr, [pair.secret]);
    expectNoLeak("metrics server answers", answers, [pair.secret]);
  });

  it("daemon at trace with pretty logs and the secret from a 0600 file", async () => {
    const secretPath = join(dir, "secret-0600");
    await writeFile(secretPath, `${pair.secret}\n`, { mode: 0o600 });
    await chmod(secretPath, 0o600);
    const d = await startDaemon(liveEnv({ LIQUIDATOR_SECRET_FILE: secretPath, LIQUIDATOR_LOG_PRETTY: "true" }), "pretty");
    await d.until("ready", async () => (await d.get("/readyz")).status === 200);
    sim.core.addLiquidation({ positions: [{ symbol: "PERP_DOGE_USDC", position_qty: 20000 }] });
    await d.until("a claim outcome", async () => (await resultCount(d)) >= 1);
    sim.faults.streams.dropAll();
    await d.until(
      "reconnected",
      async () =>
        ((await d.metric("liquidator_ws_reconnects_total", 'stream="public"')) ?? 0) >= 1 && (await d.get("/readyz")).status === 200,
    );
    const answers = await serverAnswers(d);
    const { status, stdout, stderr } = await d.stop();
    expect(status).toBe(0);
    expect(stdout).toContain("INFO: liquidator running");
    expect(stdout).toContain(pair.publicKey);
    expectNoLeak("pretty run stdout", stdout, [pair.secret]);
    expectNoLeak("pretty run stderr", stderr, [pair.secret]);
    expectNoLeak("pretty run answers", answers, [pair.secret]);
  });

  it("daemon with a key the venue does not know for the account: private auth and signed reads fail, nothing is claimed", async () => {
    const wrong = generateKeyPair();
    const d = await startDaemon(liveEnv({ LIQUIDATOR_SECRET: wrong.secret }), "wrong key");
    await d.until("private auth refused", async () => {
      const r = await d.get("/readyz");
      return r.status === 503 && r.text.includes("private_stream_");
    });
    sim.core.addLiquidation({ positions: [{ symbol: "PERP_BTC_USDC", position_qty: 0.02 }] });
    // GET /v1/positions is refused (-1002, HTTP 401): positions unknown, so claiming never starts.
    await d.until(
      "positions read refused",
      async () => ((await d.metric("liquidator_http_requests_total", 'endpoint="/v1/positions",status="401"')) ?? 0) >= 1,
    );
    expect((await d.get("/readyz")).text).toContain("claiming_paused:positions");
    expect((await d.metric("liquidator_claims_submitted_total")) ?? 0).toBe(0);
    const answers = await serverAnswers(d);
    const { status, stdout, stderr } = await d.stop();
    expect(status).toBe(0);
    expect(stdout).toContain(wrong.publicKey);
    expectNoLeak("wrong-key run", stdout + stderr, [wrong.secret, pair.secret]);
    expectNoLeak("wrong-key answers", answers, [wrong.secret, pair.secret]);
  });

  it("daemon with an unreachable venue: REST refused, then streams refused", async () => {
    // A port that was free a moment ago and has no listener now.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const nowhere = `127.0.0.1:${port}`;
    const rest = await startDaemon(
      liveEnv({
        LIQUIDATOR_SECRET: pair.secret,
        LIQUIDATOR_BASE_URL: `http://${nowhere}`,
        LIQUIDATOR_WS_URL: `ws://${nowhere}`,
        LIQUIDATOR_WS_PRIVATE_URL: `ws://${nowhere}`,
      }),
      "unreachable REST",
    );
    await rest.until("the failed symbol load logged", () => rest.cli.stdout().includes("symbol info load failed"));
    await rest.until(
      "a failed rewards poll",
      async () => ((await rest.metric("liquidator_poll_errors_total", 'target="epoch_info"')) ?? 0) > 0,
    );
    expect((await rest.get("/readyz")).status).toBe(503);
    const restAnswers = await serverAnswers(rest);
    const r1 = await rest.stop();
    expect(r1.status).toBe(0);
    expectNoLeak("unreachable REST run", r1.stdout + r1.stderr, [pair.secret]);
    expectNoLeak("unreachable REST answers", restAnswers, [pair.secret]);

    const streams = await startDaemon(
      liveEnv({ LIQUIDATOR_SECRET: pair.secret, LIQUIDATOR_WS_URL: `ws://${nowhere}`, LIQUIDATOR_WS_PRIVATE_URL: `ws://${nowhere}` }),
      "unreachable streams",
    );
    await streams.until("both streams failed to connect", async () => {
      const ready = await streams.get("/readyz");
      return (
        ready.status === 503 &&
        ready.text.includes("public_stream_") &&
        ready.text.includes("private_stream_") &&
        ready.text.includes("connect_error")
      );
    });
    const streamAnswers = await serverAnswers(streams);
    const r2 = await streams.stop();
    expect(r2.status).toBe(0);
    expectNoLeak("unreachable streams run", r2.stdout + r2.stderr, [pair.secret]);
    expectNoLeak("unreachable streams answers", streamAnswers, [pair.secret]);
  });

  it("a malformed secret or a group-readable secret file: exit 78 from run and check-config, the text never echoed", async () => {
    const truncated = pair.secret.slice(0, -3);
    const badChar = `${pair.secret.slice(0, 20)}0${pair.secret.slice(21)}`; // '0' is not base58
    const openPath = join(dir, "secret-0644");
    await writeFile(openPath, pair.secret);
    await chmod(openPath, 0o644);
    const cases: [string, Record<string, string>, string][] = [
      ["truncated", { LIQUIDATOR_SECRET: truncated }, "LIQUIDATOR_SECRET"],
      ["not base58", { LIQUIDATOR_SECRET: badChar }, "LIQUIDATOR_SECRET"],
      ["ed25519:-prefixed, not base58", { LIQUIDATOR_SECRET: `ed25519:${badChar}` }, "LIQUIDATOR_SECRET"],
      ["0644 file", { LIQUIDATOR_SECRET_FILE: openPath }, "chmod 600"],
    ];
    for (const [name, env, expected] of cases) {
      for (const args of [["run"], ["check-config"], ["check-config", "--json"]]) {
        const r = await runCli(args, liveEnv({ ...env, LIQUIDATOR_STATE_DIR: join(dir, "state-78") }));
        const label = `${args.join(" ")} with a ${name} secret`;
        expect(r.status, `${label}: ${r.out}`).toBe(78);
        expect(r.stderr, label).toContain(expected);
        expect(r.out, label).not.toContain(truncated);
        expect(r.out, label).not.toContain(badChar.slice(0, 16));
        expectNoLeak(label, r.out, [pair.secret]);
      }
    }
  });

  it("check-config at every log level, YAML and JSON, secret from the environment or a file", async () => {
    const secretPath = join(dir, "secret-check");
    await writeFile(secretPath, pair.secret, { mode: 0o600 });
    for (const level of LEVELS) {
      const sources: Record<string, string>[] = [{ LIQUIDATOR_SECRET: pair.secret }, { LIQUIDATOR_SECRET_FILE: secretPath }];
      for (const source of sources) {
        for (const json of [false, true]) {
          const r = await runCli(
            ["check-config", ...(json ? ["--json"] : [])],
            liveEnv({ ...source, LIQUIDATOR_LOG_LEVEL: level, LIQUIDATOR_LOG_PRETTY: json ? "false" : "true" }),
          );
          const label = `check-config level=${level} json=${json} ${Object.keys(source)[0]}`;
          expect(r.status, `${label}: ${r.stderr}`).toBe(0);
          expect(r.stdout, label).toContain(pair.publicKey);
          expect(r.stdout, label).toContain(level);
          expectNoLeak(label, r.out, [pair.secret]);
        }
      }
    }
  });

  it("a signed read command (orders): with the right key, and with a wrong one (-1002)", async () => {
    const user = sim.orderUsers[0] ?? "";
    const wrong = generateKeyPair();
    for (const format of ["--json", "--csv", ""]) {
      const ok = await runCli(
        ["orders", "--user-account", user, "--size", "5", ...(format === "" ? [] : [format])],
        liveEnv({ LIQUIDATOR_SECRET: pair.secret }),
      );
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.stdout.length).toBeGreaterThan(100);
      expectNoLeak(`orders ${format || "(table)"}`, ok.out, [pair.secret]);
    }
    const refused = await runCli(["orders", "--user-account", user, "--json"], liveEnv({ LIQUIDATOR_SECRET: wrong.secret }));
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("-1002");
    expectNoLeak("orders with a wrong key", refused.out, [wrong.secret, pair.secret]);
  });

  it("looked at a real amount of output", () => {
    // Guards against a harness that collects nothing (and so finds nothing).
    expect(totalBytes).toBeGreaterThan(50_000);
  });
});
