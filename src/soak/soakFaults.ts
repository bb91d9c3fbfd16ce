/**
 * Carries out one step of the soak's fault plan (soakSchedule.ts) against the simulated venue's
 * fault controls (src/sim/restFaults.ts, src/sim/streamFaults.ts) or the daemon process; resolves
 * when the fault is over (and undone, for those that must be switched off).
 */
import type { SimulatorHandle } from "../sim/startSimulator.js";
import { type FaultStep, REQUEST_TIMEOUT_MS } from "./soakSchedule.js";

const CLAIM_PATH = "/v1/liquidation";

export interface FaultTargets {
  faults: SimulatorHandle["faults"];
  /** Waits `ms`, or less when the run is interrupted. */
  pause(ms: number): Promise<void>;
  /** SIGKILL the daemon, wait `downMs`, start it again on the same state dir. */
  restartDaemon(downMs: number): Promise<void>;
}

export async function injectFault(f: FaultStep, t: FaultTargets): Promise<void> {
  const { rest, streams } = t.faults;
  const d = f.durationMs;
  switch (f.kind) {
    case "stream_drop":
      streams.dropAll(undefined, "terminate");
      return;
    case "malformed":
      streams.sendMalformed(400, "public");
      streams.sendMalformed(400, "private");
      streams.sendMalformed(1, "public", "oversized");
      return;
    case "rest_5xx":
      rest.serverError(503, { method: "GET", body: "html", forMs: d });
      return t.pause(d);
    case "claim_1011":
      rest.venueError(-1011, { path: CLAIM_PATH, times: 5, forMs: d });
      return t.pause(d);
    case "stall":
      streams.stall("public", true);
      await t.pause(d);
      streams.stall("public", false);
      return;
    case "claim_slow_answer":
      // Applied by the venue, answered after the client gave up: outcomes the daemon cannot know.
      rest.delay(REQUEST_TIMEOUT_MS + 2_000, { path: CLAIM_PATH, phase: "after", times: 3, forMs: d });
      return t.pause(d);
    case "kill9_restart":
      return t.restartDaemon(d);
    case "rate_limit_storm":
      rest.rateLimitStorm({ forMs: d });
      return t.pause(d);
    case "stream_refuse":
      streams.refuseConnections(true);
      streams.dropAll(undefined, "close");
      await t.pause(d);
      streams.refuseConnections(false);
      return;
    case "claim_reset":
      rest.reset({ path: CLAIM_PATH, phase: "before", times: 3, forMs: d });
      return t.pause(d);
  }
}
