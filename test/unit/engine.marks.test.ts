import { describe, expect, it } from "vitest";
import { MarkBook } from "../../src/engine/marks.js";

describe("MarkBook", () => {
  it("records marks and ages them against the caller's clock", () => {
    const b = new MarkBook();
    expect(b.set("PERP_BTC_USDC", 100_000, 1_000)).toBe(true);
    expect(b.get("PERP_BTC_USDC")).toEqual({ symbol: "PERP_BTC_USDC", price: 100_000, receivedAt: 1_000 });
    expect(b.price("PERP_BTC_USDC")).toBe(100_000);
    expect(b.ageMs("PERP_BTC_USDC", 1_000)).toBe(0);
    expect(b.ageMs("PERP_BTC_USDC", 3_500)).toBe(2_500);
    expect(b.ageMs("PERP_BTC_USDC", 500)).toBe(0); // never negative
    expect(b.ageMs("PERP_ETH_USDC", 3_500)).toBeUndefined();
  });

  it("a symbol's record is one object for good, updated in place (Exposure holds it: PriceSource.get)", () => {
    const b = new MarkBook();
    b.set("PERP_BTC_USDC", 100, 1_000);
    const held = b.get("PERP_BTC_USDC");
    b.set("PERP_BTC_USDC", 101, 2_000);
    b.setMany([{ symbol: "PERP_BTC_USDC", price: 102 }], 3_000);
    b.set("PERP_BTC_USDC", Number.NaN, 4_000); // refused: the record keeps a usable price
    expect(b.get("PERP_BTC_USDC")).toBe(held);
    expect(held?.price).toBe(b.price("PERP_BTC_USDC"));
    expect(held?.price).toBe(102);
  });

  it("freshness is inclusive of max age", () => {
    const b = new MarkBook();
    b.set("PERP_BTC_USDC", 1, 1_000);
    expect(b.isFresh("PERP_BTC_USDC", 4_000, 3_000)).toBe(true);
    expect(b.isFresh("PERP_BTC_USDC", 4_001, 3_000)).toBe(false);
    expect(b.isFresh("PERP_ETH_USDC", 1_000, 3_000)).toBe(false);
  });

  it("a newer mark replaces the old one; an older one is ignored", () => {
    const b = new MarkBook();
    b.set("PERP_BTC_USDC", 100, 2_000);
    expect(b.set("PERP_BTC_USDC", 101, 3_000)).toBe(true);
    expect(b.set("PERP_BTC_USDC", 99, 2_500)).toBe(false); // a REST snapshot answered late
    expect(b.get("PERP_BTC_USDC")).toMatchObject({ price: 101, receivedAt: 3_000 });
    expect(b.set("PERP_BTC_USDC", 102, 3_000)).toBe(true); // same instant: the later frame wins
    expect(b.price("PERP_BTC_USDC")).toBe(102);
  });

  it.each([[0], [-1], [Number.NaN], [Number.POSITIVE_INFINITY], ["5" as unknown as number]])(
    "refuses price %s and keeps the old mark",
    (price) => {
      const b = new MarkBook();
      b.set("PERP_BTC_USDC", 100, 1_000);
      expect(b.set("PERP_BTC_USDC", price, 2_000)).toBe(false);
      expect(b.get("PERP_BTC_USDC")).toMatchObject({ price: 100, receivedAt: 1_000 });
      expect(b.set("PERP_ETH_USDC", price, 2_000)).toBe(false);
      expect(b.get("PERP_ETH_USDC")).toBeUndefined();
    },
  );

  it("refuses a non-finite receive time", () => {
    const b = new MarkBook();
    expect(b.set("PERP_BTC_USDC", 100, Number.NaN)).toBe(false);
    expect(b.size).toBe(0);
  });

  it("setMany takes a markprices frame and counts what it took", () => {
    const b = new MarkBook();
    const n = b.setMany(
      [
        { symbol: "PERP_BTC_USDC", price: 100_000 },
        { symbol: "PERP_ETH_USDC", price: -1 },
        { symbol: "PERP_SOL_USDC", price: 150 },
      ],
      5_000,
    );
    expect(n).toBe(2);
    expect([...b.symbols()].sort()).toEqual(["PERP_BTC_USDC", "PERP_SOL_USDC"]);
  });

  it("oldestAgeMs: the stalest mark, Infinity when one is missing or the book is empty", () => {
    const b = new MarkBook();
    expect(b.oldestAgeMs(10_000)).toBe(Number.POSITIVE_INFINITY);
    b.set("PERP_BTC_USDC", 1, 9_000);
    b.set("PERP_ETH_USDC", 1, 6_000);
    expect(b.oldestAgeMs(10_000)).toBe(4_000);
    expect(b.oldestAgeMs(10_000, ["PERP_BTC_USDC"])).toBe(1_000);
    expect(b.oldestAgeMs(10_000, ["PERP_BTC_USDC", "PERP_SOL_USDC"])).toBe(Number.POSITIVE_INFINITY);
  });

  it("snapshot copies do not change with later updates", () => {
    const b = new MarkBook();
    b.set("PERP_BTC_USDC", 1, 1);
    const snap = b.snapshot();
    b.set("PERP_BTC_USDC", 2, 2);
    expect(snap).toEqual([{ symbol: "PERP_BTC_USDC", price: 1, receivedAt: 1 }]);
  });
});
