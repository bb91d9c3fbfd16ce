/**
 * `unwind.scope` wired: what claims assigned (daemon/claimedPositions.ts) decides what the unwinder
 * may close, and positions no claim explains — the operator's own on this account — are reported
 * once the venue has said what the account holds: a log line each, the
 * `liquidator_positions_unexplained{symbol}` gauge, and `/readyz`'s `unexplained_positions`.
 */
import { ClaimedPositions } from "../daemon/claimedPositions.js";
import type { PositionBook } from "../engine/positionBook.js";
import type { MarginMode } from "../engine/types.js";
import type { Metrics } from "../observe/metrics.js";
import type { StateStore } from "../store/stateStore.js";

export interface UnwindScope {
  claimed: ClaimedPositions;
  /** What the unwinder closes of a position. */
  target(symbol: string, mode: MarginMode, held: number): number;
  /** After each positions snapshot (ingest.ts `positionsRead`). */
  positionsRead(first: boolean): void;
}

export function unwindScope(o: {
  /** `unwind.scope`, read at each use (SIGHUP may change it). */
  scope(): "claimed" | "all";
  positions: PositionBook;
  store: Pick<StateStore, "append" | "mayLead">;
  metrics: Metrics;
  kick(symbol: string, mode: MarginMode): void;
  logger: { info(o: object, m: string): void; warn(o: object, m: string): void };
}): UnwindScope {
  const claimed = new ClaimedPositions({
    positions: o.positions,
    journal: (record) => o.store.append(record),
    mayWrite: () => o.store.mayLead(),
    changed: (symbol, mode) => o.kick(symbol, mode),
  });
  o.metrics.unwind.setUnexplainedSource(() => {
    const bySymbol = new Map<string, number>();
    for (const p of claimed.unexplainedPositions()) bySymbol.set(p.symbol, (bySymbol.get(p.symbol) ?? 0) + p.qty);
    return [...bySymbol].map(([symbol, qty]) => ({ symbol, qty }));
  });
  return {
    claimed,
    target: (symbol, mode, held) => (o.scope() === "all" ? held : claimed.target(symbol, mode, held)),
    positionsRead: (first) => {
      if (!first) return;
      claimed.reconcile();
      for (const p of claimed.unexplainedPositions()) {
        if (o.scope() === "all") o.logger.warn(p, "a position no claim explains: closing it (unwind.scope: all)");
        else o.logger.warn(p, "a position no claim explains: left alone (unwind.scope: claimed; use a dedicated account)");
      }
    },
  };
}
