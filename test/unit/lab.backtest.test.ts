/**
 * The replay's model on a hand-made capture: the policy decides (min_fee variants differ), claims
 * leave at the claims limiter's spacing best fee first, a claim loses only when the capture shows the
 * liquidation taken by someone else before its answer lands (not when the recording account took it),
 * and the same input gives byte-identical JSON.
 */
import { execFile } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, test } from "vitest";
import type { CaptureEvent } from "../../src/daemon/records/captureTap.js";
import { backtest } from "../../src/lab/replay/backtest.js";
import { buildVariants } from "../../src/lab/sweep/variants.js";
import { spacingFor } from "../../src/venue/limiters.js";
import { buildOnce } from "../support/buildOnce.js";
import { claimEvent, liquidationEvent, market, runCli, T0, writeCapture } from "../support/captures.js";
import { OPEN_POLICY, removeDir, tempDir, writePolicyFile } from "../support/daemonHarness.js";

let dir: string | undefined;
afterEach(async () => {
  await removeDir(dir);
  dir = undefined;
});

interface Out {
  model: { latency_ms: number; latency_source: string; own_takes: number };
  variants: {
    name: string;
    offered: number;
    claimed: number;
    claimed_ids: number[];
    skipped: Record<string, number>;
    expected_fee: number;
    claimed_notional: number;
    peak_exposure: number;
    liquidator_fee: number;
    trading: number;
    fees: number;
    open: number;
    net: number;
    estimated_net: number;
  }[];
}

const ETH = "PERP_ETH_USDC";

async function scenario(extraClaims: boolean): Promise<{ file: string; config: string }> {
  dir = await tempDir("bt");
  const t = T0 + 2_500;
  const events = [
    liquidationEvent(t, 1, { [ETH]: 10 }), // fee ≈ 240: claimed
    liquidationEvent(t + 500, 2, { [ETH]: 0.1 }), // fee ≈ 2.4: below min_fee 5
    // Taken by someone else 20 ms after it appeared: our answer (50 ms) lands too late.
    liquidationEvent(t + 1_000, 3, { [ETH]: 2 }),
    liquidationEvent(t + 1_020, 3, {}),
    // Five at once, rivals take them all 300 ms later: sends at 0 and 210 ms land in time.
    ...[5, 4, 3, 2, 1].map((q, i) => liquidationEvent(t + 3_000, 10 + i, { [ETH]: q })),
    ...[10, 11, 12, 13, 14].map((id) => liquidationEvent(t + 3_300, id, {})),
  ];
  if (extraClaims) {
    // The recording account itself took id 4 (answer in the capture): its removal is ours, not a rival's.
    events.push(liquidationEvent(t + 5_000, 4, { [ETH]: 3 }), claimEvent(t + 5_001, 4, 0, 50), liquidationEvent(t + 5_020, 4, {}));
  }
  const file = join(dir, "c.jsonl.gz");
  await writeCapture(file, market(12, events));
  const config = await writePolicyFile(dir, { ...OPEN_POLICY, min_fee: 0 }, "lab.yaml");
  return { file, config };
}

describe("backtest model", () => {
  test("decisions per variant, limiter spacing, rivals' takes before our answer lands", async () => {
    expect(spacingFor(5)).toBe(210); // the daemon's default claims rate: the premise of ids 10–14
    const { file, config } = await scenario(false);
    const r = await runCli(["backtest", file, "--config", config, "--set", "policy.min_fee=0,5", "--json", "--ids"]);
    expect(r.stderr.replace(/^liquidator backtest: wrote .*\n/gm, "")).toBe("");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Out;
    expect(out.model).toMatchObject({ latency_ms: 50, latency_source: "assumed", own_takes: 0 });
    const [all, five] = out.variants;
    expect(all?.name).toBe("lab policy.min_fee=0");
    expect(all?.offered).toBe(8);
    expect(all?.claimed_ids).toEqual([1, 2, 10, 11]);
    expect(all?.skipped).toEqual({ taken_by_other: 1 });
    expect(five?.claimed_ids).toEqual([1, 10, 11]);
    expect(five?.skipped).toEqual({ below_min_fee: 1, taken_by_other: 1 });
    // Fee = |q| × mark × rate at decision: id 1 at mark 3003 (the mark of second 3 is 3003 at t).
    expect(five?.expected_fee).toBeCloseTo((10 * 3002 + 5 * 3005 + 4 * 3005) * 0.008, 0);
    expect(five?.peak_exposure).toBeGreaterThan(10 * 3000);
    // The ledger's words (liquidator pnl's): the unwinds cost fees and the net is less than the fee.
    expect(five?.fees).toBeGreaterThan(0);
    expect(five?.net).toBe(five?.estimated_net);
    expect((five?.liquidator_fee ?? 0) + (five?.trading ?? 0) - (five?.fees ?? 0) + (five?.open ?? 0)).toBeCloseTo(five?.net ?? 0, 5);
    expect(five?.estimated_net).toBeLessThan(five?.expected_fee ?? 0);
  });

  test("a liquidation the recording account took is not a rival's take; latency measured from its answers", async () => {
    const { file, config } = await scenario(true);
    const out = JSON.parse((await runCli(["backtest", file, "--config", config, "--json", "--ids"])).stdout) as Out;
    expect(out.model).toMatchObject({ latency_ms: 50, latency_source: "measured", own_takes: 1 });
    expect(out.variants[0]?.claimed_ids).toEqual([1, 2, 4, 10, 11]);
  });

  test("an id the recording account took stays open to a variant whose queue had not reached it", async () => {
    dir = await tempDir("bt-own");
    const t = T0 + 2_500;
    // Five at once: a variant sends one per 210 ms, best fee first, so id 24 (the smallest) leaves
    // last, 840 ms in. The recording account took 24 at once and the capture shows it leave at 30 ms.
    const events = [
      ...[5, 4, 3, 2, 1].map((q, i) => liquidationEvent(t, 20 + i, { [ETH]: q })),
      claimEvent(t + 5, 24, 0, 20),
      liquidationEvent(t + 30, 24, {}),
    ];
    const file = join(dir, "c.jsonl.gz");
    await writeCapture(file, market(6, events));
    const config = await writePolicyFile(dir, { ...OPEN_POLICY, min_fee: 0 }, "lab.yaml");
    const out = JSON.parse((await runCli(["backtest", file, "--config", config, "--json", "--ids"])).stdout) as Out;
    expect(out.variants[0]?.claimed_ids).toEqual([20, 21, 22, 23, 24]);
    expect(out.variants[0]?.skipped).toEqual({});
  });

  test("the recording account's own assignments and unwind trades: recorded by component, unwind costs measured", async () => {
    dir = await tempDir("bt-rec");
    const t = T0 + 2_500;
    const mark = 3002; // second 2's mark
    const price = mark * (1 - 0.001); // sold 10 bps under the mark
    const events = [
      liquidationEvent(t, 30, { [ETH]: 3 }),
      claimEvent(t + 5, 30, 0, 20),
      { k: "assigned", at: t + 25, id: 30, fills: [{ symbol: ETH, qty: 3, price: 3000, fee: 72 }] },
      { k: "fill", at: t + 60, symbol: ETH, qty: -3, price, fee: 3 * price * 0.0004, mark },
    ] as CaptureEvent[];
    const file = join(dir, "c.jsonl.gz");
    await writeCapture(file, market(6, events));
    const config = await writePolicyFile(dir, { ...OPEN_POLICY, min_fee: 0 }, "lab.yaml");
    const r = await runCli(["backtest", file, "--config", config, "--json"]);
    expect(r.stderr.replace(/^liquidator backtest: wrote .*\n/gm, "")).toBe("");
    const out = JSON.parse(r.stdout) as Out & { recorded: Record<string, number>; model: Record<string, unknown> };
    expect(out.model).toMatchObject({ unwind_slippage_bps: 10, taker_fee_bps: 4, unwind_source: "measured", unwind_samples: 1 });
    expect(out.recorded.claims).toBe(1);
    expect(out.recorded.liquidator_fee).toBeCloseTo(72, 6);
    expect(out.recorded.trading).toBeCloseTo(3 * (price - 3000), 6);
    expect(out.recorded.fees).toBeCloseTo(3 * price * 0.0004, 6);
    expect(out.recorded.open).toBe(0);
    expect(out.recorded.net).toBeCloseTo(72 + 3 * (price - 3000) - 3 * price * 0.0004, 6);
    // Given on the command line, the assumptions win over the measurement.
    const given = JSON.parse(
      (await runCli(["backtest", file, "--config", config, "--json", "--slippage-bps", "7", "--taker-fee-bps", "3"])).stdout,
    );
    expect(given.model).toMatchObject({ unwind_slippage_bps: 7, taker_fee_bps: 3, unwind_source: "assumed", unwind_samples: 0 });
  });

  test("the same input gives byte-identical output (JSON and table)", async () => {
    const { file, config } = await scenario(true);
    const args = ["backtest", file, "--config", config, "--set", "policy.min_fee=0,5,50", "--set", "unwind.mode=off,immediate"];
    const a = await runCli([...args, "--json"]);
    const b = await runCli([...args, "--json"]);
    expect(a.stdout.length).toBeGreaterThan(500);
    expect(b.stdout).toBe(a.stdout);
    expect((await runCli(args)).stdout).toBe((await runCli(args)).stdout);
    const names = (JSON.parse(a.stdout) as Out).variants.map((v) => v.name);
    expect(names).toHaveLength(6);
  });

  test("a variant's result is the same beside others as alone: the shared market changes nothing it sees", async () => {
    const { file, config } = await scenario(true);
    const run = async (sets: string[]) =>
      (
        await backtest({
          files: [file],
          variants: await buildVariants([config], sets),
          defaultLatencyMs: 50,
          slippageBps: 5,
          takerFeeBps: 5,
          ids: true,
          sensitivity: true,
        })
      ).variants;
    const together = await run(["policy.min_fee=0,5,50", "unwind.mode=off,immediate"]);
    expect(together).toHaveLength(6);
    expect(new Set(together.map((v) => JSON.stringify(v.claimed_ids))).size).toBeGreaterThan(1); // they differ
    for (const v of together) {
      const [alone] = await run([`policy.min_fee=${v.settings["policy.min_fee"]}`, `unwind.mode=${v.settings["unwind.mode"]}`]);
      expect(alone).toEqual(v);
    }
  });

  test("a prepared file written beside the capture is said, once; --no-prepare writes none", async () => {
    const { file, config } = await scenario(false);
    const first = await runCli(["backtest", file, "--config", config, "--json"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(new RegExp(`^liquidator backtest: wrote ${file}\\.prepared \\([0-9.]+ MB\\), the prepared form of `));
    expect(existsSync(`${file}.prepared`)).toBe(true);
    // Read from it the next time: nothing new written, nothing said.
    expect((await runCli(["backtest", file, "--config", config, "--json"])).stderr).toBe("");
    rmSync(`${file}.prepared`);
    const none = await runCli(["backtest", file, "--config", config, "--json", "--no-prepare"]);
    expect(none.stderr).toBe("");
    expect(existsSync(`${file}.prepared`)).toBe(false);
  });

  test("--csv: a header and one row per variant; the assumptions go to stderr", async () => {
    const { file, config } = await scenario(false);
    const r = await runCli(["backtest", file, "--config", config, "--set", "policy.min_fee=0,5", "--csv"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "name,offered,sent,claimed,lost_to_others,claimed_notional,liquidator_fee,trading,fees,open,net,net_interval,claims_for_interval,expected_fee,peak_exposure,skipped,max_drawdown,at_cap_seconds,margin_skips,at_margin_limit_seconds,worst_claim,same_as",
    );
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/^lab policy\.min_fee=5,8,4,3,1,/);
    expect(r.stderr).toMatch(/^assumptions:/m);
  });

  test("--jobs: worker threads give the same bytes as one thread; their capture errors are the same errors", async ({ onTestFinished }) => {
    const build = await buildOnce("lab-jobs", ["cli.js", "lab/replay/backtestWorker.js"]);
    onTestFinished(() => build.remove());
    const { file, config } = await scenario(true);
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, [build.cli, "backtest", ...args]).then(
        (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    const args = [file, "--config", config, "--set", "policy.min_fee=0,5,50", "--set", "unwind.mode=off,immediate", "--json", "--ids"];
    const one = await cli(...args, "--jobs", "1");
    const four = await cli(...args, "--jobs", "4");
    expect(one.code).toBe(0);
    expect((JSON.parse(one.stdout) as Out).variants).toHaveLength(6);
    expect(four.stdout).toBe(one.stdout);

    const bad = join(dir as string, "bad.jsonl");
    await writeFile(bad, "not a capture\n");
    const a = await cli(bad, "--set", "policy.min_fee=0,5", "--jobs", "1");
    const b = await cli(bad, "--set", "policy.min_fee=0,5", "--jobs", "2");
    expect(a.code).not.toBe(0);
    expect(b.code).toBe(a.code);
    expect(b.stderr).toBe(a.stderr);
    expect(a.stderr).toContain(bad);
  });

  test("--jobs refuses what is not a whole number ≥ 1 (usage, exit 64)", async () => {
    const { file } = await scenario(false);
    for (const v of ["0", "1.5", "x"]) {
      const r = await runCli(["backtest", file, "--jobs", v]);
      expect(r.code).toBe(64);
      expect(r.stderr).toContain("--jobs");
    }
  });

  test("variants that differ in insurance_fund.route are refused (the venue's claim form is one, not a strategy)", async () => {
    const { file, config } = await scenario(false);
    const r = await runCli(["backtest", file, "--config", config, "--set", "insurance_fund.route=liquidation,claim_insurance_fund"]);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain("insurance_fund.route");
    // One route for all, or one config per route: each backtest replays the route it is given.
    await expect(buildVariants([config], ["insurance_fund.route=liquidation", "policy.min_fee=0,5"])).resolves.toHaveLength(2);
    const other = await writePolicyFile(dir as string, OPEN_POLICY, "other.yaml", { insurance_fund: { route: "liquidation" } });
    await expect(buildVariants([config, other], [])).rejects.toThrow(/insurance_fund\.route/);
  });
});
