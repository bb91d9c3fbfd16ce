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
    for (let i = 0; i < 1000; i++) l.tryAcquire("same");
    // A sweep ran (every 1000 calls) and forgot every key idle for more than a window.
    expect(l.trackedKeys).toBe(1);
  });

  it("validates its options", () => {
    expect(() => new SlidingWindowLimiter({ limit: 0, windowMs: 1000, now: Date.now })).toThrow(RangeError);
    expect(() => new SlidingWindowLimiter({ limit: 1, windowMs: 0, now: Date.now })).toThrow(RangeError);
  });
});
