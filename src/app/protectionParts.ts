/**
 * The trading state (active, reducing, halted; the SIGUSR2 drain) and the protections that move it
 * on the P&L (the trading core's ledger): built once the claimer and the unwinder exist, before the
 * journal is adopted (the protections' last state goes through the guard).
 *
 * - the trading state (daemon/control/tradingState.ts) pauses the claimer under its name and is
 *   exported as `liquidator_trading_state{state}`; the drain (daemon/control/drain.ts) that is done
 *   aborts `drained`, which ends the run as SIGTERM would; `drainResult` then says whether it ended
 *   flat (dust aside: exit 0) or with positions above dust open (EXIT_POSITIONS_OPEN);
 * - the protections (daemon/control/protectionGuard.ts) are fed by the P&L ledger and fresh marks,
 *   drive the trading state, gate the claimer, are journaled in the store and counted in
 *   `liquidator_protection_trips_total{protection}`.
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import type { TradingCore } from "../core/tradingCore.js";
import type { Claimer } from "../daemon/claim/claimer.js";
import { Drain, type DrainResult } from "../daemon/control/drain.js";
import { PROTECTIONS, ProtectionGuard, protectionLimits } from "../daemon/control/protectionGuard.js";
import { TRADING_STATES, TradingState } from "../daemon/control/tradingState.js";
import type { LeftPosition } from "../daemon/unwind/positionsLeft.js";
import type { Unwinder } from "../daemon/unwind/unwinder.js";
import type { MarkBook } from "../engine/marks.js";
import type { PnlLedger } from "../engine/pnlLedger.js";
import type { PositionBook } from "../engine/positionBook.js";
import type { Metrics } from "../observe/metrics.js";
import type { StateStore } from "../store/stateStore.js";
import type { TradingBooks } from "./tradingBooks.js";

export interface ProtectionParts {
  trading: TradingState;
  drain: Drain;
  /** Aborts once a drain has finished. */
  drained: AbortSignal;
  /** How the safe stop ended, once it has. */
  drainResult(): DrainResult | undefined;
  guard: ProtectionGuard;
}

export function protectionParts(o: {
  config: Config;
  store: StateStore;
  metrics: Metrics;
  logger: Logger;
  books: TradingBooks;
  claimer: Claimer;
  unwinder: Unwinder;
  core: TradingCore;
  /** What stays open of the claimed positions (positionsLeft.ts). */
  left(): LeftPosition[];
}): ProtectionParts {
  const { claimer, metrics, logger } = o;
  const { trading, drain, drained, drainResult } = tradingControl({
    claimer,
    unwinder: o.unwinder,
    positions: o.books.positions,
    left: o.left,
    metrics,
    logger,
  });
  const guard = protectionGuard({
    config: o.config.protections,
    ledger: () => o.core.fold.ledger,
    marks: o.books.marks,
    maxMarkAgeMs: () => o.books.policy.maxMarkAgeMs,
    trading,
    store: o.store,
    claimer,
    metrics,
    logger,
  });
  return { trading, drain, drained, drainResult, guard };
}

function protectionGuard(o: {
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

function tradingControl(o: {
  claimer: Pick<Claimer, "setPaused" | "unsettledCount">;
  unwinder: Pick<Unwinder, "remaining">;
  positions: PositionBook;
  /** What stays open of the claimed positions, and why (positionsLeft.ts). */
  left(): LeftPosition[];
  metrics: Metrics;
  logger: {
    child(bindings: object): { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void };
  };
}): { trading: TradingState; drain: Drain; drained: AbortSignal; drainResult(): DrainResult | undefined } {
  const trading = new TradingState({
    pause: (state, on) => o.claimer.setPaused(state, on),
    changed: (state) => {
      for (const s of TRADING_STATES) o.metrics.tradingState.set({ state: s }, s === state ? 1 : 0);
    },
    logger: o.logger.child({ component: "trading_state" }),
  });
  const drained = new AbortController();
  let result: DrainResult | undefined;
  const drain = new Drain({
    trading,
    unsettledClaims: () => o.claimer.unsettledCount(),
    remaining: () => o.unwinder.remaining(),
    positionsKnown: () => o.positions.known,
    leftOpen: o.left,
    drained: (r) => {
      result = r;
      drained.abort();
    },
    logger: o.logger.child({ component: "drain" }),
  });
  return { trading, drain, drained: drained.signal, drainResult: () => result };
}
