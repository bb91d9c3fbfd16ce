/**
 * What stays open of the claimed positions: dust (below the venue's minimum order, or off its grid)
 * is told apart from a position left open, each open one says why; the safe stop ends "flat except
 * dust" (exit 0) or says that positions above dust stay open (exit 3); SIGTERM says what stays open.
 */
import { describe, expect, test } from "vitest";
import { Drain, type DrainResult } from "../../src/daemon/control/drain.js";
import { PositionCloses } from "../../src/daemon/unwind/positionCloses.js";
import { dustBySymbol, type LeftPosition, logLeftAtShutdown, positionsLeft } from "../../src/daemon/unwind/positionsLeft.js";
import { UnwindSettings } from "../../src/daemon/unwind/unwindSettings.js";
import { isDust } from "../../src/engine/dust.js";
import { Exposure } from "../../src/engine/exposure.js";
import { PositionBook } from "../../src/engine/positionBook.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";

const ETH = "PERP_ETH_USDC";
const BTC = "PERP_BTC_USDC";
const NVDA = "PERP_NVDA_USDC";
const symbols = new SymbolTable([
  {
    symbol: ETH,
    tier: 1,
    liquidatorFee: 0.008,
    priceTick: 0.01,
    minNotional: 10,
    orderFilters: { qtyTick: 0.0001, qtyMin: 0.0001, qtyMax: 1_000, priceRange: 0.03 },
  },
  {
    symbol: BTC,
    tier: 1,
    liquidatorFee: 0.006,
    priceTick: 0.1,
    minNotional: 10,
    orderFilters: { qtyTick: 0.00001, qtyMin: 0.00001, qtyMax: 100, priceRange: 0.03 },
  },
  { symbol: NVDA, tier: 2, liquidatorFee: 0.012, priceTick: 0.01, minNotional: 10 },
]);
const MARKS: Record<string, number> = { [ETH]: 3_850, [BTC]: 104_250, [NVDA]: 181.2 };

describe("dust", () => {
  test("below base_min, or no grid point under it, is dust; a closable quantity is not; unknown filters say so", () => {
    expect(isDust(0.000098034, symbols.get(ETH))).toBe(true);
    expect(isDust(-0.00000832, symbols.get(BTC))).toBe(true);
    // Off the grid but above it: closable down to its dust.
    expect(isDust(0.5227064, symbols.get(ETH))).toBe(false);
    expect(isDust(0, symbols.get(ETH))).toBe(false);
    expect(isDust(0.00696, symbols.get(NVDA))).toBeUndefined();
  });
});

function book(held: Record<string, number>): PositionBook {
  const positions = new PositionBook(new Exposure());
  positions.applySnapshot(
    Object.entries(held).map(([symbol, positionQty]) => ({ symbol, positionQty })),
    Date.now(),
  );
  return positions;
}

function left(
  held: Record<string, number>,
  o: { dryRun?: boolean; hold?: string[]; mode?: "immediate" | "off"; halted?: string[] } = {},
): LeftPosition[] {
  return positionsLeft({
    positions: book(held),
    target: (_s, _m, q) => q,
    symbols: () => symbols,
    mark: (s) => MARKS[s],
    settings: new UnwindSettings({
      mode: o.mode ?? "immediate",
      max_slippage_bps: 50,
      max_order_notional: 25_000,
      hold: o.hold ?? [],
      per_symbol: {},
    }),
    dryRun: () => o.dryRun ?? false,
    halted: () => o.halted ?? [],
  });
}

describe("positionsLeft", () => {
  test("each position left says why: dust, dry run, unwind off, held, halted, no filters", () => {
    const reasons = (l: LeftPosition[]) => Object.fromEntries(l.map((p) => [p.symbol, p.reason]));
    expect(reasons(left({ [ETH]: 0.000098034, [BTC]: 0.5, [NVDA]: 2 }))).toEqual({
      [ETH]: "dust",
      [BTC]: "unwinding",
      [NVDA]: "no_filters",
    });
    expect(reasons(left({ [BTC]: 0.5 }, { dryRun: true }))).toEqual({ [BTC]: "dry_run" });
    expect(reasons(left({ [BTC]: 0.5 }, { mode: "off" }))).toEqual({ [BTC]: "unwind_off" });
    expect(reasons(left({ [BTC]: 0.5 }, { hold: [BTC] }))).toEqual({ [BTC]: "held" });
    expect(reasons(left({ [BTC]: 0.5 }, { halted: [BTC] }))).toEqual({ [BTC]: "halted" });
    // Dust stays dust whatever else holds.
    expect(reasons(left({ [ETH]: 0.00005 }, { dryRun: true }))).toEqual({ [ETH]: "dust" });
  });

  test("dust is priced at the mark, per symbol (the gauge)", () => {
    const l = left({ [ETH]: 0.000098034, [BTC]: -0.00000832 });
    const by = Object.fromEntries(dustBySymbol(l).map((d) => [d.symbol, d.notional]));
    expect(by[ETH]).toBeCloseTo(0.000098034 * 3_850, 9);
    expect(by[BTC]).toBeCloseTo(0.00000832 * 104_250, 9);
  });
});

function drainWith(leftOpen: LeftPosition[]) {
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const push = (level: string) => (fields: object, msg: string) =>
    void lines.push({ level, msg, fields: fields as Record<string, unknown> });
  let result: DrainResult | undefined;
  const drain = new Drain({
    trading: { set: () => undefined },
    unsettledClaims: () => 0,
    remaining: () => [],
    positionsKnown: () => true,
    leftOpen: () => leftOpen,
    drained: (r) => {
      result = r;
    },
    logger: { info: push("info"), warn: push("warn"), error: push("error") },
  });
  drain.start();
  return { lines, result: result as DrainResult | undefined };
}

describe("the safe stop's last word", () => {
  test("flat: exit 0", () => {
    const { lines, result } = drainWith([]);
    expect(result).toEqual({ flat: true, dustNotional: 0, open: [] });
    expect(lines.at(-1)).toMatchObject({ level: "info", msg: "drain: done; every claimed position is flat" });
  });

  test("only dust left: 'flat except dust' with its notional, never 'stays open', exit 0", () => {
    const { lines, result } = drainWith(left({ [ETH]: 0.000098034, [BTC]: -0.00000832 }));
    expect(result?.flat).toBe(true);
    const end = lines.at(-1);
    expect(end).toMatchObject({ level: "info", msg: "drain: done; flat except dust" });
    // 0.377431 + 0.867360: rounded for the line.
    expect(end?.fields.dustQuote).toBe(1.244791);
    expect(lines.some((l) => l.msg.includes("stay open"))).toBe(false);
  });

  test("a position above dust left (dry run): said so, and the result is not flat (exit 3)", () => {
    const { lines, result } = drainWith(left({ [BTC]: 0.5, [ETH]: 0.00005 }, { dryRun: true }));
    expect(result?.flat).toBe(false);
    expect(result?.open.map((p) => [p.symbol, p.reason])).toEqual([[BTC, "dry_run"]]);
    expect(lines.at(-1)).toMatchObject({ level: "error", msg: "drain: done; positions above dust stay open (not unwound by this daemon)" });
  });
});

describe("SIGTERM's word", () => {
  test("what stays open, and what is only dust; nothing when flat", () => {
    const lines: Array<{ msg: string; fields: Record<string, unknown> }> = [];
    const logger = {
      info: (f: object, msg: string) => void lines.push({ msg, fields: f as Record<string, unknown> }),
      warn: (f: object, msg: string) => void lines.push({ msg, fields: f as Record<string, unknown> }),
    };
    logLeftAtShutdown([], logger);
    expect(lines).toEqual([]);
    logLeftAtShutdown(left({ [ETH]: 0.00005 }), logger);
    expect(lines.at(-1)?.msg).toBe("shutting down: flat except dust");
    logLeftAtShutdown(left({ [BTC]: 0.5 }), logger);
    expect(lines.at(-1)?.msg).toBe("shutting down: these claimed positions stay open (SIGUSR2 stops safely: unwinds first)");
    expect(lines.at(-1)?.fields.positions).toEqual([{ symbol: BTC, marginMode: "CROSS", qty: 0.5, notional: 52_125, reason: "unwinding" }]);
  });
});

describe("the line of a position closed", () => {
  test("orders of both sides (claims of both sides netted): average over what traded, slippage per fill against its mark", () => {
    const lines: Array<Record<string, unknown>> = [];
    let now = 1_000;
    const closes = new PositionCloses({
      logger: { info: (f, msg) => void lines.push({ ...f, msg }) },
      priceDecimals: () => 2,
      qtyDecimals: () => 4,
      timeToFlat: () => undefined,
      now: () => now,
    });
    closes.opened(ETH, "CROSS");
    closes.traded(ETH, "CROSS", "SELL", 0.8, 0.8 * 3_848, 3_850); // 2 under the mark: against us
    closes.traded(ETH, "CROSS", "BUY", 0.5, 0.5 * 3_852, 3_850); // 2 over it: against us too
    now = 1_750;
    closes.settled(ETH, "CROSS", 0, 3_850);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: "position closed", qty: -0.3, timeToFlatS: 0.75 });
    expect(lines[0]?.avgPrice).toBeCloseTo((0.8 * 3_848 + 0.5 * 3_852) / 1.3, 4);
    expect(lines[0]?.slippageBps).toBeCloseTo(((0.8 * 2 + 0.5 * 2) / (1.3 * 3_850)) * 10_000, 2);
    // Nothing more to say until it opens again.
    closes.settled(ETH, "CROSS", 0, 3_850);
    expect(lines).toHaveLength(1);
  });
});
