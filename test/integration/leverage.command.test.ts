/**
 * `liquidator leverage` and the preflight `leverage` check against `liquidator simulate` run with
 * leverage below the maximum (`--leverage 5 --leverage PERP_ETH_USDC=4`), all through the real
 * dispatcher over real sockets: the table and --json name each allowed symbol's setting, its maximum
 * and the margin a claim needs at each; preflight warns (safe to go on) with the command that fixes
 * it; `--set-max` raises every symbol in one call and then the check passes; a refused change exits 1;
 * `--set` with `--symbol` changes that symbol alone.
 */
import { PassThrough, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { main } from "../../src/commands/dispatch.js";
import { cleanEnv } from "../support/daemonHarness.js";
import { waitFor } from "../support/wait.js";

interface SimInfo {
  base_url: string;
  ws_url: string;
  ws_private_url: string;
  account_id: string;
  secret: string;
}

let sim: { info: SimInfo; stop: () => void; status: Promise<number> };

beforeAll(async () => {
  const stdout = new PassThrough();
  let buf = "";
  stdout.on("data", (c: Buffer) => (buf += c.toString("utf8")));
  const controller = new AbortController();
  const status = main(["simulate", "--port", "0", "--seed", "34", "--quiet", "--leverage", "5", "--leverage", "PERP_ETH_USDC=4"], {
    stdout,
    stderr: new PassThrough(),
    env: { LIQUIDATOR_LOG_LEVEL: "silent" },
    signal: controller.signal,
  });
  await waitFor(() => buf.includes("\n"), "simulate's first line", 30_000, 20);
  sim = { info: JSON.parse(buf.slice(0, buf.indexOf("\n"))) as SimInfo, stop: () => controller.abort(), status };
});

afterAll(async () => {
  sim.stop();
  expect(await sim.status).toBe(0);
});

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const sink = (add: (t: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        add(String(chunk));
        cb();
      },
    });
  const code = await main(args, {
    stdout: sink((t) => (out += t)),
    stderr: sink((t) => (err += t)),
    env: cleanEnv({
      LIQUIDATOR_VENUE: "live",
      LIQUIDATOR_BASE_URL: sim.info.base_url,
      LIQUIDATOR_WS_URL: sim.info.ws_url,
      LIQUIDATOR_WS_PRIVATE_URL: sim.info.ws_private_url,
      LIQUIDATOR_ACCOUNT_ID: sim.info.account_id,
      LIQUIDATOR_SECRET: sim.info.secret,
      LIQUIDATOR_PREFLIGHT_STREAM_TIMEOUT_MS: "10000",
      LIQUIDATOR_MAX_CLAIM_NOTIONAL: "2000",
      LIQUIDATOR_MAX_TOTAL_EXPOSURE: "10000",
      LIQUIDATOR_MIN_FEE: "1",
      ...env,
    }),
    signal: new AbortController().signal,
  });
  return { code, out, err };
}

interface LeverageJson {
  venue_max: number | null;
  symbols: {
    symbol: string;
    leverage: number | null;
    max: number | null;
    below_max: boolean;
    margin_at_setting: number;
    margin_at_max: number | null;
  }[];
  set?: { request: Record<string, unknown>; refused?: { code: number } };
}

const leverageCheck = async () => {
  const r = await cli(["preflight", "--json"]);
  const report = JSON.parse(r.out) as { checks: { name: string; status: string; detail: string; hint: string }[] };
  const names = report.checks.map((c) => c.name);
  expect(names.indexOf("leverage")).toBe(names.indexOf("account") + 1);
  expect(names.indexOf("claim_probe")).toBe(names.indexOf("leverage") + 1);
  return report.checks.find((c) => c.name === "leverage");
};

describe("liquidator leverage against liquidator simulate", () => {
  test("below the maximum: the table, --json and the preflight warn name it with what a claim needs; --set-max fixes it", async () => {
    const table = await cli(["leverage"]);
    expect(table.code, table.err).toBe(0);
    expect(table.out).toMatch(/^PERP_ETH_USDC\s+4×\s+50×\s+2000\s+500\.00\s+40\.00\s+below max$/m);
    expect(table.out).toMatch(/^PERP_DOGE_USDC\s+5×\s+10×/m);
    expect(table.out).toContain("liquidator leverage --set-max");

    const json = JSON.parse((await cli(["leverage", "--json"])).out) as LeverageJson;
    expect(json.venue_max).toBe(50);
    const eth = json.symbols.find((s) => s.symbol === "PERP_ETH_USDC");
    expect(eth).toMatchObject({ leverage: 4, max: 50, below_max: true, margin_at_setting: 500, margin_at_max: 40 });

    const before = await leverageCheck();
    expect(before?.status).toBe("warn");
    expect(before?.detail).toContain("PERP_ETH_USDC 4× of 50×");
    expect(before?.hint).toContain("liquidator leverage --set-max");
    expect(before?.hint).toContain("(safe to go on)");

    const set = await cli(["leverage", "--set-max", "--json"]);
    expect(set.code, set.err).toBe(0);
    const after = JSON.parse(set.out) as LeverageJson;
    expect(after.set?.request).toEqual({ leverage: 50 });
    for (const s of after.symbols) expect(s.below_max, s.symbol).toBe(false);
    expect(after.symbols.find((s) => s.symbol === "PERP_DOGE_USDC")?.leverage).toBe(10);
    expect((await leverageCheck())?.status).toBe("pass");
  });

  test("--set N --symbol S changes that symbol alone; a leverage over its maximum is refused: exit 1, nothing changed", async () => {
    const one = await cli(["leverage", "--set", "3", "--symbol", "PERP_SOL_USDC", "--json"]);
    expect(one.code, one.err).toBe(0);
    const j = JSON.parse(one.out) as LeverageJson;
    expect(j.set?.request).toEqual({ symbol: "PERP_SOL_USDC", leverage: 3 });
    expect(j.symbols).toEqual([expect.objectContaining({ symbol: "PERP_SOL_USDC", leverage: 3, below_max: true })]);

    const refused = await cli(["leverage", "--set", "20", "--symbol", "PERP_DOGE_USDC"]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("-1005");
    const doge = JSON.parse((await cli(["leverage", "--json", "--symbol", "PERP_DOGE_USDC"])).out) as LeverageJson;
    expect(doge.symbols[0]?.leverage).toBe(10);
  });

  test("usage and config: --set-max with --set is a usage error (64); an invalid config exits 78", async () => {
    expect((await cli(["leverage", "--set-max", "--set", "3"])).code).toBe(64);
    expect((await cli(["leverage", "--set", "0"])).code).toBe(64);
    expect((await cli(["leverage"], { LIQUIDATOR_MAX_MARGIN_USAGE: "7" })).code).toBe(78);
  });
});
