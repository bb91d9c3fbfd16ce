/**
 * What is ours (core/holdings.ts) beside what the venue reports (core/accountWatch.ts), on a real
 * position book: at most what claims assigned is closed, never more than the position, never past
 * zero, never the other side; the margin mode comes from the venue's report; a report that
 * overtakes our own fill never erases a newer claim; a fold of what was journaled gives the same.
 */
import { describe, expect, test } from "vitest";
import { CoreFold } from "../../src/core/coreFold.js";
import type { JournalRecord } from "../../src/core/journalRecords.js";
import { Exposure } from "../../src/engine/exposure.js";
import { PositionBook } from "../../src/engine/positionBook.js";
import { coreOver } from "../support/journalRestore.js";

const ETH = "PERP_ETH_USDC";
type Mode = "CROSS" | "ISOLATED";

function rig() {
  const positions = new PositionBook(new Exposure());
  const journal: JournalRecord[] = [];
  /** An order of ours working on a position (the unwinder's, between its intent and its end). */
  const working = new Set<string>();
  const core = coreOver(new CoreFold(), positions, {
    append: (r) => journal.push(r),
    orderWorking: (symbol, mode) => working.has(`${symbol} ${mode}`),
  });
  /** A record applied to the core's state as it is journaled (what the core's `record` does). */
  const record = (r: JournalRecord) => {
    core.fold.add(r);
    journal.push(r);
  };
  let ts = 1_000;
  const snapshot = (cross: number, isolated = 0) =>
    core.positionsSnapshot(
      [
        { symbol: ETH, positionQty: cross, marginMode: "CROSS" },
        ...(isolated !== 0 ? [{ symbol: ETH, positionQty: isolated, marginMode: "ISOLATED" as const }] : []),
      ],
      ts++,
    );
  const intent = (id: number, qty: number) =>
    record({ t: "intent", id, at: ts, ratio: 1, limitPrice: { [ETH]: 100 }, expectedFee: 1, perSymbolQty: { [ETH]: qty } });
  /** A claim answered now, then the venue's push of the position it changed. */
  const claim = (id: number, qty: number, landedIn: Mode = "CROSS") => {
    const at = ts++;
    intent(id, qty);
    positions.settleClaim(id, { [ETH]: qty }, at);
    record({ t: "outcome", id, at, result: "accepted", fills: [{ symbol: ETH, qty, price: 100, fee: 0 }] });
    core.positionsPush([{ symbol: ETH, positionQty: positions.held(ETH, landedIn) + qty, marginMode: landedIn }], ts++);
  };
  let seq = 0;
  /** An unwind order of `qty` (signed) in `mode`: its intent journaled, the order working until `fill`. */
  const order = (qty: number, mode: Mode = "CROSS") => {
    const clientOrderId = `o-${++seq}`;
    record({
      t: "order_intent",
      clientOrderId,
      at: 1,
      symbol: ETH,
      side: qty > 0 ? "BUY" : "SELL",
      orderType: "IOC",
      price: 100,
      quantity: Math.abs(qty),
      reduceOnly: true,
      marginMode: mode,
    });
    working.add(`${ETH} ${mode}`);
    return {
      /** Its trade, as recorded (at venue time `venueTs`), then its end. */
      fill: (venueTs = ts++) => {
        record({ t: "order_fill", clientOrderId, symbol: ETH, qty, price: 100, fee: 0, tradeId: String(seq), at: 1, venueTs });
        positions.applyOwnFill(ETH, qty, venueTs, mode);
        working.delete(`${ETH} ${mode}`);
        record({ t: "order_outcome", clientOrderId, at: 1, result: "filled", filledQty: qty });
      },
    };
  };
  const unwind = (qty: number, mode: Mode = "CROSS") => order(qty, mode).fill();
  const target = (mode: Mode = "CROSS") => core.account.target(ETH, mode, positions.held(ETH, mode));
  const ours = (mode: Mode = "CROSS") => core.fold.holdings.ours(ETH, mode);
  return { positions, core, journal, record, snapshot, intent, claim, order, unwind, target, ours, now: () => ts++ };
}

describe("what is ours beside what the venue reports", () => {
  test("the operator's position is left: only the claim is closed, never past it", () => {
    const r = rig();
    r.snapshot(2); // the operator's own long
    expect(r.target()).toBe(0);
    expect(r.core.account.unexplained()).toEqual([{ symbol: ETH, marginMode: "CROSS", qty: 2 }]);
    r.claim(1, 0.5);
    expect(r.positions.held(ETH)).toBe(2.5);
    expect(r.target()).toBe(0.5);
    r.unwind(-0.3);
    expect(r.target()).toBeCloseTo(0.2, 9);
    r.unwind(-0.2);
    expect(r.target()).toBe(0);
    expect(r.positions.held(ETH)).toBe(2);
    expect(r.core.account.unexplained()).toEqual([{ symbol: ETH, marginMode: "CROSS", qty: 2 }]);
  });

  test("closed in part by hand while nothing of ours moves: what is ours follows the venue, journaled once", () => {
    const r = rig();
    r.snapshot(0);
    r.claim(1, 1);
    r.snapshot(0.4); // sold 0.6 by hand
    expect(r.ours()).toBe(0.4);
    expect(r.journal.filter((x) => x.t === "ours")).toEqual([
      { t: "ours", symbol: ETH, marginMode: "CROSS", qty: 0.4, was: 1, price: 0, reason: "closed_elsewhere", at: 0 },
    ]);
    expect(r.target()).toBe(0.4);
    r.unwind(-0.4);
    expect(r.positions.held(ETH)).toBe(0);
    // A new long of the operator's is not touched.
    r.snapshot(3);
    expect(r.target()).toBe(0);
    // The P&L's lots are what is ours: none left.
    expect(r.core.fold.ledger.held(ETH)).toBeCloseTo(0, 9);
  });

  test("a report that overtakes our own fill never erases a newer claim (issue #33 item 3)", () => {
    const r = rig();
    r.snapshot(0);
    r.claim(1, 1);
    const sell = r.order(-1); // the unwind's trade happens at the venue...
    const tradedAt = r.now();
    r.snapshot(0); // ...whose report says flat before the trade's record arrives: the order is working
    expect(r.ours()).toBe(1);
    expect(r.journal.some((x) => x.t === "ours")).toBe(false);
    r.claim(2, 0.5); // a newer claim lands meanwhile
    sell.fill(tradedAt); // the trade's record at last
    expect(r.ours()).toBeCloseTo(0.5, 9);
    expect(r.target()).toBeCloseTo(0.5, 9);
  });

  test("the other side: a claim netted into the operator's opposite position is not unwound (no flip)", () => {
    const r = rig();
    r.snapshot(2);
    r.claim(1, -0.5); // a short claim on the operator's long: net 1.5 long
    expect(r.positions.held(ETH)).toBe(1.5);
    expect(r.target()).toBe(0);
    // Netted away, journaled: a later short of the operator's is not bought back for it.
    expect(r.ours()).toBe(0);
    r.snapshot(-1);
    expect(r.target()).toBe(0);
    expect(r.journal.some((x) => x.t === "ours")).toBe(true);
  });

  test("the claim's margin mode is the one the venue's report moved", () => {
    const r = rig();
    r.snapshot(1); // the operator's cross long
    r.claim(1, 0.7, "ISOLATED");
    expect(r.target("ISOLATED")).toBe(0.7);
    expect(r.target("CROSS")).toBe(0);
    expect(r.journal.filter((x) => x.t === "claim_mode").map((x) => (x.t === "claim_mode" ? [x.id, x.marginMode] : []))).toEqual([
      [1, "ISOLATED"],
    ]);
  });

  test("a fold of the journal gives the same state", () => {
    const r = rig();
    r.snapshot(2);
    r.claim(1, 1, "ISOLATED");
    r.unwind(-0.4, "ISOLATED");
    r.claim(2, 0.5);
    r.claim(3, -0.2); // the other side of cross
    const again = new CoreFold();
    for (const rec of r.journal) again.add(rec);
    for (const mode of ["CROSS", "ISOLATED"] as const) expect(again.holdings.ours(ETH, mode)).toBe(r.ours(mode));
    expect(again.holdings.ours(ETH, "ISOLATED")).toBeCloseTo(0.6, 9);
    expect(again.ledger.totals()).toEqual(r.core.fold.ledger.totals());
    expect(again.done.values()).toEqual([1, 2, 3]);
  });

  test("a lean answer is booked at its request, and closed only once the push's fills correct it; a fold does the same", () => {
    const r = rig();
    r.snapshot(3); // the operator's cross long
    // Requested 2, the venue (someone claimed part first) transferred 1.5: its push says so later.
    r.intent(7, 2);
    r.positions.settleClaim(7, { [ETH]: 2 }, r.now());
    r.record({ t: "outcome", id: 7, at: 1, result: "accepted" });
    r.core.positionsPush([{ symbol: ETH, positionQty: 4.5, marginMode: "CROSS" }], r.now());
    expect(r.ours()).toBe(2); // the upper bound while no push said more
    // Not closed before the venue says: closing 2 would sell 0.5 of the operator's 3.
    expect(r.target()).toBe(0);
    // Without the push, a restart books the same request.
    const before = new CoreFold();
    for (const rec of r.journal) before.add(rec);
    expect(before.holdings.ours(ETH, "CROSS")).toBe(2);
    // The push's fills: what the claim really transferred, never the operator's 3.
    r.record({ t: "outcome", id: 7, at: 2, result: "confirmed", fills: [{ symbol: ETH, qty: 1.5, price: 99, fee: 0.3 }] });
    expect(r.ours()).toBeCloseTo(1.5, 9);
    expect(r.target()).toBeCloseTo(1.5, 9);
    expect(r.core.fold.ledger.held(ETH)).toBeCloseTo(1.5, 9);
    r.record({ t: "outcome", id: 7, at: 3, result: "confirmed", fills: [{ symbol: ETH, qty: 1.5, price: 99, fee: 0.3 }] }); // a second push adds nothing
    expect(r.ours()).toBeCloseTo(1.5, 9);
    expect(r.core.fold.ledger.totals().liquidatorFee).toBeCloseTo(0.3, 9);
  });
});
