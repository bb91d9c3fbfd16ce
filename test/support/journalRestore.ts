/** What the daemon makes of a replay at start-up, as plain values a test can compare. */
import { ClaimedPositions } from "../../src/daemon/claimedPositions.js";
import { unsettledOrders } from "../../src/daemon/leadership.js";
import { restoreFromJournal } from "../../src/daemon/restore.js";
import { Exposure } from "../../src/engine/exposure.js";
import { PositionBook } from "../../src/engine/positionBook.js";
import type { JournalReplay } from "../../src/store/journalReplay.js";

/** Ids never claimed again (markDone or markUnknown), and those left to the open list, both sorted. */
export function restoreIds(replay: JournalReplay): { blocked: number[]; unknown: number[] } {
  const blocked = new Set<number>();
  const unknown: number[] = [];
  restoreFromJournal(replay, {
    markDone: (id) => blocked.add(id),
    markUnknown: (id) => {
      blocked.add(id);
      unknown.push(id);
    },
  });
  return { blocked: [...blocked].sort((a, b) => a - b), unknown: unknown.sort((a, b) => a - b) };
}

export function leadershipUnsettled(replay: JournalReplay): { unsettled: string[]; firstSeq: number } {
  const { unsettled, firstSeq } = unsettledOrders(replay);
  return { unsettled: unsettled.map((o) => o.clientOrderId).sort(), firstSeq };
}

/** The claimed accounting a restart rebuilds from `replay` (read-only: it journals nothing). */
export function restoredClaimed(replay: JournalReplay, positions = new PositionBook(new Exposure())): ClaimedPositions {
  const claimed = new ClaimedPositions({ positions, journal: () => undefined, mayWrite: () => false, changed: () => undefined });
  claimed.fromReplay(replay);
  return claimed;
}
