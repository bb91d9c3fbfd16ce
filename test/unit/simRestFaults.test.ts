import { describe, expect, it } from "vitest";
import { RestFaults } from "../../src/sim/restFaults.js";

function faults() {
  const clock = { t: 1000 };
  return { f: new RestFaults(() => clock.t), clock };
}

describe("RestFaults.plan", () => {
  it("no fault: nothing happens", () => {
    const { f } = faults();
    expect(f.plan("GET", "/v1/public/info")).toEqual({ delayBeforeMs: 0, delayAfterMs: 0, failure: undefined, resetAfter: false });
    expect(f.injected).toBe(0);
  });

  it("matches by path and method", () => {
    const { f } = faults();
    f.venueError(-1011, { path: "/v1/liquidation", method: "post" });
    expect(f.plan("GET", "/v1/liquidation").failure).toBeUndefined();
    expect(f.plan("POST", "/v1/public/info").failure).toBeUndefined();
    expect(f.plan("POST", "/v1/liquidation").failure).toEqual({ kind: "code", code: -1011 });
  });

  it("delays add up, the first failure wins and a shadowed failure is not used up", () => {
    const { f } = faults();
    f.delay(100);
    f.delay(50, { phase: "after" });
    f.delay(20);
    f.serverError(502, { times: 1 });
    f.rateLimitStorm({ times: 1 });
    const first = f.plan("GET", "/x");
    expect(first).toEqual({
      delayBeforeMs: 120,
      delayAfterMs: 50,
      failure: { kind: "status", status: 502, body: "envelope" },
      resetAfter: false,
    });
    expect(f.plan("GET", "/x").failure).toEqual({ kind: "rateLimit" });
    expect(f.plan("GET", "/x").failure).toBeUndefined();
    expect(f.injected).toBe(3);
  });

  it("times and forMs disarm; the returned function disarms; clear disarms all", () => {
    const { f, clock } = faults();
    f.venueError(-1011, { times: 2 });
    expect(f.plan("GET", "/x").failure).toBeDefined();
    expect(f.plan("GET", "/x").failure).toBeDefined();
    expect(f.plan("GET", "/x").failure).toBeUndefined();
    f.rateLimitStorm({ forMs: 500 });
    clock.t += 499;
    expect(f.plan("GET", "/x").failure).toBeDefined();
    clock.t += 1;
    expect(f.plan("GET", "/x").failure).toBeUndefined();
    const off = f.reset();
    expect(f.armed).toBe(1);
    off();
    expect(f.armed).toBe(0);
    f.reset({ phase: "after" });
    expect(f.plan("POST", "/y").resetAfter).toBe(true);
    f.clear();
    expect(f.armed).toBe(0);
  });

  it("validates its arguments", () => {
    const { f } = faults();
    expect(() => f.serverError(404)).toThrow(RangeError);
    expect(() => f.delay(-1)).toThrow(RangeError);
    expect(() => f.venueError(-1011, { times: 0 })).toThrow(RangeError);
    expect(() => f.rateLimitStorm({ forMs: 0 })).toThrow(RangeError);
  });
});
