/**
 * The markout sampler: it follows each claim's fills from its assignment on (the P&L ledger is the
 * trading core's, core/coreFold.ts).
 */
import type { Logger } from "pino";
import type { PolicyState } from "../daemon/claim/policyState.js";
import { MarkoutSampler } from "../daemon/records/markoutSampler.js";
import type { MarkBook } from "../engine/marks.js";
import type { Metrics } from "../observe/metrics.js";
import type { StateStore } from "../store/stateStore.js";
import type { DaemonTiming } from "./daemonTiming.js";

export function markoutParts(o: {
  store: StateStore;
  metrics: Metrics;
  logger: Logger;
  timing: DaemonTiming | undefined;
  marks: MarkBook;
  policy: PolicyState;
}): MarkoutSampler {
  const { store, metrics, timing, policy } = o;
  return new MarkoutSampler({
    marks: o.marks,
    maxMarkAgeMs: () => policy.maxMarkAgeMs,
    write: (record) => store.append(record),
    observe: (horizon, bps) => metrics.markoutBps.observe({ horizon }, bps),
    now: Date.now,
    ...(timing?.markoutDelaysMs !== undefined ? { delaysMs: timing.markoutDelaysMs } : {}),
    logger: o.logger.child({ component: "markouts" }),
  });
}
