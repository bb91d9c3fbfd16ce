/**
 * A month of history (≥ 1 GiB in 30 daily segments) behind a compacted snapshot: start-up reads the
 * snapshot and the tail, never the history. Checked by bytes read (/proc/self/io) and memory, not
 * by time (the time is printed).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { CoreFold } from "../../src/core/coreFold.js";
import { toSnapshot } from "../../src/core/coreSnapshot.js";
import { parseRecord } from "../../src/core/journalRecords.js";
import { Journal, venueHeader } from "../../src/store/fileJournal.js";
import { ensureHistoryDir, listSegments, segmentPath, writeSnapshot } from "../../src/store/journalFiles.js";
import { ledgerOf } from "../support/journalRestore.js";
import { syntheticClaim, syntheticLine, writeSyntheticHistory } from "../support/syntheticJournal.js";

const GIB = 1024 ** 3;
const DAY = 86_400_000;
/** Start-up may read this much at most (the snapshot and the tail), whatever the history. */
const READ_LIMIT = 64 * 1024 * 1024;
/** And grow the process's resident memory by at most this much. */
const RSS_LIMIT = 160 * 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), "journal-month-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bytesRead(): number {
  if (!existsSync("/proc/self/io")) return 0;
  const m = /rchar: (\d+)/.exec(readFileSync("/proc/self/io", "utf8"));
  return Number(m?.[1] ?? 0);
}

test("the synthetic lines are the records they stand for", () => {
  for (const r of syntheticClaim(7, Date.parse("2026-10-01T00:00:00Z"), 30)) expect(parseRecord(syntheticLine(r, 30))).toEqual(r);
});

test("a month of history (≥ 1 GiB) opens reading only the snapshot and the tail, within the memory limit", {
  timeout: 240_000,
}, async () => {
  const venue = { at: Date.parse("2026-10-01T00:00:00Z"), baseUrl: "https://api.venue.example", accountId: "0xmonth" };
  const folder = new CoreFold();
  ensureHistoryDir(dir);
  let t = performance.now();
  let id = 1;
  let bytes = 0;
  for (let day = 0; day < 30; day++) {
    const start = venue.at + day * DAY;
    const w = writeSyntheticHistory(segmentPath(dir, day + 1, start), {
      firstId: id,
      bytes: Math.ceil((1.02 * GIB) / 30),
      start,
      spanMs: DAY,
      symbols: 30,
      head: venueHeader(venue),
      onRecord: (r) => folder.add(r),
    });
    id += w.claims;
    bytes += w.bytes;
    folder.through = day + 1;
  }
  // The background compaction's result, written the way it writes it.
  writeSnapshot(dir, toSnapshot(folder, Date.now()));
  const claims = id - 1;
  const generateMs = performance.now() - t;
  expect(bytes).toBeGreaterThanOrEqual(GIB);
  expect(listSegments(dir)).toHaveLength(30);
  // Today's tail: a few claims, one still open.
  {
    const { journal } = Journal.open({ dir, rotateCheckMs: 0, autoCompact: false });
    for (const r of syntheticClaim(id, venue.at + 30 * DAY, 12)) journal.append(r);
    journal.append({ t: "intent", id: id + 1, at: venue.at + 30 * DAY + 1, ratio: 1, limitPrice: {}, expectedFee: 1, perSymbolQty: {} });
    await journal.close();
  }

  const rss0 = process.memoryUsage().rss;
  const read0 = bytesRead();
  t = performance.now();
  const { journal, replay } = Journal.open({ dir, rotateCheckMs: 0, autoCompact: false });
  const openMs = performance.now() - t;
  const read = bytesRead() - read0;
  const rss = process.memoryUsage().rss - rss0;
  await journal.close();
  const ledger = ledgerOf(replay).totals();
  console.log(
    `NOTE: month journal: ${(bytes / GIB).toFixed(2)} GiB, ${claims} claims in 30 segments, generated in ${(generateMs / 1000).toFixed(1)} s; ` +
      `open: ${openMs.toFixed(0)} ms, ${(read / 1e6).toFixed(1)} MB read, RSS +${(rss / 1e6).toFixed(1)} MB`,
  );
  // Every claim of the month and today's settled one are never claimed again; today's open intent is pending.
  expect(replay.core?.done.size).toBe(claims + 1);
  expect([...(replay.core?.claims.keys() ?? [])]).toEqual([id + 1]);
  // What is ours folded too: every claim placed and unwound, nothing owed, nothing left unplaced.
  const holdings = replay.core?.holdings;
  for (const symbol of ["PERP_BTC_USDC", "PERP_ETH_USDC"]) {
    expect(holdings?.ours(symbol, "CROSS")).toBe(0);
    expect(holdings?.unplaced(symbol)).toBe(0);
  }
  expect(holdings?.positions()).toEqual([]);
  expect([...replay.intents.keys()]).toEqual([id, id + 1]);
  expect(ledger.liquidatorFee).toBeCloseTo((claims + 1) * 0.5, 3);
  if (read0 > 0) expect(read).toBeLessThan(READ_LIMIT);
  expect(rss).toBeLessThan(RSS_LIMIT);
});
