/** The claim path's counts on the Prometheus metrics: the desk and the core never see prom-client. */
import { PAUSE_REASONS, type PauseReason } from "../../engine/pauseReasons.js";
import type { Supply } from "../../engine/supply.js";
import type { Metrics } from "../../observe/metrics.js";

export interface ClaimCounts {
  skipped(reason: string): void;
  submitted(supply: Supply): void;
  result(result: string, code: string, claimLatencySeconds: number | undefined): void;
  decisionLatency(seconds: number): void;
  feeEarned(symbol: string, amount: number): void;
  paused(reason: PauseReason, on: boolean): void;
}

export function claimObserver(metrics: Metrics): ClaimCounts {
  // The pause alerts compare with 0: every reason's series exists before its first switch.
  for (const reason of PAUSE_REASONS) metrics.claimingPaused.set({ reason }, 0);
  return {
    skipped: (reason) => metrics.claimsSkipped.inc({ reason }),
    submitted: (supply) => metrics.claimsSubmitted.inc({ supply }),
    result: (result, code, latency) => {
      metrics.claimsResult.inc({ result, code });
      if (latency !== undefined) metrics.claimLatency.observe(latency);
    },
    decisionLatency: (seconds) => metrics.decisionLatency.observe(seconds),
    feeEarned: (symbol, amount) => metrics.feeEarned.inc({ symbol }, amount),
    paused: (reason, on) => metrics.claimingPaused.set({ reason }, on ? 1 : 0),
  };
}
