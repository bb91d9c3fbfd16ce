/**
 * What preflight says where a new operator stumbles (issue #34): a venue that cannot be reached is
 * named by host and port and not blamed on the key; a refused key's hint names the variable the
 * secret came from (LIQUIDATOR_SECRET or LIQUIDATOR_SECRET_FILE); a key limited to some addresses
 * shows them (docs/protocol.md §10); every warn says whether it is safe to go on.
 */
import { chmod, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, test } from "vitest";
import { main } from "../../src/commands/dispatch.js";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { type SimulatorHandle, type StartSimulatorOptions, startSimulator } from "../../src/sim/startSimulator.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import { cleanEnv, removeDir, tempDir } from "../support/daemonHarness.js";

const LIMITS = { LIQUIDATOR_MAX_CLAIM_NOTIONAL: "2000", LIQUIDATOR_MAX_TOTAL_EXPOSURE: "10000", LIQUIDATOR_MIN_FEE: "1" };
const sims: SimulatorHandle[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
  await Promise.all(dirs.map((d) => removeDir(d)));
});

async function sim(options: StartSimulatorOptions = {}): Promise<SimulatorHandle> {
  const s = await startSimulator({ scenario: QUIET_SCENARIO, ...options });
  sims.push(s);
  return s;
}

interface Check {
  name: string;
  status: string;
  detail: string;
  hint: string;
}

async function preflight(
  urls: { base: string; ws: string; wsPrivate: string; account: string },
  secret: Record<string, string>,
): Promise<Check[]> {
  let out = "";
  const code = await main(["preflight", "--json"], {
    stdout: new Writable({
      write(chunk, _enc, cb) {
        out += String(chunk);
        cb();
      },
    }),
    stderr: new Writable({ write: (_c, _e, cb) => cb() }),
    env: cleanEnv({
      LIQUIDATOR_VENUE: "live",
      LIQUIDATOR_BASE_URL: urls.base,
      LIQUIDATOR_WS_URL: urls.ws,
      LIQUIDATOR_WS_PRIVATE_URL: urls.wsPrivate,
      LIQUIDATOR_ACCOUNT_ID: urls.account,
      LIQUIDATOR_PREFLIGHT_STREAM_TIMEOUT_MS: "5000",
      ...LIMITS,
      ...secret,
    }),
    signal: new AbortController().signal,
  });
  expect([0, 1]).toContain(code);
  return (JSON.parse(out) as { checks: Check[] }).checks;
}

const urlsOf = (s: SimulatorHandle) => ({ base: s.baseUrl, ws: s.wsUrl, wsPrivate: s.wsPrivateUrl, account: s.accountId });

describe("preflight's words", () => {
  test("a venue that cannot be reached: every REST check names host:port and says so, no check blames the key", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((r) => server.close(() => r())); // nothing listens there now
    const url = `http://127.0.0.1:${port}`;
    const checks = await preflight(
      { base: url, ws: `ws://127.0.0.1:${port}`, wsPrivate: `ws://127.0.0.1:${port}`, account: "0xabc" },
      {
        LIQUIDATOR_SECRET: generateKeyPair().secret,
      },
    );
    for (const name of ["clock", "rest", "symbols", "key", "account", "leverage", "claim_probe", "order_lookup_probe"]) {
      const c = checks.find((x) => x.name === name);
      expect(c?.status, name).toBe("fail");
      expect(c?.detail, name).toContain(`cannot reach the venue at 127.0.0.1:${port}`);
      expect(c?.hint, name).not.toMatch(/check the key/);
    }
    expect(checks.find((c) => c.name === "public_stream")?.detail).toContain(`127.0.0.1:${port}`);
  }, 60_000);

  test("a refused key: the hint names LIQUIDATOR_SECRET_FILE when the secret came from a file", async () => {
    const s = await sim();
    const dir = await tempDir("secret-file");
    dirs.push(dir);
    const file = join(dir, "secret");
    await writeFile(file, `${generateKeyPair().secret}\n`);
    await chmod(file, 0o600);
    const checks = await preflight(urlsOf(s), { LIQUIDATOR_SECRET_FILE: file });
    for (const name of ["key", "private_stream"]) {
      const c = checks.find((x) => x.name === name);
      expect(c?.status, name).toBe("fail");
      expect(c?.hint, name).toContain("LIQUIDATOR_SECRET_FILE");
      expect(c?.hint, name).not.toMatch(/LIQUIDATOR_SECRET(?!_FILE)/);
    }
  }, 60_000);

  test("a key limited to some addresses: the key check shows them and warns that another address is refused", async () => {
    const s = await sim({ key: { ipRestriction: { status: "ON", list: "203.0.113.7,127.0.0.1" } }, maxLeverage: 100 });
    const checks = await preflight(urlsOf(s), { LIQUIDATOR_SECRET: s.secret });
    const key = checks.find((c) => c.name === "key");
    expect(key?.status).toBe("warn");
    expect(key?.detail).toContain("IP restriction ON (203.0.113.7, 127.0.0.1)");
    expect(key?.hint).toContain("refused as unauthorized on every call");
    // Every warn says whether it is safe to go on.
    for (const c of checks.filter((x) => x.status === "warn"))
      expect(c.hint, c.name).toMatch(/\((safe to go on|not safe to go on until this is fixed)\)$/);
  }, 60_000);
});
