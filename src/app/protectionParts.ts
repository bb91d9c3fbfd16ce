/**
 * The trading state (active, reducing, halted; the SIGUSR2 drain) and the protections that move it
 * on the P&L (the trading core's ledger): built once the claimer and the unwinder exist, before the
 * journal is adopted (the protections' last state goes through the guard).
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import type { TradingCore } from "../core/tradingCore.js";
import type { Claimer } from "../daemon/claim/claimer.js";
import type { Drain, DrainResult } from "../daemon/control/drain.js";
import type { ProtectionGuard } from "../daemon/control/protectionGuard.js";
import type { TradingState } from "../daemon/control/tradingState.js";
import type { LeftPosition } from "../daemon/unwind/positionsLeft.js";
import type { Unwinder } from "../daemon/unwind/unwinder.js";
import type { Metrics } from "../observe/metrics.js";
import type { StateStore } from "../store/stateStore.js";
import { protectionGuard } from "./protectionControl.js";
import type { TradingBooks } from "./tradingBooks.js";
import { tradingControl } from "./tradingControl.js";

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
