/**
 * The simulated venue's matching and its faults (docs/protocol.md §6), driven through the order
 * engine on a book of known levels: POST_ONLY, reduce-only cuts (IOC and FOK), slippage growing with
 * size, MARKET's `slippage`, a resting LIMIT filled as maker, the executionreport sequence of one
 * order, margin (-1101), the four order faults, and the accounting of a claim and its unwind worked
 * by hand.
 */
import { describe, expect, test } from "vitest";
import type { SimPush } from "../../src/sim/simPush.js";
import type { BookSpec } from "../../src/sim/symbols.js";
import { DEFAULT_SYMBOLS } from "../../src/sim/symbols.js";
import { VenueCore } from "../../src/sim/venueCore.js";

const ETH = "PERP_ETH_USDC";
const BTC = "PERP_BTC_USDC";
const LIQ = "0xliq";
/** At mark 2,000: one unit per level; asks 2,001 / 2,003 / 2,005, bids 1,999 / 1,997 / 1,995. */
const THIN: BookSpec = { spreadBps: 10, levels: 3, stepBps: 10, levelNotional: 2_000, refillPerSec: 0 };

function venue(book: BookSpec = THIN, collateral = 1e6) {
  const clock = { t: 1_760_000_000_000 };
  const symbols = DEFAULT_SYMBOLS.map((s) => (s.symbol === ETH ? { ...s, book } : s));
  const core = new VenueCore({ seed: 9, now: () => clock.t, orderCounts: [1], symbols });
  core.accounts.add({ accountId: LIQ, admin: true, collateral });
  core.setMark(ETH, 2_000);
  const pushes: SimPush[] = [];
  core.onPush((p) => pushes.push(p));
  return { core, clock, pushes };
}

async function claim(core: VenueCore, qty: number): Promise<void> {
  const id = core.addLiquidation({ positions: [{ symbol: ETH, position_qty: qty }] });
  const r = await core.submitClaim(
    LIQ,
    { liquidation_id: id, ratio_qty_request: 1, limit_price: { [ETH]: qty > 0 ? 4_000 : 1_000 } },
    core.now(),
  );
  expect(r.ok).toBe(true);
}

/** Places an order that must be accepted; returns its record after matching. */
function place(core: VenueCore, body: Record<string, unknown>) {
  const r = core.trading.place(LIQ, { symbol: ETH, ...body });
  if (!r.ok) throw new Error(`refused ${r.refusal.code} ${r.refusal.message}`);
  const o = core.trading.order(LIQ, r.value.order_id);
  if (o === undefined) throw new Error("accepted order not found");
  return o;
}

const position = (core: VenueCore) => core.trading.booksOf(LIQ).get(ETH)?.qty ?? 0;
const reports = (pushes: SimPush[]) =>
  pushes.filter((p) => p.topic === "executionreport").map((p) => p.data as Record<string, number | string | boolean>);

describe("matching", () => {
  test("POST_ONLY: one that would cross is cancelled unfilled; one that rests fills at its price as maker when the mark reaches it", () => {
    const { core } = venue();
    const crossing = place(core, { order_type: "POST_ONLY", side: "BUY", order_price: 2_001, order_quantity: 0.01 });
    expect(crossing).toMatchObject({ status: "CANCELLED", total_executed_quantity: 0 });
    const resting = place(core, { order_type: "POST_ONLY", side: "BUY", order_price: 2_000, order_quantity: 0.01 });
    expect(resting.status).toBe("NEW");
    core.setMark(ETH, 2_000.5);
    expect(core.trading.order(LIQ, resting.order_id)?.status).toBe("NEW");
    core.setMark(ETH, 1_999.5);
    const filled = core.trading.order(LIQ, resting.order_id);
    expect(filled).toMatchObject({ status: "FILLED", total_executed_quantity: 0.01, average_executed_price: 2_000 });
    // Maker rate (2 bps), not taker (5 bps).
    expect(filled?.total_fee).toBeCloseTo((0.01 * 2_000 * 2) / 1e4, 12);
    expect(position(core)).toBeCloseTo(0.01, 12);
  });

  test("a LIMIT takes what crosses at once and rests the rest", () => {
    const { core } = venue();
    const o = place(core, { order_type: "LIMIT", side: "BUY", order_price: 2_003, order_quantity: 2.5 });
    expect(o).toMatchObject({ status: "PARTIAL_FILLED", total_executed_quantity: 2 });
    expect(core.trading.frozen(LIQ)).toBeCloseTo(0.5 * 2_003 * 0.1, 9);
  });

  test("reduce-only: an IOC beyond the position is cut to it and never flips the position", async () => {
    const { core } = venue();
    await claim(core, 0.5);
    const o = place(core, { order_type: "IOC", side: "SELL", order_price: 1_995, order_quantity: 2, reduce_only: true });
    expect(o).toMatchObject({ status: "CANCELLED", total_executed_quantity: 0.5, average_executed_price: 1_999 });
    expect(position(core)).toBe(0);
    // With nothing left to reduce, the next one is refused before it can open anything.
    const again = core.trading.place(LIQ, {
      symbol: ETH,
      order_type: "IOC",
      side: "SELL",
      order_price: 1_995,
      order_quantity: 1,
      reduce_only: true,
    });
    expect(again.ok ? 0 : again.refusal.code).toBe(-1106);
  });

  test("reduce-only FOK: all or nothing on the quantity cut to the position", async () => {
    const { core } = venue();
    await claim(core, -0.5);
    expect(place(core, { order_type: "FOK", side: "BUY", order_price: 2_005, order_quantity: 3, reduce_only: true })).toMatchObject({
      total_executed_quantity: 0.5,
    });
    expect(position(core)).toBe(0);
    // Without the cut, FOK is all or nothing on the order: 3.5 is more than the three levels hold.
    const { core: c2 } = venue();
    await claim(c2, 4);
    const fok = place(c2, { order_type: "FOK", side: "SELL", order_price: 1_995, order_quantity: 3.5, reduce_only: true });
    expect(fok).toMatchObject({ status: "CANCELLED", total_executed_quantity: 0 });
    expect(position(c2)).toBe(4);
  });

  test("slippage grows with size: the average price of a sweep moves away from the mark", () => {
    const averages = [0.5, 1.5, 2.5].map((qty) => {
      const { core } = venue();
      return place(core, { order_type: "IOC", side: "BUY", order_price: 2_050, order_quantity: qty }).average_executed_price;
    });
    expect(averages[0]).toBeCloseTo(2_001, 9);
    expect(averages[1]).toBeCloseTo((2_001 + 0.5 * 2_003) / 1.5, 9);
    expect(averages[2]).toBeCloseTo((2_001 + 2_003 + 0.5 * 2_005) / 2.5, 9);
    expect((averages[0] as number) < (averages[1] as number) && (averages[1] as number) < (averages[2] as number)).toBe(true);
  });

  test("depth taken stays taken, then refills at its rate", () => {
    const { core, clock } = venue({ ...THIN, refillPerSec: 0.5 });
    expect(place(core, { order_type: "IOC", side: "BUY", order_price: 2_001, order_quantity: 1 }).total_executed_quantity).toBe(1);
    expect(place(core, { order_type: "IOC", side: "BUY", order_price: 2_001, order_quantity: 1 }).total_executed_quantity).toBe(0);
    clock.t += 1_000;
    expect(place(core, { order_type: "IOC", side: "BUY", order_price: 2_001, order_quantity: 1 }).total_executed_quantity).toBeCloseTo(
      0.5,
      9,
    );
  });

  test("MARKET: walks to mark × (1 + price_range), or only to its own slippage", () => {
    // Levels 1 % apart from 0.05 %: three within 3 %, two within 1.5 %.
    const wide: BookSpec = { spreadBps: 10, levels: 10, stepBps: 100, levelNotional: 2_000, refillPerSec: 0 };
    const full = venue(wide);
    expect(place(full.core, { order_type: "MARKET", side: "BUY", order_quantity: 10 })).toMatchObject({
      status: "CANCELLED",
      total_executed_quantity: 3,
    });
    const capped = venue(wide);
    expect(place(capped.core, { order_type: "MARKET", side: "BUY", order_quantity: 10, slippage: 0.015 })).toMatchObject({
      status: "CANCELLED",
      total_executed_quantity: 2,
    });
  });

  test("margin: an order the account cannot carry is -1101", () => {
    const { core } = venue(THIN, 1_000);
    // 10 % initial margin: 1,000 of holding carries 10,000 of notional.
    const big = core.trading.place(LIQ, { symbol: ETH, order_type: "LIMIT", side: "BUY", order_price: 1_990, order_quantity: 5.1 });
    expect(big.ok ? 0 : big.refusal.code).toBe(-1101);
    expect(core.trading.place(LIQ, { symbol: ETH, order_type: "LIMIT", side: "BUY", order_price: 1_990, order_quantity: 5 }).ok).toBe(true);
  });
});

describe("executionreport: one frame per state change and per fill", () => {
  test("a filled IOC: NEW, then one frame per fill, the last one FILLED, nothing after", () => {
    const { core, pushes } = venue();
    const o = place(core, { order_type: "IOC", side: "BUY", order_price: 2_050, order_quantity: 1.5, client_order_id: "c-1" });
    const r = reports(pushes);
    expect(r.map((f) => f.status)).toEqual(["NEW", "PARTIAL_FILLED", "FILLED"]);
    expect(r.every((f) => f.orderId === o.order_id && f.clientOrderId === "c-1" && f.type === "IOC")).toBe(true);
    expect(r[0]).toMatchObject({ tradeId: 0, executedQuantity: 0, totalExecutedQuantity: 0 });
    expect(r[1]).toMatchObject({ executedPrice: 2_001, executedQuantity: 1, totalExecutedQuantity: 1, avgExecutedPrice: 2_001 });
    expect(r[2]).toMatchObject({ executedPrice: 2_003, executedQuantity: 0.5, totalExecutedQuantity: 1.5 });
    expect(r[2]?.fee).toBeCloseTo((0.5 * 2_003 * 5) / 1e4, 12);
    expect(r[2]?.totalFee).toBeCloseTo(((2_001 + 0.5 * 2_003) * 5) / 1e4, 12);
    expect(r[2]?.tradeId as number).toBeGreaterThan(r[1]?.tradeId as number);
  });

  test("an IOC the book cannot fill in full: its fills, then a status-only CANCELLED", () => {
    const { core, pushes } = venue();
    place(core, { order_type: "IOC", side: "BUY", order_price: 2_050, order_quantity: 5 });
    const r = reports(pushes);
    expect(r.map((f) => f.status)).toEqual(["NEW", "PARTIAL_FILLED", "PARTIAL_FILLED", "PARTIAL_FILLED", "CANCELLED"]);
    expect(r[4]).toMatchObject({ tradeId: 0, executedQuantity: 0, totalExecutedQuantity: 3 });
  });

  test("a fill pushes the position and a claim pushes position and balance", async () => {
    const { core, pushes } = venue();
    await claim(core, 1);
    const positions = pushes
      .filter((p) => p.topic === "position")
      .map((p) => (p.data as { positions: Record<string, number>[] }).positions);
    expect(positions.at(-1)?.[0]).toMatchObject({ symbol: ETH, positionQty: 1, costPosition: 2_000, averageOpenPrice: 2_000 });
    const balance = pushes.filter((p) => p.topic === "balance").at(-1)?.data as { balances: { USDC: { holding: number } } };
    expect(balance.balances.USDC.holding).toBeCloseTo(1e6 + 2_000 * 0.008, 9);
    pushes.length = 0;
    place(core, { order_type: "IOC", side: "SELL", order_price: 1_999, order_quantity: 1, reduce_only: true });
    const after = pushes.filter((p) => p.topic === "position").map((p) => (p.data as { positions: Record<string, number>[] }).positions);
    expect(after).toHaveLength(1);
    expect(after[0]?.[0]).toMatchObject({ symbol: ETH, positionQty: 0 });
    // Fees stay in cost_position: the holding does not move on a fill.
    expect(pushes.some((p) => p.topic === "balance")).toBe(false);
  });
});

describe("balance: pushed on every change of holding or frozen, and only then", () => {
  test("a resting order freezes margin, its cancel frees it, a deposit moves the holding", () => {
    const { core, pushes } = venue();
    const balances = () =>
      pushes
        .filter((p) => p.topic === "balance")
        .map((p) => (p.data as { balances: { USDC: { holding: number; frozen: number } } }).balances.USDC);
    const o = place(core, { order_type: "LIMIT", side: "BUY", order_price: 1_990, order_quantity: 1 });
    expect(balances()).toEqual([expect.objectContaining({ holding: 1e6, frozen: 199 })]);
    core.trading.cancel(LIQ, o.order_id, ETH);
    expect(balances().at(-1)).toMatchObject({ holding: 1e6, frozen: 0 });
    core.setCollateral(LIQ, 5_000);
    expect(balances().at(-1)).toMatchObject({ holding: 5_000, frozen: 0 });
    // Back to a value pushed before: still a change from what the account last showed.
    core.setCollateral(LIQ, 1e6);
    expect(balances().at(-1)).toMatchObject({ holding: 1e6 });
    const count = balances().length;
    core.setCollateral(LIQ, 1e6);
    expect(balances()).toHaveLength(count);
  });
});

describe("order faults", () => {
  const ioc = { symbol: ETH, order_type: "IOC", side: "BUY", order_price: 2_050, order_quantity: 1 };

  test("refused orders: the next n get the code and are not applied", () => {
    const { core, pushes } = venue();
    core.trading.faults.refuseOrders(2, -1012);
    const codes = [0, 1, 2].map(() => {
      const r = core.trading.place(LIQ, ioc);
      return r.ok ? 0 : r.refusal.code;
    });
    expect(codes).toEqual([-1012, -1012, 0]);
    expect(core.trading.ordersOf(LIQ)).toHaveLength(1);
    expect(reports(pushes).filter((f) => f.status === "NEW")).toHaveLength(1);
  });

  test("lost answers count down per accepted order", () => {
    const { core } = venue();
    core.trading.faults.loseAnswers(2);
    expect([0, 1, 2].map(() => core.trading.faults.takeLostAnswer())).toEqual([true, true, false]);
  });

  test("partial fills: a fraction, for n orders or for a while, of one symbol only", () => {
    const { core, clock } = venue({ ...THIN, levelNotional: 20_000 });
    core.trading.faults.partialFills(0.5, { symbol: BTC });
    expect(place(core, ioc).total_executed_quantity).toBe(1);
    core.trading.faults.clear();
    core.trading.faults.partialFills(0.25, { symbol: ETH, times: 1 });
    expect(place(core, ioc).total_executed_quantity).toBeCloseTo(0.25, 12);
    expect(place(core, ioc).total_executed_quantity).toBe(1);
    core.trading.faults.partialFills(0.5, { forMs: 1_000 });
    expect(place(core, ioc).total_executed_quantity).toBeCloseTo(0.5, 12);
    expect(place(core, ioc).total_executed_quantity).toBeCloseTo(0.5, 12);
    clock.t += 1_000;
    expect(place(core, ioc).total_executed_quantity).toBe(1);
  });

  test("an empty book: nothing shown or filled for the time asked; clear() ends it early", () => {
    const { core, clock } = venue();
    core.trading.faults.emptyBook(ETH, 5_000);
    expect(
      core.trading
        .book(ETH)
        ?.levels("asks", 2_000, clock.t)
        .every((l) => l.quantity === 0),
    ).toBe(true);
    expect(place(core, ioc)).toMatchObject({ status: "CANCELLED", total_executed_quantity: 0 });
    clock.t += 5_000;
    expect(place(core, ioc).total_executed_quantity).toBe(1);
    core.trading.faults.emptyBook(ETH, 60_000);
    expect(place(core, { ...ioc, order_price: 2_003 }).total_executed_quantity).toBe(0);
    core.trading.faults.clear();
    expect(place(core, { ...ioc, order_price: 2_003 }).total_executed_quantity).toBe(1);
    expect(() => core.trading.faults.emptyBook("PERP_NOPE_USDC", 1_000)).toThrow(RangeError);
  });
});

describe("accounting through the engine, worked by hand (docs/protocol.md §6)", () => {
  test("claim long 1 at 2,000, close 0.4 then 0.6 at 1,999 with the taker fee", async () => {
    const { core } = venue();
    await claim(core, 1);
    expect(core.accounts.get(LIQ)?.collateral).toBeCloseTo(1e6 + 16, 9); // 2,000 × 0.008 credited
    const first = place(core, { order_type: "IOC", side: "SELL", order_price: 1_990, order_quantity: 0.4, reduce_only: true });
    const fee1 = (0.4 * 1_999 * 5) / 1e4;
    expect(first.total_fee).toBeCloseTo(fee1, 12);
    expect(first.realized_pnl).toBeCloseTo(0.4 * (1_999 - 2_000) - fee1, 12);
    let b = core.trading.booksOf(LIQ).get(ETH);
    expect(b?.qty).toBeCloseTo(0.6, 12);
    expect(b?.averageOpenPrice).toBe(2_000);
    expect(b?.costPosition).toBeCloseTo(2_000 - 0.4 * 1_999 + fee1, 9);
    const second = place(core, { order_type: "IOC", side: "SELL", order_price: 1_990, order_quantity: 0.6, reduce_only: true });
    const fee2 = (0.6 * 1_999 * 5) / 1e4;
    expect(second.realized_pnl).toBeCloseTo(0.6 * (1_999 - 2_000) - fee2, 12);
    b = core.trading.booksOf(LIQ).get(ETH);
    expect(b?.qty).toBe(0);
    expect(b?.realizedPnl).toBeCloseTo(-1 - fee1 - fee2, 9);
    // Flat: what the trades cost is all in cost_position, and it equals minus the realized P&L.
    expect(b?.costPosition).toBeCloseTo(1 + fee1 + fee2, 9);
    expect(b?.liquidatorFees).toBeCloseTo(16, 9);
  });
});
