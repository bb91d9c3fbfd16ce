/**
 * What each input does (daemon/feeds/ingest.ts): a REST open list offers the claimer only what is new or
 * changed, plus what was skipped; positions from the venue end the start-up wait.
 */

import { describe, expect, test } from "vitest";
import { PolicyState } from "../../src/daemon/claim/policyState.js";
import { Ingest } from "../../src/daemon/feeds/ingest.js";
import { OpenBook } from "../../src/daemon/feeds/openBook.js";
import { SliceQueue } from "../../src/daemon/feeds/sliceQueue.js";
import type { CaptureEvent, CaptureTap } from "../../src/daemon/records/captureTap.js";
import { AccountBook } from "../../src/engine/accountBook.js";
import { Exposure } from "../../src/engine/exposure.js";
import { MarkBook } from "../../src/engine/marks.js";
import { PositionBook } from "../../src/engine/positionBook.js";
import { SymbolTable } from "../../src/engine/symbolInfo.js";
import type { Liquidation } from "../../src/engine/types.js";
import { ShadowFeed } from "../../src/lab/shadow/shadowFeed.js";
import { buildVariants } from "../../src/lab/sweep/variants.js";
import type { OpenLiquidation } from "../../src/venue/restSchemas.js";
import { policyInput, SYMBOLS } from "./engine.fixtures.js";

function row(id: number, qty: number): OpenLiquidation {
  return {
    liquidation_id: id,
    timestamp: id,
    type: "liquidated",
    positions_by_perp: [{ symbol: "PERP_ETH_USDC", position_qty: qty, liquidator_fee: 0.008 }],
  };
}

function setup(capture?: CaptureTap, account?: AccountBook) {
  const offered: number[] = [];
  const cancelled: number[] = [];
  /** The ledger's first pushes and the claimer's cancels, in the order they came. */
  const order: string[] = [];
  const retried: (ReadonlySet<string> | undefined)[] = [];
  const paused = new Set<string>(["positions"]);
  const exposure = new Exposure();
  const marks = new MarkBook();
  const policy = new PolicyState(policyInput({}), marks, exposure);
  policy.applySymbols(new SymbolTable(SYMBOLS));
  const slices = new SliceQueue();
  const positions = new PositionBook(exposure);
  const ingest = new Ingest({
    slices,
    book: new OpenBook(),
    marks,
    positions,
    policy,
    metrics: { liquidationsSeen: { inc: () => undefined } } as never,
    logger: { info: () => undefined },
    ...(capture !== undefined ? { capture } : {}),
    opportunities: { seen: (l: Liquidation) => void order.push(`seen ${l.liquidationId}`) },
    claimer: {
      offer: (l: Liquidation) => void offered.push(l.liquidationId),
      sendNow: () => undefined,
      cancel: (id: number) => {
        cancelled.push(id);
        order.push(`cancel ${id}`);
      },
      sweep: () => undefined,
      retrySkipped: (reasons?: ReadonlySet<string>) => void retried.push(reasons),
      setPaused: (reason: string, on: boolean) => void (on ? paused.add(reason) : paused.delete(reason)),
      pausedReasons: () => [...paused] as never,
    },
    core: coreOf(positions),
    ...(account !== undefined ? { account } : {}),
  });
  return { ingest, offered, cancelled, order, retried, paused, exposure, slices };
}

/** The core's side of ingest over a position book: position reports go to the book, the rest is ignored. */
function coreOf(positions: PositionBook) {
  return {
    assignment: () => undefined,
    openList: () => undefined,
    positionsPush: (rows: Parameters<PositionBook["applyPush"]>[0], ts: number | undefined) => positions.applyPush(rows, ts),
    positionsSnapshot: (rows: Parameters<PositionBook["applySnapshot"]>[0], ts: number | undefined) => positions.applySnapshot(rows, ts),
  };
}

describe("Ingest", () => {
  test("a tap that wants no stream frames gets none (no event is built per frame); REST reads still reach it", () => {
    const recorded: CaptureEvent["k"][] = [];
    let frames = false;
    const { ingest } = setup({
      record: (e) => void recorded.push(e.k),
      get frames() {
        return frames;
      },
    });
    ingest.stream(["markprices", [{ symbol: "PERP_ETH_USDC", price: 3000 }], undefined]);
    ingest.stream(["liquidation", [{ liquidationId: 1, timestamp: 1, type: "liquidated", positionsByPerp: [] }], undefined]);
    ingest.openList([], Date.now());
    expect(recorded).toEqual(["open"]);
    frames = true;
    ingest.stream(["markprices", [{ symbol: "PERP_ETH_USDC", price: 3000 }], undefined]);
    expect(recorded).toEqual(["open", "markprices"]);
  });

  test("the shadow feed wants stream frames only while shadows run", async () => {
    const feed = new ShadowFeed({ model: { latencyMs: 50, slippageBps: 5, takerFeeBps: 5 }, schedule: () => undefined });
    expect(feed.frames).toBe(false);
    feed.setVariants(await buildVariants([], ["policy.min_fee=0"]));
    expect(feed.frames).toBe(true);
    feed.setVariants([]);
    expect(feed.frames).toBe(false);
  });

  test("the insurance fund's rows (type claim) are neither booked nor offered, from the stream or the open list; the capture keeps them", async () => {
    const recorded: CaptureEvent[] = [];
    const { ingest, offered, order, slices } = setup({ record: (e) => void recorded.push(e) });
    const fund = { ...row(2, 1), type: "claim" };
    ingest.openList([row(1, 1), fund], Date.now());
    ingest.stream([
      "liquidation",
      [
        {
          liquidationId: 3,
          timestamp: 3,
          type: "claim",
          positionsByPerp: [{ symbol: "PERP_ETH_USDC", positionQty: 1, liquidatorFee: 0.004 }],
        },
        {
          liquidationId: 4,
          timestamp: 4,
          type: "liquidated",
          positionsByPerp: [{ symbol: "PERP_ETH_USDC", positionQty: 1, liquidatorFee: 0.008 }],
        },
      ],
      undefined,
    ]);
    await slices.idle();
    expect(offered.sort()).toEqual([1, 4]);
    expect(order.filter((e) => e.startsWith("seen"))).toEqual(["seen 1", "seen 4"]);
    expect(recorded.map((e) => e.k)).toEqual(["open", "liquidation"]);
    expect(recorded[0]?.k === "open" && recorded[0].rows).toHaveLength(2);
  });

  test("a REST open list offers only new or changed ids; skipped ones are re-decided by the claimer", async () => {
    const { ingest, offered, retried, slices } = setup();
    const rows = Array.from({ length: 10_000 }, (_, i) => row(i + 1, 1 + i / 10_000));
    ingest.openList(rows, Date.now());
    // 10,000 rows and offers are sliced (sliceQueue.ts): none yet, all once the slices ran, skips re-decided last.
    expect(offered).toHaveLength(0);
    await slices.idle();
    expect(offered).toHaveLength(10_000);
    expect(retried).toHaveLength(1);
    offered.length = 0;
    // Same list again, one id changed and one new: two offers, not 10,001.
    const next = [...rows];
    next[41] = row(42, 9);
    next.push(row(20_000, 3));
    ingest.openList(next, Date.now() + 1);
    await slices.idle();
    expect(offered.sort((a, b) => a - b)).toEqual([42, 20_000]);
    expect(retried.at(-1)).toBeUndefined(); // every skip reason may have changed
  });

  test("a frame that removes 1,000 ids cancels them in slices, before the offers of the frames after it", async () => {
    const { ingest, offered, cancelled, order, slices } = setup();
    const push = (id: number, qty: number) => ({
      liquidationId: id,
      timestamp: id,
      type: "liquidated",
      positionsByPerp: qty === 0 ? [] : [{ symbol: "PERP_ETH_USDC", positionQty: qty, liquidatorFee: 0.008 }],
    });
    ingest.stream(["liquidation", Array.from({ length: 1_000 }, (_, i) => push(i + 1, 1)), undefined]);
    // Removed before the first frame's slices ran: each id's first push is still recorded before its cancel.
    ingest.stream(["liquidation", [push(7, 0)], undefined]);
    expect(order).toEqual([]);
    await slices.idle();
    expect(order.indexOf("seen 7")).toBeGreaterThanOrEqual(0);
    expect(order.indexOf("seen 7")).toBeLessThan(order.indexOf("cancel 7"));
    expect(order.filter((e) => e.startsWith("seen"))).toHaveLength(1_000);
    offered.length = 0;
    cancelled.length = 0;
    ingest.stream(["liquidation", Array.from({ length: 1_000 }, (_, i) => push(i + 1, 0)), undefined]);
    ingest.stream(["liquidation", [push(5_000, 1)], undefined]); // small, but behind the removals
    expect(cancelled.length).toBeLessThan(1_000); // not all in the frame's own turn
    expect(offered).toEqual([]);
    await slices.idle();
    expect(cancelled).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 1).filter((id) => id !== 7));
    expect(offered).toEqual([5_000]);
  });

  test("the first positions read ends the start-up wait and sets held exposure; later reads do not pause", () => {
    const { ingest, paused, exposure } = setup();
    expect(paused.has("positions")).toBe(true);
    ingest.restPositions({ data: { rows: [{ symbol: "PERP_ETH_USDC", position_qty: -2 }] }, venueTs: 5 });
    expect(paused.has("positions")).toBe(false);
    expect(exposure.heldQty("PERP_ETH_USDC")).toBe(-2);
    ingest.restPositions({ data: { rows: [] }, venueTs: 6 });
    expect(exposure.heldQty("PERP_ETH_USDC")).toBe(0);
  });

  test("nothing is offered before a symbol table is loaded: a claim's form depends on the tiers", () => {
    const { offered } = setup();
    const exposure = new Exposure();
    const marks = new MarkBook();
    const cold = new Ingest({
      book: new OpenBook(),
      marks,
      positions: new PositionBook(exposure),
      policy: new PolicyState(policyInput({}), marks, exposure),
      metrics: { liquidationsSeen: { inc: () => undefined } } as never,
      logger: { info: () => undefined },
      claimer: {
        offer: (l: Liquidation) => void offered.push(l.liquidationId),
        sendNow: () => undefined,
        cancel: () => undefined,
        sweep: () => undefined,
        retrySkipped: () => undefined,
        setPaused: () => undefined,
        pausedReasons: () => [],
      },
      core: coreOf(new PositionBook(exposure)),
    });
    cold.openList([row(1, 1)], 1);
    expect(offered).toEqual([]);
  });

  test("the margin check fails closed: nothing is claimed until the collateral and a leverage are known (issue #33)", () => {
    const { ingest, paused } = setup(undefined, new AccountBook());
    expect(paused.has("account")).toBe(true);
    // The positions read gives the collateral, and its rows carry no leverage: still not checkable.
    ingest.restPositions({ data: { rows: [], total_collateral_value: 2_000 }, venueTs: 5 });
    expect(paused.has("positions")).toBe(false);
    expect(paused.has("account")).toBe(true);
    ingest.leverages([{ symbol: "PERP_ETH_USDC", leverage: 10 }]);
    expect(paused.has("account")).toBe(false);
  });

  test("without an account book (the lab's ingest, a test's) the account never pauses claiming", () => {
    const { ingest, paused } = setup();
    ingest.restPositions({ data: { rows: [] }, venueTs: 5 });
    expect(paused.has("account")).toBe(false);
  });
});
