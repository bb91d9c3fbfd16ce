/**
 * The daemon's logs as a person and a pipeline read them (the compiled CLI against the simulated
 * venue): one `component` key per JSON line, a child logger's included; one start-up line per port;
 * money without float noise; one info line per position closed; and in the pretty format every record
 * one line, so a claim is its accepted line plus a line per position it closed.
 */
import { describe, expect } from "vitest";
import { claimsBy, daemonEnv, OPEN_POLICY, waitFor, writePolicyFile } from "../support/daemonHarness.js";
import { type Rig, test } from "../support/rig.js";
import { openQty } from "../support/unwindProbe.js";

const ETH = "PERP_ETH_USDC";
const BTC = "PERP_BTC_USDC";

/** Keys that carry quote amounts (a fee, a notional, a net…) anywhere in a line. */
const MONEY_KEY = /^(fee|fees|expectedFee|net|value|notional|dustNotional|dustQuote|liquidatorFee|trading|pnl|collateral)$/;

function moneyValues(o: unknown, out: number[] = []): number[] {
  if (Array.isArray(o)) for (const v of o) moneyValues(v, out);
  else if (typeof o === "object" && o !== null)
    for (const [k, v] of Object.entries(o)) {
      if (MONEY_KEY.test(k) && typeof v === "number") out.push(v);
      else moneyValues(v, out);
    }
  return out;
}

const decimals = (x: number): number => (String(x).split(".")[1] ?? "").replace(/e.*$/, "").length;

async function runAndClaim(rig: Rig, cli: string, extraEnv: Record<string, string>) {
  const sim = await rig.sim({});
  const dir = await rig.dir("logs");
  const config = await writePolicyFile(dir, OPEN_POLICY);
  const p = rig.spawn(cli, [], daemonEnv(sim, `${dir}/state`, { LIQUIDATOR_CONFIG: config, ...extraEnv }), dir);
  const url = await p.metricsUrl();
  await waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, "daemon ready", 30_000);
  // One claim of one symbol, one of two (a low-tier proportional claim: one claim, two positions).
  sim.core.addLiquidation({ positions: [{ symbol: ETH, position_qty: 0.8 }] });
  await waitFor(() => claimsBy(sim).length === 1, "the first claim");
  // Closed before the next claim (which would otherwise net with it): its line says so.
  await waitFor(() => /position closed/.test(p.stdout()), "the first claim closed", 30_000);
  expect(openQty(sim, ETH)).toBe(0);
  sim.core.addLiquidation({
    positions: [
      { symbol: ETH, position_qty: -0.5 },
      { symbol: BTC, position_qty: 0.02 },
    ],
  });
  await waitFor(() => claimsBy(sim).length === 2, "the second claim");
  return { sim, p, url };
}

describe("daemon logs", () => {
  test("JSON: one component key per line, one start-up line per port, money rounded, a line per position closed", async ({
    rig,
    build,
  }) => {
    const { p, url } = await runAndClaim(rig, build.cli, {});
    await waitFor(() => p.logs.find("position closed").length >= 3, "three positions closed", 30_000);
    p.child.kill("SIGTERM");
    expect((await p.exit).code).toBe(0);
    const raw = p.stdout().trim().split("\n");
    for (const line of raw) expect(line.match(/"component":/g)?.length ?? 0, line).toBeLessThanOrEqual(1);
    // Stream lines come from a child of the daemon's child: their component is the stream's.
    expect(p.logs.find("stream ready").map((l) => l.component)).toEqual(expect.arrayContaining(["stream.public", "stream.private"]));
    const port = new URL(url).port;
    expect(raw.filter((l) => l.includes(`"port":${port}`))).toHaveLength(1);
    for (const line of raw) for (const v of moneyValues(JSON.parse(line))) expect(decimals(v), line).toBeLessThanOrEqual(6);
    const closed = p.logs.find("position closed");
    for (const c of closed) {
      expect(Object.keys(c)).toEqual(expect.arrayContaining(["symbol", "qty", "avgPrice", "slippageBps", "timeToFlatS"]));
      expect(decimals(c.qty as number)).toBeLessThanOrEqual(8);
    }
  }, 120_000);

  test("pretty: every record is one line; a claim reads as its accepted line and a line per position it closed", async ({ rig, build }) => {
    const { p } = await runAndClaim(rig, build.cli, { LIQUIDATOR_LOG_PRETTY: "true" });
    await waitFor(() => (p.stdout().match(/position closed/g)?.length ?? 0) >= 3, "three positions closed", 30_000);
    p.child.kill("SIGTERM");
    expect((await p.exit).code).toBe(0);
    const lines = p.stdout().trim().split("\n");
    // Every line is a record of its own: time, level, message (fields on the same line).
    for (const line of lines) expect(line, line).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL): /);
    const claimLines = lines.filter((l) => /INFO: (claim accepted|position closed)/.test(l));
    // Two claims: 1 + 1 lines, then 1 + 2 (its two positions).
    expect(claimLines.filter((l) => l.includes("claim accepted"))).toHaveLength(2);
    expect(claimLines.filter((l) => l.includes("position closed"))).toHaveLength(3);
    // And nothing else at info while they happen: from the first claim to the last close, those five lines.
    const from = lines.findIndex((l) => l.includes("INFO: claim accepted"));
    const to = lines.findLastIndex((l) => l.includes("INFO: position closed"));
    expect(lines.slice(from, to + 1).filter((l) => /^\[[^\]]+\] (INFO|WARN|ERROR|FATAL): /.test(l))).toEqual(claimLines);
  }, 120_000);
});
