import { describe, expect, test } from "vitest";
import { Housekeeping } from "../../src/daemon/control/housekeeping.js";
import type { PauseReason } from "../../src/engine/pauseReasons.js";

/** The claimer's pause surface, recorded. */
function pauses() {
  const on = new Set<PauseReason>();
  const log: string[] = [];
  return {
    on,
    log,
    setPaused: (reason: PauseReason, value: boolean) => {
      log.push(`${reason}:${value}`);
      if (value) on.add(reason);
      else on.delete(reason);
    },
    pausedReasons: () => [...on],
  };
}
const quiet = { info: () => {}, warn: () => {} };

describe("Housekeeping", () => {
  test("claiming pauses without a recent server-time sample and resumes with one", () => {
    const clock = { lastSampleAt: 0 };
    const claimer = pauses();
    const journal = { failure: () => undefined, retry: () => true };
    const hk = new Housekeeping({ clock, journal, claimer, logger: quiet, clockMaxAgeMs: 120_000 });
    hk.tick(1_000_000); // never sampled
    expect(claimer.pausedReasons()).toEqual(["clock"]);
    clock.lastSampleAt = 1_000_500;
    hk.tick(1_001_000);
    expect(claimer.pausedReasons()).toEqual([]);
    hk.tick(1_000_500 + 120_001); // the last sample is too old now
    expect(claimer.pausedReasons()).toEqual(["clock"]);
    expect(claimer.log).toEqual(["clock:true", "clock:false", "clock:true"]);
  });

  test("a failed journal is retried on its interval and named in readiness until it works", () => {
    let recoveries = 0;
    let failure: Error | undefined = new Error("ENOSPC");
    const journal = {
      failure: () => failure,
      retry() {
        recoveries++;
        failure = undefined;
        return true;
      },
    };
    const claimer = pauses();
    const hk = new Housekeeping({
      clock: { lastSampleAt: 0 },
      journal,
      claimer,
      logger: quiet,
      clockMaxAgeMs: Number.MAX_SAFE_INTEGER,
      journalRetryMs: 10_000,
    });
    claimer.setPaused("journal", true); // what the claimer does when an append throws
    expect(hk.problems()).toEqual(["journal_error:ENOSPC"]);
    hk.tick(10_000);
    expect(recoveries).toBe(1);
    expect(claimer.pausedReasons()).toEqual([]);
    expect(hk.problems()).toEqual([]);
    // The probe append failed again right away: no new retry before the interval has passed.
    failure = new Error("ENOSPC");
    claimer.setPaused("journal", true);
    hk.tick(15_000);
    expect(recoveries).toBe(1);
    expect(claimer.pausedReasons()).toEqual(["journal"]);
    hk.tick(20_000);
    expect(recoveries).toBe(2);
  });

  test("records kept by the core are written first: claiming stays paused while they cannot be", () => {
    let attempts = 0;
    const journal = {
      failure: () => new Error("EIO"),
      retry: () => {
        attempts++;
        return false;
      },
    };
    const claimer = pauses();
    const hk = new Housekeeping({
      clock: { lastSampleAt: 0 },
      journal,
      claimer,
      logger: quiet,
      clockMaxAgeMs: Number.MAX_SAFE_INTEGER,
      journalRetryMs: 1_000,
    });
    claimer.setPaused("journal", true);
    hk.tick(1_000);
    hk.tick(2_000);
    expect(attempts).toBe(2);
    expect(claimer.pausedReasons()).toEqual(["journal"]);
    expect(hk.problems()).toEqual(["journal_error:EIO"]);
  });
});
