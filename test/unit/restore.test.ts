/**
 * Start-up from the journal: every id with an intent is never claimed again; held positions are
 * not rebuilt from it (only the venue knows them).
 */
import { describe, expect, test } from "vitest";
import { restoreFromJournal } from "../../src/daemon/restore.js";
import { type JournalRecord } from "../../src/core/journalRecords.js";
import { parseJournal } from "../../src/store/journalReplay.js";

const ETH = "PERP_ETH_USDC";
const SOL = "PERP_SOL_USDC";

function intent(id: number, at: number, perSymbolQty: Record<string, number>, dryRun = false): JournalRecord {
  return { t: "intent", id, at, ratio: 1, limitPrice: { [ETH]: 4000 }, expectedFee: 10, perSymbolQty, ...(dryRun ? { dryRun } : {}) };
}

function restore(records: JournalRecord[]) {
  const done: number[] = [];
  const unknown: number[] = [];
  const replay = parseJournal(records.map((r) => `${JSON.stringify(r)}\n`).join(""));
  const summary = restoreFromJournal(replay, { markDone: (id) => void done.push(id), markUnknown: (id) => void unknown.push(id) });
  return { done: done.sort((a, b) => a - b), unknown, summary };
}

describe("restoreFromJournal", () => {
  test("every id with an intent is marked done, whatever became of it, except dry-run ones", () => {
    const { done, summary } = restore([
      { t: "venue", at: 1, baseUrl: "https://v", accountId: "a" },
      intent(1, 10, { [ETH]: 1 }),
      { t: "outcome", id: 1, at: 11, result: "accepted", fills: [{ symbol: ETH, qty: 1, price: 3800, fee: 30 }] },
      intent(2, 12, { [ETH]: 2 }),
      { t: "outcome", id: 2, at: 13, result: "rejected", code: -1202 },
      intent(3, 14, { [SOL]: -4 }),
      intent(4, 15, { [ETH]: 1 }, true),
      { t: "outcome", id: 4, at: 16, result: "dry_run" },
      intent(5, 17, { [ETH]: 0.5 }),
      { t: "outcome", id: 5, at: 18, result: "unknown" },
      { t: "outcome", id: 5, at: 19, result: "not_accepted" },
      intent(6, 20, { [ETH]: 0.5 }),
      { t: "outcome", id: 6, at: 21, result: "unknown" },
    ]);
    // 4 was only decided in dry run: nothing was sent, so a (live) restart may claim it.
    // 3 has no recorded open positions (a journal of an earlier version): never claimed again.
    expect(done).toEqual([1, 2, 3, 5, 6]);
    // 3 was killed in flight, 6 is unknown and never settled.
    expect(summary).toEqual({ ids: 5, accepted: 1, unresolved: 2 });
  });

  test("an intent with no outcome that recorded its open positions is an unknown outcome, for the open list to settle", () => {
    const open = [{ symbol: ETH, positionQty: 2, liquidatorFee: 0.008 }];
    const { done, unknown, summary } = restore([
      { ...intent(7, 30, { [ETH]: 2 }), open } as JournalRecord,
      { ...intent(8, 31, { [ETH]: 2 }), open } as JournalRecord,
      { t: "outcome", id: 8, at: 32, result: "accepted" },
    ]);
    expect(unknown).toEqual([7]);
    expect(done).toEqual([8]);
    expect(summary).toEqual({ ids: 2, accepted: 1, unresolved: 1 });
  });

  test("an empty journal restores nothing", () => {
    expect(restore([])).toEqual({ done: [], unknown: [], summary: { ids: 0, accepted: 0, unresolved: 0 } });
  });
});
