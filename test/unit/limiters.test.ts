import { describe, expect, test, vi } from "vitest";
import { AbortedError, ConfigError } from "../../src/errors.js";
import { createVenueLimiters, type LimiterName, spacingFor, type VenueLimiters } from "../../src/venue/limiters.js";
import { VENUE_LIMITS as LIMITS } from "../support/venueLimits.js";

/** Largest number of start times inside any closed window [t, t + windowMs]. */
function maxInWindow(times: number[], windowMs = 1000): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < t.length; hi++) {
    while ((t[hi] as number) - (t[lo] as number) > windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** Fires `n` acquisitions at once and records when each was granted (real clock). */
async function burst(limiters: VenueLimiters, name: LimiterName, n: number, onGrant?: (i: number) => void): Promise<number[]> {
  const starts: number[] = [];
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      await limiters.acquire(name);
      starts.push(performance.now());
      onGrant?.(i);
    }),
  );
  return starts;
}

describe("venue limiters", () => {
  test("the window helper counts what it should", () => {
    expect(maxInWindow([0, 100, 200, 1000, 1001])).toBe(4);
    expect(maxInWindow([0, 1001, 2002])).toBe(1);
  });

  test("a burst through each limiter never puts more than its limit in any 1 s window", async () => {
    // Fake timers (performance.now and Date included): the permits' own times, free of the host's
    // scheduling. On a loaded host a caller's timestamp can land 50+ ms after its permit, which says
    // nothing of the limiter; the real-clock behaviour under a stall is the next test's.
    vi.useFakeTimers();
    const limiters = createVenueLimiters(LIMITS);
    try {
      const runs = [
        { name: "public" as const, n: 190, limit: 10 },
        { name: "admin_orders" as const, n: 190, limit: 10 },
        { name: "claims" as const, n: 30, limit: 5 },
      ];
      const pending = runs.map((r) => burst(limiters, r.name, r.n));
      // Everything but the first permit of each scope waits in the queue.
      expect(limiters.queued("public")).toBe(189);
      expect(limiters.queued("claims")).toBe(29);
      let results: number[][] | undefined;
      void Promise.all(pending).then((r) => {
        results = r;
      });
      // 190 permits at 105 ms: about 20 s of the fake clock, moved 50 ms at a time.
      for (let step = 0; results === undefined && step < 1_000; step++) await vi.advanceTimersByTimeAsync(50);
      if (results === undefined) throw new Error("the bursts did not finish within 50 s of the fake clock");
      const all = results;
      runs.forEach((r, i) => {
        const starts = all[i] as number[];
        expect(starts).toHaveLength(r.n);
        expect(maxInWindow(starts)).toBeLessThanOrEqual(r.limit);
        // Not throttling far below the limit either: the spacing's jitter budget costs one permit a second at most.
        expect(maxInWindow(starts)).toBeGreaterThanOrEqual(r.limit - 1);
        expect(limiters.queued(r.name)).toBe(0);
      });
    } finally {
      await limiters.stop();
      vi.useRealTimers();
    }
  });

  test("an event-loop stall delays permits but never bunches them", async () => {
    const limiters = createVenueLimiters(LIMITS);
    try {
      const starts = await burst(limiters, "public", 40, (i) => {
        if (i === 4) {
          // Block the loop long enough for several overdue timers to pile up.
          const until = performance.now() + 700;
          while (performance.now() < until) {
            /* busy */
          }
        }
      });
      expect(maxInWindow(starts)).toBeLessThanOrEqual(10);
      // Overdue timers firing together would show as near-zero gaps right after the stall; half the
      // spacing leaves room for a GC pause between a permit and its caller's timestamp.
      const sorted = [...starts].sort((a, b) => a - b);
      for (let i = 1; i < sorted.length; i++) {
        expect((sorted[i] as number) - (sorted[i - 1] as number)).toBeGreaterThanOrEqual(limiters.spacingMs("public") / 2);
      }
    } finally {
      await limiters.stop();
    }
  }, 60_000);

  test("abort while queued rejects that caller only; stop rejects the rest", async () => {
    const limiters = createVenueLimiters({
      public_per_second: 1,
      claims_per_second: 1,
      admin_orders_per_second: 1,
      account_reads_per_second: 1,
      orders_per_second: 1,
    });
    await limiters.acquire("claims");
    const ac = new AbortController();
    const aborted = limiters.acquire("claims", ac.signal);
    const later = limiters.acquire("claims");
    const last = limiters.acquire("claims");
    expect(limiters.queued("claims")).toBe(3);
    ac.abort();
    await expect(aborted).rejects.toBeInstanceOf(AbortedError);
    expect(limiters.queued("claims")).toBe(2);
    await later; // the aborted caller did not keep the next one from its permit
    expect(limiters.queued("claims")).toBe(1);
    await limiters.stop();
    await expect(last).rejects.toBeInstanceOf(AbortedError);
    await expect(limiters.acquire("public")).rejects.toBeInstanceOf(AbortedError);
    await expect(limiters.acquire("public", AbortSignal.abort())).rejects.toBeInstanceOf(AbortedError);
  });

  test("a permit used late is restamped: the next one is spaced from the actual start", async () => {
    // Fake timers (performance.now included): the limiter waits for a timer, so the test moves the
    // clock itself and can say to the millisecond when the next permit comes.
    vi.useFakeTimers();
    try {
      const limiters = createVenueLimiters(LIMITS);
      const spacing = limiters.spacingMs("claims"); // 210 ms at 5/s
      await limiters.acquire("claims");
      await vi.advanceTimersByTimeAsync(spacing - 60); // the holder waited for something first
      limiters.restamp("claims"); // ...and starts its request now
      await vi.advanceTimersByTimeAsync(100); // past the permit's spacing, not the start's
      expect(limiters.tryAcquire("claims")).toBe(false);
      let granted = false;
      const next = limiters.acquire("claims").then(() => {
        granted = true;
      });
      // Spaced from the restamp: spacing − 100 ms from here, not spacing − 160 (from the permit).
      await vi.advanceTimersByTimeAsync(spacing - 101);
      expect(granted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await next;
      expect(granted).toBe(true);
      await limiters.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  test("spacing keeps the jitter budget inside the limit", () => {
    expect(spacingFor(10)).toBe(105);
    expect(spacingFor(5)).toBe(210);
    for (const rate of [1, 3, 5, 7, 10, 25, 100]) {
      // L+1 permits span L gaps; they must not fit in one second.
      expect(rate * spacingFor(rate)).toBeGreaterThan(1000);
    }
  });

  test("limits are validated", () => {
    expect(() => createVenueLimiters({ ...LIMITS, claims_per_second: 0 })).toThrow(ConfigError);
    expect(() => createVenueLimiters({ ...LIMITS, public_per_second: Number.NaN })).toThrow(ConfigError);
  });
});
