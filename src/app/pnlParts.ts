/**
 * The P&L ledger and the markout sampler: both follow each claim's fills from its assignment on.
 * The ledger tells the protections of every closed claim (bound later: they need the claimer).
 */
import type { Logger } from "pino";
import { MarkoutSampler } from "../daemon/markoutSampler.js";
import type { PolicyState } from "../daemon/policyState.js";
import type { ProtectionGuard } from "../daemon/protectionGuard.js";
import type { MarkBook } from "../engine/marks.js";
import { PnlLedger } from "../engine/pnlLedger.js";
import type { Metrics } from "../observe/metrics.js";
import type { StateStore } from "../store/stateStore.js";
import type { DaemonTiming } from "./daemonTiming.js";
import type { Later } from "./later.js";

export interface PnlParts {
  ledger: PnlLedger;
  markouts: MarkoutSampler;
}

export function pnlParts(o: {
  store: StateStore;
  metrics: Metrics;
  logger: Logger;
  timing: DaemonTiming | undefined;
  marks: MarkBook;
  policy: PolicyState;
  guard: Later<ProtectionGuard>;
}): PnlParts {
  const { store, metrics, timing, policy, guard } = o;
  const ledger = new PnlLedger({ keepClosedClaims: false, closed: (c) => guard.get().claimClosed(c) });
  const markouts = new MarkoutSampler({
    marks: o.marks,
    maxMarkAgeMs: () => policy.maxMarkAgeMs,
    write: (record) => store.append(record),
    observe: (horizon, bps) => metrics.markoutBps.observe({ horizon }, bps),
    now: Date.now,
    ...(timing?.markoutDelaysMs !== undefined ? { delaysMs: timing.markoutDelaysMs } : {}),
    logger: o.logger.child({ component: "markouts" }),
  });
  return { ledger, markouts };
}
