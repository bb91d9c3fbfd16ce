/**
 * The venue's held positions from three sources arriving out of order: REST snapshots, `position`
 * push deltas and claim answers. Newer venue news wins per symbol; a claim already in a report is
 * not added twice.
 */
import { describe, expect, test } from "vitest";
import { Exposure } from "../../src/engine/exposure.js";
import { PositionBook } from "../../src/engine/positionBook.js";

const ETH = "PERP_ETH_USDC";
const SOL = "PERP_SOL_USDC";

function book() {
  const exposure = new Exposure();
  return { exposure, positions: new PositionBook(exposure) };
}

describe("PositionBook", () => {
  test("a snapshot is the whole account: unlisted symbols go flat, and the book becomes known", () => {
    const { exposure, positions } = book();
    exposure.setHeld(SOL, -3);
    expect(positions.known).toBe(false);
    positions.applySnapshot([{ symbol: ETH, positionQty: 2 }], 1_000);
    expect(positions.known).toBe(true);
    expect(exposure.netQty(ETH)).toBe(2);
    expect(exposure.netQty(SOL)).toBe(0);
  });

  test("a later snapshot reports the symbols it put right; the first one is the start, not a correction", () => {
    const { exposure, positions } = book();
    exposure.setHeld(SOL, -3);
    expect(positions.applySnapshot([{ symbol: ETH, positionQty: 2 }], 1_000)).toEqual([]);
    positions.applyPush([{ symbol: ETH, positionQty: 3 }], 1_100);
    // Closed by hand at the venue, and a fill the pushes never told: both corrected.
    expect(positions.applySnapshot([{ symbol: SOL, positionQty: 1 }], 1_200)).toEqual([
      { symbol: ETH, marginMode: "CROSS", was: 3, now: 0 },
      { symbol: SOL, marginMode: "CROSS", was: 0, now: 1 },
    ]);
    // Agreeing with the book is not a correction, nor is a snapshot older than the book's news.
    expect(positions.applySnapshot([{ symbol: SOL, positionQty: 1 }], 1_300)).toEqual([]);
    positions.applyPush([{ symbol: SOL, positionQty: 2 }], 1_500);
    expect(positions.applySnapshot([{ symbol: SOL, positionQty: 1 }], 1_400)).toEqual([]);
  });

  test("a push is a delta: only the listed symbols change", () => {
    const { exposure, positions } = book();
    positions.applySnapshot(
      [
        { symbol: ETH, positionQty: 2 },
        { symbol: SOL, positionQty: -3 },
      ],
      1_000,
    );
    positions.applyPush([{ symbol: ETH, positionQty: 0 }], 1_100);
    expect(exposure.netQty(ETH)).toBe(0);
    expect(exposure.netQty(SOL)).toBe(-3);
  });

  test("an older report never undoes a newer one, per symbol", () => {
    const { exposure, positions } = book();
    positions.applyPush([{ symbol: ETH, positionQty: 5 }], 2_000);
    // A snapshot requested before the push, answered after it.
    positions.applySnapshot([{ symbol: SOL, positionQty: 1 }], 1_500);
    expect(exposure.netQty(ETH)).toBe(5);
    expect(exposure.netQty(SOL)).toBe(1);
    positions.applyPush([{ symbol: ETH, positionQty: 4 }], 1_900);
    expect(exposure.netQty(ETH)).toBe(5);
  });

  test("a claim already in a report is not added again; a later one is", () => {
    const { exposure, positions } = book();
    positions.applySnapshot([], 1_000);
    exposure.reserve(7, { [ETH]: 1 });
    // The push of the claim (venue time 1,200) beat its HTTP answer.
    positions.applyPush([{ symbol: ETH, positionQty: 1 }], 1_200);
    positions.settleClaim(7, { [ETH]: 1 }, 1_200);
    expect(exposure.netQty(ETH)).toBe(1);
    expect(exposure.hasReservation(7)).toBe(false);
    exposure.reserve(8, { [ETH]: 0.5, [SOL]: -2 });
    positions.settleClaim(8, { [ETH]: 0.5, [SOL]: -2 }, 1_300);
    expect(exposure.netQty(ETH)).toBe(1.5);
    expect(exposure.netQty(SOL)).toBe(-2);
    // A snapshot older than the claim does not undo it; a newer one is the venue's word.
    positions.applySnapshot([{ symbol: ETH, positionQty: 1 }], 1_250);
    expect(exposure.netQty(ETH)).toBe(1.5);
    expect(exposure.netQty(SOL)).toBe(-2);
    positions.applySnapshot([{ symbol: ETH, positionQty: 1.5 }], 1_400);
    expect(exposure.netQty(SOL)).toBe(0);
  });

  test("increments at the same venue millisecond all count; only the last report covers them", () => {
    const { exposure, positions } = book();
    positions.applySnapshot([{ symbol: ETH, positionQty: 3 }], 1_000);
    // One IOC across two book levels: two trades stamped alike; then a claim answered in that ms.
    positions.applyOwnFill(ETH, -1.25, 1_100);
    positions.applyOwnFill(ETH, -1.25, 1_100);
    expect(exposure.netQty(ETH)).toBe(0.5);
    exposure.reserve(9, { [ETH]: 2 });
    positions.settleClaim(9, { [ETH]: 2 }, 1_100);
    expect(exposure.netQty(ETH)).toBe(2.5);
    // An answer that arrives late, older than the fills but newer than the report, is still new.
    exposure.reserve(10, { [ETH]: 1 });
    positions.settleClaim(10, { [ETH]: 1 }, 1_050);
    expect(exposure.netQty(ETH)).toBe(3.5);
    // A report of 1,100 has all of them; a fill stamped 1,100 that arrives after it is in it.
    positions.applyPush([{ symbol: ETH, positionQty: 3.5 }], 1_100);
    positions.applyOwnFill(ETH, -1, 1_100);
    expect(exposure.netQty(ETH)).toBe(3.5);
    // A snapshot older than the newest increment still does not undo it.
    positions.applyOwnFill(ETH, -1, 1_200);
    positions.applySnapshot([{ symbol: ETH, positionQty: 3.5 }], 1_150);
    expect(exposure.netQty(ETH)).toBe(2.5);
  });

  test("a claim in the millisecond of a report leaves it uncertain whether the report has it, until a later report", () => {
    // Two claims of ours applied in one venue ms; the report made after the first arrives after both answers.
    const a = book();
    a.positions.applySnapshot([], 1_000);
    a.exposure.reserve(1, { [ETH]: 0.1 });
    a.positions.settleClaim(1, { [ETH]: 0.1 }, 1_100);
    a.exposure.reserve(2, { [ETH]: 0.6 });
    a.positions.settleClaim(2, { [ETH]: 0.6 }, 1_100);
    a.positions.applyPush([{ symbol: ETH, positionQty: 0.1 }], 1_100);
    expect(a.positions.uncertain(ETH)).toBe(true);
    a.positions.applyPush([{ symbol: ETH, positionQty: 0.7 }], 1_101);
    expect(a.positions.uncertain(ETH)).toBe(false);
    // The report of the first came before the answer of the second.
    const b = book();
    b.positions.applySnapshot([], 1_000);
    b.positions.applyPush([{ symbol: ETH, positionQty: 0.1 }], 1_100);
    b.exposure.reserve(2, { [ETH]: 0.6 });
    b.positions.settleClaim(2, { [ETH]: 0.6 }, 1_100);
    expect(b.positions.uncertain(ETH)).toBe(true);
    b.positions.applySnapshot([{ symbol: ETH, positionQty: 0.7 }], 1_200);
    expect(b.positions.uncertain(ETH)).toBe(false);
    // A report strictly after the claim is no tie.
    const c = book();
    c.positions.applySnapshot([], 1_000);
    c.exposure.reserve(3, { [ETH]: 1 });
    c.positions.settleClaim(3, { [ETH]: 1 }, 1_100);
    c.positions.applyPush([{ symbol: ETH, positionQty: 1 }], 1_150);
    expect(c.positions.uncertain(ETH)).toBe(false);
  });

  test("reports without a venue time apply as they come", () => {
    const { exposure, positions } = book();
    positions.applyPush([{ symbol: ETH, positionQty: 3 }], 5_000);
    positions.applyPush([{ symbol: ETH, positionQty: 2 }], undefined);
    expect(exposure.netQty(ETH)).toBe(2);
  });

  describe("margin modes: a cross and an isolated position of one symbol are two positions", () => {
    test("reports replace each mode apart; exposure counts both at their own size", () => {
      const { exposure, positions } = book();
      const changes: [string, string, number][] = [];
      positions.onChange((symbol, qty, _before, mode) => changes.push([symbol, mode, qty]));
      positions.applySnapshot(
        [
          { symbol: ETH, positionQty: 2, marginMode: "CROSS" },
          { symbol: ETH, positionQty: -2, marginMode: "ISOLATED" },
        ],
        1_000,
      );
      expect(positions.held(ETH, "CROSS")).toBe(2);
      expect(positions.held(ETH, "ISOLATED")).toBe(-2);
      expect(positions.positions()).toEqual([
        { symbol: ETH, mode: "CROSS" },
        { symbol: ETH, mode: "ISOLATED" },
      ]);
      // Not netted to 0: 4 held, at 1,000 a unit.
      expect(exposure.symbolNotional(ETH, { price: () => 1_000 })).toBe(4_000);
      expect(exposure.netQty(ETH)).toBe(0);
      // A push of the isolated one leaves the cross one alone.
      positions.applyPush([{ symbol: ETH, positionQty: -1, marginMode: "ISOLATED" }], 1_100);
      expect(positions.held(ETH, "CROSS")).toBe(2);
      expect(positions.held(ETH, "ISOLATED")).toBe(-1);
      // A fill in one mode at a time newer than that mode's report only.
      positions.applyOwnFill(ETH, -0.5, 1_050, "CROSS");
      positions.applyOwnFill(ETH, 0.5, 1_050, "ISOLATED");
      expect(positions.held(ETH, "CROSS")).toBe(1.5);
      expect(positions.held(ETH, "ISOLATED")).toBe(-1);
      // A snapshot that lists only the cross one: the isolated one is flat; corrections name the mode.
      expect(positions.applySnapshot([{ symbol: ETH, positionQty: 1.5 }], 1_200)).toEqual([
        { symbol: ETH, marginMode: "ISOLATED", was: -1, now: 0 },
      ]);
      expect(changes).toEqual([
        [ETH, "CROSS", 2],
        [ETH, "ISOLATED", -2],
        [ETH, "ISOLATED", -1],
        [ETH, "CROSS", 1.5],
        [ETH, "ISOLATED", 0],
      ]);
    });

    test("an older report of one mode does not undo a newer one of that mode, and does not gate the other", () => {
      const { positions } = book();
      positions.applyPush([{ symbol: ETH, positionQty: 3, marginMode: "ISOLATED" }], 2_000);
      positions.applyPush([{ symbol: ETH, positionQty: 1, marginMode: "CROSS" }], 1_500);
      positions.applyPush([{ symbol: ETH, positionQty: 9, marginMode: "ISOLATED" }], 1_900);
      expect(positions.held(ETH, "CROSS")).toBe(1);
      expect(positions.held(ETH, "ISOLATED")).toBe(3);
    });

    test("a claim's quantity is pending until a report of its symbol at or after it says which mode holds it", () => {
      const { exposure, positions } = book();
      const pendingFor: string[] = [];
      positions.onPending((symbol) => pendingFor.push(symbol));
      positions.applySnapshot([{ symbol: ETH, positionQty: -1 }], 1_000);
      exposure.reserve(5, { [ETH]: 2 });
      positions.settleClaim(5, { [ETH]: 2 }, 1_100);
      expect(pendingFor).toEqual([ETH]);
      expect(exposure.hasReservation(5)).toBe(false);
      // Not in either position (no mode is assumed), but counted: |−1| + |2|, not |−1 + 2|.
      expect(positions.held(ETH, "CROSS")).toBe(-1);
      expect(positions.held(ETH, "ISOLATED")).toBe(0);
      expect(positions.pending(ETH)).toBe(2);
      expect(exposure.symbolNotional(ETH, { price: () => 1_000 })).toBe(3_000);
      // A report older than the claim does not say where it went.
      positions.applyPush([{ symbol: ETH, positionQty: -1 }], 1_050);
      expect(positions.pending(ETH)).toBe(2);
      // The venue's push of the claim: it landed in isolated.
      positions.applyPush([{ symbol: ETH, positionQty: 2, marginMode: "ISOLATED" }], 1_100);
      expect(positions.pending(ETH)).toBe(0);
      expect(positions.held(ETH, "ISOLATED")).toBe(2);
      expect(exposure.netQty(ETH)).toBe(1);
      expect(exposure.symbolNotional(ETH, { price: () => 1_000 })).toBe(3_000);
      // A claim whose push came first is in it already (any mode's report at or after it covers it).
      exposure.reserve(6, { [ETH]: 1 });
      positions.applyPush([{ symbol: ETH, positionQty: 3, marginMode: "ISOLATED" }], 1_300);
      positions.settleClaim(6, { [ETH]: 1 }, 1_300);
      expect(positions.pending(ETH)).toBe(0);
      expect(exposure.netQty(ETH)).toBe(2);
      // A snapshot at or after a pending claim attributes it too.
      positions.settleClaim(7, { [ETH]: -1 }, 1_400);
      expect(positions.pending(ETH)).toBe(-1);
      positions.applySnapshot(
        [
          { symbol: ETH, positionQty: -2 },
          { symbol: ETH, positionQty: 3, marginMode: "ISOLATED" },
        ],
        1_500,
      );
      expect(positions.pending(ETH)).toBe(0);
      expect(positions.held(ETH, "CROSS")).toBe(-2);
    });

    test("a caller that knows the mode (a replay) holds the claim in it at once", () => {
      const { positions } = book();
      positions.applySnapshot([], 1_000);
      positions.settleClaim(1, { [ETH]: 2 }, 1_100, "CROSS");
      expect(positions.held(ETH, "CROSS")).toBe(2);
      expect(positions.pending(ETH)).toBe(0);
    });
  });
});
