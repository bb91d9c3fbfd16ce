import { describe, expect, it } from "vitest";
import { maxRatioWithinBudget, roomForClaim } from "../../src/engine/claimRoom.js";
import { Exposure, worstQty } from "../../src/engine/exposure.js";
import { MarkBook } from "../../src/engine/marks.js";

const BTC = "PERP_BTC_USDC";
const ETH = "PERP_ETH_USDC";

function marks(): MarkBook {
  const m = new MarkBook();
  m.set(BTC, 100_000, 0);
  m.set(ETH, 2_000, 0);
  return m;
}

describe("Exposure", () => {
  it("held positions: set, replace, notional at mark", () => {
    const e = new Exposure();
    const m = marks();
    e.setHeld(BTC, 0.5);
    e.setHeld(ETH, -10);
    expect(e.totalNotional(m)).toBe(50_000 + 20_000);
    expect(e.symbolNotional(ETH, m)).toBe(20_000);
    e.setHeld(BTC, 0.2); // a position push replaces, it does not add
    expect(e.heldQty(BTC)).toBe(0.2);
    expect(e.totalNotional(m)).toBe(20_000 + 20_000);
    e.setHeld(BTC, 0);
    expect(e.get(BTC)).toBeUndefined(); // empty entries are dropped
    expect(e.symbols()).toEqual([ETH]);
  });

  it("reservations count in the worst case until released", () => {
    const e = new Exposure();
    const m = marks();
    e.reserve(1, { [BTC]: 0.3 });
    e.reserve(2, { [BTC]: 0.2, [ETH]: -5 });
    expect(e.reservationCount).toBe(2);
    expect(e.get(BTC)).toMatchObject({ held: 0, long: 0.5, short: 0 });
    expect(e.totalNotional(m)).toBeCloseTo(50_000 + 10_000, 6);
    expect(e.release(1)).toBe(true);
    expect(e.release(1)).toBe(false);
    expect(e.totalNotional(m)).toBeCloseTo(20_000 + 10_000, 6);
    expect(e.reservation(2)).toEqual({ [BTC]: 0.2, [ETH]: -5 });
    e.release(2);
    expect(e.totalNotional(m)).toBe(0);
    expect(e.symbols()).toEqual([]);
  });

  it("commit releases the reservation and adds what the venue transferred", () => {
    const e = new Exposure();
    e.setHeld(BTC, 1);
    e.reserve(7, { [BTC]: 0.5 });
    expect(e.commit(7, { [BTC]: 0.4 })).toBe(true); // the venue may round; its number wins
    expect(e.hasReservation(7)).toBe(false);
    expect(e.get(BTC)).toMatchObject({ held: 1.4, long: 0, short: 0 });
    // A later position push is the venue's own view and replaces it.
    e.applyPositions([{ symbol: BTC, positionQty: 1.39 }], false);
    expect(e.heldQty(BTC)).toBe(1.39);
    // A result without reservation (e.g. after a restart) still counts.
    expect(e.commit(8, { [ETH]: -2 })).toBe(false);
    expect(e.heldQty(ETH)).toBe(-2);
  });

  it("a re-reserve on the same id replaces the first", () => {
    const e = new Exposure();
    e.reserve(1, { [BTC]: 1 });
    e.reserve(1, { [BTC]: 0.25 });
    expect(e.get(BTC)).toMatchObject({ long: 0.25 });
    expect(e.reservationCount).toBe(1);
  });

  it("opposite-side reservations never lower the worst case", () => {
    const e = new Exposure();
    const m = marks();
    e.setHeld(BTC, 1);
    e.reserve(1, { [BTC]: -1 });
    // The short claim may fail: the worst case stays 1 BTC.
    expect(e.totalNotional(m)).toBe(100_000);
    e.reserve(2, { [BTC]: -2.5 });
    // Both could succeed: 1 − 3.5 = −2.5.
    expect(worstQty(e.get(BTC)!)).toBeCloseTo(2.5, 12);
  });

  it("float dust is cleared when the last reservation goes", () => {
    const e = new Exposure();
    e.setHeld(BTC, 0.3);
    for (let i = 0; i < 1000; i++) e.reserve(i, { [BTC]: 0.1 });
    for (let i = 0; i < 1000; i++) e.release(i);
    expect(e.get(BTC)).toMatchObject({ held: 0.3, long: 0, short: 0 });
  });

  it("applyPositions: partial replaces listed symbols, complete zeroes the others", () => {
    const e = new Exposure();
    e.setHeld(BTC, 1);
    e.setHeld(ETH, 2);
    expect(e.applyPositions([{ symbol: ETH, positionQty: 3 }], false)).toBe(1);
    expect(e.heldQty(BTC)).toBe(1);
    expect(
      e.applyPositions(
        [
          { symbol: ETH, positionQty: 4 },
          { symbol: BTC, positionQty: Number.NaN },
        ],
        true,
      ),
    ).toBe(1);
    expect(e.heldQty(BTC)).toBe(0);
    expect(e.heldQty(ETH)).toBe(4);
  });

  it("a symbol without mark is priced from its push, or makes the total Infinity", () => {
    const e = new Exposure();
    const m = marks();
    e.setHeld("PERP_XRP_USDC", 10);
    expect(e.totalNotional(m)).toBe(Number.POSITIVE_INFINITY);
    expect(e.symbolNotional("PERP_XRP_USDC", m)).toBeNaN();
    e.applyPositions([{ symbol: "PERP_XRP_USDC", positionQty: 10, markPrice: 0.5 }], false);
    expect(e.totalNotional(m)).toBe(5);
    m.set("PERP_XRP_USDC", 0.6, 1); // the mark book wins once it has a price
    expect(e.totalNotional(m)).toBeCloseTo(6, 12);
  });

  it("the total follows every later mark, of whichever price source it is given", () => {
    const e = new Exposure();
    const m = marks();
    e.setHeld(BTC, 0.5);
    expect(e.totalNotional(m)).toBe(50_000);
    m.set(BTC, 90_000, 1); // the book's record is held, not its price at the first call
    expect(e.totalNotional(m)).toBe(45_000);
    const other = new MarkBook();
    other.set(BTC, 80_000, 0);
    expect(e.totalNotional(other)).toBe(40_000);
    expect(e.totalNotional({ price: () => 70_000 })).toBe(35_000); // a source without live records
    expect(e.totalNotional(m)).toBe(45_000);
    e.setHeld(BTC, 0);
    e.setHeld(BTC, 1); // a new entry for the symbol, after the old one was dropped
    m.set(BTC, 95_000, 2);
    expect(e.totalNotional(m)).toBe(95_000);
  });

  it("refuses non-finite quantities", () => {
    const e = new Exposure();
    expect(() => e.setHeld(BTC, Number.NaN)).toThrow(RangeError);
    expect(() => e.reserve(1, { [BTC]: Number.POSITIVE_INFINITY })).toThrow(RangeError);
    expect(e.reservationCount).toBe(0);
  });
});

describe("roomForClaim", () => {
  it.each([
    // held, long, short, sign, capQty → maxQty, free
    [0, 0, 0, 1, 2, 2, 0],
    [1, 0, 0, 1, 2, 1, 0],
    [1, 0, 0, -1, 2, 3, 2], // a short claim may go to −2 (worst |1 − 3| = 2) and has 2 free
    [-1, 0, 0, 1, 2, 3, 2],
    [1, 0.5, -0.5, 1, 2, 0.5, 0],
    [1, 0.5, -0.5, -1, 2, 2.5, 2],
    [3, 0, 0, 1, 2, 0, 0], // over the cap already: no room
    [3, 0, 0, -1, 2, 0, 6],
  ])("held %s long %s short %s, sign %s, cap %s → max %s free %s", (held, long, short, sign, cap, maxQty, free) => {
    const r = roomForClaim({ symbol: BTC, held, long, short }, sign, cap);
    expect(r.maxQty).toBeCloseTo(maxQty, 12);
    expect(r.free).toBeCloseTo(free, 12);
  });

  it("an empty book", () => {
    expect(roomForClaim(undefined, -1, 5)).toEqual({ maxQty: 5, free: 0 });
  });

  it("with an isolated position and a pending claim: the worst case over the modes a claim can land in", () => {
    // The worst case once a claim of q is reserved too: roomForClaim must predict it.
    const landed = (v: { held: number; isolated: number; pending: number; long: number; short: number }, q: number): number =>
      worstQty({ symbol: BTC, ...v, long: q > 0 ? v.long + q : v.long, short: q < 0 ? v.short + q : v.short });
    const grid = [-2, -0.5, 0, 0.75, 3];
    for (const held of grid)
      for (const isolated of grid)
        for (const pending of [0, -1, 1.5])
          for (const long of [0, 0.5])
            for (const short of [0, -0.25])
              for (const sign of [1, -1]) {
                const v = { held, isolated, pending, long, short };
                const w = worstQty({ symbol: BTC, ...v });
                expect(w).toBeGreaterThanOrEqual(Math.abs(held) + Math.abs(isolated) + Math.abs(pending) - 1e-12);
                const { maxQty, free } = roomForClaim({ symbol: BTC, ...v }, sign, 4);
                for (const size of [0.1, 0.6, 1.7, 4]) {
                  const q = sign * size;
                  // The increase is max(0, |q| − free), whichever mode the claim lands in.
                  expect(landed(v, q)).toBeCloseTo(w + Math.max(0, size - free), 9);
                  if (w <= 4) expect(landed(v, q) <= 4 + 1e-9).toBe(size <= maxQty + 1e-9);
                }
              }
  });

  it("both modes count: a cross long and an isolated short of one symbol do not net", () => {
    const e = new Exposure();
    e.setHeld(BTC, 1, 100);
    e.setHeld(BTC, -1, 100, "ISOLATED");
    expect(e.symbolNotional(BTC, { price: () => 100 })).toBe(200);
    expect(e.netQty(BTC)).toBe(0);
    expect(e.heldQty(BTC, "ISOLATED")).toBe(-1);
    // A long claim on top may land in isolated (shrinking it) or in cross (growing it): the latter counts.
    e.reserve(1, { [BTC]: 1 });
    expect(e.symbolNotional(BTC, { price: () => 100 })).toBe(300);
    expect(roomForClaim(e.get(BTC), 1, 3)).toEqual({ maxQty: 0, free: 0 });
    e.release(1);
    e.setHeld(BTC, 0);
    e.setHeld(BTC, 0, undefined, "ISOLATED");
    expect(e.get(BTC)).toBeUndefined();
  });
});

describe("maxRatioWithinBudget", () => {
  const increase = (r: number, n: number[], f: number[]): number => n.reduce((s, ni, i) => s + Math.max(0, r * ni - (f[i] ?? 0)), 0);

  it.each([
    [100, [100], [0], 1],
    [50, [100], [0], 0.5],
    [50, [100], [30], 0.8],
    [0, [100], [30], 0.3],
    [100, [100, 100], [0, 0], 0.5],
    // The second symbol has 150 free: it never grows below r = 1.5; the first takes the budget alone.
    [50, [100, 100], [0, 150], 0.5],
    [200, [100, 100], [0, 150], 1.75],
  ])("budget %s, notional %j, free %j → %s", (budget, n, f, r) => {
    const got = maxRatioWithinBudget(budget, n, f);
    expect(got).toBeCloseTo(r, 12);
    expect(increase(got, n, f)).toBeCloseTo(budget, 9);
  });

  it("no budget or no price: 0; nothing can grow: Infinity", () => {
    expect(maxRatioWithinBudget(-1, [100], [0])).toBe(0);
    expect(maxRatioWithinBudget(Number.NaN, [100], [0])).toBe(0);
    expect(maxRatioWithinBudget(Number.NEGATIVE_INFINITY, [100], [0])).toBe(0);
    expect(maxRatioWithinBudget(Number.POSITIVE_INFINITY, [100], [0])).toBe(Number.POSITIVE_INFINITY);
    expect(maxRatioWithinBudget(10, [0], [0])).toBe(Number.POSITIVE_INFINITY);
  });

  it("is the largest ratio within budget (random check against bisection)", () => {
    let seed = 7;
    const rnd = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let t = 0; t < 2_000; t++) {
      const k = 1 + Math.floor(rnd() * 4);
      const n = Array.from({ length: k }, () => rnd() * 1000);
      const f = Array.from({ length: k }, () => (rnd() < 0.5 ? 0 : rnd() * 1000));
      const budget = rnd() * 2000;
      const r = maxRatioWithinBudget(budget, n, f);
      expect(increase(r, n, f)).toBeLessThanOrEqual(budget * (1 + 1e-9) + 1e-9);
      expect(increase(r * (1 + 1e-6) + 1e-9, n, f)).toBeGreaterThan(budget);
    }
  });
});
