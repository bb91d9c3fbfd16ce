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
import { createPrivateKey, createPublicKey } from "node:crypto";
import { chmod, mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { inspect } from "node:util";
import { base58 } from "@scure/base";
import { describe, expect } from "vitest";
import { stringify } from "yaml";
import { metricValue } from "../../src/observe/promText.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { generateKeyPair, parseSecret } from "../../src/venue/signer.js";
import type { Build } from "../support/buildOnce.js";
import { daemonEnv } from "../support/daemonHarness.js";
import type { CliResult, DaemonProcess } from "../support/daemonProcess.js";
import { type Rig, test as rigTest } from "../support/rig.js";
import { waitFor } from "../support/wait.js";

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

// ---- the compiled CLI against the simulated venue ---------------------------------------------

/** A key registered for the simulator's liquidator account: the secret under test. */
const pair = generateKeyPair();
let totalBytes = 0;

/** What a test runs in: the CLI compiled once for the file, a venue knowing `pair`, a working dir. */
interface Setup {
  build: Build;
  sim: SimulatorHandle;
  dir: string;
  rig: Rig;
}

const it = rigTest.extend<{ t: Setup }>({
  t: async ({ rig, build }, use) => {
    const sim = await rig.sim({ seed: 11 });
    sim.core.accounts.registerKey(sim.accountId, pair.publicKey);
    await use({ rig, build, sim, dir: await rig.dir("secret-leak") });
  },
});

/** `node cli.js <args>` to its end; `out` is stdout and stderr together. */
async function runCli(t: Setup, args: string[], env: Record<string, string>): Promise<CliResult & { out: string }> {
  const r = await t.rig.cli(t.build.cli, args, env, t.dir);
  return { ...r, out: r.stdout + r.stderr };
}

/** Every output checked for every secret of the test; counts the bytes so the test shows it saw some. */
function expectNoLeak(label: string, text: string, secrets: readonly string[]): void {
  totalBytes += Buffer.byteLength(text);
  for (const s of secrets) expect(findLeaks(text, s), `${label} leaks the secret`).toEqual([]);
}

/** The daemon's live-mode environment for `sim` at trace level, without the venue's own key or a state dir: each test gives its own. */
function liveEnv(sim: SimulatorHandle, extra: Record<string, string> = {}): Record<string, string> {
  const { LIQUIDATOR_SECRET, LIQUIDATOR_STATE_DIR, ...env } = daemonEnv(sim, "", { LIQUIDATOR_LOG_LEVEL: "trace" });
  return { ...env, ...extra };
}

async function writeConfig(dir: string, name: string, doc: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, stringify(doc));
  return path;
}

interface Daemon {
  proc: DaemonProcess;
  url: string;
  get(path: string): Promise<{ status: number; text: string }>;
  metric(name: string, labels?: Record<string, string>): Promise<number>;
  /** waitFor, with the tail of the daemon's output in the timeout error. */
  until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false): Promise<T>;
  /** SIGTERM, then the exit status and everything written. */
  stop(): Promise<{ status: number | null; stdout: string; stderr: string }>;
}

async function startDaemon(t: Setup, env: Record<string, string>, label: string): Promise<Daemon> {
  const statePath = await mkdtemp(join(t.dir, "state-"));
  const proc = t.rig.spawn(t.build.cli, [], { LIQUIDATOR_STATE_DIR: statePath, ...env }, t.dir);
  const url = await proc.metricsUrl();
  const get = async (path: string): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
    return { status: res.status, text: await res.text() };
  };
  return {
    proc,
    url,
    get,
    metric: async (name, labels = {}) => metricValue((await get("/metrics")).text, name, labels),
    until: (what, check) =>
      waitFor(check, what).catch((err: unknown) => {
        // The tail of the log explains a timeout; it is secret-free or the test fails anyway.
        throw new Error(`${String(err)}\n--- ${label} output (tail) ---\n${(proc.stdout() + proc.stderr()).slice(-4000)}`);
      }),
    stop: async () => {
      proc.child.kill("SIGTERM");
      const { code } = await proc.exit;
      return { status: code, stdout: proc.stdout(), stderr: proc.stderr() };
    },
  };
}

/** Sum of every `claims_result_total` series. */
async function resultCount(d: Daemon): Promise<number> {
  return d.metric("liquidator_claims_result_total");
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
  it("finds the secret in every encoding and in fragments, and nothing in harmless key material", async ({ rig }) => {
    const sim = await rig.sim({ seed: 11 });
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
  it("daemon at trace (JSON logs): claims won and refused (-1002, 5xx HTML, reset), bad frames, refused private auth, every HTTP answer", async ({
    t,
  }) => {
    const { sim, dir } = t;
    const config = await writeConfig(dir, "trace.yaml", {
      log: { level: "trace" },
      venue: { request_timeout_ms: 1500 },
      rewards: { poll_interval_ms: 1000, campaign: { campaign_id: 2, account_id: sim.accountId } },
      policy: { max_claim_notional: 50_000, max_total_exposure: 250_000, min_fee: 1 },
    });
    const d = await startDaemon(
      t,
      liveEnv(sim, { LIQUIDATOR_CONFIG: config, LIQUIDATOR_SECRET: pair.secret, LIQUIDATOR_BUILD_COMMIT: "leaktest" }),
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
    expect(await d.metric("liquidator_claims_result_total", { code: "-1002" })).toBeGreaterThanOrEqual(1);

    faults.streams.sendMalformed(20);
    await d.until("bad frames counted", async () => (await d.metric("liquidator_ws_bad_messages_total", { stream: "private" })) > 0);
    faults.streams.failAuth(true);
    faults.streams.dropAll("private");
    await d.until("private auth refused", async () => (await d.get("/readyz")).text.includes("private_stream_"));
    faults.streams.failAuth(false);
    // Four 503 HTML pages (a proxy in front of the venue) fail at least one poll, with or without
    // the RestClient's 3 retries of a GET.
    faults.rest.serverError(503, { path: "/v1/public/trading_rewards/epoch_info", body: "html", times: 4 });
    await d.until("ready again", async () => (await d.get("/readyz")).status === 200);
    await d.until("a failed rewards poll", async () => (await d.metric("liquidator_poll_errors_total", { target: "epoch_info" })) > 0);

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

  it("daemon at trace with pretty logs and the secret from a 0600 file", async ({ t }) => {
    const { sim, dir } = t;
    const secretPath = join(dir, "secret-0600");
    await writeFile(secretPath, `${pair.secret}\n`, { mode: 0o600 });
    await chmod(secretPath, 0o600);
    const d = await startDaemon(t, liveEnv(sim, { LIQUIDATOR_SECRET_FILE: secretPath, LIQUIDATOR_LOG_PRETTY: "true" }), "pretty");
    await d.until("ready", async () => (await d.get("/readyz")).status === 200);
    sim.core.addLiquidation({ positions: [{ symbol: "PERP_DOGE_USDC", position_qty: 20000 }] });
    await d.until("a claim outcome", async () => (await resultCount(d)) >= 1);
    sim.faults.streams.dropAll();
    await d.until(
      "reconnected",
      async () => (await d.metric("liquidator_ws_reconnects_total", { stream: "public" })) >= 1 && (await d.get("/readyz")).status === 200,
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

  it("daemon with a key the venue does not know for the account: private auth and signed reads fail, nothing is claimed", async ({ t }) => {
    const { sim } = t;
    const wrong = generateKeyPair();
    const d = await startDaemon(t, liveEnv(sim, { LIQUIDATOR_SECRET: wrong.secret }), "wrong key");
    await d.until("private auth refused", async () => {
      const r = await d.get("/readyz");
      return r.status === 503 && r.text.includes("private_stream_");
    });
    sim.core.addLiquidation({ positions: [{ symbol: "PERP_BTC_USDC", position_qty: 0.02 }] });
    // GET /v1/positions is refused (-1002, HTTP 401): positions unknown, so claiming never starts.
    await d.until(
      "positions read refused",
      async () => (await d.metric("liquidator_http_requests_total", { endpoint: "/v1/positions", status: "401" })) >= 1,
    );
    expect((await d.get("/readyz")).text).toContain("claiming_paused:positions");
    expect(await d.metric("liquidator_claims_submitted_total")).toBe(0);
    const answers = await serverAnswers(d);
    const { status, stdout, stderr } = await d.stop();
    expect(status).toBe(0);
    expect(stdout).toContain(wrong.publicKey);
    expectNoLeak("wrong-key run", stdout + stderr, [wrong.secret, pair.secret]);
    expectNoLeak("wrong-key answers", answers, [wrong.secret, pair.secret]);
  });

  it("daemon with an unreachable venue: REST refused, then streams refused", async ({ t }) => {
    const { sim } = t;
    // A port that was free a moment ago and has no listener now.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const nowhere = `127.0.0.1:${port}`;
    const rest = await startDaemon(
      t,
      liveEnv(sim, {
        LIQUIDATOR_SECRET: pair.secret,
        LIQUIDATOR_BASE_URL: `http://${nowhere}`,
        LIQUIDATOR_WS_URL: `ws://${nowhere}`,
        LIQUIDATOR_WS_PRIVATE_URL: `ws://${nowhere}`,
      }),
      "unreachable REST",
    );
    await rest.until("the failed symbol load logged", () => rest.proc.stdout().includes("symbol info load failed"));
    await rest.until(
      "a failed rewards poll",
      async () => (await rest.metric("liquidator_poll_errors_total", { target: "epoch_info" })) > 0,
    );
    expect((await rest.get("/readyz")).status).toBe(503);
    const restAnswers = await serverAnswers(rest);
    const r1 = await rest.stop();
    expect(r1.status).toBe(0);
    expectNoLeak("unreachable REST run", r1.stdout + r1.stderr, [pair.secret]);
    expectNoLeak("unreachable REST answers", restAnswers, [pair.secret]);

    const streams = await startDaemon(
      t,
      liveEnv(sim, { LIQUIDATOR_SECRET: pair.secret, LIQUIDATOR_WS_URL: `ws://${nowhere}`, LIQUIDATOR_WS_PRIVATE_URL: `ws://${nowhere}` }),
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

  it("a malformed secret or a group-readable secret file: exit 78 from run and check-config, the text never echoed", async ({ t }) => {
    const { sim, dir } = t;
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
        const r = await runCli(t, args, liveEnv(sim, { ...env, LIQUIDATOR_STATE_DIR: join(dir, "state-78") }));
        const label = `${args.join(" ")} with a ${name} secret`;
        expect(r.status, `${label}: ${r.out}`).toBe(78);
        expect(r.stderr, label).toContain(expected);
        expect(r.out, label).not.toContain(truncated);
        expect(r.out, label).not.toContain(badChar.slice(0, 16));
        expectNoLeak(label, r.out, [pair.secret]);
      }
    }
  });

  // 24 CLI processes one after the other (levels × secret sources × formats): on a loaded 2-core
  // machine each start takes seconds, so this test gets more than the default minute.
  it("check-config at every log level, YAML and JSON, secret from the environment or a file", { timeout: 240_000 }, async ({ t }) => {
    const { sim, dir } = t;
    const secretPath = join(dir, "secret-check");
    await writeFile(secretPath, pair.secret, { mode: 0o600 });
    for (const level of LEVELS) {
      const sources: Record<string, string>[] = [{ LIQUIDATOR_SECRET: pair.secret }, { LIQUIDATOR_SECRET_FILE: secretPath }];
      for (const source of sources) {
        for (const json of [false, true]) {
          const r = await runCli(
            t,
            ["check-config", ...(json ? ["--json"] : [])],
            liveEnv(sim, { ...source, LIQUIDATOR_LOG_LEVEL: level, LIQUIDATOR_LOG_PRETTY: json ? "false" : "true" }),
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

  it("a signed read command (orders): with the right key, and with a wrong one (-1002)", async ({ t }) => {
    const { sim } = t;
    const user = sim.orderUsers[0] ?? "";
    const wrong = generateKeyPair();
    for (const format of ["--json", "--csv", ""]) {
      const ok = await runCli(
        t,
        ["orders", "--user-account", user, "--size", "5", ...(format === "" ? [] : [format])],
        liveEnv(sim, { LIQUIDATOR_SECRET: pair.secret }),
      );
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.stdout.length).toBeGreaterThan(100);
      expectNoLeak(`orders ${format || "(table)"}`, ok.out, [pair.secret]);
    }
    const refused = await runCli(t, ["orders", "--user-account", user, "--json"], liveEnv(sim, { LIQUIDATOR_SECRET: wrong.secret }));
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("-1002");
    expectNoLeak("orders with a wrong key", refused.out, [wrong.secret, pair.secret]);
  });

  it("looked at a real amount of output", () => {
    // Guards against a harness that collects nothing (and so finds nothing).
    expect(totalBytes).toBeGreaterThan(50_000);
  });
});
