/**
 * What a restart costs in memory (issue #33 point 8): `node dist/bench/restartMemory.js [--mb 28.8]`
 * writes a busy day's journal tail (per liquidation a `seen` and a `gone` or `skip`; every tenth
 * claimed, with its intent, outcome, margin mode, unwind order, fill and five markouts; a few claims
 * still open), then starts a fresh process per case that opens it the daemon's way and reports its
 * heap and RSS after a full GC:
 *
 * - `compacted`: the same state after a stop that folded the tail (what the process held before);
 * - `tail`: the tail replayed as the daemon now does (the core's state only);
 * - `tail+records`: the tail replayed keeping every record in the replay's maps (what it did before).
 *
 * The ratio of `tail` to `compacted` is the figure the issue bounds (RSS within 20 %).
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { JournalRecord } from "../core/journalRecords.js";
import type { OpportunityRecord } from "../core/opportunityRecords.js";
import { Journal, venueHeader } from "../store/fileJournal.js";

const { values } = parseArgs({
  options: {
    mb: { type: "string", default: "28.8" },
    child: { type: "string" },
    keep: { type: "boolean", default: false },
    /** Write the journals here and leave them (default: a temporary folder, removed). */
    dir: { type: "string" },
  },
});

const SYMBOLS = ["PERP_BTC_USDC", "PERP_ETH_USDC", "PERP_SOL_USDC", "PERP_DOGE_USDC"];
const HORIZONS = ["1s", "5s", "30s", "60s", "300s"] as const;

/** A busy day's records for liquidation `id` at `at`. */
function day(id: number, at: number): (JournalRecord | OpportunityRecord)[] {
  const symbol = SYMBOLS[id % SYMBOLS.length] as string;
  const out: (JournalRecord | OpportunityRecord)[] = [{ t: "seen", id, at, venueTs: at - 40, fees: { [symbol]: 3.217 + (id % 7) } }];
  if (id % 10 !== 0) {
    out.push({ t: "skip", id, at: at + 1, reason: id % 3 === 0 ? "below_min_fee" : "exposure_cap" });
    out.push({ t: "gone", id, at: at + 900, wanted: false });
    return out;
  }
  const qty = 0.25 + (id % 5) / 10;
  const price = 2_000 + (id % 100);
  out.push(
    {
      t: "intent",
      id,
      at: at + 2,
      ratio: 1,
      limitPrice: { [symbol]: price },
      expectedFee: 3.2,
      perSymbolQty: { [symbol]: qty },
      attempt: 1,
      open: [{ symbol, positionQty: qty, liquidatorFee: 0.012 }],
    },
    { t: "outcome", id, at: at + 40, result: "accepted", fills: [{ symbol, qty, price, fee: 3.2 }], venueTs: at + 38, attempt: 1 },
    { t: "claim_mode", id, symbol, marginMode: "CROSS", at: at + 60 },
    {
      t: "order_intent",
      clientOrderId: `lqx-${id}`,
      at: at + 200,
      symbol,
      side: "SELL",
      orderType: "IOC",
      price: price * 0.995,
      quantity: qty,
      reduceOnly: true,
      marginMode: "CROSS",
      mark: price,
      seq: id,
    },
    { t: "order_outcome", clientOrderId: `lqx-${id}`, at: at + 230, result: "accepted", orderId: id },
    {
      t: "order_fill",
      clientOrderId: `lqx-${id}`,
      symbol,
      qty: -qty,
      price: price * 0.998,
      fee: 0.2,
      tradeId: `t${id}`,
      at: at + 240,
      venueTs: at + 238,
    },
    {
      t: "order_outcome",
      clientOrderId: `lqx-${id}`,
      at: at + 250,
      result: "filled",
      orderId: id,
      filledQty: -qty,
      avgPrice: price * 0.998,
      fee: 0.2,
    },
    { t: "gone", id, at: at + 300, wanted: false },
  );
  for (const horizon of HORIZONS)
    out.push({
      t: "markout",
      id,
      symbol,
      horizon,
      at: at + 400,
      assignedAt: at + 40,
      qty,
      price,
      mark: price * 1.001,
      markAt: at + 399,
      bps: 10,
    });
  return out;
}

function writeDay(dir: string, bytes: number): number {
  const { journal } = Journal.open({ dir, rotateCheckMs: 0, autoCompact: false, segmentBytes: Number.MAX_SAFE_INTEGER });
  for (const r of venueHeader({ at: 1, baseUrl: "http://bench", accountId: "bench" })) journal.append(r);
  let id = 1;
  const start = Date.UTC(2026, 10, 28);
  while (journal.size() < bytes) {
    for (const r of day(id, start + id * 50)) journal.append(r as JournalRecord);
    id++;
  }
  // A few claims still open (unknown outcome) at the kill.
  for (let open = id; open < id + 5; open++)
    journal.append({
      t: "intent",
      id: open,
      at: start + open * 50,
      ratio: 1,
      limitPrice: { [SYMBOLS[0] as string]: 60_000 },
      expectedFee: 1,
      perSymbolQty: { [SYMBOLS[0] as string]: 0.01 },
      attempt: 1,
    });
  void journal.close();
  return id - 1;
}

/** In the child: open the journal the daemon's way and report memory after a full GC. */
function measure(dir: string, keep: boolean): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  const opened = Journal.open({ dir, rotateCheckMs: 0, autoCompact: false, keepRecords: keep, segmentBytes: Number.MAX_SAFE_INTEGER });
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  process.stdout.write(
    JSON.stringify({
      heapMB: m.heapUsed / 2 ** 20,
      rssMB: m.rss / 2 ** 20,
      records: opened.replay.records,
      open: opened.replay.core?.claims.size,
    }),
  );
}

function child(dir: string, keep: boolean): { heapMB: number; rssMB: number; records: number } {
  const self = fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, ["--expose-gc", self, "--child", dir, ...(keep ? ["--keep"] : [])], { encoding: "utf8" });
  return JSON.parse(out) as { heapMB: number; rssMB: number; records: number };
}

if (values.child !== undefined) measure(values.child, values.keep);
else {
  const root = values.dir ?? mkdtempSync(join(tmpdir(), "restart-memory-"));
  try {
    const tail = join(root, "tail");
    const liquidations = writeDay(tail, Number(values.mb) * 1e6);
    const compacted = join(root, "compacted");
    cpSync(tail, compacted, { recursive: true });
    const { journal } = Journal.open({ dir: compacted, rotateCheckMs: 0, autoCompact: false, keepRecords: false });
    await journal.close({ compact: true });
    const cases = { compacted: child(compacted, false), tail: child(tail, false), "tail+records": child(tail, true) };
    const base = cases.compacted;
    const rows = Object.entries(cases).map(([name, c]) => ({
      case: name,
      records: c.records,
      heapMB: +c.heapMB.toFixed(1),
      rssMB: +c.rssMB.toFixed(1),
      rssRatio: +(c.rssMB / base.rssMB).toFixed(2),
    }));
    console.table(rows);
    console.log(
      `${values.mb} MB tail, ${liquidations} liquidations; RSS after replaying it ÷ after a compacted start: ${rows[1]?.rssRatio}`,
    );
    writeFileSync(join(root, "result.json"), JSON.stringify(rows));
  } finally {
    if (values.dir === undefined) rmSync(root, { recursive: true, force: true });
  }
}
