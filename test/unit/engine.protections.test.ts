import { describe, expect, it } from "vitest";
import { type ProtectionLimits, Protections } from "../../src/engine/protections.js";
import { PROTECTIONS_OFF } from "../support/protectionsOff.js";

const DAY1 = Date.UTC(2026, 0, 5, 10, 0, 0);
const DAY2 = Date.UTC(2026, 0, 6, 0, 0, 1);
const BTC = "PERP_BTC_USDC";
const ETH = "PERP_ETH_USDC";

function rules(limits: Partial<ProtectionLimits>): Protections {
  return new Protections({ ...PROTECTIONS_OFF, ...limits });
}

describe("daily loss", () => {
  it("halts at the day's net at or below minus the limit, counted from the day's first observation", () => {
    const p = rules({ dailyLossLimit: 100 });
    expect(p.observe(500, DAY1).trips).toEqual([]); // the day starts at +500 (earlier days' gains do not count)
    expect(p.observe(401, DAY1 + 1000).trips).toEqual([]);
    expect(p.state).toBe("active");
    const step = p.observe(400, DAY1 + 2000);
    expect(step.trips).toEqual([{ protection: "daily_loss", at: DAY1 + 2000, value: -100 }]);
    expect(p.state).toBe("halted");
    expect(p.reason).toBe("daily_loss");
    expect(p.gate([BTC], DAY1 + 2000)).toBe("protection");
    // A recovery the same day does not lift it; it trips once.
    expect(p.observe(1000, DAY1 + 3000).trips).toEqual([]);
    expect(p.state).toBe("halted");
  });

  it("lifts on the next UTC day, whose loss counts from its first observation", () => {
    const p = rules({ dailyLossLimit: 100 });
    p.observe(0, DAY1);
    p.observe(-150, DAY1 + 1);
    expect(p.state).toBe("halted");
    const step = p.observe(-150, DAY2);
    expect(step.changed).toBe(true);
    expect(p.state).toBe("active");
    expect(p.observe(-249, DAY2 + 1).trips).toEqual([]);
    expect(p.observe(-250, DAY2 + 2).trips.map((t) => t.protection)).toEqual(["daily_loss"]);
  });

  it("is off by default", () => {
    const p = rules({});
    p.observe(0, DAY1);
    expect(p.observe(-1e9, DAY1 + 1).trips).toEqual([]);
    expect(p.state).toBe("active");
  });
});

describe("drawdown", () => {
  it("reduces at the limit below the running peak and recovers at half of it", () => {
    const p = rules({ drawdownLimit: 200 });
    p.observe(0, DAY1);
    p.observe(300, DAY1 + 1); // peak 300
    expect(p.observe(101, DAY1 + 2).trips).toEqual([]);
    expect(p.observe(100, DAY1 + 3).trips).toEqual([{ protection: "drawdown", at: DAY1 + 3, value: -200 }]);
    expect(p.state).toBe("reducing");
    expect(p.gate([ETH], DAY1 + 3)).toBe("protection");
    p.observe(199, DAY1 + 4); // 101 below the peak: not yet
    expect(p.state).toBe("reducing");
    expect(p.observe(200, DAY1 + 5).changed).toBe(true); // back within half the limit
    expect(p.state).toBe("active");
    expect(p.snapshot.peak).toBe(300);
  });

  it("a new day does not lift it; halted wins over reducing", () => {
    const p = rules({ drawdownLimit: 50, dailyLossLimit: 80 });
    p.observe(0, DAY1);
    p.observe(-60, DAY1 + 1);
    expect(p.state).toBe("reducing");
    p.observe(-80, DAY1 + 2);
    expect(p.state).toBe("halted");
    p.observe(-80, DAY2);
    expect(p.state).toBe("reducing");
  });
});

describe("loss streak", () => {
  it("cools the symbol after N losing claims in a row, and only that symbol", () => {
    const p = rules({ lossStreak: 3, cooldownS: 60 });
    p.claimClosed([BTC], -1, DAY1);
    p.claimClosed([BTC], -1, DAY1 + 1);
    p.claimClosed([ETH], -5, DAY1 + 1);
    expect(p.gate([BTC], DAY1 + 2)).toBeUndefined();
    const step = p.claimClosed([BTC], -0.01, DAY1 + 2);
    expect(step.trips).toEqual([{ protection: "loss_streak", at: DAY1 + 2, symbol: BTC, value: -0.01 }]);
    expect(p.gate([BTC], DAY1 + 3)).toBe("cooldown");
    expect(p.gate([ETH, BTC], DAY1 + 3)).toBe("cooldown");
    expect(p.gate([ETH], DAY1 + 3)).toBeUndefined();
    expect(p.state).toBe("active");
    expect(p.gate([BTC], DAY1 + 2 + 60_000)).toBeUndefined();
    // The expired cooldown leaves the snapshot at the next observation.
    expect(p.observe(0, DAY1 + 2 + 60_000).changed).toBe(true);
    expect(p.snapshot.cooldowns).toEqual({});
  });

  it("a claim that made money (net of fees) breaks the streak", () => {
    const p = rules({ lossStreak: 2, cooldownS: 60 });
    p.claimClosed([BTC], -1, DAY1);
    p.claimClosed([BTC], 0, DAY1 + 1);
    expect(p.claimClosed([BTC], -1, DAY1 + 2).trips).toEqual([]);
    expect(p.claimClosed([BTC], -1, DAY1 + 3).trips).toHaveLength(1);
  });
});

describe("re-arm", () => {
  it("goes back to active, clears streaks and cooldowns, and measures the limits from the current net", () => {
    const p = rules({ dailyLossLimit: 100, drawdownLimit: 100, lossStreak: 1, cooldownS: 600 });
    p.observe(0, DAY1);
    p.claimClosed([BTC], -1, DAY1);
    p.observe(-120, DAY1 + 1);
    expect(p.state).toBe("halted");
    p.rearm(-120, DAY1 + 2);
    expect(p.state).toBe("active");
    expect(p.gate([BTC], DAY1 + 2)).toBeUndefined();
    // Still 120 below the day's start, but not tripped again at once: a further 100 is needed.
    expect(p.observe(-120, DAY1 + 3).trips).toEqual([]);
    expect(p.observe(-219, DAY1 + 4).trips).toEqual([]);
    expect(p.state).toBe("active");
    expect(p.observe(-220, DAY1 + 5).trips.map((t) => t.protection)).toEqual(["daily_loss", "drawdown"]);
    expect(p.state).toBe("halted");
  });

  it("survives a snapshot round trip (what the journal keeps)", () => {
    const p = rules({ dailyLossLimit: 100, lossStreak: 2, cooldownS: 600 });
    p.observe(0, DAY1);
    p.claimClosed([BTC], -1, DAY1);
    p.observe(-100, DAY1 + 1);
    const q = rules({ dailyLossLimit: 100, lossStreak: 2, cooldownS: 600 });
    q.restore(JSON.parse(JSON.stringify(p.snapshot)));
    expect(q.state).toBe("halted");
    expect(q.claimClosed([BTC], -1, DAY1 + 2).trips).toHaveLength(1);
  });
});
