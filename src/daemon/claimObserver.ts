/** The claimer's observer on the Prometheus metrics: the claimer itself never sees prom-client. */
import { PAUSE_REASONS } from "../engine/pauseReasons.js";
import type { Metrics } from "../observe/metrics.js";
import type { ClaimerObserver } from "./claimer.js";

export function claimObserver(metrics: Metrics): ClaimerObserver {
  // The pause alerts compare with 0: every reason's series exists before its first switch.
  for (const reason of PAUSE_REASONS) metrics.claimingPaused.set({ reason }, 0);
  return {
    skipped: (reason) => metrics.claimsSkipped.inc({ reason }),
    submitted: () => metrics.claimsSubmitted.inc(),
    result: (result, code, latency) => {
      metrics.claimsResult.inc({ result, code });
      if (latency !== undefined) metrics.claimLatency.observe(latency);
    },
    decisionLatency: (seconds) => metrics.decisionLatency.observe(seconds),
    feeEarned: (symbol, amount) => metrics.feeEarned.inc({ symbol }, amount),
    paused: (reason, on) => metrics.claimingPaused.set({ reason }, on ? 1 : 0),
  };
}
