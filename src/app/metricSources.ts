/**
 * What the metrics read at scrape time (marks, exposure, limiter queues, open positions, P&L, the
 * account) and the gauges set once from the config (dry run, simulated venue, exposure cap).
 */
import type { Config } from "../config/schema.js";
import type { TradingCore } from "../core/tradingCore.js";
import { dustBySymbol, type LeftPosition } from "../daemon/unwind/positionsLeft.js";
import type { Unwinder } from "../daemon/unwind/unwinder.js";
import { marginParamsOf } from "../engine/margin.js";
import type { Metrics } from "../observe/metrics.js";
import { LIMITER_NAMES, type VenueLimiters } from "../venue/limiters.js";
import type { TradingBooks } from "./tradingBooks.js";

export function metricSources(o: {
  config: Config;
  metrics: Metrics;
  books: TradingBooks;
  limiters: VenueLimiters;
  core: TradingCore;
  unwinder: Unwinder;
  /** What stays open of the claimed positions (positionsLeft.ts): its dust is a gauge. */
  left(): LeftPosition[];
}): void {
  const { config, metrics, limiters, core, unwinder } = o;
  const { marks, exposure, account, policy } = o.books;
  metrics.dryRun.set(config.policy.dry_run ? 1 : 0);
  metrics.venueSimulated.set(config.venue.mode === "simulator" ? 1 : 0);
  metrics.exposureCap.set(config.policy.max_total_exposure);
  metrics.setLimiterSource(() => LIMITER_NAMES.map((limiter) => ({ limiter, queued: limiters.queued(limiter) })));
  metrics.setMarkSource(() =>
    marks.snapshot().map((m) => ({ symbol: m.symbol, price: m.price, ageSeconds: (Date.now() - m.receivedAt) / 1000 })),
  );
  metrics.setExposureSource(() => exposure.symbols().map((symbol) => ({ symbol, value: exposure.symbolNotional(symbol, marks) })));
  metrics.unwind.setOpenSource(() => unwinder.openPositions());
  metrics.unwind.setDustSource(() => dustBySymbol(o.left()));
  // position{symbol} stays one series per symbol: the sum over its margin modes.
  metrics.unwind.setPositionSource(() => exposure.symbols().map((symbol) => ({ symbol, qty: exposure.netQty(symbol) })));
  metrics.unwind.setPnlSource(() => {
    const ledger = core.fold.ledger;
    const t = ledger.totals();
    return {
      liquidator_fee: t.liquidatorFee,
      trading: t.trading,
      fees: t.fees,
      net: t.net,
      unrealized: ledger.unrealized((s) => marks.price(s)),
    };
  });
  // Positions no claim explains (the operator's own), per symbol: `liquidator_positions_unexplained`.
  metrics.unwind.setUnexplainedSource(() => {
    const bySymbol = new Map<string, number>();
    if (!o.books.positions.known) return [];
    for (const p of core.account.unexplained()) bySymbol.set(p.symbol, (bySymbol.get(p.symbol) ?? 0) + p.qty);
    return [...bySymbol].map(([symbol, qty]) => ({ symbol, qty }));
  });
  const marginParams = (symbol: string) => marginParamsOf(policy.context.symbols.get(symbol));
  metrics.setAccountSource(() => ({
    total: account.totalCollateral(marks),
    free: account.freeCollateral(marginParams, marks) ?? account.reported.freeCollateral,
    usage: account.marginUsage(marginParams, marks),
  }));
}
