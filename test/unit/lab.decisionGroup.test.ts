/**
 * Variants replayed as one while they decide alike (decisionGroup.ts, replayPasses.ts): the grouped
 * replay gives the same bytes as every variant replayed in full, on a capture where the variants
 * fork mid-way (a small liquidation some min_fee skips, a cap some exposure reaches); a key read
 * outside the decision never groups.
 */
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { readCaptureBatches } from "../../src/lab/capture/captureReader.js";
import { backtest, markIdentical } from "../../src/lab/replay/backtest.js";
import { replayInPasses } from "../../src/lab/replay/replayPasses.js";
import type { ReplayModel } from "../../src/lab/replay/replayVariant.js";
import { backtestJson } from "../../src/lab/report/backtestJson.js";
import { familyKey } from "../../src/lab/sweep/decisionFamily.js";
import { groupKey } from "../../src/lab/sweep/decisionGroup.js";
import { buildVariants } from "../../src/lab/sweep/variants.js";
import { liquidationEvent, market, T0, writeCapture } from "../support/captures.js";
import { OPEN_POLICY, removeDir, tempDir, writePolicyFile } from "../support/daemonHarness.js";

let dir: string | undefined;
afterEach(async () => {
  await removeDir(dir);
  dir = undefined;
});

const ETH = "PERP_ETH_USDC";

/** Large claims around a small one (fee ≈ 2.4: min_fee 5 and 20 skip it) and a middling one (≈ 12: 20 skips it). */
async function forkingCapture(): Promise<{ file: string; config: string }> {
  dir = await tempDir("bt-group");
  const t = T0 + 2_500;
  const events = [
    liquidationEvent(t, 1, { [ETH]: 10 }),
    liquidationEvent(t + 2_000, 2, { [ETH]: 0.1 }),
    liquidationEvent(t + 4_000, 3, { [ETH]: 10 }),
    liquidationEvent(t + 6_000, 4, { [ETH]: 0.5 }),
    liquidationEvent(t + 8_000, 5, { [ETH]: 10 }),
    liquidationEvent(t + 8_000, 6, { [ETH]: 9 }),
  ];
  const file = join(dir, "c.jsonl.gz");
  await writeCapture(file, market(14, events));
  const config = await writePolicyFile(dir, { ...OPEN_POLICY, min_fee: 0 }, "lab.yaml");
  return { file, config };
}

const MODEL: ReplayModel = {
  latencyMs: 50,
  ownTakes: new Map(),
  slippageBps: 5,
  altSlippageBps: [2.5, 10],
  takerFeeBps: 5,
  keepIds: true,
  collateral: 100_000,
};

async function replay(file: string, sets: string[], config: string) {
  const variants = await buildVariants([config], sets);
  const r = await replayInPasses(variants, [MODEL], true, async (markets) => {
    for await (const batch of readCaptureBatches(file, { lenient: false, stats: { events: 0, badLines: 0 } }))
      for (const m of markets) for (const ev of batch) m.step(ev);
  });
  return { variants, ...r };
}

describe("decision groups", () => {
  test("grouped replay equals every variant replayed in full, though the variants fork mid-way", async () => {
    const { file, config } = await forkingCapture();
    const variants = await buildVariants(
      [config],
      ["policy.min_fee=0,1,5,20", "policy.max_total_exposure=30100,1000000", "policy.limit_price_slippage_bps=20,50"],
    );
    for (const sensitivity of [false, true]) {
      const o = { files: [file], variants, defaultLatencyMs: 50, ids: true, sensitivity };
      const grouped = await backtest({ ...o, group: true });
      const plain = await backtest({ ...o, group: false });
      markIdentical(grouped.variants);
      markIdentical(plain.variants);
      expect(backtestJson(grouped)).toBe(backtestJson(plain));
      // The premise: the variants differ in effect, so some followers forked.
      const claimed = new Set(plain.variants.map((v) => (v as { claimed_ids?: number[] }).claimed_ids?.join(",")));
      expect(claimed.size).toBeGreaterThanOrEqual(3);
      const atCap = new Set(plain.variants.map((v) => v.at_cap_seconds));
      expect(atCap.size).toBeGreaterThanOrEqual(2);
    }
    const r = await replay(file, ["policy.min_fee=0,1,5,20", "policy.max_total_exposure=30100,1000000"], config);
    // Fewer full replays than variants, and more than one pass: the forked ones were replayed again.
    expect(r.leaders).toBeLessThan(r.variants.length);
    expect(r.passes).toBeGreaterThan(1);
    // Limit prices differ with the slippage at every claim, but a claim lands at the mark: one replay.
    expect((await replay(file, ["policy.limit_price_slippage_bps=20,50,100"], config)).leaders).toBe(1);
  });

  test("followers settled by the leader's trace, per-symbol min_fee included, replay as their own", async () => {
    const { file, config } = await forkingCapture();
    const sets = [
      "policy.per_symbol.PERP_ETH_USDC.min_fee=0,5",
      "policy.min_fee=20,0",
      "policy.limit_price_slippage_bps=100,20",
      "policy.max_total_exposure=1000000,30100",
    ];
    const variants = await buildVariants([config], sets);
    // One family (the trace settles every one's decisions), led by a policy of min_fee 0 and 20.
    expect(new Set(variants.map((v) => familyKey(v.config.policy))).size).toBe(1);
    const o = { files: [file], variants, defaultLatencyMs: 50, ids: true };
    const grouped = await backtest({ ...o, group: true });
    const plain = await backtest({ ...o, group: false });
    expect(backtestJson(grouped)).toBe(backtestJson(plain));
    const claimed = new Set(plain.variants.map((v) => (v as { claimed_ids?: number[] }).claimed_ids?.join(",")));
    expect(claimed.size).toBeGreaterThanOrEqual(2);
    // A cap is a family's difference too; a claim-size limit is not.
    const [small, large] = await buildVariants([config], ["policy.max_total_exposure=30100,1000000"]);
    expect(familyKey(small?.config.policy as never)).toBe(familyKey(large?.config.policy as never));
    const [a, b] = await buildVariants([config], ["policy.max_claim_notional=1000,50000"]);
    expect(familyKey(a?.config.policy as never)).not.toBe(familyKey(b?.config.policy as never));
  });

  test("a follower's time at the cap is its own: same decisions, exposure near one cap only", async () => {
    dir = await tempDir("bt-cap");
    // One claim of ≈ 30,000: within 1 % of a 30,100 cap, far from 1,000,000; nothing else to decide.
    const file = join(dir, "c.jsonl.gz");
    await writeCapture(file, market(8, [liquidationEvent(T0 + 2_500, 1, { [ETH]: 10 })]));
    const config = await writePolicyFile(dir, { ...OPEN_POLICY, min_fee: 0 }, "lab.yaml");
    const r = await replay(file, ["policy.max_total_exposure=1000000,30100"], config);
    expect(r.leaders).toBe(1);
    const [far, near] = r.results[0] ?? [];
    expect(far?.claimed).toBe(1);
    expect(far?.at_cap_seconds).toBe(0);
    expect(near?.at_cap_seconds).toBeGreaterThan(0);
    const variants = await buildVariants([config], ["policy.max_total_exposure=1000000,30100"]);
    const o = { files: [file], variants, defaultLatencyMs: 50 };
    expect(backtestJson(await backtest({ ...o, group: true }))).toBe(backtestJson(await backtest({ ...o, group: false })));
  });

  test("a key read outside the decision never groups: every variant replays in full", async () => {
    const { file, config } = await forkingCapture();
    for (const set of ["unwind.max_slippage_bps=10,50", "venue.limits.claims_per_second=5,10"]) {
      const r = await replay(file, [set, "policy.min_fee=0,1"], config);
      // Two groups (one per value of the key), each of a min_fee 0 leader and its min_fee 1 follower.
      expect(r.leaders).toBe(2);
      expect(r.passes).toBe(1);
      const [a, , b] = r.variants;
      expect(groupKey(a?.config as never)).not.toBe(groupKey(b?.config as never));
    }
    const policyOnly = await buildVariants([config], ["policy.min_fee=0,1", "policy.max_total_exposure=30100,1000000"]);
    expect(new Set(policyOnly.map((v) => groupKey(v.config))).size).toBe(1);
  });
});
