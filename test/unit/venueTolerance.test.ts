/**
 * The tolerant reader of docs/protocol.md §9, table by table: every spelling the venue has used is accepted
 * and read into the domain's type; money fields (prices, quantities, fees) stay strict — a value that
 * is not a finite number in range (nor a decimal string of one) is refused, never coerced.
 */
import { base58 } from "@scure/base";
import { describe, expect, test } from "vitest";
import { readSecret } from "../../src/config/secret.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import { KeyFormatError } from "../../src/errors.js";
import { claimFills, symbolInfoFromRow } from "../../src/venue/mapping.js";
import { clientInfoSchema, orderAckSchema, orderRecordSchema } from "../../src/venue/orderSchemas.js";
import { envelopeTimestampForTests } from "../../src/venue/restCore.js";
import {
  campaignUserSchema,
  claimResultSchema,
  epochDataSchema,
  futuresSchema,
  openLiquidationSchema,
  positionRowSchema,
} from "../../src/venue/restSchemas.js";
import { generateKeyPair, parsePublicKey, parseSecret, publicKeyOf, Signer } from "../../src/venue/signer.js";
import { skippedRowsForTests } from "../../src/venue/tolerantRows.js";
import { isSymbol, parseLiquidationEntryForTests } from "../../src/venue/wire.js";
import { integerFrom, numberFrom } from "../../src/venue/wireNumbers.js";
import { parseExecutionReport } from "../../src/venue/wireOrders.js";

const BTC = "PERP_BTC_USDC";

describe("numbers as the venue writes them", () => {
  test.each([
    [1, 1],
    ["1", 1],
    ["-2.5", -2.5],
    [".5", 0.5],
    ["1e3", 1000],
    ["0.000001", 0.000001],
  ])("%j reads as %d", (v, n) => expect(numberFrom(v)).toBe(n));

  test.each([
    [""],
    [" 1"],
    ["1 "],
    ["abc"],
    ["0x10"],
    ["NaN"],
    ["Infinity"],
    ["1e999"],
    [null],
    [true],
    [false],
    [[]],
    [{}],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    ["1".repeat(65)],
  ])("%j spells no number", (v) => expect(numberFrom(v)).toBeUndefined());

  test("integers: a safe integer only", () => {
    expect(integerFrom("123")).toBe(123);
    expect(integerFrom("1.5")).toBeUndefined();
    expect(integerFrom(2 ** 60)).toBeUndefined();
  });
});

describe("liquidation_tier: number or string", () => {
  const row = (tier: unknown) => ({ symbol: BTC, liquidation_tier: tier, liquidator_fee: 0.006, quote_tick: 0.1, min_notional: 10 });

  test.each([
    [1, 1],
    [2, 2],
    ["1", 1],
    ["2", 2],
  ])("tier %j is claimed as tier %d", (tier, want) => {
    const { table, rejected } = SymbolTable.fromUntrusted([symbolInfoFromRow(row(tier))]);
    expect(rejected).toEqual([]);
    expect(table.get(BTC)?.tier).toBe(want);
  });

  test.each([[3], ["3"], [0], ["x"], [""], [null], [undefined], [1.5], ["1.5"], [true]])("tier %j: not claimed, reported", (tier) => {
    const { table, rejected } = SymbolTable.fromUntrusted([symbolInfoFromRow(row(tier))]);
    expect(table.size).toBe(0);
    expect(rejected).toEqual([{ symbol: BTC, problem: "liquidation_tier is not 1 or 2" }]);
  });

  test("the other numbers of an info row may be decimal strings; junk is still refused", () => {
    const r = {
      ...row("1"),
      liquidator_fee: "0.006",
      quote_tick: "0.1",
      min_notional: "10",
      base_tick: "0.001",
      base_min: "0.001",
      base_max: "100",
      price_range: "0.03",
    };
    const { table } = SymbolTable.fromUntrusted([symbolInfoFromRow(r)]);
    expect(table.get(BTC)).toMatchObject({
      liquidatorFee: 0.006,
      priceTick: 0.1,
      minNotional: 10,
      orderFilters: { qtyTick: 0.001, qtyMax: 100 },
    });
    for (const fee of ["", "abc", null, true, "1"]) {
      expect(SymbolTable.fromUntrusted([symbolInfoFromRow({ ...r, liquidator_fee: fee })]).table.size, `fee ${JSON.stringify(fee)}`).toBe(
        0,
      );
    }
  });
});

describe('`type: "claim"` rows (docs/protocol.md §9: /v1/liquidation or claim_insurance_fund is unsettled)', () => {
  // Read like any other liquidation: the daemon claims them through /v1/liquidation, and a refusal
  // with a code it does not know is re-decided a bounded number of times (claimUnknownCode.test.ts).
  test.each(["liquidated", "claim", "CLAIM"])("type %j is read and kept", (type) => {
    const entry = parseLiquidationEntryForTests({
      liquidationId: 7,
      timestamp: 1_700_000_000_000,
      type,
      positionsByPerp: [{ symbol: "PERP_ETH_USDC", positionQty: 1, liquidatorFee: 0.006 }],
    });
    expect(entry).toMatchObject({ liquidationId: 7, type, positionsByPerp: [{ symbol: "PERP_ETH_USDC", positionQty: 1 }] });
  });
});

describe("the envelope timestamp: number or numeric string", () => {
  test.each([
    [1_700_000_000_123, 1_700_000_000_123],
    ["1700000000123", 1_700_000_000_123],
  ])("%j → %d", (ts, want) => expect(envelopeTimestampForTests(ts)).toBe(want));
  test.each([[undefined], [null], [""], ["now"], [-1], [0], [1e400], [1e15], [true]])("%j is ignored", (ts) =>
    expect(envelopeTimestampForTests(ts)).toBeUndefined(),
  );
});

describe("order records: reduce_only null, client_order_id numeric", () => {
  const base = {
    order_id: 7,
    symbol: BTC,
    side: "SELL",
    status: "FILLED",
    total_executed_quantity: 1,
    average_executed_price: 100,
    total_fee: 0.1,
  };

  test.each([
    [{ reduce_only: null }, { reduce_only: undefined }],
    [{ reduce_only: true }, { reduce_only: true }],
    [{ reduce_only: false }, { reduce_only: false }],
    [{}, { reduce_only: undefined }],
    [{ client_order_id: 12345 }, { client_order_id: "12345" }],
    [{ client_order_id: "lq-1-2" }, { client_order_id: "lq-1-2" }],
    [{ client_order_id: null }, { client_order_id: undefined }],
    [{ client_order_id: "" }, { client_order_id: undefined }],
    [{ order_id: "7" }, { order_id: 7 }],
    [
      { total_executed_quantity: "1.5", average_executed_price: "100.5", total_fee: "-0.01" },
      { total_executed_quantity: 1.5, average_executed_price: 100.5, total_fee: -0.01 },
    ],
    [{ created_time: "1700000000000" }, { created_time: 1_700_000_000_000 }],
  ])("%j is read as %j", (patch, want) => {
    const r = orderRecordSchema.safeParse({ ...base, ...patch });
    expect(r.success).toBe(true);
    for (const [k, v] of Object.entries(want)) expect((r.data as Record<string, unknown>)[k], k).toEqual(v);
  });

  test.each([
    [{ client_order_id: -1 }],
    [{ client_order_id: 1.5 }],
    [{ client_order_id: true }],
    [{ reduce_only: "yes" }],
    [{ order_id: "x" }],
    [{ order_id: 2 ** 60 }],
    // money: not finite, out of range, or not a number at all
    [{ total_executed_quantity: "" }],
    [{ total_executed_quantity: "abc" }],
    [{ total_executed_quantity: true }],
    [{ total_executed_quantity: -1 }],
    [{ total_executed_quantity: 1e13 }],
    [{ average_executed_price: "1e999" }],
    [{ average_executed_price: -5 }],
    [{ price: 1e13 }],
    [{ total_fee: "NaN" }],
    [{ total_fee: [] }],
  ])("%j is refused", (patch) => expect(orderRecordSchema.safeParse({ ...base, ...patch }).success).toBe(false));

  test("an order ack with a numeric client id reads it as a string", () => {
    expect(orderAckSchema.parse({ order_id: 1, client_order_id: 42 })).toEqual({ order_id: 1, client_order_id: "42" });
  });

  test("fee rates: decimal strings accepted, out of range or junk refused", () => {
    expect(clientInfoSchema.parse({ futures_taker_fee_rate: "5", futures_maker_fee_rate: "-1" })).toMatchObject({
      futures_taker_fee_rate: 5,
      futures_maker_fee_rate: -1,
    });
    for (const taker of ["", null, -1, 10_001, "x"]) {
      expect(clientInfoSchema.safeParse({ futures_taker_fee_rate: taker, futures_maker_fee_rate: 0 }).success, JSON.stringify(taker)).toBe(
        false,
      );
    }
  });
});

describe("executionreport: numeric clientOrderId, null reduceOnly", () => {
  const frame = {
    symbol: BTC,
    orderId: 5,
    side: "BUY",
    status: "FILLED",
    executedQuantity: 1,
    executedPrice: 10,
    fee: 0,
    totalExecutedQuantity: 1,
    avgExecutedPrice: 10,
    totalFee: 0,
    timestamp: 1,
  };
  test.each([
    [{ clientOrderId: 77 }, { clientOrderId: "77" }],
    [{ clientOrderId: "lq-1" }, { clientOrderId: "lq-1" }],
    [{ clientOrderId: null }, { clientOrderId: undefined }],
    [{ reduceOnly: null }, { reduceOnly: false }],
  ])("%j → %j", (patch, want) => expect(parseExecutionReport({ ...frame, ...patch }, isSymbol)).toMatchObject(want));
  test.each([[{ clientOrderId: -3 }], [{ clientOrderId: 1.5 }], [{ clientOrderId: {} }], [{ executedPrice: "10" }]])(
    "%j is dropped",
    (patch) => expect(parseExecutionReport({ ...frame, ...patch }, isSymbol)).toBeUndefined(),
  );
});

describe("the claim answer: optional fields, strict money", () => {
  const fill = {
    symbol: BTC,
    position_qty: 0.5,
    cost_position_transfer: 50_000,
    transfer_price: 100_000,
    liquidator_fee: 0.006,
    abs_liquidator_fee: 300,
  };
  const full = { liquidation_id: 9, timestamp: 1_700_000_000_000, type: "liquidated", positions_by_perp: [fill] };

  test("a complete answer gives its fills", () => {
    expect(claimFills(claimResultSchema.parse(full))).toEqual([{ symbol: BTC, qty: 0.5, price: 100_000, fee: 300 }]);
    const strings = {
      ...full,
      liquidation_id: "9",
      timestamp: "1700000000000",
      positions_by_perp: [{ ...fill, position_qty: "0.5", transfer_price: "100000", abs_liquidator_fee: "300" }],
    };
    expect(claimFills(claimResultSchema.parse(strings))).toEqual([{ symbol: BTC, qty: 0.5, price: 100_000, fee: 300 }]);
  });

  test.each([
    [{}],
    [{ liquidation_id: 9 }],
    [{ ...full, timestamp: undefined }],
    [{ ...full, positions_by_perp: undefined }],
    [{ ...full, positions_by_perp: [{ symbol: BTC, position_qty: 0.5 }] }],
    [{ ...full, positions_by_perp: [{ ...fill, abs_liquidator_fee: undefined }] }],
    [{ ...full, positions_by_perp: [{ ...fill, symbol: undefined }] }],
  ])("lean answer %j: accepted, no fills read from it", (answer) => {
    const r = claimResultSchema.safeParse(answer);
    expect(r.success).toBe(true);
    expect(claimFills(r.data as never)).toBeUndefined();
  });

  test.each([
    [{ abs_liquidator_fee: -1 }],
    [{ abs_liquidator_fee: "abc" }],
    [{ abs_liquidator_fee: "" }],
    [{ abs_liquidator_fee: null }],
    [{ transfer_price: 0 }],
    [{ transfer_price: 1e13 }],
    [{ transfer_price: "1e999" }],
    [{ liquidator_fee: 1 }],
    [{ position_qty: 1e13 }],
    [{ position_qty: true }],
    [{ cost_position_transfer: 1e19 }],
    [{ symbol: "BTC" }],
  ])("a present money field out of bounds %j is refused", (patch) => {
    expect(claimResultSchema.safeParse({ ...full, positions_by_perp: [{ ...fill, ...patch }] }).success).toBe(false);
  });

  test.each([[{ liquidation_id: -1 }], [{ liquidation_id: "x" }], [{ timestamp: 1e15 }], [{ timestamp: "now" }]])(
    "%j is refused",
    (patch) => expect(claimResultSchema.safeParse({ ...full, ...patch }).success).toBe(false),
  );
});

describe("rows: numbers as strings, money still bounded", () => {
  test("open liquidations", () => {
    const row = {
      liquidation_id: "12",
      timestamp: "1700000000000",
      type: "liquidated",
      positions_by_perp: [{ symbol: BTC, position_qty: "-0.5", liquidator_fee: "0.006" }],
    };
    expect(openLiquidationSchema.parse(row)).toEqual({
      ...row,
      liquidation_id: 12,
      timestamp: 1_700_000_000_000,
      positions_by_perp: [{ symbol: BTC, position_qty: -0.5, liquidator_fee: 0.006 }],
    });
    for (const p of [
      { position_qty: "" },
      { position_qty: 1e13 },
      { liquidator_fee: 1 },
      { liquidator_fee: "x" },
      { liquidator_fee: -0.1 },
    ]) {
      const bad = { ...row, positions_by_perp: [{ ...row.positions_by_perp[0], ...p }] };
      expect(openLiquidationSchema.safeParse(bad).success, JSON.stringify(p)).toBe(false);
    }
  });

  test("positions and futures", () => {
    expect(positionRowSchema.parse({ symbol: BTC, position_qty: "1.5", mark_price: "100", timestamp: "1700000000000" })).toMatchObject({
      position_qty: 1.5,
      mark_price: 100,
      timestamp: 1_700_000_000_000,
    });
    // What the snapshot needs (symbol, quantity) must be readable: a row without it fails the snapshot.
    for (const p of [{ position_qty: "" }, { position_qty: null }, { position_qty: 1e13 }]) {
      expect(positionRowSchema.safeParse({ symbol: BTC, ...p }).success, JSON.stringify(p)).toBe(false);
    }
    // An optional field that is malformed reads as absent; the row is kept (docs/protocol.md §9: all optional).
    for (const p of [{ mark_price: -1 }, { mark_price: "Infinity" }]) {
      const r = positionRowSchema.safeParse({ symbol: BTC, position_qty: 1, ...p });
      expect(r.success && r.data.mark_price === undefined, JSON.stringify(p)).toBe(true);
    }
    expect(futuresSchema.parse({ rows: [{ symbol: BTC, mark_price: "100.5", index_price: 100 }] }).rows[0]?.mark_price).toBe(100.5);
    // A futures row that does not parse is left out; the others are read (tolerantRows.ts).
    const futures = futuresSchema.parse({
      rows: [
        { symbol: BTC, mark_price: "", index_price: 100 },
        { symbol: "PERP_ETH_USDC", mark_price: 2_000, index_price: 2_000 },
      ],
    });
    expect(futures.rows.map((r) => r.symbol)).toEqual(["PERP_ETH_USDC"]);
    expect(skippedRowsForTests(futures.rows).map((r) => [r.index, r.shape])).toEqual([
      [0, "{symbol:string,mark_price:string,index_price:number}"],
    ]);
  });
});

describe("trading-rewards names: the real venue's *_order and the spec's *_native", () => {
  const epochData = { total_released_trading_rewards_escrow: 2, current_epoch: 3, rows: [] };
  test.each([
    [{ total_released_trading_rewards_native: 10 }, 10],
    [{ total_released_trading_rewards_order: 11 }, 11],
    [{ total_released_trading_rewards_order: "12.5" }, 12.5],
    [{ total_released_trading_rewards_native: 10, total_released_trading_rewards_order: 99 }, 10],
  ])("epoch_data %j → native %d", (patch, want) => {
    expect(epochDataSchema.parse({ ...epochData, ...patch }).total_released_trading_rewards_native).toBe(want);
  });
  test("neither name: refused", () => expect(epochDataSchema.safeParse(epochData).success).toBe(false));

  const campaign = {
    volume: 1,
    filled_order_count: 2,
    updated_time: 3,
    pnl: 4,
    total_deposit_amount: 5,
    total_withdrawal_amount: 6,
    start_account_value: 7,
    end_account_value: 8,
    new_invited_referee: 9,
    new_traded_referee: 10,
  };
  test.each([
    [{ total_staked_native: 1, total_staked_esnative: 2 }, [1, 2]],
    [{ total_staked_order: 3, total_staked_esorder: 4 }, [3, 4]],
    [{ total_staked_native: 1, total_staked_order: 3, total_staked_esorder: 4 }, [1, 4]],
  ])("campaign %j → [native, esnative] %j", (patch, [native, es]) => {
    const c = campaignUserSchema.parse({ ...campaign, ...patch });
    expect([c.total_staked_native, c.total_staked_esnative]).toEqual([native, es]);
  });
});

describe("64-byte secrets (seed + public key)", () => {
  const pair = generateKeyPair();
  const seed = base58.decode(pair.secret);
  const pub = parsePublicKey(pair.publicKey);
  const joined = (a: Uint8Array, b: Uint8Array): string => base58.encode(new Uint8Array([...a, ...b]));

  test("accepted: the first 32 bytes sign, as the 32-byte secret does", async () => {
    const long = joined(seed, pub);
    expect(parseSecret(long)).toEqual(seed);
    expect(publicKeyOf(long)).toBe(pair.publicKey);
    const a = new Signer({ secret: long, accountId: "0xa" });
    const b = new Signer({ secret: pair.secret, accountId: "0xa" });
    expect(a.sign("m")).toBe(b.sign("m"));
    expect((await readSecret({ LIQUIDATOR_SECRET: `ed25519:${long}` })).problems).toEqual([]);
  });

  test("refused when the second half is not the first half's public key, naming the problem and never the secret", async () => {
    const other = parsePublicKey(generateKeyPair().publicKey);
    const bad = joined(seed, other);
    expect(() => parseSecret(bad)).toThrow(KeyFormatError);
    expect(() => parseSecret(bad)).toThrow(/last 32 are not the public key of its first 32/);
    const r = await readSecret({ LIQUIDATOR_SECRET: bad });
    expect(r.secret).toBeUndefined();
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]?.key).toBe("LIQUIDATOR_SECRET");
    expect(JSON.stringify(r.problems)).not.toContain(bad);
    expect(JSON.stringify(r.problems)).not.toContain(pair.secret);
  });

  test("other lengths are still refused", () => {
    expect(() => parseSecret(base58.encode(seed.slice(0, 31)))).toThrow(/31 bytes/);
    expect(() => parseSecret(joined(seed, pub.slice(0, 31)))).toThrow(/63 bytes/);
  });
});
