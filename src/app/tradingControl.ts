/**
 * The trading state (daemon/tradingState.ts) and the drain (daemon/drain.ts) wired: the state pauses
 * the claimer under its name and is exported as `liquidator_trading_state{state}`; a drain that is
 * done aborts `drained`, which ends the run as SIGTERM would (the process exits 0).
 */
import type { Claimer } from "../daemon/claimer.js";
import { Drain } from "../daemon/drain.js";
import { TRADING_STATES, TradingState } from "../daemon/tradingState.js";
import type { Unwinder } from "../daemon/unwinder.js";
import type { PositionBook } from "../engine/positionBook.js";
import type { MarginMode } from "../engine/types.js";
import type { Metrics } from "../observe/metrics.js";

export function tradingControl(o: {
  claimer: Pick<Claimer, "setPaused" | "unsettledCount">;
  unwinder: Pick<Unwinder, "remaining">;
  positions: PositionBook;
  target(symbol: string, mode: MarginMode, held: number): number;
  metrics: Metrics;
  logger: { child(bindings: object): { info(o: object, m: string): void; warn(o: object, m: string): void } };
}): { trading: TradingState; drain: Drain; drained: AbortSignal } {
  const trading = new TradingState({
    pause: (state, on) => o.claimer.setPaused(state, on),
    changed: (state) => {
      for (const s of TRADING_STATES) o.metrics.tradingState.set({ state: s }, s === state ? 1 : 0);
    },
    logger: o.logger.child({ component: "trading_state" }),
  });
  const drained = new AbortController();
  const drain = new Drain({
    trading,
    unsettledClaims: () => o.claimer.unsettledCount(),
    remaining: () => o.unwinder.remaining(),
    positionsKnown: () => o.positions.known,
    leftOpen: () =>
      o.positions
        .positions()
        .map(({ symbol, mode }) => ({ symbol, marginMode: mode, qty: o.target(symbol, mode, o.positions.held(symbol, mode)) }))
        .filter((p) => p.qty !== 0),
    drained: () => drained.abort(),
    logger: o.logger.child({ component: "drain" }),
  });
  return { trading, drain, drained: drained.signal };
}
