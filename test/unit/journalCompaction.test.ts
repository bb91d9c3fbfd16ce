import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { JOURNAL_VERSION, type JournalRecord, recordSchema } from "../../src/core/journalRecords.js";
import { openOrdersForTests } from "../../src/daemon/control/leadership.js";
import { ConfigError, exitStatusFor } from "../../src/errors.js";
import { JOURNAL_FILE, Journal, venueHeader } from "../../src/store/fileJournal.js";
import { compact, HISTORY_DIR, listSegments, readHistory, SNAPSHOT_FILE } from "../../src/store/journalFiles.js";
import { openOwnJournal } from "../../src/store/openOwnJournal.js";
import { leadershipUnsettled, ledgerOf, restoreIds } from "../support/journalRestore.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "journal-compact-"));
  dirs.push(d);
  return d;
}
const quiet = { warn: () => undefined, error: () => undefined, info: () => undefined };
const VENUE = { at: 1_790_000_000_000, baseUrl: "https://api.venue.example", accountId: "0xacc" };

/** A settled, unwound claim (intent, accepted with its fill, order, filled, fill). */
function settled(id: number, at: number): JournalRecord[] {
  const cid = `lq-${id}`;
  return [
    { t: "intent", id, at, ratio: 1, limitPrice: { PERP_BTC_USDC: 100 }, expectedFee: 1, perSymbolQty: { PERP_BTC_USDC: 1 } },
    { t: "outcome", id, at: at + 1, result: "accepted", fills: [{ symbol: "PERP_BTC_USDC", qty: 1, price: 100, fee: 1 }] },
    {
      t: "order_intent",
      clientOrderId: cid,
      at: at + 2,
      symbol: "PERP_BTC_USDC",
      side: "SELL",
      orderType: "IOC",
      price: 99,
      quantity: 1,
      reduceOnly: true,
      seq: id,
    },
    { t: "order_outcome", clientOrderId: cid, at: at + 3, result: "filled", filledQty: -1 },
    {
      t: "order_fill",
      clientOrderId: cid,
      symbol: "PERP_BTC_USDC",
      qty: -1,
      price: 100 + (id % 3),
      fee: 0.1,
      tradeId: `t${id}`,
      at: at + 3,
    },
  ];
}
/** Claims still open at the end: an intent with no outcome (21), an unknown one (22), an unsettled order (23), a dry run (24). */
function stillOpen(at: number): JournalRecord[] {
  return [
    {
      t: "intent",
      id: 21,
      at,
      ratio: 1,
      limitPrice: {},
      expectedFee: 1,
      perSymbolQty: {},
      open: [{ symbol: "PERP_BTC_USDC", positionQty: 1, liquidatorFee: 0.01 }],
    },
    { t: "intent", id: 22, at, ratio: 1, limitPrice: {}, expectedFee: 1, perSymbolQty: {} },
    { t: "outcome", id: 22, at, result: "unknown" },
    {
      t: "order_intent",
      clientOrderId: "lq-23",
      at,
      symbol: "PERP_BTC_USDC",
      side: "BUY",
      orderType: "IOC",
      price: 1,
      quantity: 1,
      reduceOnly: true,
      seq: 23,
    },
    { t: "order_outcome", clientOrderId: "lq-23", at, result: "unknown" },
    { t: "intent", id: 24, at, ratio: 1, limitPrice: {}, expectedFee: 1, perSymbolQty: {}, dryRun: true },
    { t: "outcome", id: 24, at, result: "dry_run" },
  ];
}

function open(dir: string) {
  return Journal.open({ dir, rotateCheckMs: 0, autoCompact: false, logger: quiet });
}

/** Journal with ids 1..20 settled (rotated into history), the open ones in the tail. */
async function journalWithHistory(dir: string): Promise<void> {
  const { journal } = open(dir);
  for (const r of venueHeader(VENUE)) journal.append(r);
  for (let id = 1; id <= 20; id++) for (const r of settled(id, VENUE.at + id * 10)) journal.append(r);
  journal.rotate();
  for (const r of stillOpen(VENUE.at + 1000)) journal.append(r);
  await journal.close();
}

/** What a restart makes of the folder: the ids it will never claim, the unknown ones, P&L, orders. */
function restart(dir: string) {
  const { journal, replay } = open(dir);
  void journal.close();
  const ids = restoreIds(replay);
  return { ...ids, totals: ledgerOf(replay).totals(), orders: leadershipUnsettled(replay) };
}

const ALL = [...Array.from({ length: 22 }, (_, i) => i + 1)];

describe("file journal compaction", () => {
  test("rotation then compaction: a restart blocks the same ids, settles the same orders, keeps the same P&L", async () => {
    const dir = tempDir();
    await journalWithHistory(dir);
    const full = ledgerOf(readHistory(dir)).totals();
    const before = restart(dir);
    expect(before.blocked).toEqual(ALL);
    // Both settled from the venue's record after the restart: 21 killed in flight, 22 answered unknown.
    expect(before.unknown).toEqual([21, 22]);
    await compact(dir, Date.now());
    expect(existsSync(join(dir, SNAPSHOT_FILE))).toBe(true);
    const after = restart(dir);
    expect(after.blocked).toEqual(ALL);
    expect(after.unknown).toEqual([21, 22]);
    expect(after.orders).toEqual({ unsettled: ["lq-23"], firstSeq: 24 });
    expect(after.totals.liquidatorFee).toBeCloseTo(full.liquidatorFee, 9);
    expect(after.totals.trading).toBeCloseTo(full.trading, 9);
    expect(after.totals.net).toBeCloseTo(full.net, 9);
    // Start-up no longer reads the folded history: it replays only the tail.
    const { journal, replay } = open(dir);
    await journal.close();
    expect(replay.intents.size).toBe(3);
    expect(replay.core?.done.size).toBe(20);
  });

  const kills = ["rotated, never compacted", "folded", "temp", "renamed"] as const;
  for (const kill of kills) {
    test(`a compaction killed at "${kill}" leaves the old or the new state: nothing claimable twice, no P&L counted twice`, async () => {
      const dir = tempDir();
      await journalWithHistory(dir);
      const full = ledgerOf(readHistory(dir)).totals();
      if (kill !== "rotated, never compacted") {
        await expect(
          compact(dir, Date.now(), (step) => {
            if (step === kill) throw new Error("killed");
          }),
        ).rejects.toThrow("killed");
      }
      if (kill === "renamed") {
        // Killed after the rename, before the folder's fsync: the new snapshot is there (or, after a
        // power cut, the old one: the "folded" case).
        expect(existsSync(join(dir, SNAPSHOT_FILE))).toBe(true);
      }
      const r = restart(dir);
      expect(r.blocked).toEqual(ALL);
      expect(r.unknown).toEqual([21, 22]);
      expect(r.totals.net).toBeCloseTo(full.net, 9);
      expect(r.orders).toEqual({ unsettled: ["lq-23"], firstSeq: 24 });
      expect(existsSync(join(dir, `${SNAPSHOT_FILE}.tmp`))).toBe(false);
      // Life goes on: more claims, another rotation and a full compaction, then a restart.
      const { journal } = open(dir);
      for (let id = 30; id <= 32; id++) for (const r2 of settled(id, VENUE.at + 5000 + id)) journal.append(r2);
      journal.rotate();
      await journal.close();
      await compact(dir, Date.now());
      const again = restart(dir);
      expect(again.blocked).toEqual([...ALL, 30, 31, 32]);
      expect(again.totals.net).toBeCloseTo(ledgerOf(readHistory(dir)).totals().net, 9);
      expect(listSegments(dir).length).toBeGreaterThanOrEqual(2);
    });
  }

  test("an open order's trades so far survive a compaction (its settlement after a restart adds only the rest)", async () => {
    const dir = tempDir();
    const { journal } = open(dir);
    for (const r of venueHeader(VENUE)) journal.append(r);
    for (const r of stillOpen(VENUE.at + 10)) journal.append(r);
    const fill = {
      t: "order_fill",
      clientOrderId: "lq-23",
      symbol: "PERP_BTC_USDC",
      qty: 0.4,
      price: 1,
      fee: 0.01,
      tradeId: "z1",
      at: VENUE.at + 11,
      venueTs: 1,
    } as const;
    journal.append(fill);
    journal.rotate();
    await journal.close();
    const before = ledgerOf(readHistory(dir)).totals();
    await compact(dir, Date.now());
    const again = open(dir);
    await again.journal.close();
    const { fills } = openOrdersForTests(again.replay.core as NonNullable<typeof again.replay.core>);
    expect(fills.get("lq-23")).toEqual([fill]);
    // ...and the ledger counts it once.
    expect(ledgerOf(again.replay).totals().fees).toBeCloseTo(before.fees, 12);
  });

  test("the protections' last state survives a compaction (a restart carries on, it does not re-arm)", async () => {
    const dir = tempDir();
    const halted = {
      t: "protection",
      at: VENUE.at + 5,
      state: "halted",
      halted: true,
      reducing: false,
      day: "2026-01-05",
      dayBaseline: 0,
      peak: 12,
      streaks: { PERP_ETH_USDC: 2 },
      cooldowns: {},
      trip: "daily_loss",
    } as const;
    const { journal } = open(dir);
    for (const r of venueHeader(VENUE)) journal.append(r);
    journal.append(halted);
    for (let id = 1; id <= 3; id++) for (const r of settled(id, VENUE.at + id * 10)) journal.append(r);
    journal.rotate();
    await journal.close();
    await compact(dir, Date.now());
    const again = open(dir);
    await again.journal.close();
    expect(again.replay.protection).toEqual(halted);
  });

  test("a tail rotated by a kill before its new header: the venue comes from the snapshot and a header is written", async () => {
    const dir = tempDir();
    await journalWithHistory(dir);
    await compact(dir, Date.now());
    // Killed right after the rename of the tail: no claims.jsonl at all.
    renameSync(join(dir, JOURNAL_FILE), join(dir, HISTORY_DIR, "claims-2026-01-01-00000099.jsonl"));
    const opened = openOwnJournal({ dir, owner: { ...VENUE, simulated: false }, logger: quiet });
    await opened.journal.close();
    expect(restoreIds(opened.replay).blocked).toEqual(ALL);
    expect(opened.replay.venue).toMatchObject({ baseUrl: VENUE.baseUrl, accountId: VENUE.accountId });
    const first = readFileSync(join(dir, JOURNAL_FILE), "utf8").split("\n")[1] as string;
    expect(JSON.parse(first)).toMatchObject({ t: "venue", baseUrl: VENUE.baseUrl, version: JOURNAL_VERSION });
  });

  test("a tail found past segmentBytes (a format-1 journal) becomes a segment at open and is folded", async () => {
    const dir = tempDir();
    await journalWithHistory(dir);
    const { journal } = Journal.open({ dir, rotateCheckMs: 0, autoCompact: false, segmentBytes: 10, logger: quiet });
    await journal.close();
    expect(statSync(join(dir, JOURNAL_FILE)).size).toBeLessThan(1000);
    expect(restart(dir).blocked).toEqual(ALL);
    expect(JSON.parse(readFileSync(join(dir, SNAPSHOT_FILE), "utf8")).through).toBe(2);
  });
});

describe("journal format versions", () => {
  const FIXTURE = join(import.meta.dirname, "../fixtures/journal-v1/claims.jsonl");
  const owner = { baseUrl: "https://testnet-api.orderly.org", accountId: "0xfixture", simulated: false };

  test("a format-1 journal written by the previous build is read, adopted, and survives compaction", async () => {
    const dir = tempDir();
    copyFileSync(FIXTURE, join(dir, JOURNAL_FILE));
    const first = openOwnJournal({ dir, owner, logger: quiet });
    const ids = restoreIds(first.replay);
    expect(ids.blocked).toEqual([1001, 1003, 1004, 1005]);
    // 1003 answered unknown, 1004 killed in flight: both settled from the venue's record after a start.
    expect(ids.unknown).toEqual([1003, 1004]);
    expect(leadershipUnsettled(first.replay)).toEqual({ unsettled: ["lqabc-2"], firstSeq: 3 });
    const pnl = ledgerOf(first.replay).totals();
    expect(pnl.liquidatorFee).toBe(3);
    first.journal.rotate();
    await first.journal.close();
    await compact(dir, Date.now());
    const again = openOwnJournal({ dir, owner, logger: quiet });
    await again.journal.close();
    expect(restoreIds(again.replay)).toEqual(ids);
    expect(leadershipUnsettled(again.replay)).toEqual({ unsettled: ["lqabc-2"], firstSeq: 3 });
    expect(ledgerOf(again.replay).totals()).toEqual(pnl);
  });

  test("a journal of a newer format is refused (exit 78, saying what to do) and left untouched", () => {
    const dir = tempDir();
    const lines = `${JSON.stringify({ t: "venue", at: 1, baseUrl: "x", accountId: "y", version: JOURNAL_VERSION + 1 })}\n`;
    writeFileSync(join(dir, JOURNAL_FILE), lines);
    let err: unknown;
    try {
      Journal.open({ dir, rotateCheckMs: 0, segmentBytes: 1 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(exitStatusFor(err as ConfigError)).toBe(78);
    expect((err as Error).message).toMatch(
      new RegExp(`format ${JOURNAL_VERSION + 1}, written by a newer liquidator.*Run the newer build again.*restore the backup`),
    );
    expect(readFileSync(join(dir, JOURNAL_FILE), "utf8")).toBe(lines);
    expect(readdirSync(join(dir, HISTORY_DIR))).toEqual([]);
  });

  test("a snapshot of a newer format is refused too", () => {
    const dir = tempDir();
    writeFileSync(join(dir, SNAPSHOT_FILE), JSON.stringify({ t: "snapshot", version: JOURNAL_VERSION + 1, done: [], open: [] }));
    expect(() => Journal.open({ dir, rotateCheckMs: 0 })).toThrow(
      new RegExp(`format ${JOURNAL_VERSION + 1}, written by a newer liquidator`),
    );
  });

  test("a format-1 build reading a format-2 tail sees another venue first (so it exits 78 instead of replaying it)", () => {
    const [guard] = venueHeader(VENUE);
    // The format-1 reader takes the first venue record as the journal's owner.
    const first = recordSchema.parse(JSON.parse(JSON.stringify(guard)));
    expect(first.t === "venue" && first.baseUrl).not.toBe(VENUE.baseUrl);
    expect(first.t === "venue" && first.baseUrl).toMatch(/newer liquidator/);
  });
});

describe("a restart costs what is open", () => {
  /** A busy tail: every settled claim beside the opportunity ledger's records of its liquidation. */
  async function busyTail(dir: string): Promise<void> {
    const { journal } = open(dir);
    for (const r of venueHeader(VENUE)) journal.append(r);
    for (let id = 1; id <= 20; id++) {
      journal.append({ t: "seen", id, at: VENUE.at + id, fees: { PERP_BTC_USDC: 1 } });
      for (const r of settled(id, VENUE.at + id * 10)) journal.append(r);
      journal.append({ t: "gone", id, at: VENUE.at + id * 10 + 5, wanted: false });
    }
    for (const r of stillOpen(VENUE.at + 1000)) journal.append(r);
    await journal.close();
  }
  const lean = (dir: string) => Journal.open({ dir, rotateCheckMs: 0, autoCompact: false, keepRecords: false, logger: quiet });

  test("the daemon's open keeps the core's state only, the same state as with every record kept", async () => {
    const dir = tempDir();
    await busyTail(dir);
    const kept = open(dir);
    await kept.journal.close();
    const { journal, replay } = lean(dir);
    await journal.close();
    expect(replay.intents.size).toBe(0);
    expect(replay.orders.fills).toEqual([]);
    expect(replay.records).toBe(kept.replay.records);
    expect(restoreIds(replay)).toEqual(restoreIds(kept.replay));
    expect(ledgerOf(replay).totals()).toEqual(ledgerOf(kept.replay).totals());
    expect(leadershipUnsettled(replay)).toEqual(leadershipUnsettled(kept.replay));
  });

  test("a stop that compacts leaves the next start nothing to replay but the header, and the same state", async () => {
    const dir = tempDir();
    await busyTail(dir);
    const before = restart(dir);
    const { journal } = lean(dir);
    await journal.close({ compact: true });
    expect(listSegments(dir)).toHaveLength(1);
    const { journal: again, replay } = lean(dir);
    await again.close({ compact: true });
    // The second stop had nothing but a header to fold: no new segment.
    expect(listSegments(dir)).toHaveLength(1);
    expect(replay.records).toBeLessThanOrEqual(2);
    expect(restart(dir)).toEqual(before);
  });
});
