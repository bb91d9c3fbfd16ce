/**
 * The insurance fund read beside the open list's claim rows (issue 35, docs/protocol.md §10): the
 * fund's positions by symbol, the part no claim row offers, one warning per gap that outlives a
 * poll, and the fund feed's own count of what the rows list.
 */
import { describe, expect, test } from "vitest";
import { FundFeed } from "../../src/daemon/feeds/fundFeed.js";
import { FundWatch } from "../../src/daemon/feeds/fundWatch.js";
import { fundSample } from "../../src/engine/fundHoldings.js";
import { VenueError } from "../../src/venue/errors.js";
import type { InsuranceFundState } from "../../src/venue/supplyApi.js";

const ETH = "PERP_ETH_USDC";
const BTC = "PERP_BTC_USDC";
const row = (symbol: string, position_qty: number, mark_price?: number) => ({
  symbol,
  position_qty,
  ...(mark_price ? { mark_price } : {}),
});

describe("fundSample", () => {
  test("positions net by symbol; what the rows list is subtracted; the daemon's mark, else the row's", () => {
    const s = fundSample(
      { rows: [row(ETH, 2), row(ETH, -0.5), row(BTC, 0.3, 60_000), row("PERP_SOL_USDC", 0)], balance: 5e6 },
      new Map([[ETH, 1]]),
      (symbol) => (symbol === ETH ? 3_000 : undefined),
      7,
    );
    expect(s.balance).toBe(5e6);
    expect([...s.symbols]).toEqual([
      [ETH, { qty: 1.5, unlistedQty: 0.5, price: 3_000 }],
      [BTC, { qty: 0.3, unlistedQty: 0.3, price: 60_000 }],
    ]);
  });

  test("rows listing more than the fund's net (a long and a short row), or the same up to float noise: nothing unlisted", () => {
    const listed = new Map([
      [ETH, 0.1 + 0.2],
      [BTC, 4],
    ]);
    const s = fundSample({ rows: [row(ETH, 0.3), row(BTC, 1)], balance: undefined }, listed, () => 1, 0);
    expect(s.symbols.get(ETH)?.unlistedQty).toBe(0);
    expect(s.symbols.get(BTC)?.unlistedQty).toBe(0);
  });
});

function state(rows: ReturnType<typeof row>[], bad = new Map<string, number>()): InsuranceFundState {
  return { rows, bad, balance: 1, totalCollateral: undefined, freeCollateral: undefined, marginRatio: undefined };
}

function watchOf(reads: (InsuranceFundState | Error)[], listed: Map<string, number>) {
  const logs: string[] = [];
  const results: string[] = [];
  let badRows = 0;
  const watch = new FundWatch({
    read: async () => {
      const next = reads.shift();
      if (next === undefined) throw new Error("no more reads");
      if (next instanceof Error) throw next;
      return next;
    },
    listed: () => listed,
    mark: () => 10,
    onSample: () => undefined,
    onResult: (r) => void results.push(r),
    onBadRows: (n) => {
      badRows += n;
    },
    logger: {
      warn: (o, msg) => void logs.push(`warn ${(o as { symbol?: string }).symbol ?? ""} ${msg.split(":")[0]}`),
      info: (o, msg) => void logs.push(`info ${(o as { symbol?: string }).symbol ?? ""} ${msg.split(":")[0]}`),
    },
  });
  return { watch, logs, results, bad: () => badRows };
}

const GAP = `warn ${ETH} the insurance fund holds a position no claim row of the open list offers`;
const LISTED = `info ${ETH} the insurance fund's position is offered by claim rows again`;

describe("FundWatch", () => {
  const signal = new AbortController().signal;

  test("a gap on one poll is not warned of (a takeover the open list has not shown yet); on two in a row, once; listed again, said", async () => {
    const listed = new Map<string, number>();
    const w = watchOf([state([row(ETH, 1)]), state([row(ETH, 1)]), state([row(ETH, 1)]), state([row(ETH, 1)])], listed);
    listed.set(ETH, 1);
    await w.watch.pollOnce(signal); // listed: no gap
    listed.delete(ETH);
    const first = await w.watch.pollOnce(signal);
    expect(first?.symbols.get(ETH)?.unlistedQty).toBe(1);
    expect(w.logs).toEqual([]);
    await w.watch.pollOnce(signal);
    expect(w.logs).toEqual([GAP]);
    listed.set(ETH, 1);
    await w.watch.pollOnce(signal);
    expect(w.logs).toEqual([GAP, LISTED]);
    expect(w.results).toEqual(["ok", "ok", "ok", "ok"]);
  });

  test("a gap that stays is warned of once", async () => {
    const w = watchOf([state([row(ETH, 1)]), state([row(ETH, 1)]), state([row(ETH, 2)]), state([row(ETH, 2)])], new Map());
    for (let i = 0; i < 4; i++) await w.watch.pollOnce(signal);
    expect(w.logs.filter((l) => l.startsWith("warn"))).toHaveLength(1);
  });

  test("failed reads: counted by result, logged once until a read succeeds; unreadable rows counted", async () => {
    const limited = new VenueError({ venueCode: -1003, status: 429, venueMessage: "too many", endpoint: "/v1/public/insurancefund" });
    const w = watchOf([new Error("down"), limited, state([row(ETH, 1)], new Map([["symbol", 2]])), new Error("down")], new Map([[ETH, 1]]));
    for (let i = 0; i < 4; i++) await w.watch.pollOnce(signal);
    expect(w.results).toEqual(["error", "rate_limited", "ok", "error"]);
    expect(w.logs.filter((l) => l.includes("read failed"))).toHaveLength(2);
    expect(w.bad()).toBe(2);
    // The unreadable rows' kind logged once, like every venue list's.
    expect(w.logs.filter((l) => l.includes("venue list row unreadable"))).toHaveLength(1);
  });

  test("an interval that is not positive is refused at construction", () => {
    expect(() => new FundWatch({ ...watchOf([], new Map()), intervalMs: 0 } as never)).toThrow(/intervalMs/);
  });
});

describe("FundFeed.listed", () => {
  const liq = (id: number, positions: [string, number][]) => ({
    liquidationId: id,
    timestamp: 0,
    type: "claim",
    positions: positions.map(([symbol, positionQty]) => ({ symbol, positionQty, liquidatorFee: 0.004 })),
  });

  test("every symbol of every open row, whichever one the fund's route offers; a row closed or swept leaves the count", () => {
    const feed = new FundFeed({ route: "claim_insurance_fund", price: () => 100 });
    expect(
      feed.view(
        liq(1, [
          [ETH, -2],
          [BTC, 0.5],
        ]),
      ).positions,
    ).toHaveLength(1);
    feed.view(liq(2, [[ETH, 1]]));
    expect([...feed.listed()]).toEqual([
      [ETH, 3],
      [BTC, 0.5],
    ]);
    feed.view(liq(2, [[ETH, 0]]));
    expect([...feed.listed()]).toEqual([
      [ETH, 2],
      [BTC, 0.5],
    ]);
    feed.sweep((id) => id !== 1);
    expect(feed.listed().size).toBe(0);
  });
});
