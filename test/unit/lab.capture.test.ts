/**
 * The capture's write side: the tap never blocks (a full queue drops and counts), files rotate per
 * UTC day with a header each, and the size cap deletes the oldest files first. Its read side splits
 * lines across read chunks exactly.
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { constants, gunzipSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, test } from "vitest";
import type { CaptureEvent } from "../../src/daemon/records/captureTap.js";
import { CaptureFiles, capturesInForTests } from "../../src/lab/capture/captureFiles.js";
import { CAPTURE_VERSION } from "../../src/lab/capture/captureFormat.js";
import { CaptureQueue, type CaptureSink } from "../../src/lab/capture/captureQueue.js";
import { readCapture } from "../../src/lab/capture/captureReader.js";
import { header, marksEvent, T0, writeRawCapture } from "../support/captures.js";
import { removeDir, tempDir } from "../support/daemonHarness.js";
import { waitFor } from "../support/wait.js";

let dir: string | undefined;
afterEach(async () => {
  await removeDir(dir);
  dir = undefined;
});

const DAY = 86_400_000;

/**
 * Whether the capture file of `at`'s day (or one of its parts) holds the event at `at` on disk, as far
 * as a reader can decompress it (a sync flush or the file's end put it there): what the size cap
 * measures.
 */
async function onDisk(dir: string, at: number): Promise<boolean> {
  const day = new Date(at).toISOString().slice(0, 10);
  for (const f of await capturesInForTests(dir)) {
    if (!f.path.includes(`capture-${day}`)) continue;
    try {
      const text = gunzipSync(await readFile(f.path), { finishFlush: constants.Z_SYNC_FLUSH }).toString();
      if (new RegExp(`"at":${at}[,}]`).test(text)) return true;
    } catch {
      // Not there yet: the gzip header itself has not reached the disk.
    }
  }
  return false;
}

/** Whether `at`'s day's file is a whole gzip on disk (its end written), or gone (the cap pruned it). */
async function wholeOrGone(dir: string, at: number): Promise<boolean> {
  const path = join(dir, `capture-${new Date(at).toISOString().slice(0, 10)}.jsonl.gz`);
  try {
    gunzipSync(await readFile(path));
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

describe("capture queue", () => {
  test("record never calls the sink in the caller's tick; a full queue drops and counts", async () => {
    const batches: number[] = [];
    const sink: CaptureSink = { write: (events) => void batches.push(events.length), close: async () => undefined };
    const q = new CaptureQueue(sink, { maxQueued: 100 });
    for (let i = 0; i < 250; i++) q.record(marksEvent(T0 + i, { PERP_ETH_USDC: 1 }));
    expect(batches).toEqual([]); // nothing written synchronously
    expect(q.queued).toBe(100);
    expect(q.dropped).toBe(150);
    // Not even in the next turn (where the claim a frame triggered is still on its way), but a batch later.
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([]);
    await waitFor(() => batches.length > 0, "the batch written");
    expect(batches).toEqual([100]);
    q.record(marksEvent(T0, { PERP_ETH_USDC: 1 }));
    await q.close();
    expect(batches).toEqual([100, 1]);
    expect(q.written).toBe(101);
  });

  test("record never waits on the sink: it writes on a later turn, and a full queue drops", async () => {
    // What makes a blocking sink harmless to the daemon's hot path: the sink is never called inside
    // record() (a timing figure for it belongs in the bench, not here).
    let inRecord = false;
    let writesInRecord = 0;
    let writes = 0;
    const sink: CaptureSink = {
      write: () => {
        writes++;
        if (inRecord) writesInRecord++;
      },
      close: async () => undefined,
    };
    const q = new CaptureQueue(sink, { maxQueued: 10 });
    for (let i = 0; i < 50; i++) {
      inRecord = true;
      q.record(marksEvent(T0 + i, { PERP_ETH_USDC: 1 }));
      inRecord = false;
    }
    expect(writesInRecord).toBe(0);
    expect(q.dropped).toBe(40);
    await q.close();
    expect(writes).toBeGreaterThan(0);
    expect(writesInRecord).toBe(0);
  });
});

describe("capture files", () => {
  test("one file per UTC day, each starting with the header, read back in order", async () => {
    dir = await tempDir("cap-days");
    const files = new CaptureFiles({ target: { mode: "daily", dir, maxBytes: 1e9 }, writer: "test", venue: "v" });
    await files.open();
    const day0 = Date.UTC(2026, 0, 5, 23, 59, 59);
    const events: CaptureEvent[] = [marksEvent(day0, { A: 1 }), marksEvent(day0 + 2000, { A: 2 }), marksEvent(day0 + DAY, { A: 3 })];
    files.write(events);
    await files.close();
    const names = (await readdir(dir)).sort();
    // 23:59:59 on the 5th, then 00:00:01 and 23:59:59 on the 6th.
    expect(names).toEqual(["capture-2026-01-05.jsonl.gz", "capture-2026-01-06.jsonl.gz"]);
    for (const n of names) {
      const first = gunzipSync(await readFile(join(dir, n)))
        .toString()
        .split("\n")[0] as string;
      expect(JSON.parse(first)).toMatchObject({ format: "liquidator-capture", version: CAPTURE_VERSION, writer: "test" });
    }
    const back: number[][] = [];
    for (const n of names) {
      const at: number[] = [];
      for await (const ev of readCapture(join(dir, n))) at.push(ev.at);
      back.push(at);
    }
    expect(back).toEqual([[day0], [day0 + 2000, day0 + DAY]]);
  });

  test("past the size cap the oldest files are deleted first, the newest kept", async () => {
    dir = await tempDir("cap-size");
    const cap = 60_000;
    const files = new CaptureFiles({ target: { mode: "daily", dir, maxBytes: cap }, writer: "test", venue: "v" });
    await files.open();
    // Incompressible-ish payload: each batch adds ~10 kB compressed.
    let seed = 1;
    const noise = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let day = 0; day < 12; day++) {
      const marks: Record<string, number> = {};
      for (let i = 0; i < 600; i++) marks[`S${i}`] = noise();
      files.write([marksEvent(T0 + day * DAY, marks)]);
      // This write ended the day before's file: whole on disk before the next write measures the cap.
      if (day > 0) await waitFor(() => wholeOrGone(dir as string, T0 + (day - 1) * DAY), `day ${day - 1}'s file whole on disk`, 10_000);
    }
    await files.close();
    const left = await capturesInForTests(dir);
    const total = left.reduce((s, f) => s + f.size, 0);
    expect(total).toBeLessThanOrEqual(cap + 15_000); // at most one batch over, until the next write
    const days = left.map((f) => f.path.match(/capture-(\d{4}-\d{2}-\d{2})/)?.[1]);
    expect(days.at(-1)).toBe("2026-01-16"); // the newest day is kept
    expect(days[0]).not.toBe("2026-01-05"); // the oldest went first
    expect([...days].sort()).toEqual(days);
  });

  test("a single day over the cap continues in a new part file and the older part goes", async () => {
    dir = await tempDir("cap-part");
    let clock = T0;
    // Each write is 20 s after the last: every batch is flushed to disk (sync flush every 10 s).
    const now = () => (clock += 20_000);
    const files = new CaptureFiles({ target: { mode: "daily", dir, maxBytes: 20_000 }, writer: "test", venue: "v", now });
    await files.open();
    let seed = 7;
    for (let b = 0; b < 6; b++) {
      const marks: Record<string, number> = {};
      for (let i = 0; i < 600; i++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        marks[`S${i}`] = seed / 2 ** 31;
      }
      files.write([marksEvent(T0 + b * 1000, marks)]);
      // Sync-flushed (20 s since the last write): on disk before the next write measures the cap.
      await waitFor(() => onDisk(dir as string, T0 + b * 1000), `batch ${b} on disk`, 10_000);
    }
    await files.close();
    const names = (await capturesInForTests(dir)).map((f) => f.path.split("/").at(-1));
    expect(names.length).toBeGreaterThan(0);
    expect(names).not.toContain("capture-2026-01-05.jsonl.gz");
    expect(names.every((n) => /^capture-2026-01-05\.p\d{3}\.jsonl\.gz$/.test(n ?? ""))).toBe(true);
  });
});

describe("capture reader", () => {
  test("lines longer than a read chunk, CRLF ends, multi-byte text and a last line without a newline read back whole", async () => {
    dir = await tempDir("cap-read");
    const file = join(dir, "long.jsonl.gz");
    // An open list of 6,000 rows is a line of ~700 kB: it spans several of the reader's 256 KiB chunks.
    const rows = Array.from({ length: 6_000 }, (_, i) => ({
      liquidation_id: i + 1,
      timestamp: T0,
      type: "liquidated – ü€😀", // 2-, 3- and 4-byte UTF-8, cut anywhere by chunk boundaries
      positions_by_perp: [{ symbol: "PERP_ETH_USDC", position_qty: 1 + i / 1000, liquidator_fee: 0.008 }],
    }));
    const events: CaptureEvent[] = [
      marksEvent(T0, { PERP_ETH_USDC: 3000 }),
      { k: "open", at: T0 + 1, requestedAt: T0, rows } as unknown as CaptureEvent,
      marksEvent(T0 + 2, { PERP_ETH_USDC: 3001 }),
      marksEvent(T0 + 3, { PERP_ETH_USDC: 3002 }),
    ];
    const lines = [header(), ...events.map((e) => JSON.stringify(e))];
    // CRLF after the second event, then an empty CRLF line; nothing after the last one.
    const text = `${lines.slice(0, 3).join("\n")}\r\n\r\n${lines.slice(3).join("\n")}`;
    await writeFile(file, gzipSync(text));
    const back: CaptureEvent[] = [];
    for await (const ev of readCapture(file)) back.push(ev);
    expect(back).toEqual(events);
  });

  test("a bad line after a long one is named by its line number", async () => {
    dir = await tempDir("cap-read-bad");
    const file = join(dir, "bad.jsonl.gz");
    const big = marksEvent(T0, Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`S${i}`, i + 1])));
    await writeRawCapture(file, [header(), JSON.stringify(big), JSON.stringify(marksEvent(T0 + 1, { A: 1 })), "{cut"]);
    const read = async () => {
      for await (const _ of readCapture(file)) {
      }
    };
    await expect(read()).rejects.toThrow(`capture ${file} line 4: not a capture event`);
  });
});

describe("the capture folder's cap counts the backtest's prepared files", () => {
  test("a prepared file beside a daily capture counts against state.capture_max_bytes and goes with its capture", async () => {
    dir = await tempDir("cap-prepared");
    // Yesterday's capture (small) and its prepared form (large: 2.5× and more), as a backtest leaves them.
    const old = join(dir, "capture-2026-01-04.jsonl.gz");
    await writeFile(old, Buffer.alloc(2_000, 1));
    await writeFile(`${old}.prepared`, Buffer.alloc(50_000, 2));
    expect(await capturesInForTests(dir)).toEqual([{ path: old, size: 52_000, prepared: 50_000 }]);
    // Today's capture alone fits under the cap; with yesterday's prepared file the folder does not.
    const files = new CaptureFiles({ target: { mode: "daily", dir, maxBytes: 40_000 }, writer: "test", venue: "v" });
    await files.open();
    files.write([marksEvent(T0, { S: 1 })]);
    await waitFor(() => onDisk(dir as string, T0), "the write on disk", 10_000); // before the cap is measured at close
    await files.close();
    const left = (await readdir(dir)).sort();
    expect(left).not.toContain("capture-2026-01-04.jsonl.gz");
    expect(left).not.toContain("capture-2026-01-04.jsonl.gz.prepared");
    expect(left).toContain("capture-2026-01-05.jsonl.gz");
  });
});
