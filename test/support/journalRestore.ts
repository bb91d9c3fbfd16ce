/** What the daemon makes of a replay at start-up, as plain values a test can compare. Not a test file. */
import { buildTradingCore } from "../../src/core/buildCore.js";
import type { CoreFold } from "../../src/core/coreFold.js";
import type { CorePort } from "../../src/core/corePort.js";
import type { JournalRecord } from "../../src/core/journalRecords.js";
import type { TradingCore } from "../../src/core/tradingCore.js";
import { openOrdersForTests } from "../../src/daemon/control/leadership.js";
import { Exposure } from "../../src/engine/exposure.js";
import type { PnlLedger } from "../../src/engine/pnlLedger.js";
import { PositionBook } from "../../src/engine/positionBook.js";
import type { MarginMode } from "../../src/engine/types.js";
import type { JournalReplay } from "../../src/store/journalReplay.js";

function coreOf(replay: JournalReplay): CoreFold {
  if (replay.core === undefined) throw new Error("this replay was not read by a store: it holds no core state");
  return replay.core;
}

/**
 * Ids a restart never claims (never again, or of unknown outcome), and those whose outcome is unknown
 * (settled from the venue's record), both sorted.
 */
export function restoreIds(replay: JournalReplay): { blocked: number[]; unknown: number[] } {
  const fold = coreOf(replay);
  const blocked = new Set<number>(fold.done.values());
  const unknown: number[] = [];
  for (const [id, c] of fold.claims) {
    blocked.add(id);
    if (c.provisional === undefined && c.givenUp !== true) unknown.push(id);
  }
  return { blocked: [...blocked].sort((a, b) => a - b), unknown: unknown.sort((a, b) => a - b) };
}

/** The orders a new leader looks up first, and the next order number. */
export function leadershipUnsettled(replay: JournalReplay): { unsettled: string[]; firstSeq: number } {
  const { unsettled, firstSeq } = openOrdersForTests(coreOf(replay));
  return { unsettled: unsettled.map((o) => o.clientOrderId).sort(), firstSeq };
}

/** The P&L a restart starts from (the fold's ledger). */
export function ledgerOf(replay: JournalReplay): PnlLedger {
  return coreOf(replay).ledger;
}

/**
 * The trading core a restart builds from `replay`, read-only (it may not lead: it journals nothing,
 * places nothing), over `positions` (the venue's report of the account).
 */
export function restartedCore(replay: JournalReplay, positions = new PositionBook(new Exposure())): TradingCore {
  return coreOver(coreOf(replay), positions);
}

/** What a test's core talks to instead of a store and a venue (everything optional). */
export interface CoreOverOptions {
  /** Where records go (a file journal's append); the core leads when given. */
  append?: (r: JournalRecord) => void;
  placeOrder?: CorePort["placeOrder"];
  orderWorking?: (symbol: string, mode: MarginMode) => boolean;
  scope?: "claimed" | "all";
  now?: () => number;
}

/**
 * A trading core over `fold` and `positions`: the daemon's own accounting, driven by a test at the
 * level of records, reports and orders (no claim path). Read-only unless `append` is given.
 */
export function coreOver(fold: CoreFold, positions: PositionBook, o: CoreOverOptions = {}): TradingCore {
  const noop = (): void => undefined;
  const append = o.append ?? noop;
  const { core } = buildTradingCore({
    fold,
    exposure: new Exposure(),
    positions,
    port: {
      intent: (r) => void append(r),
      append,
      recover: () => true,
      mayLead: () => o.append !== undefined,
      sendClaim: noop,
      placeOrder: o.placeOrder ?? (() => Promise.reject(new Error("read-only"))),
      readRecord: () => Promise.resolve({ ok: false, reason: "read-only", permanent: true }),
      requestPositions: noop,
      schedule: () => noop,
      now: o.now ?? (() => 0),
      monotonic: o.now ?? (() => 0),
    },
    scope: () => o.scope ?? "claimed",
    mark: () => undefined,
    orderWorking: o.orderWorking ?? (() => false),
    changed: noop,
    desk: {
      decide: () => ({ action: "skip", liquidationId: 0, reason: "unknown_symbol", detail: undefined }),
      book: { get: () => undefined, remove: () => false },
      dryRun: () => false,
      skipped: noop,
      paused: noop,
    },
    observer: {
      submitted: noop,
      decisionLatency: noop,
      result: noop,
      feeEarned: noop,
      settled: noop,
      traded: noop,
      unknown: noop,
      givenUp: noop,
      changed: noop,
    },
    logger: { info: noop, warn: noop, error: noop },
  });
  return core;
}
