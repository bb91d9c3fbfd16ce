/**
 * The simulated venue's trading: the synthetic book (depth, slippage, refill, FOK, MARKET stopping
 * at price_range), the accounting worked by hand (docs/protocol.md §6), and a property: after random
 * claims, orders and mark moves, books rebuilt from the private pushes alone (what a liquidator sees)
 * equal the venue's own, and `unsettled_pnl = position_qty × mark − cost_position`.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { applyClaim, applyFill, emptyBooks, unsettledPnl } from "../../src/sim/accounting.js";
import { SyntheticBook } from "../../src/sim/orderBook.js";
import type { SimPush } from "../../src/sim/simPush.js";
import { DEFAULT_SYMBOLS } from "../../src/sim/symbols.js";
import { VenueCore } from "../../src/sim/venueCore.js";

const ETH = "PERP_ETH_USDC";
const LIQ = "0xliq";

function venue(book?: SymbolSpecBook) {
  const clock = { t: 1_760_000_000_000 };
  const symbols = DEFAULT_SYMBOLS.map((s) => (book && s.symbol === ETH ? { ...s, book } : s));
  const core = new VenueCore({ seed: 3, now: () => clock.t, orderCounts: [1], symbols });
  core.accounts.add({ accountId: LIQ, admin: true, collateral: 1e6 });
  core.setMark(ETH, 2_000);
  const pushes: SimPush[] = [];
  core.onPush((p) => pushes.push(p));
  return { core, clock, pushes };
}
type SymbolSpecBook = (typeof DEFAULT_SYMBOLS)[number]["book"];

async function claim(core: VenueCore, symbol: string, qty: number): Promise<void> {
  const id = core.addLiquidation({ positions: [{ symbol, position_qty: qty }] });
  const mark = core.mark(symbol) as number;
  const r = await core.submitClaim(
    LIQ,
    { liquidation_id: id, ratio_qty_request: 1, limit_price: { [symbol]: qty > 0 ? mark * 2 : mark / 2 } },
    core.now(),
  );
  expect(r.ok).toBe(true);
}

describe("margin modes (docs/protocol.md §9)", () => {
  test("an isolated claim is its own position; an order trades the position of its margin_mode only", async () => {
    const { core, pushes } = venue();
    await claim(core, ETH, 2);
    core.trading.faults.assignIsolated(1);
    await claim(core, ETH, -1);
    expect(core.trading.booksOf(LIQ).get(ETH)?.qty).toBe(2);
    expect(core.trading.booksOf(LIQ, "ISOLATED").get(ETH)?.qty).toBe(-1);
    // The isolated claim pushed the isolated position alone.
    const last = pushes.filter((p) => p.topic === "position").at(-1)?.data as { positions: Record<string, unknown>[] };
    expect(last.positions).toEqual([expect.objectContaining({ symbol: ETH, marginMode: "ISOLATED", positionQty: -1 })]);
    const order = (side: "BUY" | "SELL", qty: number, margin_mode?: string) =>
      core.trading.place(LIQ, {
        symbol: ETH,
        order_type: "IOC",
        side,
        order_price: side === "BUY" ? 2_040 : 1_960,
        order_quantity: qty,
        reduce_only: true,
        ...(margin_mode !== undefined ? { margin_mode } : {}),
      });
    // A BUY would grow the cross long: reduce-only refuses it; for the isolated short it reduces.
    const wrong = order("BUY", 1, "CROSS");
    expect(wrong.ok ? 0 : wrong.refusal.code).toBe(-1106);
    const iso = order("BUY", 1, "ISOLATED");
    expect(iso.ok).toBe(true);
    expect(core.trading.order(LIQ, iso.ok ? iso.value.order_id : -1)).toMatchObject({
      margin_mode: "ISOLATED",
      total_executed_quantity: 1,
    });
    expect(core.trading.booksOf(LIQ, "ISOLATED").get(ETH)?.qty).toBe(0);
    expect(core.trading.booksOf(LIQ).get(ETH)?.qty).toBe(2);
    // Absent = CROSS: reduces the cross long only, cut to it.
    const cross = order("SELL", 3);
    expect(core.trading.order(LIQ, cross.ok ? cross.value.order_id : -1)).toMatchObject({
      margin_mode: "CROSS",
      total_executed_quantity: 2,
    });
    expect(core.trading.booksOf(LIQ).get(ETH)?.qty).toBe(0);
    const bad = order("SELL", 1, "PORTFOLIO");
    expect(bad.ok ? 0 : bad.refusal.code).toBe(-1005);
    expect(core.positionsOf(LIQ).map((p) => [p.marginMode, p.qty])).toEqual([
      ["CROSS", 0],
      ["ISOLATED", 0],
    ]);
  });
});

describe("synthetic book", () => {
  const spec = { spreadBps: 10, levels: 3, stepBps: 10, levelNotional: 2_000, refillPerSec: 0.5 };

  test("levels around the mark on the tick; a sweep pays more per level, refills over time", () => {
    const b = new SyntheticBook(spec, 0.01, 0);
    expect(b.levels("asks", 2_000, 0).map((l) => l.price)).toEqual([2_001, 2_003, 2_005]);
    expect(b.levels("bids", 2_000, 0).map((l) => l.price)).toEqual([1_999, 1_997, 1_995]);
    const fills = b.take("bids", 1_996, 2.5, 2_000, 0, 0.001);
    expect(fills).toEqual([
      { price: 1_999, qty: 1 },
      { price: 1_997, qty: 1 },
    ]);
    expect(b.levels("bids", 2_000, 0)[0]?.quantity).toBe(0);
    // Half of what is missing comes back each second.
    expect(b.levels("bids", 2_000, 1_000)[0]?.quantity).toBeCloseTo(0.5, 9);
    b.empty(1_000, 5_000);
    expect(b.take("asks", 3_000, 1, 2_000, 2_000, 0.001)).toEqual([]);
    b.refill();
    expect(b.take("asks", 3_000, 1, 2_000, 2_000, 0.001)).toEqual([{ price: 2_001, qty: 1 }]);
  });

  test("IOC fills what the book has at its price, FOK all or nothing, MARKET stops at price_range", async () => {
    const thin = { spreadBps: 10, levels: 2, stepBps: 10, levelNotional: 2_000, refillPerSec: 0 };
    const { core } = venue(thin);
    await claim(core, ETH, 5);
    const ioc = core.trading.place(LIQ, {
      symbol: ETH,
      order_type: "IOC",
      side: "SELL",
      order_price: 1_990,
      order_quantity: 3,
      reduce_only: true,
    });
    expect(ioc.ok ? "ok" : ioc.refusal.message).toBe("ok");
    const o1 = core.trading.order(LIQ, ioc.ok ? ioc.value.order_id : -1);
    expect(o1).toMatchObject({ status: "CANCELLED", total_executed_quantity: 2 });
    expect(o1?.average_executed_price).toBeCloseTo((1_999 + 1_997) / 2, 9);
    const fok = core.trading.place(LIQ, {
      symbol: ETH,
      order_type: "FOK",
      side: "SELL",
      order_price: 1_950,
      order_quantity: 1,
      reduce_only: true,
    });
    expect(fok.ok ? "ok" : fok.refusal.message).toBe("ok");
    expect(core.trading.order(LIQ, fok.ok ? fok.value.order_id : -1)).toMatchObject({ status: "CANCELLED", total_executed_quantity: 0 });
    expect(core.trading.booksOf(LIQ).get(ETH)?.qty).toBe(3);
    // MARKET walks no further than mark × (1 − price_range): levels 1 % apart, three within 3 %.
    const wide = venue({ spreadBps: 10, levels: 10, stepBps: 100, levelNotional: 2_000, refillPerSec: 0 });
    await claim(wide.core, ETH, 10);
    const market = wide.core.trading.place(LIQ, { symbol: ETH, order_type: "MARKET", side: "SELL", order_quantity: 10, reduce_only: true });
    expect(wide.core.trading.order(LIQ, market.ok ? market.value.order_id : -1)).toMatchObject({
      status: "CANCELLED",
      total_executed_quantity: 3,
    });
  });
});

describe("accounting (docs/protocol.md §6), worked by hand", () => {
  test("a claim, a partial close, a flip and a close", () => {
    const b = emptyBooks();
    applyClaim(b, 2, 100, 200, 1.6); // long 2 at 100, fee 1.6 credited
    expect(b).toMatchObject({ qty: 2, costPosition: 200, averageOpenPrice: 100, liquidatorFees: 1.6, realizedPnl: 0 });
    expect(unsettledPnl(b, 105)).toBe(10);
    expect(applyFill(b, -0.5, 110, 0.0275)).toBeCloseTo(0.5 * 10 - 0.0275, 12);
    expect(b.costPosition).toBeCloseTo(200 - 55 + 0.0275, 12);
    expect(b.averageOpenPrice).toBe(100);
    // Sell 3 at 90: closes 1.5 (loss 15), opens a short of 1.5 at 90.
    applyFill(b, -3, 90, 0.135);
    expect(b.qty).toBe(-1.5);
    expect(b.averageOpenPrice).toBe(90);
    expect(b.realizedPnl).toBeCloseTo(5 - 0.0275 - 15 - 0.135, 12);
    applyFill(b, 1.5, 80, 0.06);
    expect(b.qty).toBe(0);
    expect(b.averageOpenPrice).toBe(0);
    // Flat: what the account made is minus its cost position.
    expect(b.realizedPnl).toBeCloseTo(-b.costPosition, 9);
  });
});

describe("books rebuilt from the pushes equal the venue's", () => {
  test("property: random claims, orders and mark moves", async () => {
    const op = fc.oneof(
      fc.record({ k: fc.constant("claim"), qty: fc.integer({ min: -40, max: 40 }).filter((q) => q !== 0) }),
      fc.record({
        k: fc.constant("order"),
        qty: fc.integer({ min: 1, max: 40 }),
        buy: fc.boolean(),
        reduceOnly: fc.boolean(),
        type: fc.constantFrom("IOC", "FOK", "MARKET", "LIMIT", "POST_ONLY"),
        // Limit price offset from the mark, bps toward the far side (negative: a resting price).
        bps: fc.integer({ min: -60, max: 60 }),
      }),
      fc.record({ k: fc.constant("mark"), bps: fc.integer({ min: -150, max: 150 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const { core, clock, pushes } = venue({ spreadBps: 4, levels: 5, stepBps: 5, levelNotional: 3_000, refillPerSec: 0.3 });
        core.trading.faults.partialFills(0.5, { times: 2 });
        for (const o of ops) {
          clock.t += 250;
          const mark = core.mark(ETH) as number;
          if (o.k === "claim") await claim(core, ETH, o.qty / 10);
          else if (o.k === "mark") core.setMark(ETH, mark * (1 + o.bps / 1e4));
          else {
            const side = o.buy ? "BUY" : "SELL";
            const price = Math.round(mark * (1 + ((o.buy ? 1 : -1) * o.bps) / 1e4) * 100) / 100;
            core.trading.place(LIQ, {
              symbol: ETH,
              order_type: o.type,
              side,
              ...(o.type === "MARKET" ? {} : { order_price: price }),
              order_quantity: o.qty / 10,
              reduce_only: o.reduceOnly,
            });
          }
        }
        // What the liquidator saw: fills (executionreport), claims (liquidatorliquidations), positions, balance.
        let qty = 0;
        let cash = 0;
        let credited = 0;
        for (const p of pushes) {
          if (p.scope !== "private") continue;
          const d = p.data as Record<string, unknown>;
          if (p.topic === "executionreport" && (d.executedQuantity as number) > 0) {
            const q = (d.side === "BUY" ? 1 : -1) * (d.executedQuantity as number);
            qty += q;
            cash += q * (d.executedPrice as number) + (d.fee as number);
            // Taker when it took the book, maker when a resting order was reached by the mark.
            const notional = Math.abs(q) * (d.executedPrice as number);
            const rates = [core.trading.takerFeeBps, core.trading.makerFeeBps].map((bps) => (notional * bps) / 1e4);
            expect(rates.some((fee) => Math.abs(fee - (d.fee as number)) < 1e-9)).toBe(true);
          }
          if (p.topic === "liquidatorliquidations")
            for (const t of d.positionsByPerp as { positionQty: number; costPositionTransfer: number; absLiquidatorFee: number }[]) {
              qty += t.positionQty;
              cash += t.costPositionTransfer;
              credited += t.absLiquidatorFee;
            }
        }
        const books = core.trading.booksOf(LIQ).get(ETH) ?? emptyBooks();
        expect(qty).toBeCloseTo(books.qty, 9);
        expect(cash).toBeCloseTo(books.costPosition, 6);
        expect(credited).toBeCloseTo(books.liquidatorFees, 9);
        // Average cost: what is open at its average entry, less what was realized (fees included), is the cost position.
        expect(books.qty * books.averageOpenPrice - books.realizedPnl).toBeCloseTo(books.costPosition, 6);
        // Reduce-only orders never grew the position: every reduce-only fill moved it toward zero.
        let held = 0;
        for (const p of pushes) {
          if (p.scope !== "private") continue;
          const d = p.data as Record<string, unknown>;
          if (p.topic === "liquidatorliquidations") for (const t of d.positionsByPerp as { positionQty: number }[]) held += t.positionQty;
          if (p.topic === "executionreport" && (d.executedQuantity as number) > 0) {
            const q = (d.side === "BUY" ? 1 : -1) * (d.executedQuantity as number);
            if (d.reduceOnly === true) {
              expect(Math.abs(held + q)).toBeLessThanOrEqual(Math.abs(held) + 1e-9);
              expect(held * (held + q)).toBeGreaterThanOrEqual(-1e-9); // never through zero
            }
            held += q;
          }
        }
        const lastPosition = pushes.filter((p) => p.topic === "position").at(-1)?.data as
          | { positions: Record<string, number>[] }
          | undefined;
        const row = lastPosition?.positions.find((r) => (r as unknown as { symbol: string }).symbol === ETH);
        if (row !== undefined) {
          expect(row.positionQty).toBeCloseTo(books.qty, 9);
          expect(row.costPosition).toBeCloseTo(books.costPosition, 6);
          expect(row.unsettledPnl).toBeCloseTo((row.positionQty as number) * (row.markPrice as number) - (row.costPosition as number), 6);
        }
        const balance = pushes.filter((p) => p.topic === "balance").at(-1)?.data as { balances: { USDC: { holding: number } } } | undefined;
        if (balance !== undefined) expect(balance.balances.USDC.holding).toBeCloseTo(1e6 + credited, 6);
      }),
      { numRuns: 60 },
    );
  });
});
