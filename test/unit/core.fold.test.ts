/**
 * The core's fold (core/coreFold.ts): what a journal's records make of the durable state, the same
 * for the live core, a restart and a compaction. Each test states one rule as records in, state out;
 * the snapshot tests fold a journal in two halves through a snapshot and compare with one pass.
 */
import { describe, expect, test } from "vitest";
import { CoreFold } from "../../src/core/coreFold.js";
import { type CoreSnapshot, fromSnapshot, toSnapshot } from "../../src/core/coreSnapshot.js";
import type { IntentRecord, JournalRecord, OrderFillRecord, OutcomeRecord } from "../../src/core/journalRecords.js";

const ETH = "PERP_ETH_USDC";
const BTC = "PERP_BTC_USDC";

const intent = (id: number, qty: Record<string, number>, extra: Partial<IntentRecord> = {}): IntentRecord => ({
  t: "intent",
  id,
  at: id * 10,
  ratio: 1,
  limitPrice: Object.fromEntries(Object.keys(qty).map((s) => [s, s === ETH ? 2_000 : 60_000])),
  expectedFee: 1,
  perSymbolQty: qty,
  ...extra,
});
const outcome = (id: number, result: OutcomeRecord["result"], extra: Partial<OutcomeRecord> = {}): OutcomeRecord => ({
  t: "outcome",
  id,
  at: id * 10 + 1,
  result,
  ...extra,
});
const fill = (symbol: string, qty: number, price: number, fee = 0.5) => ({ symbol, qty, price, fee });
/** A report said the claim's quantity of `symbol` is in the cross position. */
const placedCross = (id: number, symbol = ETH): JournalRecord => ({ t: "claim_mode", id, symbol, marginMode: "CROSS", at: id * 10 + 2 });

function fold(records: readonly JournalRecord[]): CoreFold {
  const f = new CoreFold();
  for (const r of records) f.add(r);
  return f;
}

describe("claims", () => {
  test("an applied claim: never claimed again, ours once a report places it, one lot at its fill", () => {
    const f = fold([intent(1, { [ETH]: 2 }), outcome(1, "accepted", { fills: [fill(ETH, 2, 1_990)] })]);
    expect(f.done.has(1)).toBe(true);
    expect(f.claims.size).toBe(0);
    expect(f.holdings.unplaced(ETH)).toBe(2);
    f.add(placedCross(1));
    expect(f.holdings.ours(ETH, "CROSS")).toBe(2);
    expect(f.ledger.held(ETH)).toBe(2);
  });

  test("a lean answer books the request at its limit; the venue's fills correct quantity and price", () => {
    const f = fold([intent(2, { [ETH]: 2 }), outcome(2, "accepted"), placedCross(2)]);
    expect(f.claims.get(2)?.provisional).toEqual([fill(ETH, 2, 2_000, 0)]);
    expect(f.holdings.ours(ETH, "CROSS")).toBe(2);
    expect(f.ledger.held(ETH)).toBe(2);
    expect(f.done.has(2)).toBe(false);
    f.add(outcome(2, "confirmed", { fills: [fill(ETH, 1.5, 1_980)] }));
    expect(f.claims.size).toBe(0);
    expect(f.done.has(2)).toBe(true);
    expect(f.holdings.ours(ETH, "CROSS")).toBe(1.5);
    expect(f.ledger.held(ETH)).toBe(1.5);
    const lots = f.ledger.snapshot().lots.find(([k]) => k === ETH)?.[1];
    expect(lots).toEqual([[2, 1.5, 1_980]]);
  });

  test("given up with nothing seen: never claimed again, nothing booked; a late confirmation books its fills", () => {
    const f = fold([intent(3, { [ETH]: 1 }), outcome(3, "unknown"), outcome(3, "given_up", { fills: [] })]);
    expect(f.done.has(3)).toBe(true);
    expect(f.claims.get(3)?.givenUp).toBe(true);
    expect(f.holdings.unplaced(ETH)).toBe(0);
    f.add(outcome(3, "confirmed", { fills: [fill(ETH, 1, 1_995)] }));
    expect(f.claims.size).toBe(0);
    expect(f.holdings.unplaced(ETH)).toBe(1);
    expect(f.ledger.held(ETH)).toBe(1);
  });

  test("given up with what the positions showed, then the venue says it never applied: unbooked and claimable again", () => {
    const f = fold([intent(4, { [ETH]: 1 }), outcome(4, "unknown"), outcome(4, "given_up", { fills: [fill(ETH, 1, 2_000, 0)] })]);
    expect(f.holdings.unplaced(ETH)).toBe(1);
    expect(f.ledger.held(ETH)).toBe(1);
    f.add(outcome(4, "not_accepted"));
    expect(f.holdings.unplaced(ETH)).toBe(0);
    expect(f.ledger.held(ETH)).toBe(0);
    expect(f.done.has(4)).toBe(false);
    expect(f.claims.size).toBe(0);
  });

  test("a lean answer given up: its booking moves to what the positions showed; a late confirmation still corrects it", () => {
    const f = fold([intent(12, { [ETH]: 2 }), outcome(12, "accepted"), placedCross(12)]);
    expect(f.holdings.ours(ETH, "CROSS")).toBe(2);
    f.add(outcome(12, "given_up", { fills: [fill(ETH, 1.5, 2_000, 0)] }));
    expect(f.holdings.ours(ETH, "CROSS")).toBe(1.5);
    expect(f.ledger.held(ETH)).toBe(1.5);
    expect(f.done.has(12)).toBe(true);
    f.add(outcome(12, "confirmed", { fills: [fill(ETH, 1, 1_990)] }));
    expect(f.claims.size).toBe(0);
    expect(f.holdings.ours(ETH, "CROSS")).toBe(1);
    expect(f.ledger.held(ETH)).toBe(1);
  });

  test("refusals: a re-decidable code leaves the id claimable; a spent budget (final) or a gone id does not", () => {
    const f = fold([
      intent(5, { [ETH]: 1 }),
      outcome(5, "rejected", { code: -1203 }),
      intent(6, { [ETH]: 1 }),
      outcome(6, "rejected", { code: -1203, final: true }),
      intent(7, { [ETH]: 1 }),
      outcome(7, "rejected", { code: -1202 }),
      intent(8, { [ETH]: 1 }),
      outcome(8, "not_accepted"),
    ]);
    expect([5, 6, 7, 8].map((id) => f.done.has(id))).toEqual([false, true, true, false]);
    expect(f.claims.size).toBe(0);
    expect(f.holdings.unplaced(ETH)).toBe(0);
  });

  test("a dry-run decision changes nothing; an outcome of an id settled before counts once", () => {
    const f = fold([
      intent(9, { [ETH]: 1 }, { dryRun: true }),
      outcome(9, "dry_run"),
      intent(10, { [ETH]: 1 }),
      outcome(10, "accepted", { fills: [fill(ETH, 1, 2_000)] }),
      outcome(10, "confirmed", { fills: [fill(ETH, 1, 2_000)] }),
    ]);
    expect(f.done.has(9)).toBe(false);
    expect(f.holdings.unplaced(ETH)).toBe(1);
    expect(f.ledger.totals().liquidatorFee).toBeCloseTo(0.5, 9);
  });

  test("an unknown claim stays open (blocked, unbooked) until something settles it", () => {
    const f = fold([intent(11, { [ETH]: 1, [BTC]: 0.1 }), outcome(11, "unknown")]);
    expect(f.claims.get(11)?.provisional).toBeUndefined();
    expect(f.done.has(11)).toBe(false);
    expect(f.holdings.positions()).toEqual([]);
  });
});

describe("own orders", () => {
  const order = (cid: string, seq: number, side: "BUY" | "SELL", qty: number): JournalRecord => ({
    t: "order_intent",
    clientOrderId: cid,
    at: 100 + seq,
    symbol: ETH,
    side,
    orderType: "IOC",
    price: 1_990,
    quantity: qty,
    reduceOnly: true,
    marginMode: "CROSS",
    mark: 2_000,
    seq,
  });
  const trade = (cid: string, qty: number, price: number): OrderFillRecord => ({
    t: "order_fill",
    clientOrderId: cid,
    symbol: ETH,
    qty,
    price,
    fee: 0.1,
    tradeId: `${cid}-t`,
    at: 200,
    venueTs: 200,
  });

  test("a fill beyond what is ours closes ours and opens no lot; the order ends with its outcome", () => {
    const f = fold([
      intent(1, { [ETH]: 1 }),
      outcome(1, "accepted", { fills: [fill(ETH, 1, 1_990)] }),
      placedCross(1),
      order("o-1", 1, "SELL", 1.5),
      trade("o-1", -1.5, 2_010),
    ]);
    expect(f.holdings.ours(ETH, "CROSS")).toBe(0);
    expect(f.ledger.held(ETH)).toBe(0);
    expect(f.orders.get("o-1")?.fills).toHaveLength(1);
    expect(f.ledger.totals().trading).toBeCloseTo(20, 9);
    f.add({ t: "order_outcome", clientOrderId: "o-1", at: 201, result: "filled" });
    expect(f.orders.size).toBe(0);
    expect(f.orderSeq).toBe(1);
  });

  test("an `ours` record sets the position outright and closes the lots it drops at its price", () => {
    const f = fold([
      intent(1, { [ETH]: 2 }),
      outcome(1, "accepted", { fills: [fill(ETH, 2, 2_000)] }),
      placedCross(1),
      { t: "ours", symbol: ETH, marginMode: "CROSS", qty: 0.5, was: 2, price: 2_100, reason: "closed_elsewhere", at: 300 },
    ]);
    expect(f.holdings.ours(ETH, "CROSS")).toBe(0.5);
    expect(f.ledger.held(ETH)).toBe(0.5);
  });
});

/** Every kind of state at once: settled, lean, unknown, given up, an open order, a mode said early. */
const journal: JournalRecord[] = [
  { t: "venue", at: 1, baseUrl: "http://venue", accountId: "acc", version: 3 },
  intent(1, { [ETH]: 2 }),
  outcome(1, "accepted", { fills: [fill(ETH, 2, 1_990)] }),
  placedCross(1),
  intent(2, { [BTC]: 0.1 }),
  outcome(2, "accepted"),
  intent(3, { [ETH]: 1 }, { open: [{ symbol: ETH, positionQty: 3, liquidatorFee: 0.02 }] }),
  outcome(3, "unknown"),
  intent(4, { [ETH]: 1 }),
  outcome(4, "unknown"),
  outcome(4, "given_up", { fills: [fill(ETH, 1, 2_000, 0)] }),
  {
    t: "order_intent",
    clientOrderId: "o-1",
    at: 60,
    symbol: ETH,
    side: "SELL",
    orderType: "IOC",
    price: 1_980,
    quantity: 1,
    reduceOnly: true,
    marginMode: "CROSS",
    mark: 2_000,
    seq: 1,
  },
  { t: "order_outcome", clientOrderId: "o-1", at: 61, result: "accepted" },
  { t: "order_fill", clientOrderId: "o-1", symbol: ETH, qty: -0.4, price: 1_985, fee: 0.1, tradeId: "x", at: 62, venueTs: 62 },
  { t: "claim_mode", id: 2, symbol: BTC, marginMode: "ISOLATED", at: 63 },
  // Settling what the first part left open.
  outcome(2, "confirmed", { fills: [fill(BTC, 0.08, 59_000)] }),
  outcome(3, "not_accepted"),
  outcome(4, "confirmed", { fills: [fill(ETH, 1, 1_999)] }),
  { t: "order_fill", clientOrderId: "o-1", symbol: ETH, qty: -0.6, price: 1_984, fee: 0.1, tradeId: "y", at: 70, venueTs: 70 },
  { t: "order_outcome", clientOrderId: "o-1", at: 71, result: "filled" },
];

/** A fold's state as plain JSON (its snapshot without the time it was taken). */
const state = (f: CoreFold) => JSON.parse(JSON.stringify({ ...toSnapshot(f, 0), through: 0 }));

describe("snapshots", () => {
  test("folding through a snapshot at any record gives the state of one pass", () => {
    const whole = fold(journal);
    for (let cut = 0; cut <= journal.length; cut++) {
      const first = fold(journal.slice(0, cut));
      const resumed = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(first, 0))) as CoreSnapshot);
      for (const r of journal.slice(cut)) resumed.add(r);
      expect(state(resumed), `cut at ${cut}`).toEqual(state(whole));
    }
    expect(whole.holdings.ours(BTC, "ISOLATED")).toBeCloseTo(0.08, 12);
    expect(whole.holdings.ours(ETH, "CROSS")).toBe(1);
    expect(whole.holdings.unplaced(ETH)).toBe(1);
    expect(whole.claims.size).toBe(0);
    expect(whole.done.values()).toEqual([1, 2, 4]);
  });

  test("a format-2 snapshot: open records folded now, claimed totals become ours, lots no claim opened dropped", () => {
    const v2: CoreSnapshot = {
      t: "snapshot",
      version: 2,
      at: 0,
      through: 0,
      done: [1],
      orderSeq: 4,
      ledger: {
        lots: [
          [
            ETH,
            [
              [1, 1.5, 1_990],
              [null, 0.7, 2_050],
            ],
          ],
        ],
        claims: [{ claimId: 1, day: "1970-01-01", symbols: [ETH], liquidatorFee: 0.5, trading: 0, fees: 0, open: [[ETH, 1.5]] }],
        unattributed: { liquidatorFee: 0, trading: 0, fees: 0, net: 0 },
        folded: { liquidatorFee: 0, trading: 0, fees: 0, net: 0 },
        byDay: [],
        bySymbol: [],
      },
      open: [intent(3, { [ETH]: 1 }), outcome(3, "unknown")],
      claimed: {
        totals: [[`${ETH} CROSS`, { claimed: 2, unwound: -0.5, baseClaimed: 0, baseUnwound: 0 }]],
        unplaced: [],
        modes: [],
        orders: [],
      },
    };
    const f = fromSnapshot(JSON.parse(JSON.stringify(v2)) as CoreSnapshot);
    expect(f.holdings.ours(ETH, "CROSS")).toBe(1.5);
    expect(f.ledger.held(ETH)).toBe(1.5);
    expect(f.claims.has(3)).toBe(true);
    expect(f.done.values()).toEqual([1]);
    expect(f.orderSeq).toBe(4);
    expect(f.records).toBe(0);
  });
});
