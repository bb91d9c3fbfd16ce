import { describe, expect, it } from "vitest";
import {
  comparatorForForTests,
  DEFAULT_ORDER_PAGE_SIZE_FOR_TESTS,
  type OrderQuery,
  parseOrderQuery,
  queryOrders,
  type StoredOrder,
} from "../../src/sim/orderQuery.js";
import { seedOrderHistory } from "../../src/sim/orderSeed.js";
import { Prng } from "../../src/sim/prng.js";
import { ListedSymbols } from "../../src/sim/symbols.js";

const NOW = 1_760_000_000_000;

function order(id: number, created: number, updated: number, extra: Partial<StoredOrder> = {}): StoredOrder {
  return {
    order_id: id,
    user_id: 1,
    price: 1,
    type: "LIMIT",
    quantity: 1,
    amount: 1,
    total_executed_quantity: 0,
    visible_quantity: 1,
    symbol: "PERP_BTC_USDC",
    side: "BUY",
    status: "NEW",
    total_fee: 0,
    fee_asset: "USDC",
    client_order_id: 0,
    average_executed_price: 0,
    created_time: created,
    updated_time: updated,
    realized_pnl: 0,
    executed_quantity: 0,
    visible: 1,
    executed: 0,
    reduce_only: null,
    order_tag: null,
    margin_mode: "CROSS",
    ...extra,
  };
}

// Hand-made ties: ids 5 and 9 share created 1000; ids 3, 8 and 4 share updated 3000.
const SMALL: StoredOrder[] = [
  order(5, 1000, 3000),
  order(9, 1000, 2000),
  order(3, 2000, 3000),
  order(8, 500, 3000),
  order(4, 1500, 1500),
  order(7, 2500, 4000),
];

function parse(qs: string): OrderQuery {
  const r = parseOrderQuery(new URLSearchParams(qs));
  if (!r.ok) throw new Error(`unexpected refusal ${r.refusal.code} ${r.refusal.message}`);
  return r.value;
}

function ids(qs: string, orders: StoredOrder[] = SMALL): number[] {
  return queryOrders(orders, parse(`user_account=u&size=500&${qs}`)).rows.map((o) => o.order_id);
}

describe("the six sort rules of docs/protocol.md §A.4.4, with ties by order_id", () => {
  it.each([
    // created: 7:2500 3:2000 4:1500 {5,9}:1000 8:500
    ["rule 2: no sort_by, no update window → created desc, ties id desc", "", [7, 3, 4, 9, 5, 8]],
    // updated: 7:4000 {3,5,8}:3000 9:2000 4:1500
    ["rule 1: no sort_by + update_start_t → updated desc, ties id desc", "update_start_t=0000000000000", [7, 8, 5, 3, 9, 4]],
    ["rule 1: no sort_by + update_end_t → updated desc, ties id desc", "update_end_t=9999999999999", [7, 8, 5, 3, 9, 4]],
    ["rule 3: CREATED_TIME_DESC", "sort_by=CREATED_TIME_DESC", [7, 3, 4, 9, 5, 8]],
    ["rule 4: CREATED_TIME_ASC, ties id asc", "sort_by=CREATED_TIME_ASC", [8, 5, 9, 4, 3, 7]],
    ["rule 5: UPDATED_TIME_DESC", "sort_by=UPDATED_TIME_DESC", [7, 8, 5, 3, 9, 4]],
    ["rule 6: UPDATED_TIME_ASC, ties id asc", "sort_by=UPDATED_TIME_ASC", [4, 9, 3, 5, 8, 7]],
    ["an explicit sort_by wins over an update window", "sort_by=CREATED_TIME_ASC&update_start_t=0000000000000", [8, 5, 9, 4, 3, 7]],
    ["an empty sort_by is no sort_by", "sort_by=&update_end_t=9999999999999", [7, 8, 5, 3, 9, 4]],
  ])("%s", (_name, qs, expected) => {
    expect(ids(qs)).toEqual(expected);
  });
});

describe("seeded history", () => {
  const table = new ListedSymbols();
  const users = [
    { accountId: "0xa", address: "0x1", userId: 1, orderCount: 1234 },
    { accountId: "0xb", address: "0x2", userId: 2, orderCount: 40 },
  ];
  const history = seedOrderHistory(new Prng(42), table, users, NOW);
  const big = history.get("0xa")!;

  it("is deterministic for a seed and has the sizes asked for", () => {
    const again = seedOrderHistory(new Prng(42), table, users, NOW);
    expect(again.get("0xa")).toEqual(big);
    expect(big).toHaveLength(1234);
    expect(history.get("0xb")).toHaveLength(40);
  });

  it("contains ties on created_time and on updated_time, and ids out of time order", () => {
    const created = new Set<number>();
    let createdTies = 0;
    for (const o of big) created.has(o.created_time) ? createdTies++ : created.add(o.created_time);
    const updated = new Set<number>();
    let updatedTies = 0;
    for (const o of big) updated.has(o.updated_time) ? updatedTies++ : updated.add(o.updated_time);
    expect(createdTies).toBeGreaterThan(50);
    expect(updatedTies).toBeGreaterThan(50);
    const byCreated = [...big].sort((a, b) => a.created_time - b.created_time || a.order_id - b.order_id).map((o) => o.order_id);
    const byId = [...big].map((o) => o.order_id).sort((a, b) => a - b);
    expect(byCreated).not.toEqual(byId);
    for (const o of big) {
      expect(o.updated_time).toBeGreaterThanOrEqual(o.created_time);
      expect(o.created_time).toBeLessThanOrEqual(NOW);
    }
  });

  it.each([
    "",
    "update_start_t=0000000000000",
    "sort_by=CREATED_TIME_DESC",
    "sort_by=CREATED_TIME_ASC",
    "sort_by=UPDATED_TIME_DESC",
    "sort_by=UPDATED_TIME_ASC",
  ])("every adjacent pair is in order for '%s'", (qs) => {
    const q = parse(`user_account=0xa&size=500&${qs}`);
    const cmp = comparatorForForTests(q);
    const all: StoredOrder[] = [];
    for (let page = 1; ; page++) {
      const p = queryOrders(big, { ...q, page });
      all.push(...p.rows);
      if (p.rows.length < q.size) break;
    }
    expect(all).toHaveLength(big.length);
    for (let i = 1; i < all.length; i++) expect(cmp(all[i - 1]!, all[i]!)).toBeLessThan(0);
  });

  it.each([
    ["symbol=PERP_ETH_USDC", (o: StoredOrder) => o.symbol === "PERP_ETH_USDC"],
    ["side=SELL", (o: StoredOrder) => o.side === "SELL"],
    ["order_type=LIMIT", (o: StoredOrder) => o.type === "LIMIT"],
    ["order_type=MARKET", (o: StoredOrder) => o.type === "MARKET"],
    ["status=FILLED", (o: StoredOrder) => o.status === "FILLED"],
    ["status=PARTIAL_FILLED", (o: StoredOrder) => o.status === "PARTIAL_FILLED"],
    ["order_tag=grid_bot", (o: StoredOrder) => o.order_tag === "grid_bot"],
    [`start_t=${NOW - 10 * 86_400_000}`, (o: StoredOrder) => o.created_time >= NOW - 10 * 86_400_000],
    [`end_t=${NOW - 10 * 86_400_000}`, (o: StoredOrder) => o.created_time <= NOW - 10 * 86_400_000],
    [
      `update_start_t=${NOW - 5 * 86_400_000}&update_end_t=${NOW - 2 * 86_400_000}`,
      (o: StoredOrder) => o.updated_time >= NOW - 5 * 86_400_000 && o.updated_time <= NOW - 2 * 86_400_000,
    ],
    [
      "symbol=PERP_BTC_USDC&side=BUY&status=CANCELLED",
      (o: StoredOrder) => o.symbol === "PERP_BTC_USDC" && o.side === "BUY" && o.status === "CANCELLED",
    ],
  ] as [string, (o: StoredOrder) => boolean][])("filter %s", (qs, pred) => {
    const expected = big.filter(pred).length;
    expect(expected).toBeGreaterThan(0);
    expect(expected).toBeLessThan(big.length);
    const page = queryOrders(big, parse(`user_account=0xa&size=500&${qs}`));
    expect(page.meta.total).toBe(expected);
    for (const o of page.rows) expect(pred(o)).toBe(true);
  });

  it("pages partition the result: every order once, meta per docs/protocol.md §A.2.5", () => {
    const size = 97;
    const seen: number[] = [];
    const pages = Math.ceil(big.length / size);
    for (let page = 1; page <= pages + 1; page++) {
      const p = queryOrders(big, parse(`user_account=0xa&size=${size}&page=${page}`));
      expect(p.meta).toEqual({ total: big.length, records_per_page: size, current_page: page });
      expect(p.rows.length).toBe(page < pages ? size : page === pages ? big.length - size * (pages - 1) : 0);
      seen.push(...p.rows.map((o) => o.order_id));
    }
    expect(new Set(seen).size).toBe(big.length);
  });

  it("size defaults to 25 and page to 1; size 500 is allowed", () => {
    const d = queryOrders(big, parse("user_account=0xa"));
    expect(DEFAULT_ORDER_PAGE_SIZE_FOR_TESTS).toBe(25);
    expect(d.meta).toEqual({ total: big.length, records_per_page: 25, current_page: 1 });
    expect(d.rows).toHaveLength(25);
    expect(queryOrders(big, parse("user_account=0xa&size=500")).rows).toHaveLength(500);
  });
});

describe("parameter refusals", () => {
  it.each([
    ["size=501", -1005],
    ["size=0", -1005],
    ["size=-1", -1005],
    ["size=10.5", -1005],
    ["size=abc", -1005],
    ["page=0", -1005],
    ["page=x", -1005],
    ["side=buy", -1005],
    ["order_type=STOP", -1005],
    ["status=OPEN", -1005],
    ["sort_by=ID_DESC", -1005],
    ["start_t=1700000000", -1005],
    ["end_t=17000000000000", -1005],
    ["start_t=1700000000002&end_t=1700000000001", -1005],
    ["update_start_t=yesterday", -1005],
    ["size=10&size=20", -1005],
    ["foo=1", -1004],
    ["user_id=1", -1004],
  ])("user_account=u&%s → %s", (qs, code) => {
    const r = parseOrderQuery(new URLSearchParams(`user_account=u&${qs}`));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.refusal.code).toBe(code);
  });

  it("requires user_account or user_address (-1005)", () => {
    const r = parseOrderQuery(new URLSearchParams("size=10"));
    expect(r.ok ? 0 : r.refusal.code).toBe(-1005);
    expect(parseOrderQuery(new URLSearchParams("user_address=0xabc")).ok).toBe(true);
  });
});
