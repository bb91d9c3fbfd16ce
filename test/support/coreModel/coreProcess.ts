/**
 * One process of the daemon in the core's model-based tests: its state store (file or PostgreSQL,
 * behind FaultyStore), the books, the trading core and its desk built by the daemon's one builder,
 * the real unwinder, and the journal adopted the daemon's way (daemon/control/leadership.ts adoptJournal) —
 * everything on the model venue and virtual time. A restart builds a new one from the store alone.
 */
import { buildTradingCore } from "../../../src/core/buildCore.js";
import type { ClaimDesk } from "../../../src/core/claimDesk.js";
import { CoreFold } from "../../../src/core/coreFold.js";
import type { CorePort } from "../../../src/core/corePort.js";
import type { TradingCore } from "../../../src/core/tradingCore.js";
import { adoptJournal } from "../../../src/daemon/control/leadership.js";
import { Unwinder } from "../../../src/daemon/unwind/unwinder.js";
import { UnwindSettings } from "../../../src/daemon/unwind/unwindSettings.js";
import { Exposure } from "../../../src/engine/exposure.js";
import { MarkBook } from "../../../src/engine/marks.js";
import { PositionBook } from "../../../src/engine/positionBook.js";
import { SymbolTable } from "../../../src/engine/symbolInfo.js";
import type { Decision, Liquidation } from "../../../src/engine/types.js";
import type { JournalReplay } from "../../../src/store/journalReplay.js";
import type { StateStore } from "../../../src/store/stateStore.js";
import { FaultyStore } from "./faultyStore.js";
import { MARKET, type ModelSymbol, type ModelVenue, SYMBOLS } from "./modelVenue.js";
import type { VirtualClock } from "./virtualClock.js";

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
/** Leverage the model's margin check allows: a claim needs a tenth of its notional in free collateral. */
const LEVERAGE = 10;

export interface ProcessWorld {
  clock: VirtualClock;
  venue: ModelVenue;
  /** Collateral the account holds (deposits and withdrawals change it). */
  collateral: number;
  /** The unwinder may send (off while the test settles everything before judging what is ours). */
  unwinding: boolean;
}

export interface CoreProcess {
  store: FaultyStore;
  core: TradingCore;
  desk: ClaimDesk;
  unwinder: Unwinder;
  exposure: Exposure;
  positions: PositionBook;
  /** What this process believes is open (the daemon's open book). */
  book: Map<number, Liquidation>;
  gen: number;
}

export function startProcess(w: ProcessWorld, inner: StateStore, replay: JournalReplay): CoreProcess {
  const { clock, venue } = w;
  const gen = clock.gen;
  const alive = (): boolean => clock.gen === gen;
  const store = new FaultyStore(inner);
  const marks = new MarkBook();
  for (const s of SYMBOLS) marks.set(s, MARKET[s].mark, clock.now);
  const exposure = new Exposure();
  const positions = new PositionBook(exposure);
  const book = new Map<number, Liquidation>();
  const symbols = new SymbolTable(
    SYMBOLS.map((symbol) => ({
      symbol,
      tier: 2 as const,
      liquidatorFee: 0.02,
      priceTick: 0.01,
      minNotional: 1,
      orderFilters: { qtyTick: 0.001, qtyMin: 0.001, qtyMax: 1e6, priceRange: 0.03 },
    })),
  );
  let unwinder: Unwinder | undefined;
  let core: TradingCore | undefined;
  const snapshot = (): void => {
    if (alive()) core?.positionsSnapshot(venue.positions(), clock.now);
  };
  const port: CorePort = {
    intent: (r) => store.intent(r),
    append: (r) => store.append(r),
    recover: () => store.recover(),
    mayLead: () => alive() && store.mayLead(),
    sendClaim: (body, dryRun, answered) => {
      if (!alive()) return;
      if (dryRun) queueMicrotask(() => answered({ sent: false, dryRun: true }));
      else venue.sendClaim(body, answered);
    },
    placeOrder: (body) => (alive() ? venue.placeOrder(body) : Promise.reject(new Error("the process is dead"))),
    readRecord: (startT, endT) => venue.readRecord(startT, endT),
    requestPositions: () => void clock.schedule(100, snapshot),
    schedule: (ms, f) => clock.schedule(ms, f),
    now: () => clock.now,
    monotonic: () => clock.now,
  };
  const decide = (liq: Liquidation): Decision => {
    const perSymbolQty: Record<string, number> = {};
    const limitPrice: Record<string, number> = {};
    let notional = 0;
    let fee = 0;
    for (const p of liq.positions) {
      const mark = MARKET[p.symbol as ModelSymbol].mark;
      perSymbolQty[p.symbol] = p.positionQty;
      limitPrice[p.symbol] = mark;
      notional += Math.abs(p.positionQty) * mark;
      fee += Math.abs(p.positionQty) * mark * p.liquidatorFee;
    }
    const used = exposure.totalNotional(marks) / LEVERAGE;
    const need = notional / LEVERAGE;
    if (need > w.collateral - used) return { action: "skip", liquidationId: liq.liquidationId, reason: "margin", detail: undefined };
    return {
      action: "claim",
      liquidationId: liq.liquidationId,
      ratio: 1,
      symbols: undefined,
      limitPrice,
      expectedFee: fee,
      notional,
      perSymbolQty,
      marginNeed: need,
      marginRoom: w.collateral - used,
    };
  };
  const built = buildTradingCore({
    fold: new CoreFold(),
    exposure,
    positions,
    port,
    scope: () => "claimed",
    mark: (symbol) => marks.price(symbol),
    orderWorking: (symbol, mode) => unwinder?.working(symbol, mode) ?? false,
    changed: (symbol, mode) => unwinder?.kick(symbol, mode),
    desk: {
      decide,
      book: { get: (id) => book.get(id), remove: (id) => book.delete(id) },
      dryRun: () => false,
      skipped: () => undefined,
      paused: () => undefined,
    },
    observer: {
      submitted: () => undefined,
      decisionLatency: () => undefined,
      result: () => undefined,
      feeEarned: () => undefined,
      settled: () => undefined,
      traded: () => undefined,
      unknown: () => undefined,
      givenUp: () => undefined,
      changed: () => undefined,
    },
    logger: quiet,
  });
  core = built.core;
  const u = new Unwinder({
    orders: { orderByClientId: (id) => venue.orderByClientId(id), ordersOf: (symbol) => venue.ordersOf(symbol) },
    own: built.core.orders,
    positions,
    marks,
    symbols: () => symbols,
    settings: new UnwindSettings({ mode: "immediate", max_slippage_bps: 50, max_order_notional: 1e9, hold: [], per_symbol: {} }),
    dryRun: () => !w.unwinding,
    mayLead: () => alive() && store.mayLead(),
    target: (symbol, mode, held) => built.core.account.target(symbol, mode, held),
    observer: { order: () => undefined, timeToFlat: () => undefined, halted: () => undefined, unsettled: () => undefined },
    logger: quiet,
    requestPositions: () => void clock.schedule(100, snapshot),
    readPositions: async () => snapshot(),
    clientOrderIdPrefix: store.orderIdPrefix,
    now: () => clock.now,
    schedule: (ms, f) => clock.schedule(ms, f),
  });
  unwinder = u;
  // The daemon's start: the journal adopted, then the account and the open list read.
  adoptJournal(replay.core ?? new CoreFold(), { core: built.core, unwinder: u });
  snapshot();
  return { store, core: built.core, desk: built.desk, unwinder: u, exposure, positions, book, gen };
}
