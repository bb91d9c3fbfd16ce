/**
 * The live shadows run the backtest's code: fed a capture's events one by one, a ShadowFeed claims
 * the ids `backtest` claims for the same variants; the live account's own sends are not a rival's
 * takes; `shadow.variants` is validated at load as `backtest --set` is (unknown key named, names
 * unique) and each variant's config is the running one with its keys changed.
 */
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import type { CaptureEvent } from "../../src/daemon/records/captureTap.js";
import { backtest } from "../../src/lab/replay/backtest.js";
import { ShadowFeed } from "../../src/lab/shadow/shadowFeed.js";
import { buildVariants, type Variant } from "../../src/lab/sweep/variants.js";
import { liquidationEvent, market, T0, writeCapture } from "../support/captures.js";
import { OPEN_POLICY, removeDir, tempDir, writePolicyFile } from "../support/daemonHarness.js";

let dir: string | undefined;
afterEach(async () => {
  await removeDir(dir);
  dir = undefined;
});

const ETH = "PERP_ETH_USDC";
const t = T0 + 2_500;
const EVENTS = [
  liquidationEvent(t, 1, { [ETH]: 10 }),
  liquidationEvent(t + 500, 2, { [ETH]: 0.1 }), // below min_fee 5
  liquidationEvent(t + 1_000, 3, { [ETH]: 2 }),
  liquidationEvent(t + 1_020, 3, {}), // a rival's take before our answer lands
  ...[5, 4, 3, 2, 1].map((q, i) => liquidationEvent(t + 3_000, 10 + i, { [ETH]: q })),
  ...[10, 11, 12, 13, 14].map((id) => liquidationEvent(t + 3_300, id, {})),
];

/** The live account's send (`sentAt`) or the venue's refusal of its claim for `id`, told at `at`. */
type Own = { id: number; at: number; sentAt?: number };

async function runFeed(
  variants: readonly Variant[],
  events: readonly CaptureEvent[],
  own: readonly Own[] = [],
): Promise<Map<string, number[]>> {
  const ids = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const feed = new ShadowFeed({
    model: { latencyMs: 50, slippageBps: 5, takerFeeBps: 5 },
    claimed: (variant, id) => ids.get(variant)?.push(id),
    schedule: () => undefined, // drained by hand below
  });
  feed.setVariants(variants);
  const told = [...own];
  for (const ev of events) {
    while (told.length > 0 && (told[0] as Own).at <= ev.at) {
      const o = told.shift() as Own;
      if (o.sentAt !== undefined) feed.ownSent(o.id, o.sentAt);
      else feed.ownRefused(o.id);
    }
    feed.record(ev);
  }
  expect(feed.queued).toBe(events.length);
  await feed.flush();
  expect(feed.queued).toBe(0);
  expect(feed.scores().map((s) => s.claims)).toEqual([...ids.values()].map((l) => l.length));
  expect(feed.cost().events).toBe(events.length);
  return ids;
}

describe("shadow feed", () => {
  test("claims what backtest claims for the same variants", async () => {
    dir = await tempDir("shadow");
    const file = join(dir, "c.jsonl.gz");
    const events = market(12, EVENTS);
    await writeCapture(file, events);
    const config = await writePolicyFile(dir, { ...OPEN_POLICY, min_fee: 0 }, "lab.yaml");
    const variants = await buildVariants([config], ["policy.min_fee=0,5"]);
    const report = await backtest({ files: [file], variants, defaultLatencyMs: 50, slippageBps: 5, takerFeeBps: 5, ids: true });
    const shadow = await runFeed(variants, events);
    expect([...shadow.values()].map((ids) => [...ids].sort((a, b) => a - b))).toEqual(report.variants.map((v) => v.claimed_ids));
    expect(shadow.get(variants[1]?.name as string)).toEqual([1, 10, 11]);
  });

  test("the live account's own claim is not a rival's take, from its send until the venue refuses it", async () => {
    const variants = await buildVariants([], ["policy.min_fee=0"]);
    const name = variants[0]?.name as string;
    const events = market(12, [liquidationEvent(t, 4, { [ETH]: 3 }), liquidationEvent(t + 20, 4, {})]);
    expect((await runFeed(variants, events)).get(name)).toEqual([]); // taken 20 ms in: lost
    const sent = { id: 4, at: t + 1, sentAt: t + 1 };
    expect((await runFeed(variants, events, [sent])).get(name)).toEqual([4]);
    // Refused before it left the open list: a rival took it. Refused after: it was ours when it left.
    // The replay meets each where it came among the events (all are in one batch here).
    expect((await runFeed(variants, events, [sent, { id: 4, at: t + 10 }])).get(name)).toEqual([]);
    expect((await runFeed(variants, events, [sent, { id: 4, at: t + 30 }])).get(name)).toEqual([4]);
  });
});

test("a replay that throws stops the shadows, not the caller; the next variant list starts them anew", async () => {
  const variants = await buildVariants([], ["policy.min_fee=0"]);
  const errors: unknown[] = [];
  const ids: number[] = [];
  const feed = new ShadowFeed({
    model: { latencyMs: 50, slippageBps: 5, takerFeeBps: 5 },
    claimed: (_v, id) => ids.push(id),
    failed: (err) => errors.push(err),
    schedule: () => undefined,
  });
  feed.setVariants(variants);
  const events = market(12, [liquidationEvent(t, 1, { [ETH]: 10 })]);
  for (const ev of events.slice(0, 3)) feed.record(ev);
  feed.record({ k: "liquidation", at: t, data: null } as unknown as CaptureEvent);
  await expect(feed.flush()).resolves.toBeUndefined();
  expect(errors).toHaveLength(1);
  expect(feed.queued).toBe(0);
  feed.record(events[3] as CaptureEvent);
  expect(feed.queued).toBe(0); // stopped: nothing is queued
  feed.setVariants(variants); // the same list, after a failure: started anew, from what came before
  for (const ev of events.slice(4)) feed.record(ev);
  await feed.flush();
  expect(errors).toHaveLength(1);
  expect(ids).toEqual([1]);
});

describe("shadow.variants config", () => {
  const load = async (shadow: unknown, policy: Record<string, unknown> = OPEN_POLICY) => {
    dir ??= await tempDir("shadow-config");
    return loadConfig({ path: await writePolicyFile(dir, policy, "c.yaml", { shadow }), env: {} });
  };

  test("each variant is the running config with its keys changed", async () => {
    const loaded = await load(
      { variants: [{ name: "fee20", set: { "policy.min_fee": 20, "unwind.mode": "off" } }] },
      { ...OPEN_POLICY, min_fee: 3 },
    );
    expect(loaded.config.policy.min_fee).toBe(3);
    const [v] = loaded.shadows ?? [];
    expect(v?.name).toBe("fee20");
    expect(v?.settings).toEqual({ "policy.min_fee": 20, "unwind.mode": "off" });
    expect(v?.config.policy.min_fee).toBe(20);
    expect(v?.config.unwind.mode).toBe("off");
    expect(v?.config.policy.max_total_exposure).toBe(OPEN_POLICY.max_total_exposure);
  });

  test("an unknown key or a bad value in `set` is refused, naming it", async () => {
    await expect(load({ variants: [{ name: "a", set: { "policy.min_fees": 20 } }] })).rejects.toThrow(
      /shadow\.variants\[0\]\.set\.policy\.min_fees: unknown key \(did you mean min_fee\?\)/,
    );
    await expect(load({ variants: [{ name: "a", set: { "policy.min_fee": -1 } }] })).rejects.toThrow(
      /shadow\.variants\[0\]\.set\.policy\.min_fee: must be >= 0/,
    );
    await expect(load({ variants: [{ name: "a", set: { "policy min_fee": 1 } }] })).rejects.toThrow(/shadow\.variants\[0\]\.set/);
  });

  test("variants that replay the insurance fund's rows by different routes are refused, naming the key", async () => {
    const route = (r: string) => ({ "insurance_fund.route": r });
    await expect(
      load({
        variants: [
          { name: "a", set: route("liquidation") },
          { name: "b", set: { "policy.min_fee": 1 } },
        ],
      }),
    ).rejects.toThrow(/shadow\.variants\[1\]\.set\.insurance_fund\.route: .*liquidation/);
    // One route for every variant (here not the running one's) is replayed as set.
    const loaded = await load({
      variants: [
        { name: "a", set: route("liquidation") },
        { name: "b", set: route("liquidation") },
      ],
    });
    expect(loaded.shadows?.map((v) => v.config.insurance_fund.route)).toEqual(["liquidation", "liquidation"]);
  });

  test("names are unique", async () => {
    const set = { "policy.min_fee": 1 };
    await expect(
      load({
        variants: [
          { name: "a", set },
          { name: "a", set },
        ],
      }),
    ).rejects.toThrow(/shadow\.variants\[1\]\.name: a is given twice/);
  });
});
