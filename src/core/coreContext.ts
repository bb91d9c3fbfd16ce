/**
 * What the parts of the trading core share: the durable state (the fold), the venue's view of the
 * account (exposure with its reservations, the held positions), the port, the journal's outbox, and
 * `record`: the one way durable state changes — a record applied to the fold as it is journaled.
 */
import type { Exposure } from "../engine/exposure.js";
import type { PositionBook } from "../engine/positionBook.js";
import type { CoreFold } from "./coreFold.js";
import type { CoreLogger, CoreObserver, CorePort } from "./corePort.js";
import type { JournalOutbox } from "./journalOutbox.js";
import type { JournalRecord } from "./journalRecords.js";

export interface CoreContext {
  /** Replaced whole when a new leader adopts the shared journal (tradingCore.ts `adopt`). */
  fold: CoreFold;
  readonly exposure: Exposure;
  readonly positions: PositionBook;
  readonly port: CorePort;
  readonly outbox: JournalOutbox;
  readonly observer: CoreObserver;
  readonly logger: CoreLogger;
  /** Applied to the durable state now, written to the journal in order (retried if the write fails). */
  record(rec: JournalRecord): void;
}

export function coreContext(o: Omit<CoreContext, "record">): CoreContext {
  const c: CoreContext = {
    ...o,
    record: (rec) => {
      c.fold.add(rec);
      c.outbox.write(rec);
    },
  };
  return c;
}
