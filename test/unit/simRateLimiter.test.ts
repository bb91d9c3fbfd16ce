import { describe, expect, it } from "vitest";
import { SlidingWindowLimiter } from "../../src/sim/rateLimiter.js";

function limiter(limit: number) {
  const clock = { t: 1_000_000 };
  const l = new SlidingWindowLimiter({ limit, windowMs: 1000, now: () => clock.t });
  return { l, clock };
}

describe("SlidingWindowLimiter (docs/protocol.md §4 limits)", () => {
  it.each([
    ["public reads", 10],
    ["claims", 5],
  ])("%s: %s in one window are admitted, the next is refused", (_name, limit) => {
    const { l, clock } = limiter(limit);
    for (let i = 0; i < limit; i++) {
      expect(l.tryAcquire("k")).toBe(true);
      clock.t += 10;
    }
    expect(l.tryAcquire("k")).toBe(false);
  });

  it("slides: a slot frees exactly when the oldest admission leaves the window", () => {
    const { l, clock } = limiter(3);
    const start = clock.t;
    expect(l.tryAcquire("k")).toBe(true); // t0
    clock.t = start + 400;
    expect(l.tryAcquire("k")).toBe(true);
    clock.t = start + 800;
    expect(l.tryAcquire("k")).toBe(true);
    clock.t = start + 999;
    expect(l.tryAcquire("k")).toBe(false);
    clock.t = start + 1000; // t0 is now exactly one window old
    expect(l.tryAcquire("k")).toBe(true);
    expect(l.tryAcquire("k")).toBe(false);
    clock.t = start + 1400;
    expect(l.tryAcquire("k")).toBe(true);
  });

  it("refused requests do not count, so backing off one window always works", () => {
    const { l, clock } = limiter(2);
    l.tryAcquire("k");
    l.tryAcquire("k");
    for (let i = 0; i < 50; i++) {
      clock.t += 10;
      expect(l.tryAcquire("k")).toBe(false);
    }
    clock.t += 1000;
    expect(l.tryAcquire("k")).toBe(true);
    expect(l.inWindow("k")).toBe(1);
  });

  it("keys are independent (per IP, per account)", () => {
    const { l } = limiter(1);
    expect(l.tryAcquire("a")).toBe(true);
    expect(l.tryAcquire("a")).toBe(false);
    expect(l.tryAcquire("b")).toBe(true);
  });

  it("does not keep idle keys forever", () => {
    const { l, clock } = limiter(1);
    for (let i = 0; i < 5000; i++) l.tryAcquire(`ip${i}`);
    expect(l.trackedKeys).toBeGreaterThan(4000);
    clock.t += 5000;
    l.tryAcquire("same");
    // Still remembered: a request checked up to lateMs (10 s) after its arrival must see them.
    expect(l.trackedKeys).toBeGreaterThan(4000);
    clock.t += 6001;
    for (let i = 0; i < 1000; i++) l.tryAcquire("same");
    // A sweep ran (every 1000 calls) and forgot every key idle for more than a window and lateMs.
    expect(l.trackedKeys).toBe(1);
  });

  describe("counted at arrival, checked late (a slow signature check or an injected delay)", () => {
    it("a request checked after later ones is counted at its arrival: spaced arrivals all pass", () => {
      const { l, clock } = limiter(5);
      const t0 = clock.t;
      // Arrivals every 210 ms; the first one's check comes last, after the sixth arrived.
      for (let k = 1; k < 6; k++) {
        clock.t = t0 + 210 * k;
        expect(l.tryAcquire("k", clock.t)).toBe(true);
      }
      clock.t = t0 + 1_100;
      // Counted at check time it would be the 6th within one second: (t0 + 100, t0 + 1100] holds 5.
      expect(l.inWindow("k")).toBe(5);
      expect(l.tryAcquire("k", t0)).toBe(true);
    });

    it("a late request that would make 6 arrivals within one window is refused, wherever it falls", () => {
      const { l, clock } = limiter(5);
      const t0 = clock.t;
      for (let k = 1; k < 6; k++) {
        clock.t = t0 + 190 * k; // 190, 380, ..., 950
        expect(l.tryAcquire("k", clock.t)).toBe(true);
      }
      clock.t = t0 + 2_000;
      expect(l.tryAcquire("k", t0)).toBe(false); // t0 .. t0 + 950 would hold 6
      expect(l.tryAcquire("k", t0 + 500)).toBe(false); // in the middle
      expect(l.tryAcquire("k", t0 + 1_100)).toBe(false); // 380 .. 1100 would hold 6
      expect(l.tryAcquire("k", t0 + 1_190)).toBe(true); // 190 left the window at 1190
      expect(l.tryAcquire("k", t0 - 50)).toBe(true); // before the window of the five
      expect(l.tryAcquire("k", t0 - 40)).toBe(false); // -50 .. 950: 7 arrivals
    });

    it("an arrival in the future is counted now", () => {
      const { l, clock } = limiter(1);
      expect(l.tryAcquire("k", clock.t + 5_000)).toBe(true);
      clock.t += 1_000;
      expect(l.tryAcquire("k")).toBe(true);
    });
  });

  it("validates its options", () => {
    expect(() => new SlidingWindowLimiter({ limit: 0, windowMs: 1000, now: Date.now })).toThrow(RangeError);
    expect(() => new SlidingWindowLimiter({ limit: 1, windowMs: 0, now: Date.now })).toThrow(RangeError);
    expect(() => new SlidingWindowLimiter({ limit: 1, windowMs: 1000, now: Date.now, lateMs: -1 })).toThrow(RangeError);
  });
});
