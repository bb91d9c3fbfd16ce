/**
 * The heatmap's poller (src/daemon/feeds/forecastPoller.ts) and aggregation (src/engine/forecast.ts):
 * bands per symbol and side, pages by cursor, the weight budget (fake timers), backing off on -1003,
 * a stale cursor, bad rows and failures logged once per kind.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type ForecastPoll, ForecastPoller, type ForecastPollerOptions } from "../../src/daemon/feeds/forecastPoller.js";
import { bandNotional, distanceToLiquidationForTests, fullestTwoPercent, heatmapOf, levelsOf } from "../../src/engine/forecast.js";
import { VenueError } from "../../src/venue/errors.js";
import type { PlatformPositionsPage } from "../../src/venue/supplyApi.js";
import type { PlatformPosition, PlatformPositionsQuery } from "../../src/venue/supplySchemas.js";

const BTC = "PERP_BTC_USDC";
const ETH = "PERP_ETH_USDC";

function pos(symbol: string, side: "LONG" | "SHORT", qty: number, est: number | null, mark = 100): PlatformPosition {
  return { symbol, side, position_qty: side === "LONG" ? qty : -qty, notional: qty * mark, mark_price: mark, est_liq_price: est };
}

function page(rows: PlatformPosition[], nextCursor?: string): PlatformPositionsPage {
  return { rows, bad: new Map(), totalLongNotional: undefined, totalShortNotional: undefined, totalPositions: rows.length, nextCursor };
}

function logger() {
  const lines: { level: string; msg: string }[] = [];
  return {
    lines,
    info: (_o: object, msg: string) => void lines.push({ level: "info", msg }),
    warn: (_o: object, msg: string) => void lines.push({ level: "warn", msg }),
    debug: (_o: object, msg: string) => void lines.push({ level: "debug", msg }),
  };
}

function poller(
  answer: (q: PlatformPositionsQuery, n: number) => PlatformPositionsPage | Promise<PlatformPositionsPage>,
  o: Partial<ForecastPollerOptions> = {},
) {
  const queries: { q: PlatformPositionsQuery; at: number }[] = [];
  const polls: ForecastPoll[] = [];
  const results: string[] = [];
  const log = logger();
  const p = new ForecastPoller({
    supply: {
      platformPositions: async (q) => {
        queries.push({ q, at: Date.now() });
        return answer(q, queries.length);
      },
      rateLimitStatus: async () => ({ weight_limit: undefined, weight_used: undefined, weight_remaining: undefined }),
    },
    intervalMs: 30_000,
    allowList: () => [],
    allowed: () => true,
    mark: () => undefined,
    onPoll: (x) => void polls.push(x),
    onResult: (r) => void results.push(r),
    logger: log,
    random: () => 1,
    ...o,
  });
  return { p, queries, polls, results, log };
}

describe("heatmap", () => {
  it("sums notional per symbol, side and band; a long liquidates below the mark, a short above; past the mark counts in every band", () => {
    const h = heatmapOf(
      [
        { symbol: BTC, side: "long", qty: 1, estLiqPrice: 99.5 }, // 0.5 % away
        { symbol: BTC, side: "long", qty: 2, estLiqPrice: 98.5 }, // 1.5 %
        { symbol: BTC, side: "long", qty: 4, estLiqPrice: 96 }, // 4 %
        { symbol: BTC, side: "long", qty: 8, estLiqPrice: 90 }, // 10 %: none
        { symbol: BTC, side: "long", qty: 16, estLiqPrice: 100.2 }, // past the mark: due
        { symbol: BTC, side: "short", qty: 3, estLiqPrice: 101.9 }, // 1.9 %
        { symbol: BTC, side: "short", qty: 5, estLiqPrice: 99 }, // a short liquidates upward: 1 % below is past
        { symbol: BTC, side: "short", qty: 7, estLiqPrice: null }, // no estimate
        { symbol: ETH, side: "long", qty: 1, estLiqPrice: 99 }, // no mark
      ],
      (s) => (s === BTC ? 100 : undefined),
    );
    expect(h.cells.get(BTC)).toEqual({ long: [1700, 1900, 2300], short: [500, 800, 800] });
    expect(h.cells.has(ETH)).toBe(false);
    expect({ positions: h.positions, priced: h.priced }).toEqual({ positions: 9, priced: 7 });
    expect(bandNotional(h, BTC, "short", "2pct")).toBe(800);
    expect(fullestTwoPercent(h)).toEqual({ symbol: BTC, side: "long", notional: 1900 });
    expect(distanceToLiquidationForTests("short", 100, 99)).toBeCloseTo(-0.01, 12);
  });

  it("keeps the positions within 5 % by price level (0.05 % of the mark apart), quantities summed", () => {
    const levels = levelsOf(
      [
        { symbol: BTC, side: "long", qty: 1, estLiqPrice: 98.01 },
        { symbol: BTC, side: "long", qty: 2, estLiqPrice: 98.02 },
        { symbol: BTC, side: "long", qty: 4, estLiqPrice: 94 },
        { symbol: BTC, side: "short", qty: 3, estLiqPrice: 104.9 },
      ],
      () => 100,
    );
    expect(levels).toEqual([
      { symbol: BTC, side: "long", prices: [98], qty: [3] },
      { symbol: BTC, side: "short", prices: [104.9], qty: [3] },
    ]);
  });
});

describe("ForecastPoller", () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.UTC(2026, 0, 5) }));
  afterEach(() => vi.useRealTimers());

  it("reads every page by its cursor and measures from the daemon's marks, the venue's when the daemon has none", async () => {
    const { p, queries, polls, results } = poller(
      (q) => (q.cursor === undefined ? page([pos(BTC, "LONG", 1, 99)], "c2") : page([pos(ETH, "SHORT", 2, 51, 50)])),
      { mark: (s) => (s === BTC ? 100 : undefined), allowed: (s) => s !== "PERP_DOGE_USDC" },
    );
    await p.pollOnce();
    expect(queries.map((x) => x.q)).toEqual([{ limit: 2000 }, { limit: 2000, cursor: "c2" }]);
    const poll = polls[0] as ForecastPoll;
    expect(poll.heatmap.cells.get(BTC)?.long).toEqual([100, 100, 100]);
    expect(poll.heatmap.cells.get(ETH)?.short).toEqual([0, 100, 100]);
    expect([...poll.marks]).toEqual([
      [BTC, 100],
      [ETH, 50],
    ]);
    expect(results).toEqual(["ok"]);
  });

  it("asks for a short allow list symbol by symbol, and for everything once otherwise", async () => {
    const short = poller(() => page([]), { allowList: () => [BTC, ETH] });
    await short.p.pollOnce();
    expect(short.queries.map((x) => x.q.symbol)).toEqual([BTC, ETH]);
    const long = poller(() => page([]), { allowList: () => [BTC, ETH, "PERP_SOL_USDC", "PERP_BNB_USDC"] });
    await long.p.pollOnce();
    expect(long.queries.map((x) => x.q.symbol)).toEqual([undefined]);
  });

  it("spends at most half the pool the venue reports a minute: a long poll waits for the window", async () => {
    // A pool of 100 a minute: the budget is 50, two pages.
    const calls: number[] = [];
    const q = new ForecastPoller({
      supply: {
        platformPositions: async (_x) => {
          calls.push(Date.now());
          return page([], calls.length < 5 ? `c${calls.length}` : undefined);
        },
        rateLimitStatus: async () => ({ weight_limit: 100, weight_used: 0, weight_remaining: 100 }),
      },
      intervalMs: 30_000,
      allowList: () => [],
      allowed: () => true,
      mark: () => undefined,
      onPoll: () => undefined,
      logger: logger(),
    });
    const stop = new AbortController();
    const running = q.run(stop.signal);
    await vi.advanceTimersByTimeAsync(150_000);
    stop.abort();
    await running;
    expect(q.budget).toBe(50);
    const t0 = calls[0] as number;
    expect(calls.slice(0, 5).map((t) => Math.round((t - t0) / 1000))).toEqual([0, 0, 60, 60, 120]);
    // Without a size from the venue: the default.
    expect(poller(() => page([])).p.budget).toBe(600);
  });

  it("backs off on -1003 and asks for the same page again; restarts once on a stale cursor", async () => {
    const limited = new VenueError({ venueCode: -1003, status: 429, venueMessage: "limit", endpoint: "/v1/public/query" });
    const stale = new VenueError({ venueCode: -1005, status: 400, venueMessage: "cursor expired", endpoint: "/v1/public/query" });
    const { p, queries, polls, results } = poller((q, n) => {
      if (n === 2) throw limited;
      if (n === 3) throw stale;
      return q.cursor === undefined ? page([pos(BTC, "LONG", 1, 99)], "c") : page([pos(BTC, "LONG", 2, 99)]);
    });
    const done = p.pollOnce();
    await vi.advanceTimersByTimeAsync(10_000);
    await done;
    expect(queries.map((x) => x.q.cursor ?? "-")).toEqual(["-", "c", "c", "-", "c"]);
    expect(queries[2]?.at).toBe((queries[1]?.at as number) + 5_000); // the first backoff's ceiling (random 1)
    expect(polls[0]?.heatmap.cells.get(BTC)?.long[0]).toBe(300); // the restarted poll's two pages, not four
    expect(results).toEqual(["ok"]);
  });

  it("logs a failing poll once at warn (debug after), counts bad rows, and a good poll re-arms the warning", async () => {
    let fail = true;
    const bad = new Map([["side: invalid_value", 3]]);
    const badRows: number[] = [];
    const { p, results, log } = poller(
      () => {
        if (fail) throw new Error("socket hang up");
        return { ...page([]), bad };
      },
      { onBadRows: (n) => void badRows.push(n) },
    );
    await p.pollOnce();
    await p.pollOnce();
    fail = false;
    await p.pollOnce();
    await p.pollOnce();
    fail = true;
    await p.pollOnce();
    expect(results).toEqual(["error", "error", "ok", "ok", "error"]);
    expect(log.lines.map((l) => `${l.level} ${l.msg.slice(0, 28)}`)).toEqual([
      "warn forecast poll failed; the ne",
      "debug forecast poll failed; the ne",
      "warn forecast: platform position ",
      "debug forecast: platform position ",
      "warn forecast poll failed; the ne",
    ]);
    expect(badRows).toEqual([3, 3]);
  });
});
