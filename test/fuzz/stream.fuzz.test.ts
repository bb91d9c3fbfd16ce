/**
 * Bad input on a real socket (issue "Reliability and security", item 4): the StreamClient against a
 * real port-0 ws server (test/support/fakeStreamServer.ts) that sends batches of generated frames —
 * valid data frames, mutated ones (topic, ts and data edited), arbitrary JSON, random text, binary
 * frames, control events and acks nobody asked for — in a few thousand frames per run, some batches
 * ending with a frame over the size cap or invalid UTF-8.
 *
 * Properties, per batch (each ends with a sentinel frame, so "everything before it was handled"):
 *  (e1) no exception escapes (no unhandled rejection, no uncaught exception, no "callback threw");
 *  (e2) every frame is accounted for, in order: each one is delivered as typed data, counted bad with
 *       the reason an independent classification gives (the bad-message counter moves by exactly the
 *       number of bad frames), or is a ping/pong; what the consumer stores (open book, marks) holds
 *       only valid values;
 *  (e3) a frame over `maxFrameBytes` closes the socket with `oversized` counted, invalid UTF-8 with
 *       `protocol_error`, and the client reconnects, re-subscribes and delivers again.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { OpenBook } from "../../src/daemon/feeds/openBook.js";
import { MarkBook } from "../../src/engine/marks.js";
import { liquidationFromPush } from "../../src/venue/mapping.js";
import { StreamClient } from "../../src/venue/stream.js";
import {
  type BadMessageReason,
  frameTimestamp,
  parseLiquidations,
  parseMarkPrice,
  parseMarkPrices,
  type StreamData,
} from "../../src/venue/wire.js";
import { FakeStreamServer } from "../support/fakeStreamServer.js";
import { waitFor } from "../support/wait.js";
import {
  arbitraryText,
  check,
  checkFee,
  checkFinite,
  checkSymbol,
  mutate,
  show,
  smallMutations,
  toJsonText,
  validLiquidationPush,
  validMarkPrice,
  validMarkPrices,
} from "./fuzzInputs.js";

/** Batches of 20..150 frames: about 5,000 frames in all. */
const RUNS = 60;
const TOPICS = ["liquidation", "markprices", "PERP_BTC_USDC@markprice"] as const;
const MAX_FRAME_BYTES = 16 * 1024;
const SENTINEL = "PERP_SENTINEL_USDC";
const WAIT_MS = 15_000;

type Frame = { text: string } | { binary: Buffer } | { badUtf8: Buffer } | { oversized: string };

const ts = fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 });
const validFrame = fc.oneof(
  fc.record({ topic: fc.constant("liquidation"), ts, data: validLiquidationPush }),
  fc.record({ topic: fc.constant("markprices"), ts, data: validMarkPrices }),
  fc.record({ topic: fc.constant("PERP_BTC_USDC@markprice"), ts, data: validMarkPrice.map((m) => ({ ...m, symbol: "PERP_BTC_USDC" })) }),
);
const controlFrame = fc.oneof(
  fc.record({ event: fc.constantFrom("ping", "pong"), ts: fc.oneof(ts, fc.constantFrom("x", null, 1e400)) }),
  fc.record({
    id: fc.constantFrom("sub-1-0", "auth-1", "c1", 7),
    event: fc.constantFrom("subscribe", "unsubscribe", "auth"),
    success: fc.boolean(),
  }),
  fc.record({ event: fc.string({ maxLength: 10 }) }),
);
const textFrame: fc.Arbitrary<Frame> = fc.oneof(
  { weight: 4, arbitrary: validFrame.map((f) => ({ text: JSON.stringify(f) })) },
  { weight: 8, arbitrary: fc.tuple(validFrame, smallMutations).map(([f, ops]) => ({ text: toJsonText(mutate(f, ops)) })) },
  { weight: 2, arbitrary: controlFrame.map((f) => ({ text: toJsonText(f) })) },
  { weight: 3, arbitrary: arbitraryText.map((text) => ({ text })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 32 }).map((b) => ({ binary: Buffer.from(b) })) },
);
/** The last frame of a batch: usually nothing, sometimes one that must cost the socket. */
const killer: fc.Arbitrary<Frame | null> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 4_096 })
      .map((extra) => ({ oversized: `{"topic":"markprices","ts":1,"data":[],"pad":"${"x".repeat(MAX_FRAME_BYTES + extra)}"}` })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('{"topic":"liquidation","data":"\xed\xa0\x80"}', "latin1"),
      )
      .map((b) => ({ badUtf8: b })),
  },
);

/**
 * What the client must make of one text frame, independently of its dispatch code (payload validity
 * comes from the wire.ts parsers, fuzzed on their own in wire.fuzz.test.ts). `bad:<reason>` and
 * `data:<topic>` in the order the client reports them.
 */
function expectedEvents(text: string): string[] {
  let f: unknown;
  try {
    f = JSON.parse(text);
  } catch {
    return ["bad:not_json"];
  }
  if (typeof f !== "object" || f === null || Array.isArray(f)) return ["bad:not_object"];
  const o = f as Record<string, unknown>;
  if (typeof o.event === "string") {
    if (o.event === "ping" || o.event === "pong") return [];
    // The client is ready: no auth or subscription of its own is pending, so every ack is unexpected.
    return ["auth", "subscribe", "unsubscribe"].includes(o.event) ? ["bad:unexpected_ack"] : ["bad:unknown_event"];
  }
  if (typeof o.topic !== "string") return ["bad:no_topic"];
  if (!(TOPICS as readonly string[]).includes(o.topic)) return ["bad:unknown_topic"];
  if (frameTimestamp(o.ts) === null) return ["bad:bad_payload"];
  if (o.topic === "PERP_BTC_USDC@markprice")
    return parseMarkPrice(o.data, "PERP_BTC_USDC") === undefined ? ["bad:bad_payload"] : ["data:markprice"];
  const r = o.topic === "liquidation" ? parseLiquidations(o.data) : parseMarkPrices(o.data);
  if (r === undefined) return ["bad:bad_payload"];
  const topic = `data:${o.topic}`;
  if (r.dropped === 0) return [topic];
  return r.items.length > 0 ? ["bad:bad_entry", topic] : ["bad:bad_entry"];
}

let server: FakeStreamServer;
let client: StreamClient;
const controller = new AbortController();
let running: Promise<void>;
const events: string[] = [];
const errorsLogged: string[] = [];
const escaped: unknown[] = [];
const onEscape = (err: unknown): void => void escaped.push(err);
let sentinelSeen = 0;
const book = new OpenBook();
const marks = new MarkBook();

beforeAll(async () => {
  process.on("unhandledRejection", onEscape);
  process.on("uncaughtException", onEscape);
  server = await FakeStreamServer.start({ kind: "public", topics: TOPICS });
  const log = (level: string) => (obj: object, msg: string) => {
    if (level === "error") errorsLogged.push(`${msg} ${show(obj)}`);
  };
  client = new StreamClient({
    url: `${server.url}/ws/stream/acc-1`,
    stream: "public",
    topics: TOPICS,
    maxFrameBytes: MAX_FRAME_BYTES,
    backoff: { initialMs: 5, maxMs: 20 },
    // The consumer does the daemon's work with the data (daemon/feeds/ingest.ts), so a throw would show.
    onData: (args: StreamData) => {
      const now = Date.now();
      switch (args[0]) {
        case "liquidation":
          book.applyDelta(args[1].map(liquidationFromPush), now);
          break;
        case "markprices":
          if (args[1].some((m) => m.symbol === SENTINEL)) {
            sentinelSeen = Math.max(sentinelSeen, ...args[1].filter((m) => m.symbol === SENTINEL).map((m) => m.price));
            return; // not part of the batch
          }
          marks.setMany(args[1], now);
          break;
        case "markprice":
          marks.set(args[1].symbol, args[1].price, now);
          break;
        default:
          break;
      }
      events.push(`data:${args[0]}`);
    },
    onBadMessage: (reason: BadMessageReason) => void events.push(`bad:${reason}`),
    logger: { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") },
  });
  running = client.start(controller.signal);
  await until(() => ready(), "the first subscription");
});

afterAll(async () => {
  controller.abort();
  await running;
  await server.close();
  process.off("unhandledRejection", onEscape);
  process.off("uncaughtException", onEscape);
});

async function until(cond: () => boolean, what: string): Promise<void> {
  await waitFor(cond, what, WAIT_MS, 2);
}

/** Ready from both sides: the client says so and the server holds one socket subscribed to every topic. */
function ready(): boolean {
  const open = server.openConnections();
  return client.isReady() && open.length === 1 && TOPICS.every((t) => open[0]!.subscribed.has(t));
}

function send(f: Frame): void {
  if ("text" in f) server.sendRaw(f.text);
  else if ("binary" in f) server.sendRaw(f.binary);
  else if ("badUtf8" in f) server.sendRaw(f.badUtf8, true);
  else server.sendRaw(f.oversized);
}

function checkStored(): void {
  for (const liq of book.values()) {
    for (const p of liq.positions) {
      checkSymbol(p.symbol, "stored symbol");
      checkFinite(p.positionQty, "stored quantity");
      checkFee(p.liquidatorFee, "stored fee");
    }
  }
  for (const m of marks.snapshot()) {
    checkSymbol(m.symbol, "mark symbol");
    check(Number.isFinite(m.price) && m.price > 0, () => `stored mark ${m.price} is finite and positive`);
  }
}

describe("StreamClient on a real socket fed generated frames", () => {
  test("every frame is data, counted bad or a heartbeat; oversized and bad UTF-8 cost the socket, which comes back", async () => {
    let batch = 0;
    let framesSent = 0;
    let kills = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(textFrame, { minLength: 20, maxLength: 150, size: "max" }), killer, async (generated, killerFrame) => {
        // A frame past the cap (an absurd array, a long string) ends the batch: the socket goes with it.
        const cut = generated.findIndex((f) => "text" in f && Buffer.byteLength(f.text) > MAX_FRAME_BYTES);
        const frames = cut < 0 ? generated : generated.slice(0, cut);
        const last = cut < 0 ? killerFrame : { oversized: (generated[cut] as { text: string }).text };
        await until(() => ready(), "the client to be ready before the batch");
        events.length = 0;
        escaped.length = 0;
        const badBefore = client.badMessages;
        const reconnectsBefore = client.reconnects;
        const connectionsBefore = server.connections.length;
        const expected: string[] = [];
        for (const f of frames) {
          send(f);
          // What arrives is the UTF-8 of what was sent (a lone surrogate becomes U+FFFD on the wire).
          expected.push(
            ...("binary" in f ? ["bad:not_json"] : expectedEvents(Buffer.from((f as { text: string }).text, "utf8").toString("utf8"))),
          );
        }
        framesSent += frames.length;
        if (last !== null) {
          send(last);
          expected.push("oversized" in last ? "bad:oversized" : "bad:protocol_error");
          kills++;
          // The socket is gone; the client comes back on a new one, subscribed again.
          await until(
            () => client.reconnects > reconnectsBefore && server.connections.length > connectionsBefore && ready(),
            "the reconnect",
          );
          check(
            client.lastFailure === ("oversized" in last ? "oversized" : "protocol_error"),
            () => `last failure ${String(client.lastFailure)}`,
          );
        }
        batch++;
        server.sendRaw(JSON.stringify({ topic: "markprices", ts: Date.now(), data: [{ symbol: SENTINEL, price: batch }] }));
        await until(() => sentinelSeen >= batch || escaped.length > 0, `the sentinel of batch ${batch}`);
        check(
          escaped.length === 0,
          () => `an exception escaped: ${escaped.map((e) => show(e instanceof Error ? e.message : e)).join("; ")}`,
        );
        check(!errorsLogged.some((l) => l.includes("callback_error")), () => `a callback threw: ${errorsLogged.join("; ")}`);
        check(
          events.join(" ") === expected.join(" "),
          () => `frames accounted for in order\n  got      ${events.join(" ")}\n  expected ${expected.join(" ")}`,
        );
        const bad = expected.filter((e) => e.startsWith("bad:")).length;
        check(
          client.badMessages - badBefore === bad,
          () => `bad-message counter moved by ${client.badMessages - badBefore}, ${bad} frames were bad`,
        );
        checkStored();
      }),
      { numRuns: RUNS },
    );
    // Not vacuous: thousands of frames, and the socket was cut and came back several times.
    expect(framesSent).toBeGreaterThan(RUNS * 20);
    expect(kills).toBeGreaterThan(0);
  });
});
