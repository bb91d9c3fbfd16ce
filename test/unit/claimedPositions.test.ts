/**
 * The claimed accounting of `unwind.scope: claimed` (daemon/claimedPositions.ts) on a real position
 * book: at most what claims assigned is closed, never more than the position, never past zero,
 * never the other side; the margin mode comes from the venue's report; a replay of what was
 * journaled gives the same.
 */
import { describe, expect, test } from "vitest";
import { ClaimedPositions } from "../../src/daemon/claimedPositions.js";
import { Exposure } from "../../src/engine/exposure.js";
import { PositionBook } from "../../src/engine/positionBook.js";
import { type JournalRecord } from "../../src/core/journalRecords.js";
import { emptyReplay, replayRecord } from "../../src/store/journalReplay.js";

const ETH = "PERP_ETH_USDC";

function rig() {
  const positions = new PositionBook(new Exposure());
  const journal: JournalRecord[] = [];
  const claimed = new ClaimedPositions({
    positions,
    journal: (r) => journal.push(r),
    mayWrite: () => true,
    changed: () => undefined,
    now: () => 1,
  });
  let ts = 1_000;
  const snapshot = (cross: number, isolated = 0) =>
    positions.applySnapshot(
      [
        { symbol: ETH, positionQty: cross, marginMode: "CROSS" },
        ...(isolated !== 0 ? [{ symbol: ETH, positionQty: isolated, marginMode: "ISOLATED" as const }] : []),
      ],
      ts++,
    );
  /** A claim answered now, then the venue's push of the position it changed. */
  const claim = (id: number, qty: number, landedIn: "CROSS" | "ISOLATED" = "CROSS") => {
    const at = ts++;
    positions.settleClaim(id, { [ETH]: qty }, at);
    claimed.claim(id, [{ symbol: ETH, qty, price: 100, fee: 0 }]);
    journal.push({ t: "outcome", id, at, result: "accepted", fills: [{ symbol: ETH, qty, price: 100, fee: 0 }] });
    positions.applyPush([{ symbol: ETH, positionQty: positions.held(ETH, landedIn) + qty, marginMode: landedIn }], ts++);
  };
  let seq = 0;
  /** An unwind order of `qty` (signed) traded in `mode`: its intent and fill journaled, the fill applied. */
  const unwind = (qty: number, mode: "CROSS" | "ISOLATED" = "CROSS", venueTs = ts++) => {
    const clientOrderId = `o-${++seq}`;
    const intent: JournalRecord = {
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
    };
    journal.push(intent);
    claimed.orderIntent(clientOrderId, mode);
    const fill = {
      t: "order_fill" as const,
      clientOrderId,
      symbol: ETH,
      qty,
      price: 100,
      fee: 0,
      tradeId: String(seq),
      at: 1,
      venueTs: ts,
    };
    journal.push(fill);
    claimed.fill(fill);
    positions.applyOwnFill(ETH, qty, venueTs, mode);
  };
  const target = (mode: "CROSS" | "ISOLATED" = "CROSS") => claimed.target(ETH, mode, positions.held(ETH, mode));
  return { positions, claimed, journal, snapshot, claim, unwind, target, now: () => ts++ };
}

describe("claimed positions", () => {
  test("the operator's position is left: only the claim is closed, never past it", () => {
    const r = rig();
    r.snapshot(2); // the operator's own long
    expect(r.target()).toBe(0);
    expect(r.claimed.unexplainedPositions()).toEqual([{ symbol: ETH, marginMode: "CROSS", qty: 2 }]);
    r.claim(1, 0.5);
    expect(r.positions.held(ETH)).toBe(2.5);
    expect(r.target()).toBe(0.5);
    r.unwind(-0.3);
    expect(r.target()).toBeCloseTo(0.2, 9);
    r.unwind(-0.2);
    expect(r.target()).toBe(0);
    expect(r.positions.held(ETH)).toBe(2);
    expect(r.claimed.unexplainedPositions()).toEqual([{ symbol: ETH, marginMode: "CROSS", qty: 2 }]);
  });

  test("never more than the position: the operator closed part of the claim by hand; then flat settles it", () => {
    const r = rig();
    r.snapshot(0);
    r.claim(1, 1);
    r.snapshot(0.4); // sold 0.6 by hand
    expect(r.target()).toBe(0.4);
    r.unwind(-0.4);
    expect(r.positions.held(ETH)).toBe(0);
    // The rest of what was owed is gone with the position: a new long of the operator's is not touched.
    r.snapshot(3);
    expect(r.target()).toBe(0);
  });

  test("the other side: a claim netted with the operator's opposite position is not unwound (no flip)", () => {
    const r = rig();
    r.snapshot(2);
    r.claim(1, -0.5); // a short claim on the operator's long: net 1.5 long
    expect(r.positions.held(ETH)).toBe(1.5);
    expect(r.target()).toBe(0);
    // Settled: a later short of the operator's is not bought back for it.
    r.snapshot(-1);
    expect(r.target()).toBe(0);
    expect(r.journal.some((x) => x.t === "claimed_base")).toBe(true);
  });

  test("a fill past what is owed (a report beat it) never carries owed past zero", () => {
    const r = rig();
    r.snapshot(0);
    r.claim(1, 1);
    const tradedAt = r.now();
    r.snapshot(0); // the venue reports flat (the trade in it) before the fill is processed
    r.unwind(-1, "CROSS", tradedAt);
    expect(r.positions.held(ETH)).toBe(0);
    r.claim(2, 0.5);
    expect(r.target()).toBe(0.5); // not 0.5 − 1
  });

  test("the claim's margin mode is the one the venue's report moved", () => {
    const r = rig();
    r.snapshot(1); // the operator's cross long
    r.claim(1, 0.7, "ISOLATED");
    expect(r.target("ISOLATED")).toBe(0.7);
    expect(r.target("CROSS")).toBe(0);
    expect(r.journal.filter((x) => x.t === "claim_mode")).toEqual([{ t: "claim_mode", id: 1, symbol: ETH, marginMode: "ISOLATED", at: 1 }]);
  });

  test("a replay of the journal gives the same accounting", () => {
    const r = rig();
    r.snapshot(2);
    r.claim(1, 1, "ISOLATED");
    r.unwind(-0.4, "ISOLATED");
    r.claim(2, 0.5);
    r.claim(3, -0.2); // the other side of cross: settles it
    const replay = emptyReplay();
    for (const rec of r.journal) replayRecord(replay, rec);
    const again = rig();
    again.claimed.fromReplay(replay);
    for (const mode of ["CROSS", "ISOLATED"] as const) expect(again.claimed.owed(ETH, mode)).toBe(r.claimed.owed(ETH, mode));
    expect(again.claimed.owed(ETH, "ISOLATED")).toBeCloseTo(0.6, 9);
  });

  test("a lean answer counts the requested quantity until the push's fills correct it; a replay does the same", () => {
    const r = rig();
    r.snapshot(3); // the operator's cross long
    const at = r.now();
    // Requested 2, the venue (someone claimed part first) transferred 1.5: its push says so later.
    r.positions.settleClaim(7, {}, at);
    r.claimed.claimRequested(7, { [ETH]: 2 });
    r.journal.push({ t: "intent", id: 7, at, ratio: 1, limitPrice: { [ETH]: 100 }, expectedFee: 1, perSymbolQty: { [ETH]: 2 } });
    r.journal.push({ t: "outcome", id: 7, at, result: "accepted" });
    r.positions.applyPush([{ symbol: ETH, positionQty: 4.5, marginMode: "CROSS" }], r.now());
    expect(r.claimed.owed(ETH, "CROSS")).toBe(2); // the upper bound while no push said more
    expect(r.target()).toBe(2);
    // Without the push, a restart counts the same requested quantity.
    const before = emptyReplay();
    for (const rec of r.journal) replayRecord(before, rec);
    const restarted = rig();
    restarted.claimed.fromReplay(before);
    expect(restarted.claimed.owed(ETH, "CROSS")).toBe(2);
    // The push's fills: what the claim really transferred, never the operator's 3.
    r.claimed.claim(7, [{ symbol: ETH, qty: 1.5, price: 100, fee: 0 }]);
    expect(r.claimed.owed(ETH, "CROSS")).toBeCloseTo(1.5, 9);
    expect(r.target()).toBeCloseTo(1.5, 9);
    r.claimed.claim(7, [{ symbol: ETH, qty: 1.5, price: 100, fee: 0 }]); // a second push adds nothing
    expect(r.claimed.owed(ETH, "CROSS")).toBeCloseTo(1.5, 9);
  });
});
