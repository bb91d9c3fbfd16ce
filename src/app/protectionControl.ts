/**
 * The protections wired (daemon/control/protectionGuard.ts): fed by the P&L ledger and the marks, driving
 * the trading state, gating the claimer, journaled in the store, counted in
 * `liquidator_protection_trips_total{protection}`.
 */
import type { Claimer } from "../daemon/claim/claimer.js";
import { PROTECTIONS, ProtectionGuard, protectionLimits } from "../daemon/control/protectionGuard.js";
import type { TradingState } from "../daemon/control/tradingState.js";
import type { MarkBook } from "../engine/marks.js";
import type { PnlLedger } from "../engine/pnlLedger.js";
import type { Metrics } from "../observe/metrics.js";
import type { StateStore } from "../store/stateStore.js";

export function protectionGuard(o: {
  config: Parameters<typeof protectionLimits>[0];
  ledger: () => PnlLedger;
  marks: MarkBook;
  /** policy.max_mark_age_ms now. */
  maxMarkAgeMs: () => number;
  trading: TradingState;
  store: Pick<StateStore, "append" | "mayLead">;
  claimer: Pick<Claimer, "retrySkipped">;
  metrics: Metrics;
  logger: { child(bindings: object): { info(o: object, m: string): void; warn(o: object, m: string): void } };
}): ProtectionGuard {
  for (const protection of PROTECTIONS) o.metrics.protectionTrips.inc({ protection }, 0);
  return new ProtectionGuard({
    limits: protectionLimits(o.config),
    ledger: o.ledger,
    mark: (symbol) => {
      // Only a fresh mark judges: a stale one neither trips nor clears a protection.
      const m = o.marks.get(symbol);
      return m !== undefined && Date.now() - m.receivedAt <= o.maxMarkAgeMs() ? m.price : undefined;
    },
    trading: o.trading,
    store: o.store,
    reopen: (reasons) => o.claimer.retrySkipped(reasons),
    tripped: (trip) => o.metrics.protectionTrips.inc({ protection: trip.protection }),
    logger: o.logger.child({ component: "protections" }),
  });
}
