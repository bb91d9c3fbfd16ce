/**
 * The unwinder: reduce-only orders that bring what is ours back to flat. It decides what to send and
 * when; the trading core journals each order, books its trades (what is ours, the P&L) and says what
 * may be closed of each position (core/accountWatch.ts `target`).
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import type { TradingCore } from "../core/tradingCore.js";
import type { ClaimSender } from "../daemon/claim/claimSender.js";
import type { Daemon } from "../daemon/daemon.js";
import type { Ingest } from "../daemon/feeds/ingest.js";
import { Unwinder } from "../daemon/unwind/unwinder.js";
import type { Metrics } from "../observe/metrics.js";
import type { StateStore } from "../store/stateStore.js";
import { OrderApi } from "../venue/orderApi.js";
import type { RestClient } from "../venue/rest.js";
import type { Later } from "./later.js";
import type { TradingBooks } from "./tradingBooks.js";

export function unwindParts(o: {
  config: Config;
  store: StateStore;
  metrics: Metrics;
  logger: Logger;
  books: TradingBooks;
  rest: RestClient;
  sender: ClaimSender;
  core: TradingCore;
  daemon: Later<Daemon>;
  ingest: Later<Ingest>;
}): Unwinder {
  const { store, metrics, rest, sender, core } = o;
  const { positions, policy } = o.books;
  return new Unwinder({
    orders: new OrderApi(rest),
    own: core.orders,
    positions,
    marks: o.books.marks,
    symbols: () => policy.context.symbols,
    // The policy's reloadable state: SIGHUP applies `unwind.*` there (policyReloader.ts).
    settings: policy.unwind,
    dryRun: () => sender.dryRun,
    mayLead: () => store.mayLead(),
    target: (symbol, mode, held) => core.account.target(symbol, mode, held),
    observer: {
      order: (result) => metrics.unwind.ordersTotal.inc({ result }),
      timeToFlat: (seconds) => metrics.unwind.timeToFlat.observe(seconds),
      halted: (symbol, on) => metrics.unwind.halted.set({ symbol }, on ? 1 : 0),
      unsettled: () => metrics.unwind.ordersUnsettled.inc(),
    },
    logger: o.logger.child({ component: "unwinder" }),
    requestPositions: () => o.daemon.get().requestPositions(),
    readPositions: async (signal) => o.ingest.get().restPositions(await rest.positions({ signal })),
    clientOrderIdPrefix: store.orderIdPrefix,
  });
}
