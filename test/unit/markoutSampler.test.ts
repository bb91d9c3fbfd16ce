/**
 * The markout sampler on a fake clock: a claim's symbols sampled at every horizon from the mark book
 * (a scripted mark path), the metric fed, timers gone after `stop`; and resumed from a journal the
 * way a restart or a takeover does: recorded horizons not written again, passed ones recorded missing,
 * future ones sampled, old claims without markouts left alone.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CoreFold } from "../../src/core/coreFold.js";
import type { MarkoutRecord } from "../../src/core/journalRecords.js";
import { MarkoutSampler } from "../../src/daemon/records/markoutSampler.js";
import { MarkBook } from "../../src/engine/marks.js";
import { emptyReplay, replayRecord } from "../../src/store/journalReplay.js";

const T0 = 1_800_000_000_000;

function rig(maxAgeMs = 2_000) {
  const marks = new MarkBook();
  const written: MarkoutRecord[] = [];
  const observed: [string, number][] = [];
  const sampler = new MarkoutSampler({
    marks,
    maxMarkAgeMs: () => maxAgeMs,
    write: (r) => written.push(r),
    observe: (h, bps) => observed.push([h, bps]),
    now: Date.now,
  });
  return { marks, written, observed, sampler };
}

describe("MarkoutSampler", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(T0);
  });
  afterEach(() => vi.useRealTimers());

  it("samples the latest fresh mark at 1, 5, 30, 60 and 300 s and journals each", () => {
    const { marks, written, observed, sampler } = rig();
    marks.set("PERP_BTC_USDC", 100, T0);
    sampler.assigned(3, [{ symbol: "PERP_BTC_USDC", qty: 0.5, price: 100, fee: 0.4 }], T0);
    // The mark path: 99 at +0.5 s, 101 at +4 s, then nothing until 101.5 at +59 s, 98 at +299.5 s.
    vi.advanceTimersByTime(500);
    marks.set("PERP_BTC_USDC", 99, Date.now());
    vi.advanceTimersByTime(3_500);
    marks.set("PERP_BTC_USDC", 101, Date.now());
    vi.advanceTimersByTime(55_000);
    marks.set("PERP_BTC_USDC", 101.5, Date.now());
    vi.advanceTimersByTime(240_500);
    marks.set("PERP_BTC_USDC", 98, Date.now());
    expect(written).toHaveLength(4);
    vi.advanceTimersByTime(500);
    expect(written.map((r) => [r.horizon, r.bps, r.missing])).toEqual([
      ["1s", 100, undefined], // 99 against 100, long
      ["5s", -100, undefined], // 101
      ["30s", undefined, "stale"], // the 101 of +4 s is 26 s old
      ["60s", -150, undefined], // 101.5
      ["300s", 200, undefined], // 98
    ]);
    expect(written[0]).toMatchObject({
      t: "markout",
      id: 3,
      symbol: "PERP_BTC_USDC",
      at: T0 + 1_000,
      assignedAt: T0,
      qty: 0.5,
      price: 100,
      mark: 99,
    });
    expect(observed).toEqual([
      ["1s", 100],
      ["5s", -100],
      ["60s", -150],
      ["300s", 200],
    ]);
    expect(sampler.pendingCount).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("stop clears every timer and samples nothing more", () => {
    const { marks, written, sampler } = rig();
    marks.set("A", 10, T0);
    marks.set("B", 20, T0);
    sampler.assigned(1, [{ symbol: "A", qty: 1, price: 10, fee: 0 }], T0);
    sampler.assigned(2, [{ symbol: "B", qty: -1, price: 20, fee: 0 }], T0);
    expect(vi.getTimerCount()).toBe(2);
    sampler.stop();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(400_000);
    expect(written).toEqual([]);
    sampler.assigned(3, [{ symbol: "A", qty: 1, price: 10, fee: 0 }], Date.now());
    expect(vi.getTimerCount()).toBe(0);
  });

  it("resumes from a journal: recorded horizons kept, passed ones missing (down), the rest sampled when due", () => {
    const { marks, written, sampler } = rig();
    // The journal as a restart folds it (core/coreFold.ts): claims settled lately, with their markouts.
    const fold = new CoreFold();
    const outcome = (id: number, at: number, symbol: string) => {
      fold.add({ t: "intent", id, at, ratio: 1, limitPrice: { [symbol]: 50 }, expectedFee: 0.1, perSymbolQty: { [symbol]: 1 } });
      fold.add({ t: "outcome", id, at, result: "accepted", fills: [{ symbol, qty: 1, price: 50, fee: 0.1 }] });
    };
    const recorded = (id: number, symbol: string, horizon: MarkoutRecord["horizon"], at: number): MarkoutRecord => ({
      t: "markout",
      id,
      symbol,
      horizon,
      at,
      assignedAt: T0 - 40_000,
      qty: 1,
      price: 50,
      mark: 49,
      markAt: at,
      bps: 200,
    });
    // Claim 1, 40 s ago: 1s and 5s recorded before the stop; 30s passed while down; 60s and 300s to come.
    outcome(1, T0 - 40_000, "A");
    fold.add(recorded(1, "A", "1s", T0 - 39_000));
    fold.add(recorded(1, "A", "5s", T0 - 35_000));
    // Claim 2, 10 min ago, with markouts up to 60s: its 300s passed unsampled.
    outcome(2, T0 - 600_000, "A");
    for (const h of ["1s", "5s", "30s", "60s"] as const) fold.add(recorded(2, "A", h, T0 - 500_000));
    // Claim 3, an hour ago, from before markouts existed: left alone.
    outcome(3, T0 - 3_600_000, "A");
    // Claim 4, a rejected one: nothing was assigned.
    fold.add({ t: "intent", id: 4, at: T0 - 2_000, ratio: 1, limitPrice: { A: 50 }, expectedFee: 0.1, perSymbolQty: { A: 1 } });
    fold.add({ t: "outcome", id: 4, at: T0 - 1_000, result: "rejected", code: -1202 });

    marks.set("A", 50.5, T0);
    sampler.resume([...fold.recent.values()]);
    expect(written.map((r) => [r.id, r.horizon, r.missing])).toEqual([
      [1, "30s", "down"],
      [2, "300s", "down"],
    ]);
    expect(sampler.pendingCount).toBe(1);
    // The 60s horizon is due at +20 s, the 300s one at +260 s.
    vi.advanceTimersByTime(19_500);
    marks.set("A", 50.5, Date.now());
    vi.advanceTimersByTime(240_000);
    marks.set("A", 49.5, Date.now());
    vi.advanceTimersByTime(20_000);
    expect(written.slice(2).map((r) => [r.id, r.horizon, r.bps])).toEqual([
      [1, "60s", -100],
      [1, "300s", 100],
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a replay keeps one markout per claim, symbol and horizon, a sample over a missing one", () => {
    const replay = emptyReplay();
    const base = { t: "markout", id: 1, symbol: "A", horizon: "5s", at: 1, assignedAt: 0, qty: 1, price: 10 } as const;
    replayRecord(replay, { ...base, missing: "down" });
    replayRecord(replay, { ...base, mark: 9, markAt: 1, bps: 1_000 });
    replayRecord(replay, { ...base, missing: "down" });
    expect([...replay.markouts.values()]).toEqual([{ ...base, mark: 9, markAt: 1, bps: 1_000 }]);
  });
});
