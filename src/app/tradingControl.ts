/**
 * The trading state (daemon/control/tradingState.ts) and the drain (daemon/control/drain.ts) wired: the state pauses
 * the claimer under its name and is exported as `liquidator_trading_state{state}`; a drain that is
 * done aborts `drained`, which ends the run as SIGTERM would; `drainResult` then says whether it
 * ended flat (dust aside: exit 0) or with positions above dust open (EXIT_POSITIONS_OPEN).
 */
import type { Claimer } from "../daemon/claim/claimer.js";
import { Drain, type DrainResult } from "../daemon/control/drain.js";
import { TRADING_STATES, TradingState } from "../daemon/control/tradingState.js";
import type { LeftPosition } from "../daemon/unwind/positionsLeft.js";
import type { Unwinder } from "../daemon/unwind/unwinder.js";
import type { PositionBook } from "../engine/positionBook.js";
import type { Metrics } from "../observe/metrics.js";

export function tradingControl(o: {
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
