/**
 * What is ours (`unwind.scope: claimed`, core/holdings.ts) across a compaction of the file journal: claims,
 * partial unwinds, a lean answer corrected by its push, a claim whose margin mode is said only after
 * a rotation, and the operator's own position on the same account. After the history is folded into
 * the snapshot (and after a compaction killed at each step), a restart owes the unwinder exactly
 * what it owed before, still leaves the operator's position alone, and counts no claim twice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { CoreFold } from "../../src/core/coreFold.js";
import type { JournalRecord } from "../../src/core/journalRecords.js";
import type { TradingCore } from "../../src/core/tradingCore.js";
import { Exposure } from "../../src/engine/exposure.js";
import { PositionBook } from "../../src/engine/positionBook.js";
import type { MarginMode } from "../../src/engine/types.js";
import { Journal, venueHeader } from "../../src/store/fileJournal.js";
import { compact, readCurrent, readHistory } from "../../src/store/journalFiles.js";
import type { JournalReplay } from "../../src/store/journalReplay.js";
import { coreOver, ledgerOf, restartedCore, restoreIds } from "../support/journalRestore.js";

const ETH = "PERP_ETH_USDC";
const BTC = "PERP_BTC_USDC";
const POSITIONS: [string, MarginMode][] = [
  [ETH, "CROSS"],
  [ETH, "ISOLATED"],
  [BTC, "CROSS"],
  [BTC, "ISOLATED"],
];
const quiet = { warn: () => undefined, error: () => undefined, info: () => undefined };
const VENUE = { at: 1_790_000_000_000, baseUrl: "https://api.venue.example", accountId: "0xacc" };

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(dir: string) {
  return Journal.open({ dir, rotateCheckMs: 0, autoCompact: false, logger: quiet });
}

/**
 * The daemon's accounting (the trading core) on a position book, journaling into a real file
 * journal: a record is applied to the core's state as it is written (what the core's `record` does),
 * and the venue's reports go through the core, which journals the margin modes and what was closed
 * elsewhere itself.
 */
function liveRig(journal: Journal) {
  const positions = new PositionBook(new Exposure());
  let ts = VENUE.at;
  const core = coreOver(new CoreFold(), positions, { append: (r) => journal.append(r) });
  const append = (r: JournalRecord) => {
    core.fold.add(r);
    journal.append(r);
  };
  const held = (symbol: string, mode: MarginMode) => positions.held(symbol, mode);
  const push = (symbol: string, mode: MarginMode, qty: number) =>
    core.positionsPush([{ symbol, positionQty: qty, marginMode: mode }], ++ts);
  const intent = (id: number, symbol: string, qty: number) =>
    append({ t: "intent", id, at: ++ts, ratio: 1, limitPrice: { [symbol]: 100 }, expectedFee: 1, perSymbolQty: { [symbol]: qty } });
  /** The claim answered with its fills; the venue's report of the position (where it landed) is up to the caller. */
  const claim = (id: number, symbol: string, qty: number) => {
    intent(id, symbol, qty);
    positions.settleClaim(id, { [symbol]: qty }, ++ts);
    const fills = [{ symbol, qty, price: 100, fee: 0.5 }];
    append({ t: "outcome", id, at: ++ts, result: "accepted", fills });
  };
  let seq = 0;
  const unwind = (symbol: string, mode: MarginMode, qty: number) => {
    const clientOrderId = `o-${++seq}`;
    const side = qty > 0 ? "BUY" : "SELL";
    append({
      t: "order_intent",
      clientOrderId,
      at: ++ts,
      symbol,
      side,
      orderType: "IOC",
      price: 100,
      quantity: Math.abs(qty),
      reduceOnly: true,
      marginMode: mode,
      seq,
    });
    const fill = { t: "order_fill" as const, clientOrderId, symbol, qty, price: 101, fee: 0.1, tradeId: `t${seq}`, at: ++ts };
    append(fill);
    positions.applyOwnFill(symbol, qty, ++ts, mode);
    append({ t: "order_outcome", clientOrderId, at: ++ts, result: "filled", filledQty: qty });
  };
  return { positions, core, held, push, intent, claim, unwind, append, now: () => ++ts };
}

type Rig = ReturnType<typeof liveRig>;

/**
 * Builds the history: returns the live rig (its accounting is what a restart must reproduce) with
 * the journal closed. Two rotations cut through it, one of them between a claim and the report
 * that says its margin mode, one between a lean answer and the push with its fills.
 */
async function history(dir: string): Promise<Rig> {
  const { journal } = open(dir);
  for (const r of venueHeader(VENUE)) journal.append(r);
  const r = liveRig(journal);
  // The operator's own long, on the account before any claim.
  r.core.positionsSnapshot([{ symbol: ETH, positionQty: 2, marginMode: "CROSS" }], r.now());
  r.claim(1, ETH, 1);
  r.push(ETH, "CROSS", 3);
  r.unwind(ETH, "CROSS", -0.4); // partial: 0.6 of claim 1 still owed
  r.claim(2, BTC, 0.5);
  r.push(BTC, "ISOLATED", 0.5);
  r.unwind(BTC, "ISOLATED", -0.5); // all of claim 2: unwound
  // Claim 7 closed by the operator by hand: the venue reports it flat while nothing of ours moves
  // there, so what was ours is closed elsewhere (an `ours` record); the long the operator opens next is theirs.
  r.claim(7, BTC, 1);
  r.push(BTC, "CROSS", 1);
  r.push(BTC, "CROSS", 0);
  r.push(BTC, "CROSS", 2);
  journal.rotate();
  // Claim 3 answered lean (applied, fills unknown): counted at its request until the push.
  r.intent(3, ETH, 0.7);
  r.positions.settleClaim(3, { [ETH]: 0.7 }, r.now());
  r.append({ t: "outcome", id: 3, at: r.now(), result: "accepted" });
  r.push(ETH, "CROSS", r.held(ETH, "CROSS") + 0.6);
  // Claim 4 lands in an isolated position.
  r.claim(4, ETH, 0.2);
  r.push(ETH, "ISOLATED", 0.2);
  // Claim 5: answered, the report of where it landed not yet in.
  r.claim(5, ETH, 0.3);
  journal.rotate();
  r.push(ETH, "CROSS", r.held(ETH, "CROSS") + 0.3);
  // The push confirming claim 3 with its fills: 0.6, not the 0.7 requested.
  const fills3 = [{ symbol: ETH, qty: 0.6, price: 100, fee: 0.4 }];
  r.append({ t: "outcome", id: 3, at: r.now(), result: "confirmed", fills: fills3 });
  // A late duplicate of claim 1's answer (a push replayed across a reconnect): counted once.
  const fills1 = [{ symbol: ETH, qty: 1, price: 100, fee: 0.5 }];
  r.append({ t: "outcome", id: 1, at: r.now(), result: "confirmed", fills: fills1 });
  // Claim 6: sent, no answer yet (unknown).
  r.intent(6, ETH, 0.1);
  r.append({ t: "outcome", id: 6, at: r.now(), result: "unknown" });
  await journal.close();
  return r;
}

/** What a restarted daemon's core makes of a replay, with the venue reporting what the live one holds. */
function restarted(live: Rig, replay: JournalReplay) {
  const positions = new PositionBook(new Exposure());
  positions.applySnapshot(
    POSITIONS.map(([symbol, marginMode]) => ({ symbol, positionQty: live.held(symbol, marginMode), marginMode })),
    1,
  );
  return { positions, core: restartedCore(replay, positions) };
}

function owedOf(core: TradingCore) {
  const h = core.fold.holdings;
  return POSITIONS.map(([symbol, mode]) => [symbol, mode, h.ours(symbol, mode), h.unplaced(symbol)]);
}

function restartAfterOpen(dir: string, live: Rig) {
  const { journal, replay } = open(dir);
  void journal.close();
  return { ...restarted(live, replay), ids: restoreIds(replay) };
}

/** Read without writing (Journal.open folds the segments it reads into the snapshot itself). */
function restartReadOnly(dir: string, live: Rig) {
  const replay = readCurrent(dir);
  return { ...restarted(live, replay), ids: restoreIds(replay) };
}

describe("claimed accounting across a compaction", () => {
  test("a restart from the snapshot owes what the live daemon owed; the operator's position is left alone", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-claimed-"));
    dirs.push(dir);
    const live = await history(dir);
    const expected = owedOf(live.core);
    // What the live accounting says, by hand: 0.6 of claim 1 + 0.6 of claim 3 + claim 5's 0.3 in
    // cross, claim 4 in isolated, BTC settled (the operator's 2 BTC in cross are not owed).
    expect(expected).toEqual([
      [ETH, "CROSS", 1.5, 0],
      [ETH, "ISOLATED", 0.2, 0],
      [BTC, "CROSS", 0, 0],
      [BTC, "ISOLATED", 0, 0],
    ]);
    expect(live.held(ETH, "CROSS")).toBeCloseTo(3.5, 9);

    const before = restartReadOnly(dir, live);
    expect(owedOf(before.core)).toEqual(expected);
    expect(await compact(dir, Date.now())).toBe(2);

    const after = restartAfterOpen(dir, live);
    expect(owedOf(after.core)).toEqual(expected);
    expect(after.ids).toEqual(before.ids);
    // The unwinder may close the claims' 1.5 of the 3.5 held in cross; the operator's 2 stays.
    expect(after.core.account.target(ETH, "CROSS", live.held(ETH, "CROSS"))).toBeCloseTo(1.5, 9);
    expect(after.core.account.target(BTC, "CROSS", 2)).toBe(0);
    expect(after.core.account.unexplained()).toEqual([
      { symbol: ETH, marginMode: "CROSS", qty: 2 },
      { symbol: BTC, marginMode: "CROSS", qty: 2 },
    ]);
    // The same as a replay of every record ever written.
    expect(owedOf(restarted(live, readHistory(dir)).core)).toEqual(expected);
    // A late push of a claim folded into the snapshot counts nothing twice.
    after.core.fold.add({ t: "outcome", id: 1, at: 1, result: "confirmed", fills: [{ symbol: ETH, qty: 1, price: 100, fee: 0.5 }] });
    after.core.fold.add({ t: "outcome", id: 3, at: 1, result: "confirmed", fills: [{ symbol: ETH, qty: 0.6, price: 100, fee: 0.4 }] });
    expect(owedOf(after.core)).toEqual(expected);
  });

  for (const kill of ["folded", "temp", "renamed"] as const) {
    test(`a compaction killed at "${kill}": the same owed, the same ids blocked, then a full compaction agrees`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "journal-claimed-"));
      dirs.push(dir);
      const live = await history(dir);
      const expected = owedOf(live.core);
      const before = restartReadOnly(dir, live);
      await expect(
        compact(dir, Date.now(), (step) => {
          if (step === kill) throw new Error("killed");
        }),
      ).rejects.toThrow("killed");
      const r = restartAfterOpen(dir, live);
      expect(owedOf(r.core)).toEqual(expected);
      expect(r.ids).toEqual(before.ids);
      expect(r.ids.blocked).toEqual([1, 2, 3, 4, 5, 6, 7]);
      // Claim 6 answered unknown: settled from the venue's record after the restart.
      expect(r.ids.unknown).toEqual([6]);
      await compact(dir, Date.now());
      const again = restartAfterOpen(dir, live);
      expect(owedOf(again.core)).toEqual(expected);
      expect(again.ids).toEqual(before.ids);
    });
  }

  test("a claim refused (re-claimable) before a compaction and claimed again after it is counted: fee and owed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-claimed-"));
    dirs.push(dir);
    const first = open(dir);
    for (const r of venueHeader(VENUE)) first.journal.append(r);
    const claim9 = {
      t: "intent" as const,
      id: 9,
      at: VENUE.at,
      ratio: 1,
      limitPrice: { [ETH]: 100 },
      expectedFee: 1,
      perSymbolQty: { [ETH]: 1 },
    };
    first.journal.append(claim9);
    first.journal.append({ t: "outcome", id: 9, at: VENUE.at + 1, result: "rejected", code: -1000 });
    first.journal.rotate();
    await first.journal.close();
    expect(await compact(dir, Date.now())).toBe(1);
    const second = open(dir);
    second.journal.append({ ...claim9, at: VENUE.at + 2 });
    const fills = [{ symbol: ETH, qty: 1, price: 100, fee: 0.5 }];
    second.journal.append({ t: "outcome", id: 9, at: VENUE.at + 3, result: "accepted", fills });
    second.journal.append({ t: "claim_mode", id: 9, symbol: ETH, marginMode: "ISOLATED", at: VENUE.at + 4 });
    await second.journal.close();
    const { journal, replay } = open(dir);
    await journal.close();
    expect(replay.core?.done.values()).toEqual([9]);
    expect(ledgerOf(replay).totals().liquidatorFee).toBe(0.5);
    expect(replay.core?.holdings.ours(ETH, "ISOLATED")).toBe(1);
    expect(restoreIds(replay).blocked).toEqual([9]);
  });

  test("a fill reported after its order's final outcome, across a compaction, still counts as unwound", async () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-claimed-"));
    dirs.push(dir);
    const first = open(dir);
    for (const r of venueHeader(VENUE)) first.journal.append(r);
    const fills = [{ symbol: ETH, qty: 1, price: 100, fee: 0.5 }];
    first.journal.append({ t: "intent", id: 1, at: VENUE.at, ratio: 1, limitPrice: {}, expectedFee: 1, perSymbolQty: { [ETH]: 1 } });
    first.journal.append({ t: "outcome", id: 1, at: VENUE.at + 1, result: "accepted", fills });
    first.journal.append({ t: "claim_mode", id: 1, symbol: ETH, marginMode: "ISOLATED", at: VENUE.at + 2 });
    first.journal.append({
      t: "order_intent",
      clientOrderId: "o-1",
      at: VENUE.at + 3,
      symbol: ETH,
      side: "SELL",
      orderType: "IOC",
      price: 99,
      quantity: 1,
      reduceOnly: true,
      marginMode: "ISOLATED",
      seq: 1,
    });
    first.journal.append({ t: "order_outcome", clientOrderId: "o-1", at: VENUE.at + 4, result: "filled", filledQty: -0.4 });
    first.journal.rotate();
    // The trade report comes in after the rotation (and after the order was settled).
    first.journal.append({
      t: "order_fill",
      clientOrderId: "o-1",
      symbol: ETH,
      qty: -0.4,
      price: 99,
      fee: 0.1,
      tradeId: "t1",
      at: VENUE.at + 5,
    });
    await first.journal.close();
    expect(readHistory(dir).core?.holdings.ours(ETH, "ISOLATED")).toBeCloseTo(0.6, 9);
    expect(await compact(dir, Date.now())).toBe(1);
    const { journal, replay } = open(dir);
    await journal.close();
    expect(replay.core?.holdings.ours(ETH, "ISOLATED")).toBeCloseTo(0.6, 9);
  });
});
