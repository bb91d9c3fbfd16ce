/**
 * `liquidator preflight` against the simulator: every check passes on a good setup; a wrong key, an
 * expired key, a clock 10 minutes off and a refusing stream each fail the check they concern, name
 * it and exit 1; no output ever holds the secret in any of its encodings; the --json shape.
 */
import { Writable } from "node:stream";
import { base58 } from "@scure/base";
import { afterAll, describe, expect, test } from "vitest";
import { main } from "../../src/commands/dispatch.js";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { type SimulatorHandle, type StartSimulatorOptions, startSimulator } from "../../src/sim/startSimulator.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import { cleanEnv } from "../support/daemonHarness.js";

const NAMES = [
  "config",
  "clock",
  "rest",
  "symbols",
  "public_stream",
  "private_stream",
  "key",
  "account",
  "leverage",
  "claim_probe",
  "order_lookup_probe",
];

/** The limits `run` wants set in live mode (config/liveLimits.ts): a setup ready to run. */
const LIMITS = { LIQUIDATOR_MAX_CLAIM_NOTIONAL: "2000", LIQUIDATOR_MAX_TOTAL_EXPOSURE: "10000", LIQUIDATOR_MIN_FEE: "1" };

const sims: SimulatorHandle[] = [];
afterAll(async () => {
  await Promise.all(sims.map((s) => s.close()));
});

async function sim(options: StartSimulatorOptions = {}): Promise<SimulatorHandle> {
  const s = await startSimulator({ scenario: QUIET_SCENARIO, ...options });
  sims.push(s);
  return s;
}

interface Run {
  code: number;
  out: string;
  err: string;
}

const secretsSeen: { secret: string; text: string }[] = [];

async function preflight(
  s: SimulatorHandle,
  args: string[] = [],
  secret = s.secret,
  extraEnv: Record<string, string> = LIMITS,
): Promise<Run> {
  let out = "";
  let err = "";
  const sink = (add: (t: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        add(String(chunk));
        cb();
      },
    });
  const env = cleanEnv({
    LIQUIDATOR_VENUE: "live",
    LIQUIDATOR_BASE_URL: s.baseUrl,
    LIQUIDATOR_WS_URL: s.wsUrl,
    LIQUIDATOR_WS_PRIVATE_URL: s.wsPrivateUrl,
    LIQUIDATOR_ACCOUNT_ID: s.accountId,
    LIQUIDATOR_SECRET: secret,
    LIQUIDATOR_PREFLIGHT_STREAM_TIMEOUT_MS: "10000",
    ...extraEnv,
  });
  const code = await main(["preflight", ...args], {
    stdout: sink((t) => (out += t)),
    stderr: sink((t) => (err += t)),
    env,
    signal: new AbortController().signal,
  });
  secretsSeen.push({ secret, text: out + err });
  return { code, out, err };
}

/** The status of each check from the text output. */
function statuses(out: string): Record<string, string> {
  const r: Record<string, string> = {};
  for (const m of out.matchAll(/^(pass|warn|fail)\s+(\S+)/gm)) r[m[2] as string] = m[1] as string;
  return r;
}

const failed = (out: string): string[] =>
  Object.entries(statuses(out))
    .filter(([, s]) => s === "fail")
    .map(([n]) => n);

describe("liquidator preflight", () => {
  test("against the simulator every check passes, orders probe included; exit 0", async () => {
    // Every symbol at its maximum leverage (the default 10× is below the majors' 50×: `leverage` warns).
    const r = await preflight(await sim({ maxLeverage: 100 }), ["--probe-orders"]);
    expect(r.code, r.out + r.err).toBe(0);
    const st = statuses(r.out);
    expect(Object.keys(st)).toEqual([...NAMES, "order_probe"]);
    for (const [name, status] of Object.entries(st)) expect(status, `${name}\n${r.out}`).toBe("pass");
  });

  test("against the simulator in its real-venue flavor every check passes or warns (the venue's own codes recorded); exit 0", async () => {
    const r = await preflight(await sim({ flavor: "real" }), ["--json"]);
    expect(r.code, r.out + r.err).toBe(0);
    const report = JSON.parse(r.out) as { venue: Record<string, Record<string, unknown>>; checks: { name: string; status: string }[] };
    expect(report.checks.filter((c) => c.status === "fail")).toEqual([]);
    expect(report.venue.symbols?.field_types).toMatchObject({ liquidation_tier: { string: expect.any(Number) } });
    expect(report.venue.order_lookup_probe?.code).toBe(-1000);
    expect(report.checks.find((c) => c.name === "order_lookup_probe")?.status).toBe("warn");
  });

  test("live limits left to their built-in values: config warns, naming what run would refuse", async () => {
    const r = await preflight(await sim(), [], undefined, {});
    expect(statuses(r.out).config).toBe("warn");
    expect(r.out).toContain("policy.max_total_exposure");
  });

  test("--json: {venue, checks:[{name,status,detail,hint}]} with observed types and codes", async () => {
    const r = await preflight(await sim(), ["--json"]);
    expect(r.code, r.out + r.err).toBe(0);
    const report = JSON.parse(r.out) as { venue: Record<string, Record<string, unknown>>; checks: Record<string, unknown>[] };
    expect(Object.keys(report)).toEqual(["venue", "checks"]);
    expect(report.checks.map((c) => c.name)).toEqual(NAMES);
    for (const c of report.checks) {
      expect(Object.keys(c)).toEqual(["name", "status", "detail", "hint"]);
      expect(["pass", "warn", "fail"]).toContain(c.status);
    }
    expect(report.venue.symbols?.field_types).toMatchObject({ liquidation_tier: { number: expect.any(Number) } });
    expect(report.venue.claim_probe?.code).toBe(-1202);
    // Each claim form the daemon sends, and the OpenAPI's, against an id inside the int32 range.
    expect(report.venue.claim_probe?.liquidation_id).toBe(2_147_483_647);
    expect(report.venue.claim_probe?.forms).toEqual([
      expect.objectContaining({ form: "ratio", code: -1202 }),
      expect.objectContaining({ form: "symbols_array", code: -1202 }),
      // The simulator reads `symbols` as an array only (its choice: the venue's is unsettled).
      expect.objectContaining({ form: "symbols_object", code: -1005 }),
      // The fund's route is probed with the fund off too: its answer settles the route before it is turned on.
      expect.objectContaining({ form: "insurance_fund", code: -1202 }),
    ]);
    expect(report.venue.leverage).toMatchObject({ venue_max: 50, leverages_route: true });
    expect(report.venue.order_lookup_probe?.code).toBe(-1006);
    expect(report.venue.private_stream?.auth_encoding).toBe("base64url");
    expect(report.venue.key?.field_types).toEqual({ scope: "string", expiration: "number", key_status: "string" });
    expect(report.venue.rest?.read_latency_ms).toHaveLength(3);
  });

  test("insurance_fund on: claim_probe also sends the fund's route a claim on the impossible id and records its answer", async () => {
    const r = await preflight(await sim(), ["--json"], undefined, { ...LIMITS, LIQUIDATOR_INSURANCE_FUND: "1" });
    expect(r.code, r.out + r.err).toBe(0);
    const report = JSON.parse(r.out) as { venue: Record<string, Record<string, unknown>>; checks: { name: string; status: string }[] };
    expect(report.venue.claim_probe?.forms).toContainEqual(expect.objectContaining({ form: "insurance_fund", code: -1202 }));
    expect(report.checks.find((c) => c.name === "claim_probe")?.status).toBe("pass");
  });

  test("insurance_fund on through route liquidation: the ratio form is that route, so no fund claim is sent", async () => {
    const env = { ...LIMITS, LIQUIDATOR_INSURANCE_FUND: "1", LIQUIDATOR_INSURANCE_FUND_ROUTE: "liquidation" };
    const r = await preflight(await sim(), ["--json"], undefined, env);
    expect(r.code, r.out + r.err).toBe(0);
    const report = JSON.parse(r.out) as { venue: Record<string, Record<string, unknown>> };
    const forms = (report.venue.claim_probe?.forms ?? []) as { form: string }[];
    expect(forms.map((f) => f.form)).not.toContain("insurance_fund");
  });

  test("a wrong key fails private_stream and key, names them, exit 1", async () => {
    const r = await preflight(await sim(), [], generateKeyPair().secret);
    expect(r.code).toBe(1);
    const f = failed(r.out);
    expect(f).toContain("private_stream");
    expect(f).toContain("key");
    expect(f).not.toContain("clock");
    expect(f).not.toContain("public_stream");
    expect(r.out).toMatch(/^preflight: failed: .*private_stream.*key/m);
  });

  test("an expired key fails key (saying so), exit 1", async () => {
    const r = await preflight(await sim({ key: { expiresAt: Date.now() - 86_400_000 } }));
    expect(r.code).toBe(1);
    expect(failed(r.out)).toEqual(["key"]);
    expect(r.out).toMatch(/^fail\s+key\s+.*expired/m);
  });

  test("a key without the trading scope fails key, exit 1", async () => {
    const r = await preflight(await sim({ key: { scope: "read" } }));
    expect(r.code).toBe(1);
    expect(failed(r.out)).toEqual(["key"]);
    expect(r.out).toMatch(/^fail\s+key\s+.*without 'trading'/m);
  });

  test("a clock 10 minutes off fails clock; the rest works on the learned offset; exit 1", async () => {
    const r = await preflight(await sim({ now: () => Date.now() + 600_000 }));
    expect(r.code).toBe(1);
    expect(failed(r.out)).toEqual(["clock"]);
    expect(r.out).toMatch(/^fail\s+clock\s+local clock behind the venue by (59|60)\d{4} ms/m);
  });

  test("a public stream that refuses connections fails public_stream, exit 1", async () => {
    const s = await sim();
    s.faults.streams.refuseConnections(true, "public");
    const r = await preflight(s);
    expect(r.code).toBe(1);
    expect(failed(r.out)).toEqual(["public_stream"]);
  });

  test("a private stream that refuses every auth fails private_stream after trying every sign encoding", async () => {
    const s = await sim();
    s.faults.streams.failAuth(true);
    const r = await preflight(s, ["--json"]);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as { venue: Record<string, Record<string, unknown>>; checks: { name: string; status: string }[] };
    expect(report.checks.filter((c) => c.status === "fail").map((c) => c.name)).toEqual(["private_stream"]);
    expect(report.venue.private_stream, JSON.stringify(report.venue.private_stream)).toBeDefined();
    expect(report.venue.private_stream?.refused_encodings, JSON.stringify(report.venue.private_stream)).toEqual([
      "base64url",
      "base64url_padded",
      "base64",
    ]);
  });

  test("no output of any run holds the secret, as base58 or its seed in base64 / base64url / hex", () => {
    expect(secretsSeen.length).toBeGreaterThanOrEqual(8);
    for (const { secret, text } of secretsSeen) {
      const seed = Buffer.from(base58.decode(secret));
      for (const form of [secret, seed.toString("base64"), seed.toString("base64url"), seed.toString("hex")]) {
        expect(text.includes(form), "a secret form leaked").toBe(false);
      }
    }
  });
});
