/**
 * The simulated venue's view of the liquidator's unwinding, for tests: the account's open quantity
 * per symbol (dust below the quantity step counts as flat), its orders, and when each claimed
 * symbol went back to flat. Not a test file itself.
 */
import type { ClaimLogEntry } from "../../src/sim/claimLog.js";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import type { SimOrder } from "../../src/sim/tradingShapes.js";

/** Signed quantity held; 0 when below the symbol's quantity step unless `exact`. */
export function openQty(sim: SimulatorHandle, symbol: string, exact = false): number {
  const qty = sim.core.trading.booksOf(sim.accountId).get(symbol)?.qty ?? 0;
  const step = sim.core.symbols.get(symbol)?.qtyStep ?? 0;
  return !exact && Math.abs(qty) < step ? 0 : qty;
}

/** The account's orders at the venue, oldest first. */
export function venueOrders(sim: SimulatorHandle): SimOrder[] {
  return sim.core.trading.ordersOf(sim.accountId).reverse();
}

/**
 * Samples every symbol's open quantity every 20 ms; `assignedToFlat` gives, per accepted claim, the
 * time from its application at the venue to the first sample after it with the symbol flat.
 */
export function flatTimes(sim: SimulatorHandle): { stop(): void; assignedToFlat(claims: readonly ClaimLogEntry[]): number[] } {
  const flatAt = new Map<string, number[]>();
  const timer = setInterval(() => {
    const now = sim.core.now();
    for (const symbol of sim.core.symbols.names()) {
      if (openQty(sim, symbol) !== 0) continue;
      const list = flatAt.get(symbol) ?? [];
      list.push(now);
      flatAt.set(symbol, list);
    }
  }, 20);
  return {
    stop: () => clearInterval(timer),
    assignedToFlat: (claims) =>
      claims.flatMap((c) =>
        c.transfers.map((t) => {
          const flat = (flatAt.get(t.symbol) ?? []).find((at) => at > c.decidedAt);
          return flat === undefined ? Number.POSITIVE_INFINITY : flat - c.decidedAt;
        }),
      ),
  };
}
