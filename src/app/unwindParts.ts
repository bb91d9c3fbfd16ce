/**
 * The unwinder: reduce-only orders that bring what claims assigned back to flat, their fills into the
 * journal, the P&L and the claimed positions, each fill a reason for the protections to look again.
 */
import type { Logger } from "pino";
import type { Config } from "../config/schema.js";
import type { CaptureTap } from "../daemon/captureTap.js";
import type { ClaimSender } from "../daemon/claimSender.js";
import type { Daemon } from "../daemon/daemon.js";
import type { Ingest } from "../daemon/ingest.js";
import { OrderFills } from "../daemon/orderFills.js";
import type { ProtectionGuard } from "../daemon/protectionGuard.js";
import { Unwinder } from "../daemon/unwinder.js";
import type { PnlLedger } from "../engine/pnlLedger.js";
import type { Metrics } from "../observe/metrics.js";
import type { StateStore } from "../store/stateStore.js";
import { OrderApi } from "../venue/orderApi.js";
import type { RestClient } from "../venue/rest.js";
import type { Later } from "./later.js";
import type { TradingBooks } from "./tradingBooks.js";
import type { UnwindScope } from "./unwindScope.js";

export function unwindParts(o: {
  config: Config;
  store: StateStore;
  metrics: Metrics;
  logger: Logger;
  books: TradingBooks;
  rest: RestClient;
  sender: ClaimSender;
  ledger: PnlLedger;
  scope: UnwindScope;
  /** `state.capture`, when on. */
  capture: CaptureTap | undefined;
  guard: Later<ProtectionGuard>;
  daemon: Later<Daemon>;
  ingest: Later<Ingest>;
}): Unwinder {
  const { store, metrics, rest, sender, scope, guard } = o;
  const { positions, policy } = o.books;
  return new Unwinder({
    orders: new OrderApi(rest),
    positions,
    marks: o.books.marks,
    symbols: () => policy.context.symbols,
    // The policy's reloadable state: SIGHUP applies `unwind.*` there (policyReloader.ts).
    settings: policy.unwind,
    dryRun: () => sender.dryRun,
    store: {
      intent: (record) => {
        if (record.t === "order_intent") scope.claimed.orderIntent(record.clientOrderId, record.marginMode);
        return store.intent(record);
      },
      append: (record) => store.append(record),
      mayLead: () => store.mayLead(),
    },
    target: scope.target,
    fills: new OrderFills({
      journal: (record) => {
        store.append(record);
        if (record.t === "order_fill") {
          scope.claimed.fill(record);
          // The ledger takes the fill after it is journaled: observe once it has.
          queueMicrotask(() => guard.get().check());
        }
      },
      ledger: o.ledger,
      positions,
      observer: {
        slippage: (bps) => metrics.unwind.slippageBps.observe(bps),
        traded: (symbol, qty, price, fee, mark) => o.capture?.record({ k: "fill", at: Date.now(), symbol, qty, price, fee, mark }),
      },
      now: Date.now,
    }),
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
