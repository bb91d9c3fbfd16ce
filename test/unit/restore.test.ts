/**
 * Start-up from the journal: every id with an intent is never claimed again, and exposure is
 * rebuilt from the venue's last position snapshot plus what was accepted after it plus what may
 * have been (unresolved intents), never from the whole history of fills.
 */
import { describe, expect, test } from "vitest";
import { type JournalRecord, parseJournal } from "../../src/daemon/journal.js";
import { restoreFromJournal, SNAPSHOT_COVERS_AFTER_MS } from "../../src/daemon/restore.js";
import { Exposure } from "../../src/engine/exposure.js";

const ETH = "PERP_ETH_USDC";
const SOL = "PERP_SOL_USDC";

function intent(id: number, at: number, perSymbolQty: Record<string, number>, dryRun = false): JournalRecord {
  return { t: "intent", id, at, ratio: 1, limitPrice: { [ETH]: 4000 }, expectedFee: 10, perSymbolQty, ...(dryRun ? { dryRun } : {}) };
}

function replayOf(records: JournalRecord[]) {
  return parseJournal(records.map((r) => `${JSON.stringify(r)}\n`).join(""));
}

function restore(records: JournalRecord[]) {
  const done: number[] = [];
  const exposure = new Exposure();
  const summary = restoreFromJournal(replayOf(records), { markDone: (id) => void done.push(id) }, exposure);
  return { done: done.sort((a, b) => a - b), exposure, summary };
}

describe("restoreFromJournal without a position snapshot", () => {
  test("every id with an intent is marked done, whatever became of it, except dry-run ones", () => {
    const { done, summary } = restore([
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
    ]);
    // 4 was only decided in dry run: nothing was sent, so a (live) restart may claim it.
    expect(done).toEqual([1, 2, 3, 5]);
    expect(summary).toEqual({ ids: 5, accepted: 1, unresolved: 1, fromSnapshot: false });
  });

  test("exposure = accepted and confirmed fills + unresolved intents (no outcome, or unknown)", () => {
    const { exposure } = restore([
      intent(1, 10, { [ETH]: 1 }),
      { t: "outcome", id: 1, at: 11, result: "accepted", fills: [{ symbol: ETH, qty: 0.9, price: 3800, fee: 30 }] },
      intent(2, 12, { [ETH]: 2 }),
      { t: "outcome", id: 2, at: 13, result: "rejected", code: -1203 },
      intent(3, 14, { [SOL]: -4 }), // killed in flight: may be ours
      intent(4, 15, { [ETH]: 0.25, [SOL]: -1 }),
      { t: "outcome", id: 4, at: 16, result: "unknown" }, // never closed: may be ours
      intent(5, 17, { [ETH]: 0.5 }),
      { t: "outcome", id: 5, at: 18, result: "unknown" },
      { t: "outcome", id: 5, at: 19, result: "confirmed", fills: [{ symbol: ETH, qty: 0.5, price: 3800, fee: 15 }] },
      intent(6, 20, { [ETH]: 7 }, true), // dry run: never sent
      intent(7, 21, { [ETH]: 3 }),
      { t: "outcome", id: 7, at: 22, result: "unknown" },
      { t: "outcome", id: 7, at: 23, result: "not_accepted" },
    ]);
    expect(exposure.heldQty(ETH)).toBeCloseTo(0.9 + 0.25 + 0.5, 12);
    expect(exposure.heldQty(SOL)).toBeCloseTo(-4 - 1, 12);
  });

  test("an empty journal restores nothing", () => {
    const { done, exposure, summary } = restore([]);
    expect(done).toEqual([]);
    expect(exposure.symbols()).toEqual([]);
    expect(summary).toEqual({ ids: 0, accepted: 0, unresolved: 0, fromSnapshot: false });
  });
});

describe("restoreFromJournal from the last position snapshot", () => {
  const T0 = 1_000_000;

  test("positions closed since are not restored: the last snapshot wins over old fills", () => {
    const { exposure, summary } = restore([
      intent(1, T0, { [ETH]: 1 }),
      { t: "outcome", id: 1, at: T0 + 1, result: "accepted", venueTs: 500, fills: [{ symbol: ETH, qty: 1, price: 3800, fee: 30 }] },
      { t: "positions", at: T0 + 2, venueTs: 501, held: { [ETH]: 1 } },
      { t: "positions", at: T0 + 60_000, venueTs: 60_500, held: {} }, // the account unwound
    ]);
    expect(exposure.heldQty(ETH)).toBe(0);
    expect(summary.fromSnapshot).toBe(true);
  });

  test("fills applied at or before the snapshot's venue time are in it; later ones are added", () => {
    const { exposure } = restore([
      intent(1, T0, { [ETH]: 1 }),
      // The push (venue time 600) beat the answer: journaled first, yet it holds this fill.
      { t: "positions", at: T0 + 1, venueTs: 600, held: { [ETH]: 1 } },
      { t: "outcome", id: 1, at: T0 + 2, result: "accepted", venueTs: 600, fills: [{ symbol: ETH, qty: 1, price: 3800, fee: 30 }] },
      intent(2, T0 + 3, { [SOL]: -2 }),
      { t: "outcome", id: 2, at: T0 + 4, result: "accepted", venueTs: 700, fills: [{ symbol: SOL, qty: -2, price: 180, fee: 3 }] },
      // An outcome from an older journal version, without venue time: counted, conservatively.
      intent(3, T0 + 5, { [ETH]: 0.1 }),
      { t: "outcome", id: 3, at: T0 + 6, result: "accepted", fills: [{ symbol: ETH, qty: 0.1, price: 3800, fee: 3 }] },
    ]);
    expect(exposure.heldQty(ETH)).toBeCloseTo(1.1, 12);
    expect(exposure.heldQty(SOL)).toBe(-2);
  });

  test("an unresolved intent long before the snapshot is in it; a recent one still counts", () => {
    const snapAt = T0 + SNAPSHOT_COVERS_AFTER_MS + 10_000;
    const { exposure, summary } = restore([
      intent(1, T0, { [ETH]: 5 }), // killed in flight long ago
      intent(2, snapAt - 1_000, { [SOL]: -3 }), // killed in flight just before the last snapshot
      { t: "positions", at: snapAt, venueTs: 9_000, held: { [ETH]: 2 } },
    ]);
    expect(exposure.heldQty(ETH)).toBe(2);
    expect(exposure.heldQty(SOL)).toBe(-3);
    expect(summary.unresolved).toBe(1);
  });
});
