/**
 * The unwinder's state machine against a scripted venue (no sockets; the simulator tests cover the
 * wire): slices that only ever shrink the position, intents journaled before each order, a lost
 * answer looked up instead of resent, refusals acted on by venue code, nothing sent when it must
 * not be, and a restart that settles the journal's open order before sending anything new.
 */
import { afterEach, describe, expect, test } from "vitest";
import { CoreFold } from "../../src/core/coreFold.js";
import type { JournalRecord, OrderFillRecord, OrderIntentRecord } from "../../src/core/journalRecords.js";
import { Unwinder } from "../../src/daemon/unwind/unwinder.js";
import { UnwindSettings, type UnwindSettingsInput } from "../../src/daemon/unwind/unwindSettings.js";
import { Exposure } from "../../src/engine/exposure.js";
import { MarkBook } from "../../src/engine/marks.js";
import { PositionBook } from "../../src/engine/positionBook.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import { TransportError, VenueError } from "../../src/venue/errors.js";
import type { OrderAck, OrderRecord, OrderRequest } from "../../src/venue/orderSchemas.js";
import { waitFor } from "../support/daemonHarness.js";
import { coreOver } from "../support/journalRestore.js";
import { sleep } from "../support/wait.js";

const ETH = "PERP_ETH_USDC";
const MARK = 2_000;

interface Placed {
  body: OrderRequest;
  heldBefore: number;
  intentsBefore: number;
}

/** A venue that fills each IOC in full at its limit price, unless told otherwise for the next call. */
/**
 * What the venue answers to a lookup by client order id and to GET /v1/orders instead of the truth
 * (an error to throw; `hide` leaves the order out of the list), for the unsettled-order tests.
 */
interface Answers {
  lookup?: () => unknown;
  list?: () => unknown;
  hide?: boolean;
}

function rig(
  o: {
    position?: number;
    settings?: Partial<UnwindSettingsInput>;
    dryRun?: boolean;
    fills?: (q: number) => number;
    answers?: Answers;
    maxSettleRounds?: number;
  } = {},
) {
  const exposure = new Exposure();
  const positions = new PositionBook(exposure);
  const marks = new MarkBook();
  marks.set(ETH, MARK, Date.now());
  const symbols = new SymbolTable([
    {
      symbol: ETH,
      tier: 2,
      liquidatorFee: 0.01,
      priceTick: 0.01,
      minNotional: 10,
      orderFilters: { qtyTick: 0.001, qtyMin: 0.001, qtyMax: 1_000, priceRange: 0.03 },
    },
  ]);
  const journal: JournalRecord[] = [];
  const placed: Placed[] = [];
  const records = new Map<string, OrderRecord>();
  const next: Array<(body: OrderRequest) => Promise<OrderAck>> = [];
  const haltedOn: string[] = [];
  let positionReads = 0;
  /** Info lines: what an operator reads at the default level. */
  const infos: Array<Record<string, unknown>> = [];
  /** The venue's own view of the position: what GET /v1/positions answers. */
  let venueQty = 0;
  /** Journal length at each positions read (GET), and unsettled orders given up. */
  const reads: number[] = [];
  let unsettled = 0;
  let orderId = 100;
  const fill = (body: OrderRequest): OrderRecord => {
    const qty = o.fills ? o.fills(body.order_quantity) : body.order_quantity;
    const r: OrderRecord = {
      order_id: ++orderId,
      client_order_id: body.client_order_id,
      symbol: body.symbol,
      side: body.side,
      status: qty >= body.order_quantity ? "FILLED" : "CANCELLED",
      quantity: body.order_quantity,
      price: body.order_price ?? null,
      total_executed_quantity: qty,
      average_executed_price: qty > 0 ? (body.order_price as number) : 0,
      total_fee: qty * (body.order_price as number) * 0.0005,
      reduce_only: true,
      updated_time: Date.now(),
    };
    records.set(body.client_order_id, r);
    venueQty = Math.round((venueQty + (body.side === "BUY" ? qty : -qty)) * 1e9) / 1e9;
    return r;
  };
  let unwinder: Unwinder;
  const report = (r: OrderRecord): void => {
    const qty = r.total_executed_quantity;
    unwinder.onExecutionReport({
      symbol: r.symbol,
      clientOrderId: r.client_order_id ?? undefined,
      orderId: r.order_id,
      side: r.side,
      status: r.status,
      executedQuantity: qty,
      executedPrice: r.average_executed_price ?? 0,
      fee: r.total_fee,
      totalExecutedQuantity: qty,
      avgExecutedPrice: r.average_executed_price ?? 0,
      totalFee: r.total_fee,
      tradeId: qty > 0 ? `t${r.order_id}` : "",
      reduceOnly: true,
      timestamp: r.updated_time ?? Date.now(),
    });
  };
  const core = coreOver(new CoreFold(), positions, {
    append: (r) => journal.push(r),
    scope: "all",
    now: Date.now,
    orderWorking: (symbol, mode) => unwinder.working(symbol, mode),
    placeOrder: async (body) => {
      placed.push({ body, heldBefore: positions.held(body.symbol), intentsBefore: journal.filter((r) => r.t === "order_intent").length });
      const scripted = next.shift();
      if (scripted) return scripted(body);
      const r = fill(body);
      setImmediate(() => report(r));
      return { order_id: r.order_id, client_order_id: body.client_order_id };
    },
  });
  unwinder = new Unwinder({
    orders: {
      orderByClientId: async (id) => {
        const answer = o.answers?.lookup?.();
        if (answer !== undefined) throw answer;
        const r = records.get(id);
        if (r === undefined) throw new VenueError({ venueCode: -1006, status: 400, venueMessage: "no such order", endpoint: "order" });
        return r;
      },
      ordersOf: async (symbol, q) => {
        const answer = o.answers?.list?.();
        if (answer !== undefined) throw answer;
        const rows = o.answers?.hide ? [] : [...records.values()].filter((r) => r.symbol === symbol);
        const page = q?.page ?? 1;
        return { meta: { total: rows.length, records_per_page: 500, current_page: page }, rows: rows.slice((page - 1) * 500, page * 500) };
      },
    },
    positions,
    marks,
    symbols: () => symbols,
    settings: new UnwindSettings({
      mode: "immediate",
      max_slippage_bps: 50,
      max_order_notional: 2_500,
      hold: [],
      per_symbol: {},
      ...o.settings,
    }),
    dryRun: () => o.dryRun ?? false,
    own: core.orders,
    mayLead: () => true,
    target: (_symbol, _mode, held) => held,
    observer: {
      order: () => undefined,
      timeToFlat: () => undefined,
      halted: (s, on) => on && haltedOn.push(s),
      unsettled: () => void unsettled++,
    },
    logger: { debug: () => undefined, info: (f, msg) => void infos.push({ ...f, msg }), warn: () => undefined, error: () => undefined },
    requestPositions: () => void positionReads++,
    readPositions: async () => {
      reads.push(journal.length);
      positions.applySnapshot([{ symbol: ETH, positionQty: venueQty }], Date.now());
    },
    clientOrderIdPrefix: "t",
    afterFillMs: 1,
    noFillMs: 5,
    maxBackoffMs: 20,
    settleAfterMs: 50,
    lookupRetryMs: 5,
    maxSettleRounds: o.maxSettleRounds ?? 8,
  });
  stops.push(() => unwinder.stop());
  return {
    unwinder,
    positions,
    journal,
    placed,
    next,
    haltedOn,
    fill,
    infos,
    positionReads: () => positionReads,
    reads,
    unsettled: () => unsettled,
    // The snapshot is a second old: every fill of the test is news to it.
    hold: (qty: number) => {
      venueQty = qty;
      return positions.applySnapshot([{ symbol: ETH, positionQty: qty }], Date.now() - 1_000);
    },
  };
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const settle = (ms = 100): Promise<void> => sleep(ms);

/** An IOC sell of 1 ETH the previous process journaled and sent (client order id `cid`). */
function journaledSell(cid: string, seq: number): OrderIntentRecord {
  return {
    t: "order_intent",
    clientOrderId: cid,
    at: Date.now(),
    symbol: ETH,
    side: "SELL",
    orderType: "IOC",
    price: 1_990,
    quantity: 1,
    reduceOnly: true,
    mark: MARK,
    seq,
  };
}

/** The venue filled all of that order. */
const venueFilledSell = (cid: string) =>
  ({
    symbol: ETH,
    client_order_id: cid,
    order_type: "IOC",
    side: "SELL",
    order_price: 1_990,
    order_quantity: 1,
    reduce_only: true,
  }) as const;

describe("Unwinder: what an operator reads", () => {
  test("a position closed is one info line: symbol, quantity, average price, slippage, time to flat", async () => {
    const r = rig();
    r.hold(3);
    r.unwinder.kickAll();
    await waitFor(() => r.infos.some((l) => l.msg === "position closed"), "the close line", 5_000);
    await settle();
    const lines = r.infos.filter((l) => String(l.msg).startsWith("position closed"));
    expect(lines).toHaveLength(1);
    // Three IOC sells at the 50 bps bound (mark 2,000): 1,990, 50 bps against us.
    expect(lines[0]).toMatchObject({ symbol: ETH, marginMode: "CROSS", qty: -3, avgPrice: 1_990, slippageBps: 50 });
    expect(lines[0]?.timeToFlatS).toEqual(expect.any(Number));
    expect(lines[0]?.timeToFlatS as number).toBeGreaterThanOrEqual(0);
  });

  test("a claim off the quantity grid is closed down to its dust; the line says how much dust stays, and nothing chases it", async () => {
    const r = rig();
    r.hold(1.2345678);
    r.unwinder.kickAll();
    await waitFor(() => r.infos.some((l) => String(l.msg).startsWith("position closed")), "the close line", 5_000);
    await settle();
    expect(r.placed.map((p) => p.body.order_quantity)).toEqual([1.234]);
    const line = r.infos.find((l) => String(l.msg).startsWith("position closed"));
    expect(line).toMatchObject({ qty: -1.234, dustQty: 0.0005678, dustNotional: 1.1356 });
    expect(line?.msg).toBe("position closed; dust left (below the venue's minimum order)");
    expect(r.unwinder.remaining()).toEqual([]);
    r.unwinder.kickAll();
    await settle();
    expect(r.placed).toHaveLength(1);
    expect(r.infos.filter((l) => String(l.msg).includes("dust"))).toHaveLength(1);
  });

  test("a position that is dust from the start: one info line, no order", async () => {
    const r = rig();
    r.hold(-0.0004);
    r.unwinder.kickAll();
    await settle();
    r.unwinder.kickAll();
    await settle();
    expect(r.placed).toEqual([]);
    expect(r.infos.filter((l) => String(l.msg).includes("dust"))).toEqual([
      {
        symbol: ETH,
        marginMode: "CROSS",
        dustQty: -0.0004,
        dustNotional: 0.8,
        msg: "dust position left open (below the venue's minimum order)",
      },
    ]);
  });
});

describe("Unwinder", () => {
  test("a long is closed in reduce-only IOC sells no larger than the position, each journaled before it leaves", async () => {
    const r = rig();
    r.hold(3);
    r.unwinder.kickAll();
    await waitFor(() => r.positions.held(ETH) === 0, "flat", 5_000);
    // 2,500 of notional at 2,000: 1.25 a slice, so 1.25 + 1.25 + 0.5.
    expect(r.placed.map((p) => p.body.order_quantity)).toEqual([1.25, 1.25, 0.5]);
    for (const [i, p] of r.placed.entries()) {
      expect(p.body).toMatchObject({ side: "SELL", order_type: "IOC", reduce_only: true });
      expect(p.body.order_quantity).toBeLessThanOrEqual(Math.abs(p.heldBefore));
      expect(p.body.order_price).toBeGreaterThanOrEqual(MARK * (1 - 0.005));
      expect(p.intentsBefore).toBe(i + 1);
    }
    expect(new Set(r.placed.map((p) => p.body.client_order_id)).size).toBe(3);
  });

  test("partial fills: the next slice follows until flat, never larger than what is left", async () => {
    const r = rig({ position: -2, fills: (q) => Math.floor((q / 2) * 1_000) / 1_000 || q });
    r.hold(-2);
    r.unwinder.kickAll();
    await waitFor(() => r.positions.held(ETH) === 0, "flat", 5_000);
    for (const p of r.placed) {
      expect(p.body.side).toBe("BUY");
      expect(p.body.order_quantity).toBeLessThanOrEqual(Math.abs(p.heldBefore) + 1e-12);
    }
    expect(r.placed.length).toBeGreaterThan(2);
  });

  test("an order applied whose answer was lost is looked up, never sent twice", async () => {
    const r = rig();
    r.hold(1);
    r.next.push(async (body) => {
      r.fill(body); // applied at the venue, no report pushed
      throw new TransportError("socket hang up", true);
    });
    r.unwinder.kickAll();
    await waitFor(() => r.positions.held(ETH) === 0, "flat after the lookup", 5_000);
    await settle();
    expect(r.placed).toHaveLength(1);
    expect(r.journal.filter((x) => x.t === "order_outcome").map((x) => (x as { result: string }).result)).toEqual(["unknown", "filled"]);
  });

  test("a lost request that never arrived is settled as not accepted, and the next slice has a new id", async () => {
    const r = rig();
    r.hold(1);
    r.next.push(async () => {
      throw new TransportError("connection reset", true);
    });
    r.unwinder.kickAll();
    await waitFor(() => r.positions.held(ETH) === 0, "flat", 5_000);
    expect(r.placed).toHaveLength(2);
    expect(r.placed[0]?.body.client_order_id).not.toBe(r.placed[1]?.body.client_order_id);
  });

  test("refusals by code: -1106 re-reads positions; -1101 halts the symbol and sends nothing more", async () => {
    const r = rig();
    r.hold(1);
    r.next.push(async () => {
      throw new VenueError({ venueCode: -1106, status: 400, venueMessage: "reduce only", endpoint: "order" });
    });
    r.unwinder.kickAll();
    await waitFor(() => r.positions.held(ETH) === 0, "flat after the re-read", 5_000);
    expect(r.positionReads()).toBe(1);

    const h = rig();
    h.hold(1);
    h.next.push(async () => {
      throw new VenueError({ venueCode: -1101, status: 400, venueMessage: "margin", endpoint: "order" });
    });
    h.unwinder.kickAll();
    await waitFor(() => h.haltedOn.length > 0, "halted", 5_000);
    h.unwinder.kickAll();
    await settle(200);
    expect(h.placed).toHaveLength(1);
    expect(h.unwinder.halted()).toEqual([ETH]);
    expect(h.positions.held(ETH)).toBe(1);
  });

  test("dry run, mode off and held symbols send no order", async () => {
    for (const r of [rig({ dryRun: true }), rig({ settings: { mode: "off" } }), rig({ settings: { hold: [ETH] } })]) {
      r.hold(2);
      r.unwinder.kickAll();
      await settle(100);
      expect(r.placed).toEqual([]);
      expect(r.positions.held(ETH)).toBe(2);
    }
  });

  test("after a restart the journal's open order is settled first; no second order for its slice", async () => {
    const r = rig();
    r.hold(1);
    // The previous process journaled and sent this order and died; the venue applied it after the
    // restarted process had read its positions.
    const intent = journaledSell("t-7", 7);
    r.fill(venueFilledSell("t-7"));
    r.unwinder.takeOver([intent], 8);
    await waitFor(() => r.positions.held(ETH) === 0, "flat from the looked-up fill", 5_000);
    await settle();
    expect(r.placed).toEqual([]);
  });

  test("after a restart an open order's journaled trades are not counted again when its totals are looked up", async () => {
    const r = rig();
    // The previous process journaled 0.4 of this order's trades and died; the venue has 0.6 left and
    // the order is over with all of 1 executed.
    r.hold(0.6);
    const intent = journaledSell("t-9", 9);
    r.fill(venueFilledSell("t-9"));
    const before: OrderFillRecord = {
      t: "order_fill",
      clientOrderId: "t-9",
      symbol: ETH,
      qty: -0.4,
      price: 1_995,
      fee: 0.4,
      tradeId: "x1",
      at: 1,
      venueTs: 1,
    };
    r.unwinder.takeOver([intent], 10, new Map([["t-9", [before]]]));
    await waitFor(() => r.journal.some((x) => x.t === "order_fill" && x.clientOrderId === "t-9"), "the looked-up rest recorded", 5_000);
    await settle();
    const fills = r.journal.filter((x): x is OrderFillRecord => x.t === "order_fill" && x.clientOrderId === "t-9");
    expect(fills.map((f) => f.qty)).toEqual([-0.6]);
    expect(r.positions.held(ETH)).toBe(0);
    expect(r.placed).toEqual([]);
  });

  test("a cross and an isolated position of one symbol are unwound apart, each order carrying its position's margin_mode", async () => {
    const r = rig();
    r.positions.applySnapshot(
      [
        { symbol: ETH, positionQty: 1.5, marginMode: "CROSS" },
        { symbol: ETH, positionQty: -1, marginMode: "ISOLATED" },
      ],
      Date.now() - 1_000,
    );
    r.unwinder.kickAll();
    await waitFor(() => r.positions.held(ETH, "CROSS") === 0 && r.positions.held(ETH, "ISOLATED") === 0, "both flat", 5_000);
    await settle();
    const byMode = (mode: string) => r.placed.filter((p) => p.body.margin_mode === mode).map((p) => p.body);
    // Never netted: the long is sold in cross, the short bought back in isolated, each to its own size.
    expect(byMode("CROSS").map((b) => [b.side, b.order_quantity])).toEqual([
      ["SELL", 1.25],
      ["SELL", 0.25],
    ]);
    expect(byMode("ISOLATED").map((b) => [b.side, b.order_quantity])).toEqual([["BUY", 1]]);
    expect(r.placed.every((p) => p.body.reduce_only === true && p.body.margin_mode !== undefined)).toBe(true);
    // The journal says which position each order traded (a restart looks it up as such).
    const intents = r.journal.filter((x): x is OrderIntentRecord => x.t === "order_intent");
    expect(intents.map((i) => [i.side, i.marginMode]).sort()).toEqual([
      ["BUY", "ISOLATED"],
      ["SELL", "CROSS"],
      ["SELL", "CROSS"],
    ]);
  });

  test("a claim whose margin mode no report has told is counted but not unwound until a report says where it is", async () => {
    const r = rig();
    r.hold(0);
    const claimedAt = Date.now() - 800;
    r.positions.settleClaim(1, { [ETH]: 1 }, claimedAt);
    expect(r.positions.pending(ETH)).toBe(1);
    r.unwinder.kickAll();
    await settle();
    expect(r.placed).toEqual([]);
    // The venue's push: the claim landed in isolated.
    r.positions.applyPush([{ symbol: ETH, positionQty: 1, marginMode: "ISOLATED" }], claimedAt + 1);
    expect(r.positions.pending(ETH)).toBe(0);
    await waitFor(() => r.positions.held(ETH, "ISOLATED") === 0, "isolated flat", 5_000);
    expect(r.placed.map((p) => [p.body.side, p.body.margin_mode])).toEqual([["SELL", "ISOLATED"]]);
  });

  test("after a restart, an isolated order the journal left open is looked up and its fill lands in the isolated position", async () => {
    const r = rig();
    r.positions.applySnapshot([{ symbol: ETH, positionQty: -1, marginMode: "ISOLATED" }], Date.now() - 1_000);
    const intent: OrderIntentRecord = {
      t: "order_intent",
      clientOrderId: "t-3",
      at: Date.now(),
      symbol: ETH,
      side: "BUY",
      orderType: "IOC",
      price: 2_010,
      quantity: 1,
      reduceOnly: true,
      marginMode: "ISOLATED",
      mark: MARK,
      seq: 3,
    };
    r.fill({
      symbol: ETH,
      client_order_id: "t-3",
      order_type: "IOC",
      side: "BUY",
      order_price: 2_010,
      order_quantity: 1,
      reduce_only: true,
    });
    r.unwinder.takeOver([intent], 4);
    await waitFor(() => r.positions.held(ETH, "ISOLATED") === 0, "isolated flat from the looked-up fill", 5_000);
    await settle();
    expect(r.positions.held(ETH, "CROSS")).toBe(0);
    expect(r.placed).toEqual([]);
  });
});

/** What the real venue documents for an order it does not know: -1000 "data does not exist", HTTP 500. */
const dataDoesNotExist = (): VenueError =>
  new VenueError({ venueCode: -1000, status: 500, venueMessage: "data does not exist", endpoint: "/v1/client/order/{client_order_id}" });
/** A code the failure table does not know. */
const unknownCode = (): VenueError =>
  new VenueError({ venueCode: -1777, status: 400, venueMessage: "?", endpoint: "/v1/client/order/{client_order_id}" });

const orderResults = (journal: JournalRecord[]): string[] =>
  journal.filter((x) => x.t === "order_outcome").map((x) => (x as { result: string }).result);

describe("an order lookup the failure table says cannot settle (docs/protocol.md §9)", () => {
  test.each([
    ["-1000 / HTTP 500", dataDoesNotExist],
    ["an unknown code", unknownCode],
  ])("%s: found filled in GET /v1/orders at the first such answer, accounted, never sent twice", async (_name, answer) => {
    let lookups = 0;
    const r = rig({
      answers: {
        lookup: () => {
          lookups++;
          return answer();
        },
      },
    });
    r.hold(1);
    r.next.push(async (body) => {
      r.fill(body); // applied at the venue, no report pushed, the answer lost
      throw new TransportError("socket hang up", true);
    });
    r.unwinder.kickAll();
    await waitFor(() => r.positions.held(ETH) === 0, "flat from the listed record", 5_000);
    await settle();
    expect(r.placed).toHaveLength(1);
    expect(orderResults(r.journal)).toEqual(["unknown", "filled"]);
    const cid = r.placed[0]?.body.client_order_id;
    expect(r.journal.filter((x) => x.t === "order_fill" && x.clientOrderId === cid)).toHaveLength(1);
    expect(r.unsettled()).toBe(0);
    expect(lookups).toBe(1); // not polled: the list settles it at once
  });

  test("not in the list: treated as never placed only once the positions are read, and the next slice has a new id", async () => {
    const r = rig({ answers: { lookup: dataDoesNotExist } });
    r.hold(1);
    r.next.push(async () => {
      throw new TransportError("connection reset", true); // never arrived
    });
    r.unwinder.kickAll();
    await waitFor(() => r.positions.held(ETH) === 0, "flat", 5_000);
    await settle();
    expect(r.placed).toHaveLength(2);
    expect(r.placed[0]?.body.client_order_id).not.toBe(r.placed[1]?.body.client_order_id);
    expect(orderResults(r.journal)).toEqual(["unknown", "not_accepted", "accepted", "filled"]);
    const notAccepted = r.journal.findIndex((x) => x.t === "order_outcome" && x.result === "not_accepted");
    expect(r.reads.length).toBeGreaterThan(0);
    expect(r.reads[0]).toBeLessThanOrEqual(notAccepted);
  });

  test("applied but missing from the list: the positions read holds its fill, no second order for the slice", async () => {
    const r = rig({ answers: { lookup: dataDoesNotExist, hide: true } });
    r.hold(1);
    r.next.push(async (body) => {
      r.fill(body);
      throw new TransportError("socket hang up", true);
    });
    r.unwinder.kickAll();
    await waitFor(() => r.positions.held(ETH) === 0, "flat from the positions read", 5_000);
    await settle(200);
    expect(r.placed).toHaveLength(1);
  });

  test("neither the lookup nor the list answers: bounded, given up with the alert signal, positions re-read, no duplicate", async () => {
    let lookups = 0;
    const r = rig({
      maxSettleRounds: 3,
      answers: {
        lookup: () => {
          lookups++;
          return dataDoesNotExist();
        },
        list: dataDoesNotExist,
      },
    });
    r.hold(1);
    r.next.push(async (body) => {
      r.fill(body);
      throw new TransportError("socket hang up", true);
    });
    r.unwinder.kickAll();
    await waitFor(() => r.unsettled() === 1, "given up", 5_000);
    await waitFor(() => r.positions.held(ETH) === 0, "flat from the positions read", 5_000);
    await settle(200);
    expect(lookups).toBe(3);
    expect(r.unsettled()).toBe(1);
    expect(r.reads.length).toBeGreaterThan(0);
    expect(r.placed).toHaveLength(1);
    // Nothing final is journaled for it: a restart looks it up again, bounded the same way.
    expect(orderResults(r.journal)).toEqual(["unknown"]);
  });

  test("given up while the venue still holds the position: unwinding goes on with a new order, never larger than held", async () => {
    const r = rig({ maxSettleRounds: 2, answers: { lookup: dataDoesNotExist, list: dataDoesNotExist } });
    r.hold(1);
    r.next.push(async () => {
      throw new TransportError("socket hang up", true); // never arrived
    });
    r.unwinder.kickAll();
    await waitFor(() => r.positions.held(ETH) === 0, "flat", 5_000);
    expect(r.unsettled()).toBe(1);
    expect(r.placed).toHaveLength(2);
    for (const p of r.placed) expect(p.body.order_quantity).toBeLessThanOrEqual(Math.abs(p.heldBefore));
  });
});
