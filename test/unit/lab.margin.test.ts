/**
 * Margin in the backtest: the same decision code as the daemon checks each variant's claims against
 * `--collateral`; a tight collateral skips claims for margin and the report says how long the
 * variant stood at its margin limit; a generous one changes nothing against a replay without it.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { writeLabMarket } from "../../src/bench/labMarket.js";
import { backtest } from "../../src/lab/replay/backtest.js";
import { buildVariants } from "../../src/lab/sweep/variants.js";
import { removeDir, tempDir } from "../support/daemonHarness.js";

let dir: string;
let file: string;
beforeAll(async () => {
  dir = await tempDir("lab-margin");
  file = join(dir, "market.jsonl.gz");
  await writeLabMarket(file, 0.1);
}, 120_000);
afterAll(() => removeDir(dir));

const run = async (collateral: number, sets: string[] = []) =>
  backtest({ files: [file], variants: await buildVariants([], sets), defaultLatencyMs: 50, slippageBps: 5, takerFeeBps: 5, collateral });

test("a tight collateral: claims skipped for margin, time at the limit, less claimed; a generous one: none", async () => {
  const tight = (await run(5_000)).variants[0];
  const generous = (await run(1e12)).variants[0];
  expect(tight?.margin_skips).toBeGreaterThan(0);
  expect(tight?.skipped.margin).toBeGreaterThan(0);
  expect(tight?.at_margin_limit_seconds).toBeGreaterThan(0);
  expect(tight?.claimed_notional).toBeLessThan(generous?.claimed_notional as number);
  expect(generous?.margin_skips).toBe(0);
  expect(generous?.at_margin_limit_seconds).toBe(0);
}, 120_000);

test("max_margin_usage is a variant key like any other policy key", async () => {
  const report = await run(20_000, ["policy.max_margin_usage=0.1,1"]);
  const [low, high] = report.variants;
  expect(low?.claimed_notional).toBeLessThan(high?.claimed_notional as number);
  expect(report.assumptions.some((a) => a.includes("20000 of collateral"))).toBe(true);
}, 120_000);
