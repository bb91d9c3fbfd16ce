import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { InvalidArgumentError } from "../../src/errors.js";
import { type ConnectionEnd, ReconnectPolicy } from "../../src/venue/reconnectPolicy.js";

const ceilingsOf = (p: ReconnectPolicy, ends: ConnectionEnd[], healthy: boolean): number[] => ends.map((e) => p.next(e, healthy).ceilingMs);

describe("reconnect policy", () => {
  test("the first reconnect after a ready connection is lost goes out at once (within the small jitter)", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.nat({ max: 20 }), fc.boolean(), (r, failuresBefore, healthy) => {
        const p = new ReconnectPolicy({ random: () => r });
        for (let i = 0; i < failuresBefore; i++) p.next("failed", healthy);
        p.onReady();
        const { delayMs } = p.next("lost_ready", healthy);
        expect(delayMs).toBeGreaterThanOrEqual(0);
        expect(delayMs).toBeLessThanOrEqual(250);
      }),
    );
  });

  test("the ceiling grows only across consecutive failed attempts, doubling up to the cap", () => {
    const p = new ReconnectPolicy({ initialMs: 100, maxMs: 1_000, healthyMaxMs: 1_000, random: () => 1 });
    expect(ceilingsOf(p, ["failed", "failed", "failed", "failed", "failed", "failed"], false)).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  test("a ready connection that lived long enough resets the growth", () => {
    const p = new ReconnectPolicy({ initialMs: 100, maxMs: 10_000, random: () => 1 });
    ceilingsOf(p, ["failed", "failed", "failed"], false);
    p.onReady();
    expect(p.classify(5_000, false)).toBe("lost_ready");
    p.next("lost_ready", false);
    expect(ceilingsOf(p, ["failed", "failed"], false)).toEqual([100, 200]);
  });

  test("a connection lost right after ready counts as a failure: a flapping gateway still meets growing delays", () => {
    const p = new ReconnectPolicy({ initialMs: 100, maxMs: 10_000, minReadyMs: 1_000, random: () => 1 });
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      p.onReady();
      seen.push(p.next(p.classify(10, false), false).ceilingMs);
    }
    expect(seen).toEqual([100, 200, 400, 800, 1600]);
  });

  test("while REST answers the ceiling is capped at healthyMaxMs; without it, at maxMs", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), (healthySeq, r) => {
        const p = new ReconnectPolicy({ initialMs: 500, maxMs: 30_000, healthyMaxMs: 5_000, random: () => r });
        for (const healthy of healthySeq) {
          const { delayMs, ceilingMs } = p.next("failed", healthy);
          expect(ceilingMs).toBeLessThanOrEqual(healthy ? 5_000 : 30_000);
          expect(delayMs).toBeLessThanOrEqual(ceilingMs);
          expect(delayMs).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });

  test("a refused auth has its own backoff: not capped by REST health, reset only by an accepted auth", () => {
    const p = new ReconnectPolicy({
      initialMs: 100,
      maxMs: 30_000,
      healthyMaxMs: 500,
      authInitialMs: 2_000,
      authMaxMs: 60_000,
      random: () => 1,
    });
    expect(ceilingsOf(p, ["auth_failed", "auth_failed", "auth_failed"], true)).toEqual([2_000, 4_000, 8_000]);
    // Failures of another kind in between do not reset it.
    p.next("failed", true);
    expect(p.next("auth_failed", true).ceilingMs).toBe(16_000);
    p.onReady();
    expect(p.next("auth_failed", true).ceilingMs).toBe(2_000);
  });

  test("classify: a refused auth wins; otherwise ready-for-long-enough decides", () => {
    const p = new ReconnectPolicy({ minReadyMs: 1_000 });
    expect(p.classify(undefined, true)).toBe("auth_failed");
    expect(p.classify(undefined, false)).toBe("failed");
    expect(p.classify(999, false)).toBe("failed");
    expect(p.classify(1_000, false)).toBe("lost_ready");
  });

  test("options are checked in the constructor", () => {
    expect(() => new ReconnectPolicy({ initialMs: 0 })).toThrow(InvalidArgumentError);
    expect(() => new ReconnectPolicy({ initialMs: 100, maxMs: 10 })).toThrow(InvalidArgumentError);
    expect(() => new ReconnectPolicy({ maxMs: Number.NaN })).toThrow(InvalidArgumentError);
    expect(() => new ReconnectPolicy({ random: 3 as unknown as () => number })).toThrow(InvalidArgumentError);
  });
});
