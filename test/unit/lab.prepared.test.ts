/**
 * The prepared form of a capture (preparedCapture.ts): its events are the JSONL read's, key order,
 * -0 and every number's bits included, for a full read and a read of some kinds, lenient or not; a
 * stale, cut or damaged prepared file is ignored and rebuilt; one that cannot be written changes
 * nothing; a backtest's JSON is the same with it and without.
 */
import { mkdir, open as openFd, readdir, readFile, rm, stat, truncate, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { crc32, gunzipSync } from "node:zlib";
import { afterEach, describe, expect, test } from "vitest";
import { writeLabMarket } from "../../src/bench/labMarket.js";
import type { CaptureEvent } from "../../src/daemon/records/captureTap.js";
import { namesKind, type ReadOptions, type ReadStats, readCaptureBatches } from "../../src/lab/capture/captureReader.js";
import { preparedPath, readPreparedBatches, validPreparedForTests as validPrepared } from "../../src/lab/prepared/preparedCapture.js";
import { decodeHeader, encodeHeader, HEADER_BYTES, type PreparedHeader } from "../../src/lab/prepared/preparedFormat.js";
import { backtest, markIdentical } from "../../src/lab/replay/backtest.js";
import { backtestJson } from "../../src/lab/report/backtestJson.js";
import { buildVariants } from "../../src/lab/sweep/variants.js";
import { header, writeRawCapture } from "../support/captures.js";
import { removeDir, tempDir } from "../support/daemonHarness.js";

let dir: string | undefined;
afterEach(async () => {
  await removeDir(dir);
  dir = undefined;
});

/** A value's exact text: keys in order, -0 and non-finite numbers named (JSON.stringify would lose them). */
function exact(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    typeof x === "number" && (Object.is(x, -0) || !Number.isFinite(x)) ? `#${Object.is(x, -0) ? "-0" : x}` : x,
  );
}

interface Outcome {
  events: string[];
  stats: ReadStats;
  error?: string;
}

async function collect(read: (o: ReadOptions) => AsyncGenerator<CaptureEvent[]>, o: Omit<ReadOptions, "stats">): Promise<Outcome> {
  const stats = { events: 0, badLines: 0 };
  const events: string[] = [];
  try {
    for await (const batch of read({ ...o, stats })) for (const ev of batch) events.push(exact(ev));
  } catch (err) {
    return { events: [], stats, error: `${(err as Error).name}: ${(err as Error).message}` };
  }
  return { events, stats };
}

const OWN: CaptureEvent["k"][] = ["claim", "assigned", "fill"];
const READS: Omit<ReadOptions, "stats">[] = [{}, { lenient: true }, { only: OWN }, { lenient: true, only: OWN }, { only: ["open"] }];

/** Every read of `file` through the prepared path (preparing, then prepared) equals the JSONL read. */
async function expectSameReads(file: string): Promise<void> {
  for (const o of READS) {
    const jsonl = await collect((r) => readCaptureBatches(file, r), o);
    // Each read prepares from scratch: a read of some kinds parses every line for the prepared file.
    await rm(preparedPath(file), { force: true });
    const preparing = await collect((r) => readPreparedBatches(file, r), o);
    expect(preparing).toEqual(jsonl);
    if (!(await validPrepared(file))) continue;
    const prepared = await collect((r) => readPreparedBatches(file, r), o);
    expect(prepared).toEqual(jsonl);
  }
}

const liq = (at: number, id: number, extra = "") =>
  `{"k":"liquidation","at":${at},"data":[{"liquidationId":${id},"timestamp":${at - 100},"type":"liquidated","positionsByPerp":[{"symbol":"PERP_ETH_USDC","positionQty":-1.5,"liquidatorFee":0.008${extra}}]}]}`;

const ODD_LINES = [
  liq(1000, 1),
  liq(1001, 2, ',"extra":true'),
  `{"at":1002,"k":"markprices","data":[{"symbol":"PERP_ETH_USDC","price":3000}]}`,
  `{"k":"markprices","at":1003,"data":[{"symbol":"PERP_ÄÖ_USDC","price":-0},{"symbol":"PERP_🚀_USDC","price":1.7976931348623157e308},{"symbol":"x\\"k\\":\\"claim\\"","price":5e-324},{"price":0.30000000000000004,"symbol":"PERP_ETH_USDC"}]}`,
  `{"k":"markprices","at":1003,"data":[{"symbol":"PERP_\\ud800_USDC","price":1}]}`,
  `{"k":"markprices","at":1004,"data":[{"symbol":"PERP_ETH_USDC","price":9007199254740993},{"symbol":"PERP_BTC_USDC","price":1e400}]}`,
  `{"k":"open","at":1005,"requestedAt":1000,"rows":[{"liquidation_id":1,"timestamp":900,"type":"liquidated","positions_by_perp":[{"symbol":"PERP_ETH_USDC","position_qty":-0,"liquidator_fee":0.008}]}]}`,
  `{"k":"open","at":1006,"requestedAt":1001,"rows":[]}`,
  "",
  `{"k":"futures","at":1007,"markAt":1007,"rows":[{"symbol":"PERP_ETH_USDC","mark_price":3000.5,"index_price":3000.25}]}`,
  `{"k":"info","at":1008,"requestedAt":1003,"info":{"rows":[{"symbol":"PERP_ETH_USDC","liquidator_fee":0.008}]},"futures":{"rows":[{"symbol":"PERP_ETH_USDC","mark_price":3000,"index_price":3000}]}}`,
  `{"k":"claim","at":1009,"sentAt":990,"id":1,"code":0,"request":{"liquidation_id":1,"ratio_qty_request":1,"limit_price":{"PERP_ETH_USDC":-0,"PERP_ÄÖ_USDC":2999.9}},"result":{"liquidation_id":1,"positions_by_perp":[{"symbol":"PERP_ETH_USDC","position_qty":-1.5,"transfer_price":3001,"abs_liquidator_fee":null}],"ok":true,"nope":false}}`,
  `{"k":"claim","at":1010,"sentAt":995,"id":2,"code":-1,"request":{"liquidation_id":2,"ratio_qty_request":0.5,"limit_price":{},"__proto__":{"polluted":1}}}`,
  `{"k": "claim","at":1011,"sentAt":1000,"id":3,"code":27,"request":{"liquidation_id":3,"ratio_qty_request":1,"limit_price":{}}}`,
  `{"k":"assigned","at":1012,"id":1,"fills":[{"symbol":"PERP_ETH_USDC","qty":-1.5,"price":3001,"fee":36.012}]}`,
  `{"k":"fill","at":1013,"symbol":"PERP_ETH_USDC","qty":1.5,"price":3002,"fee":0.9,"mark":3001.5}`,
  `{"k":"open","at":1014,"data":[{"symbol":"PERP_ETH_USDC","price":3001}],"k":"markprices"}`,
  `{"k":"markprices","at":1015,"data":[{"symbol":"PERP_ETH_USDC","price":3001,"k":"fill"}]}`,
  header(2),
  "garbage that is not JSON",
  `{"k":"claim","at":1016,"sentAt":`,
  `{"k":"liquidation","at":1017,"data":[{"liquidationId":"7"}]}`,
  liq(1018, 3),
  // Common keys with another value type where the event's shape check does not look: kept as text.
  `{"k":"liquidation","at":1019,"data":[{"liquidationId":4,"timestamp":"918","type":"liquidated","positionsByPerp":[]}]}`,
  `{"k":"open","at":1020,"requestedAt":1019,"rows":[{"liquidation_id":4,"timestamp":918,"type":null,"positions_by_perp":[]}]}`,
  `{"k":"futures","at":1021,"markAt":1021,"rows":[{"symbol":"PERP_ETH_USDC","mark_price":3000.5,"index_price":null}]}`,
];

describe("prepared capture", () => {
  test("a synthetic hour reads the same from the prepared form, key order and number bits included", async () => {
    dir = await tempDir("prep-hour");
    const file = join(dir, "hour.jsonl.gz");
    await writeLabMarket(file, 1);
    await expectSameReads(file);
    await collect((r) => readPreparedBatches(file, r), {});
    expect(await validPrepared(file)).toBe(true);
    // Its common events are stored as fields, not as their lines' text.
    expect((await stat(preparedPath(file))).size).toBeLessThan(gunzipSync(await readFile(file)).length / 3);
  });

  test("odd lines (extra fields, other key orders, -0, extreme numbers, unicode, info, bad lines) read the same", async () => {
    dir = await tempDir("prep-odd");
    const file = join(dir, "odd.jsonl.gz");
    await writeRawCapture(file, [header(2), ...ODD_LINES]);
    await expectSameReads(file);
    await collect((r) => readPreparedBatches(file, r), { lenient: true });
    expect(await validPrepared(file)).toBe(true);
    const lenient = await collect((r) => readPreparedBatches(file, r), { lenient: true });
    expect(lenient.stats).toEqual({ events: 21, badLines: 3 });
    const strict = await collect((r) => readPreparedBatches(file, r), {});
    expect(strict.error).toBe(
      `CaptureError: capture ${file} line 21: not a capture event (garbage or a cut line); --lenient skips such lines`,
    );
    const [proto] = (await collect((r) => readPreparedBatches(file, r), { only: OWN, lenient: true })).events.filter((e) =>
      e.includes('"id":2'),
    );
    expect(proto).toContain('"__proto__":{"polluted":1}');
  });

  test('a read of some kinds picks the lines whose text holds `"k":"KIND"`, as text.includes would', () => {
    const texts = [
      ...ODD_LINES,
      '"k":"cla',
      '"k":"claim',
      '"k":"k":"claim"',
      'x"k":"fill"y"k":"open"',
      '"k":"claimX"',
      '"k":""',
      '"k":"',
      '{"k":"info","note":"\\"k\\":\\"claim\\""}',
    ];
    const sets: CaptureEvent["k"][][] = [OWN, ["open"], ["claim"], ["markprices", "fill"], []];
    for (const text of texts) {
      for (const kinds of sets) {
        expect(namesKind(text, new Set(kinds)), `${text} ${kinds}`).toBe(kinds.some((k) => text.includes(`"k":"${k}"`)));
      }
    }
  });

  test("a capture with a bad later header is not prepared by a read of some kinds, and reads the same", async () => {
    dir = await tempDir("prep-header");
    const file = join(dir, "h.jsonl.gz");
    await writeRawCapture(file, [header(2), liq(1000, 1), header(99), liq(1001, 2)]);
    await expectSameReads(file);
    expect(await validPrepared(file)).toBe(false);
  });

  test("a stale prepared file (the capture changed, even at the same size and mtime) is ignored and rebuilt", async () => {
    dir = await tempDir("prep-stale");
    const file = join(dir, "s.jsonl.gz");
    await writeRawCapture(file, [header(2), liq(1000, 1), liq(1001, 2)]);
    // A whole second: set back exactly after the rewrite, so only the content tells the files apart.
    await utimes(file, 1_700_000_000, 1_700_000_000);
    await collect((r) => readPreparedBatches(file, r), {});
    expect(await validPrepared(file)).toBe(true);
    const before = await stat(file, { bigint: true });
    await writeRawCapture(file, [header(2), liq(1000, 1), liq(1001, 3)]);
    expect((await stat(file, { bigint: true })).size).toBe(before.size);
    await utimes(file, 1_700_000_000, 1_700_000_000);
    expect((await stat(file, { bigint: true })).mtimeNs).toBe(before.mtimeNs);
    expect(await validPrepared(file)).toBe(false);
    const read = await collect((r) => readPreparedBatches(file, r), {});
    expect(read).toEqual(await collect((r) => readCaptureBatches(file, r), {}));
    expect(read.events[1]).toContain('"liquidationId":3');
    expect(await validPrepared(file)).toBe(true);
  });

  test("a capture that changes while it is read is not prepared", async () => {
    dir = await tempDir("prep-moving");
    const file = join(dir, "m.jsonl.gz");
    await writeLabMarket(file, 0.1);
    let batches = 0;
    for await (const _ of readPreparedBatches(file, {})) if (batches++ === 0) await utimes(file, 1_700_000_000, 1_700_000_000);
    expect(batches).toBeGreaterThan(1);
    expect(await readdir(dir)).toEqual(["m.jsonl.gz"]);
  });

  test("a cut or damaged prepared file is ignored, and replaced", async () => {
    dir = await tempDir("prep-damaged");
    const file = join(dir, "d.jsonl.gz");
    await writeLabMarket(file, 0.05);
    const jsonl = await collect((r) => readCaptureBatches(file, r), {});
    await collect((r) => readPreparedBatches(file, r), {});
    const good = await readFile(preparedPath(file));
    const damages: [string, () => Promise<void>][] = [
      ["cut", () => truncate(preparedPath(file), good.length - 10)],
      ["cut to the header", () => truncate(preparedPath(file), 40)],
      ["a body byte", () => writeFile(preparedPath(file), flip(good, good.length - 3))],
      ["a header byte", () => writeFile(preparedPath(file), flip(good, 20))],
      [
        "another format version",
        () =>
          writeFile(
            preparedPath(file),
            otherHeader(good, (h) => ({ ...h, version: h.version + 1 })),
          ),
      ],
      [
        "made by other reading code",
        () =>
          writeFile(
            preparedPath(file),
            otherHeader(good, (h) => ({ ...h, reader: (h.reader ^ 1) >>> 0 })),
          ),
      ],
    ];
    for (const [, damage] of damages) {
      await writeFile(preparedPath(file), good);
      await damage();
      expect(await validPrepared(file)).toBe(false);
      expect(await collect((r) => readPreparedBatches(file, r), {})).toEqual(jsonl);
      expect((await readFile(preparedPath(file))).equals(good)).toBe(true);
    }
  });

  test("two reads preparing the same capture at once both end fine, and leave one valid file", async () => {
    dir = await tempDir("prep-race");
    const file = join(dir, "r.jsonl.gz");
    await writeLabMarket(file, 0.1);
    const jsonl = await collect((r) => readCaptureBatches(file, r), {});
    const [a, b] = await Promise.all([
      collect((r) => readPreparedBatches(file, r), {}),
      collect((r) => readPreparedBatches(file, r), { only: OWN }),
    ]);
    expect(a).toEqual(jsonl);
    expect(b).toEqual(await collect((r) => readCaptureBatches(file, r), { only: OWN }));
    expect(await validPrepared(file)).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(["r.jsonl.gz", "r.jsonl.gz.prepared"]);
  });

  test("temp files left by killed reads are removed, a fresh one (another read's) is not", async () => {
    dir = await tempDir("prep-temps");
    const file = join(dir, "t.jsonl.gz");
    await writeRawCapture(file, [header(2), liq(1000, 1)]);
    const old = `${preparedPath(file)}.1.0.dead.tmp`;
    const fresh = `${preparedPath(file)}.2.1.beef.tmp`;
    await writeFile(old, "partial");
    await writeFile(fresh, "partial");
    const twoHoursAgo = Date.now() / 1000 - 2 * 3600;
    await utimes(old, twoHoursAgo, twoHoursAgo);
    await collect((r) => readPreparedBatches(file, r), {});
    expect((await readdir(dir)).sort()).toEqual(["t.jsonl.gz", "t.jsonl.gz.prepared", "t.jsonl.gz.prepared.2.1.beef.tmp"]);
  });

  test("where nothing can be written beside the capture, reads and backtests go on from the JSONL", async () => {
    dir = await tempDir("prep-ro");
    const file = join(dir, "ro.jsonl.gz");
    await writeLabMarket(file, 0.05);
    const jsonl = await collect((r) => readCaptureBatches(file, r), {});
    // A directory that takes no file, even for root: /proc/self/fd.
    const fh = await openFd(file, "r");
    try {
      const viaFd = `/proc/self/fd/${fh.fd}`;
      const read = await collect((r) => readPreparedBatches(viaFd, r), {});
      expect(read.events).toEqual(jsonl.events);
      expect(read.stats).toEqual(jsonl.stats);
      const variants = await buildVariants([], ["policy.min_fee=0,5"]);
      const run = async (prepare: boolean) => backtestJson(await backtest({ files: [viaFd], variants, defaultLatencyMs: 50, prepare }));
      expect(await run(true)).toBe(await run(false));
    } finally {
      await fh.close();
    }
    // A directory in the way of the rename: the file is written, then cannot be put in place.
    await mkdir(preparedPath(file));
    expect(await collect((r) => readPreparedBatches(file, r), {})).toEqual(jsonl);
    // Nothing left behind: the temp file went with the failed rename.
    expect((await readdir(dir)).sort()).toEqual(["ro.jsonl.gz", "ro.jsonl.gz.prepared"]);
    expect(await readdir(preparedPath(file))).toEqual([]);
  });

  test("a backtest's JSON is the same without, while preparing, and from the prepared file", async () => {
    dir = await tempDir("prep-bt");
    const file = join(dir, "bt.jsonl.gz");
    await writeLabMarket(file, 0.5);
    const variants = await buildVariants([], ["policy.min_fee=0,5", "policy.max_total_exposure=50000,1000000"]);
    const run = async (prepare: boolean) => {
      const r = await backtest({ files: [file], variants, defaultLatencyMs: 50, prepare, ids: true });
      markIdentical(r.variants);
      return backtestJson(r);
    };
    const plain = await run(false);
    expect(await validPrepared(file)).toBe(false);
    expect(await run(true)).toBe(plain);
    expect(await validPrepared(file)).toBe(true);
    expect(await run(true)).toBe(plain);
  });
});

/** `b` with its header changed by `change` (and its checksum made right again). */
function otherHeader(b: Buffer, change: (h: PreparedHeader) => PreparedHeader): Buffer {
  const h = decodeHeader(b, crc32) as PreparedHeader;
  return Buffer.concat([encodeHeader(change(h), crc32), b.subarray(HEADER_BYTES)]);
}

function flip(b: Buffer, at: number): Buffer {
  const c = Buffer.from(b);
  c[at] = (c[at] as number) ^ 0x01;
  return c;
}
