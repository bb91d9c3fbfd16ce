import { afterEach, describe, expect, test } from "vitest";
import { InvalidArgumentError } from "../../src/errors.js";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";
import { StreamClient, type StreamClientOptions, type StreamState } from "../../src/venue/stream.js";
import type { BadMessageReason, StreamData } from "../../src/venue/wire.js";
import { FakeStreamServer, type FakeStreamServerOptions } from "../support/fakeStreamServer.js";
import { sleep, waitFor as wait } from "../support/wait.js";

// Generous deadlines: these run on a slow, noisy 2-core machine. Nothing asserts a duration from above.
const WAIT_MS = 15_000;

const waitFor = (cond: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<true> => wait(cond, what, timeoutMs, 10);

/** Live timers and TCP sockets of this process (the resources a leaked client would hold). */
function liveHandles(): { timers: number; sockets: number } {
  const info = process.getActiveResourcesInfo();
  return { timers: info.filter((r) => r === "Timeout").length, sockets: info.filter((r) => r === "TCPSocketWrap").length };
}

interface LogCall {
  level: string;
  obj: object;
  msg: string;
}

interface Harness {
  server: FakeStreamServer;
  client: StreamClient;
  controller: AbortController;
  running: Promise<void>;
  data: StreamData[];
  states: StreamState[];
  bad: BadMessageReason[];
  logs: LogCall[];
  reconnectCalls: number;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

const PUBLIC_TOPICS = ["liquidation", "markprices", "PERP_BTC_USDC@markprice"];
const PRIVATE_TOPICS = ["liquidatorliquidations", "position"];

async function harness(
  serverOptions: Partial<FakeStreamServerOptions> & { kind: "public" | "private" },
  clientOptions: Partial<StreamClientOptions> = {},
  /** Server misbehaviour configured before the client's first connection. */
  before: (server: FakeStreamServer) => void = () => {},
): Promise<Harness> {
  const kind = serverOptions.kind;
  const server = await FakeStreamServer.start({
    topics: kind === "public" ? PUBLIC_TOPICS : PRIVATE_TOPICS,
    ...serverOptions,
  });
  before(server);
  const h = {
    server,
    data: [] as StreamData[],
    states: [] as StreamState[],
    bad: [] as BadMessageReason[],
    logs: [] as LogCall[],
    reconnectCalls: 0,
  } as Harness;
  const record = (level: string) => (obj: object, msg: string) => void h.logs.push({ level, obj, msg });
  const path = kind === "public" ? "/ws/stream/acc-1" : "/v2/ws/private/stream/acc-1";
  h.client = new StreamClient({
    url: server.url + path,
    stream: kind,
    topics: kind === "public" ? PUBLIC_TOPICS : PRIVATE_TOPICS,
    pingIntervalMs: 2_000,
    deadAfterMs: 10_000,
    backoff: { initialMs: 20, maxMs: 200 },
    onData: (data) => void h.data.push(data),
    onStateChange: (s) => void h.states.push(s),
    onBadMessage: (r) => void h.bad.push(r),
    onReconnect: () => void h.reconnectCalls++,
    logger: { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
    ...clientOptions,
  });
  h.controller = new AbortController();
  h.running = h.client.start(h.controller.signal);
  cleanups.push(async () => {
    h.controller.abort();
    await h.running;
    await server.close();
  });
  return h;
}

function privateKeys(): { signer: Signer; publicKey: string } {
  const { secret, publicKey } = generateKeyPair();
  return { signer: new Signer({ secret, accountId: "acc-1" }), publicKey };
}

const LIQ_WIRE = [
  {
    liquidationId: 101,
    timestamp: 1684821114917,
    type: "liquidated",
    positionsByPerp: [{ symbol: "PERP_NEAR_USDC", positionQty: 12.6, liquidatorFee: 0.0175 }],
  },
];

describe("StreamClient against a real port-0 ws server", () => {
  test("public: connect + subscribe → ready, typed data delivered", async () => {
    const h = await harness({ kind: "public" });
    await waitFor(() => h.client.isReady(), "ready");
    expect(h.states).toEqual(["connecting", "subscribing", "ready"]);
    const conn = h.server.connections[0]!;
    expect(conn.path).toBe("/ws/stream/acc-1");
    expect([...conn.subscribed].sort()).toEqual([...PUBLIC_TOPICS].sort());
    expect(h.server.receivedEvents("auth")).toHaveLength(0);
    expect(h.client.status().connectedAt).toBeTypeOf("number");

    h.server.push("liquidation", LIQ_WIRE);
    h.server.push("markprices", [{ symbol: "PERP_BTC_USDC", price: 64000.5 }]);
    h.server.push("PERP_BTC_USDC@markprice", { symbol: "PERP_BTC_USDC", price: 64001 });
    await waitFor(() => h.data.length === 3, "three data frames");
    const [liq, marks, mark] = h.data;
    expect(liq?.[0]).toBe("liquidation");
    expect(liq?.[1]).toEqual(LIQ_WIRE);
    expect(liq?.[2]).toBeTypeOf("number");
    expect(marks?.slice(0, 2)).toEqual(["markprices", [{ symbol: "PERP_BTC_USDC", price: 64000.5 }]]);
    expect(mark?.slice(0, 2)).toEqual(["markprice", { symbol: "PERP_BTC_USDC", price: 64001 }]);
    expect(h.bad).toEqual([]);
    expect(h.client.status().lastFrameAt).toBeGreaterThanOrEqual(h.client.status().connectedAt!);
  });

  test("private: auth frame verified by the fake with @noble/ed25519 → ready, then subscribe", async () => {
    const { signer, publicKey } = privateKeys();
    const h = await harness({ kind: "private", publicKey }, { signer });
    await waitFor(() => h.client.isReady(), "ready");
    expect(h.states).toEqual(["connecting", "authenticating", "subscribing", "ready"]);
    expect(h.server.authAttempts).toEqual([expect.objectContaining({ ok: true, detail: "verified" })]);
    const conn = h.server.connections[0]!;
    expect(conn.path).toBe("/v2/ws/private/stream/acc-1");
    // Auth is the first frame; subscribes only after it was accepted (docs/protocol.md §5).
    const first = conn.received[0] as Record<string, unknown>;
    expect(first.event).toBe("auth");
    expect(first.params).toEqual({ orderly_key: publicKey, sign: expect.any(String), timestamp: expect.any(Number) });
    expect([...conn.subscribed].sort()).toEqual([...PRIVATE_TOPICS].sort());

    h.server.push("liquidatorliquidations", {
      liquidationId: 1,
      timestamp: 1684821114917,
      type: "liquidated",
      assigned: 1,
      positionsByPerp: [
        {
          symbol: "PERP_NEAR_USDC",
          positionQty: 12.6,
          costPositionTransfer: 20.05668,
          transferPrice: 1.5918,
          liquidatorFee: 0.0175,
          absLiquidatorFee: 0.350992,
        },
      ],
    });
    h.server.push("position", { positions: [{ symbol: "PERP_NEAR_USDC", positionQty: 12.6, averageOpenPrice: 1.5918, markPrice: 1.6 }] });
    await waitFor(() => h.data.length === 2, "two private frames");
    expect(h.data[0]?.[0]).toBe("liquidatorliquidations");
    expect(h.data[1]?.slice(0, 2)).toEqual([
      "position",
      {
        positions: [
          {
            symbol: "PERP_NEAR_USDC",
            positionQty: 12.6,
            averageOpenPrice: 1.5918,
            markPrice: 1.6,
            costPosition: undefined,
            marginMode: "CROSS",
          },
        ],
      },
    ]);
  });

  test("the fake's verification is real: a forged signature is refused", async () => {
    const { signer, publicKey } = privateKeys();
    // Signs one timestamp but claims another: the key is right, the signature does not match.
    const forger = {
      wsAuthParams: () => {
        const p = signer.wsAuthParams();
        return { ...p, timestamp: p.timestamp + 1 };
      },
    };
    const h = await harness({ kind: "private", publicKey }, { signer: forger });
    await waitFor(() => h.server.authAttempts.length >= 1 && h.client.lastFailure !== undefined, "refused auth");
    expect(h.server.authAttempts[0]).toMatchObject({ ok: false, detail: "bad signature" });
    expect(h.client.lastFailure).toBe("auth_failed");
    expect(h.client.isReady()).toBe(false);
  });

  test("auth failure → backoff and retry, spaced by the growing backoff, visible to readiness; recovers", async () => {
    const { signer, publicKey } = privateKeys();
    const h = await harness(
      { kind: "private", publicKey },
      { signer, backoff: { initialMs: 100, maxMs: 800, authInitialMs: 100, authMaxMs: 800 }, random: () => 1 },
      (s) => {
        s.failAuth = true;
      },
    );
    await waitFor(() => h.server.authAttempts.length >= 4, "four auth attempts");
    expect(h.client.isReady()).toBe(false);
    expect(h.client.lastFailure).toBe("auth_failed");
    expect(h.client.status().consecutiveFailures).toBeGreaterThanOrEqual(3);
    expect(h.client.status()).toMatchObject({ lastFailure: "auth_failed" });
    expect(h.states).toContain("backoff");
    expect(h.states).not.toContain("ready");
    // random() = 1 → delays are exactly the ceilings 100, 200, 400: each retry waits at least that.
    const at = h.server.authAttempts.map((a) => a.at);
    for (let i = 1; i < 4; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(100 * 2 ** (i - 1) - 5);
    expect(h.client.reconnects).toBeGreaterThanOrEqual(3);
    expect(h.reconnectCalls).toBe(h.client.reconnects);
    // The refusal was logged without anything secret in it.
    const refusals = h.logs.filter((l) => l.msg === "stream auth refused");
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(refusals)).not.toContain("sign");

    h.server.failAuth = false;
    await waitFor(() => h.client.isReady(), "ready after auth is accepted again");
    expect(h.client.status().consecutiveFailures).toBe(0);
  });

  test("a refused subscribe closes and retries with backoff until accepted", async () => {
    const h = await harness({ kind: "public" }, {}, (s) => void s.rejectTopics.add("markprices"));
    await waitFor(() => h.server.connections.length >= 3, "three connection attempts");
    expect(h.client.lastFailure).toBe("subscribe_failed");
    // Other topics were accepted each time; ready needs every one of them.
    expect(h.server.connections[0]!.subscribed.size).toBe(PUBLIC_TOPICS.length - 1);
    expect(h.states).not.toContain("ready");
    h.server.rejectTopics.clear();
    await waitFor(() => h.client.isReady(), "ready once the topic is accepted");
  });

  test.each([
    { minReadyMs: 300, healthyMs: 600, expectedCeiling: 50, what: "goes out at once after a ready connection is lost" },
    { minReadyMs: 60_000, healthyMs: 0, expectedCeiling: 800, what: "keeps growing when the connection is lost right after ready" },
  ])("reconnect $what", async ({ minReadyMs, healthyMs, expectedCeiling }) => {
    const h = await harness(
      { kind: "public" },
      { backoff: { initialMs: 100, maxMs: 3_200, minReadyMs, lostReadyJitterMs: 50 }, random: () => 1 },
      (s) => void s.rejectTopics.add("markprices"),
    );
    const ceilings = (): number[] =>
      h.logs.filter((l) => l.msg === "stream reconnect scheduled").map((l) => (l.obj as { ceilingMs: number }).ceilingMs);
    await waitFor(() => ceilings().length >= 3, "three failed connections");
    h.server.rejectTopics.clear();
    await waitFor(() => h.client.isReady(), "ready");
    expect(ceilings()).toEqual([100, 200, 400]);
    if (healthyMs > 0) await sleep(healthyMs); // healthy for a while: the time passing is the scenario
    h.server.dropAll();
    await waitFor(() => ceilings().length === 4, "the reconnect after the drop");
    expect(ceilings()[3]).toBe(expectedCeiling);
  });

  test("the backoff ceiling is capped at healthyMaxMs while REST answers", async () => {
    let restHealthy = true;
    const h = await harness(
      { kind: "public" },
      { backoff: { initialMs: 100, maxMs: 3_200, healthyMaxMs: 250 }, restHealthy: () => restHealthy, random: () => 1 },
      (s) => void s.rejectTopics.add("markprices"),
    );
    const ceilings = (): number[] =>
      h.logs.filter((l) => l.msg === "stream reconnect scheduled").map((l) => (l.obj as { ceilingMs: number }).ceilingMs);
    await waitFor(() => ceilings().length >= 4, "four failed connections");
    expect(ceilings().slice(0, 4)).toEqual([100, 200, 250, 250]);
    restHealthy = false;
    await waitFor(() => ceilings().length >= 6, "two more failed connections");
    expect(Math.max(...ceilings().slice(4, 6))).toBeGreaterThan(250);
  });

  test("server drop → reconnect, re-auth, re-subscribe, data flows again", async () => {
    const { signer, publicKey } = privateKeys();
    const h = await harness({ kind: "private", publicKey }, { signer });
    await waitFor(() => h.client.isReady(), "first ready");
    h.server.dropAll();
    await waitFor(() => h.server.connections.length === 2 && h.client.isReady(), "ready on a second connection");
    expect(h.server.authAttempts.filter((a) => a.ok)).toHaveLength(2);
    const second = h.server.connections[1]!;
    expect(second.authed).toBe(true);
    expect([...second.subscribed].sort()).toEqual([...PRIVATE_TOPICS].sort());
    expect(h.client.reconnects).toBe(1);
    expect(h.reconnectCalls).toBe(1);
    expect(h.client.lastFailure).toBe("closed");
    expect(h.states.filter((s) => s === "ready")).toHaveLength(2);
    h.server.push("position", { positions: [] });
    await waitFor(() => h.data.length === 1, "data on the new connection");
  });

  test("server ping is answered with a pong carrying its ts", async () => {
    const h = await harness({ kind: "public" });
    await waitFor(() => h.client.isReady(), "ready");
    h.server.ping(1_234_567);
    await waitFor(() => h.server.receivedEvents("pong").length > 0, "pong");
    expect(h.server.receivedEvents("pong")[0]).toEqual({ event: "pong", ts: 1_234_567 });
    expect(h.bad).toEqual([]);
  });

  test("the client pings on its own interval", async () => {
    const h = await harness({ kind: "public" }, { pingIntervalMs: 50 });
    await waitFor(() => h.server.receivedEvents("ping").length >= 3, "three client pings");
    for (const p of h.server.receivedEvents("ping")) expect(p.ts).toBeTypeOf("number");
    expect(h.client.reconnects).toBe(0);
  });

  test("a silent (stalled) server is detected after deadAfterMs and replaced", async () => {
    const h = await harness({ kind: "public" }, { pingIntervalMs: 100, deadAfterMs: 1_000 });
    await waitFor(() => h.client.isReady(), "ready");
    // Pongs to our pings keep a healthy, otherwise quiet socket alive well past deadAfterMs: 15 more
    // pings at no less than 100 ms apart span more than 1.4 s.
    const pings = h.server.receivedEvents("ping").length;
    await waitFor(() => h.server.receivedEvents("ping").length >= pings + 15, "15 more pings, answered");
    expect(h.client.reconnects).toBe(0);
    h.server.stall();
    await waitFor(() => h.server.connections.length === 2 && h.client.isReady(), "ready on a replacement connection");
    expect(h.server.connections[0]!.closedAt).toBeTypeOf("number");
    expect(h.client.lastFailure).toBe("stalled");
    expect(h.logs.some((l) => l.msg === "stream silent, replacing the connection")).toBe(true);
  });

  test("a server that never acks the subscribe times out the setup and is replaced", async () => {
    // The server answers pings (the socket is alive) but swallows subscribes.
    const h = await harness({ kind: "public" }, { pingIntervalMs: 100, deadAfterMs: 500 }, (s) => {
      s.ignoreSubscribes = true;
    });
    await waitFor(() => h.server.connections.length >= 2, "a second connection");
    expect(h.client.lastFailure).toBe("setup_timeout");
    expect(h.client.isReady()).toBe(false);
    h.server.ignoreSubscribes = false;
    await waitFor(() => h.client.isReady(), "ready once subscribes are answered");
  });

  test("1,000 malformed frames: no crash, every one counted by reason, logged once per reason, data still flows", async () => {
    const h = await harness({ kind: "public" }, { topics: ["liquidation", "markprices"] });
    await waitFor(() => h.client.isReady(), "ready");
    const kinds: [string | Buffer, BadMessageReason][] = [
      ["not json", "not_json"],
      ["{", "not_json"],
      [Buffer.from([0xde, 0xad, 0xbe, 0xef]), "not_json"],
      ["[1,2]", "not_object"],
      ["42", "not_object"],
      ["null", "not_object"],
      ['{"foo":1}', "no_topic"],
      ['{"topic":"orderbook","data":{}}', "unknown_topic"],
      ['{"topic":"PERP_BTC_USDC@markprice","data":{"symbol":"PERP_BTC_USDC","price":1}}', "unknown_topic"],
      ['{"topic":"position","data":{"positions":[]}}', "unknown_topic"],
      ['{"event":"weird"}', "unknown_event"],
      ['{"id":"sub-99-0","event":"subscribe","success":true}', "unexpected_ack"],
      ['{"id":"auth-1","event":"auth","success":true}', "unexpected_ack"],
      ['{"id":"x","event":"unsubscribe","success":true}', "unexpected_ack"],
      ['{"topic":"markprices","data":{}}', "bad_payload"],
      ['{"topic":"liquidation","data":"x"}', "bad_payload"],
      ['{"topic":"markprices","data":[{"symbol":"PERP_A_B","price":-1}]}', "bad_entry"],
      ['{"topic":"liquidation","data":[{"liquidationId":1e999,"timestamp":1,"type":"t","positionsByPerp":[]}]}', "bad_entry"],
      // Several bad rows are still one bad message.
      [
        '{"topic":"markprices","data":[{"symbol":"PERP_A_B","price":"NaN"},{"symbol":null,"price":1},{"symbol":"PERP_C_D","price":1e400}]}',
        "bad_entry",
      ],
      ['{"topic":"liquidation","ts":"1700000000000","data":[]}', "bad_payload"],
    ];
    // Dropped rows per bad_entry frame, in table order: -1 price, 1e999 id, three bad marks.
    const rows = [1, 1, 3];
    const expected = new Map<BadMessageReason, number>();
    let expectedRows = 0;
    const entryKinds = kinds.filter(([, reason]) => reason === "bad_entry");
    expect(entryKinds).toHaveLength(rows.length);
    for (let i = 0; i < 1_000; i++) {
      const [payload, reason] = kinds[i % kinds.length]!;
      h.server.sendRaw(payload);
      expected.set(reason, (expected.get(reason) ?? 0) + 1);
      if (reason === "bad_entry") expectedRows += rows[entryKinds.findIndex(([p]) => p === payload)]!;
    }
    h.server.push("markprices", [{ symbol: "PERP_ETH_USDC", price: 3100 }]);
    await waitFor(() => h.data.length === 1, "the valid frame after the garbage");
    expect(h.data[0]?.slice(0, 2)).toEqual(["markprices", [{ symbol: "PERP_ETH_USDC", price: 3100 }]]);
    expect(h.bad).toHaveLength(1_000);
    expect(h.client.badMessages).toBe(1_000);
    expect(h.client.status().droppedEntries).toBe(expectedRows);
    const counted = new Map<BadMessageReason, number>();
    for (const r of h.bad) counted.set(r, (counted.get(r) ?? 0) + 1);
    expect(counted).toEqual(expected);
    const dropLogs = h.logs.filter((l) => l.msg === "stream frame dropped");
    expect(dropLogs).toHaveLength(expected.size);
    // Same connection throughout: nothing crashed, nothing reconnected.
    expect(h.client.isReady()).toBe(true);
    expect(h.client.reconnects).toBe(0);
    expect(h.server.connections).toHaveLength(1);
  });

  test("oversized frame → socket closed, counted `oversized`, reconnects", async () => {
    const h = await harness({ kind: "public" }, { maxFrameBytes: 1_024 });
    await waitFor(() => h.client.isReady(), "ready");
    const big = Array.from({ length: 100 }, (_, i) => ({ symbol: `PERP_S${i}_USDC`, price: 1 + i }));
    h.server.push("markprices", big);
    await waitFor(() => h.server.connections.length === 2 && h.client.isReady(), "ready on a new connection");
    expect(h.bad).toEqual(["oversized"]);
    expect(h.client.lastFailure).toBe("oversized");
    expect(h.data).toHaveLength(0);
    expect(h.client.reconnects).toBe(1);
    h.server.push("markprices", big.slice(0, 3));
    await waitFor(() => h.data.length === 1, "a small frame on the new connection");
  });

  test("a WebSocket protocol violation (invalid UTF-8 in a text frame) → closed, counted, reconnects", async () => {
    const h = await harness({ kind: "public" });
    await waitFor(() => h.client.isReady(), "ready");
    h.server.sendRaw(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), true);
    await waitFor(() => h.server.connections.length === 2 && h.client.isReady(), "ready on a new connection");
    expect(h.bad).toEqual(["protocol_error"]);
    expect(h.client.lastFailure).toBe("protocol_error");
  });

  test("a throwing data callback is contained: the socket survives and later frames arrive", async () => {
    let calls = 0;
    const h = await harness(
      { kind: "public" },
      {
        onData: () => {
          calls++;
          if (calls === 1) throw new Error("consumer bug");
        },
      },
    );
    await waitFor(() => h.client.isReady(), "ready");
    h.server.push("markprices", [{ symbol: "PERP_BTC_USDC", price: 1 }]);
    h.server.push("markprices", [{ symbol: "PERP_BTC_USDC", price: 2 }]);
    await waitFor(() => calls === 2, "second delivery");
    expect(h.client.reconnects).toBe(0);
    expect(h.logs.filter((l) => l.level === "error")).toHaveLength(1);
  });

  test("abort stops everything: socket closed, timers cleared, no further connection, start resolves", async () => {
    const baseline = liveHandles();
    const h = await harness({ kind: "public" }, { pingIntervalMs: 50 });
    await waitFor(() => h.client.isReady(), "ready");
    h.controller.abort();
    await h.running;
    expect(h.client.state).toBe("stopped");
    expect(h.states.at(-1)).toBe("stopped");
    await waitFor(() => h.server.openConnections().length === 0, "server sees the close");
    const pings = h.server.receivedEvents("ping").length;
    // Nothing of the client outlives it: no timer, no socket (the listening server is not counted).
    // With no timer left, no ping or reconnect can come later.
    await waitFor(
      () => {
        const now = liveHandles();
        return now.timers <= baseline.timers && now.sockets <= baseline.sockets;
      },
      "the client's timers and sockets released",
      5_000,
    );
    expect(h.server.connections).toHaveLength(1);
    expect(h.server.receivedEvents("ping").length).toBe(pings);
    expect(h.client.reconnects).toBe(0);
  });

  test("abort during backoff resolves without waiting out the delay", async () => {
    const h = await harness({ kind: "public" }, { backoff: { initialMs: 60_000, maxMs: 60_000 }, random: () => 1 });
    await waitFor(() => h.client.isReady(), "ready");
    h.server.dropAll();
    await waitFor(() => h.client.state === "backoff", "backoff");
    h.controller.abort();
    await h.running; // would take 60 s without the abort
    expect(h.client.state).toBe("stopped");
    expect(h.server.connections).toHaveLength(1);
  });

  test("connection refused: retried with backoff, never ready, stops on abort", async () => {
    const server = await FakeStreamServer.start({ kind: "public", topics: PUBLIC_TOPICS });
    const url = server.url;
    await server.close();
    const failures: string[] = [];
    const client = new StreamClient({
      url: `${url}/ws/stream/a`,
      stream: "public",
      topics: ["markprices"],
      backoff: { initialMs: 10, maxMs: 50 },
      onData: () => {},
      onStateChange: (s) => void failures.push(s),
    });
    const controller = new AbortController();
    const running = client.start(controller.signal);
    await waitFor(() => client.reconnects >= 3, "three reconnect attempts");
    expect(client.lastFailure).toBe("connect_error");
    expect(client.isReady()).toBe(false);
    controller.abort();
    await running;
    expect(client.state).toBe("stopped");
  });
});

describe("StreamClient construction", () => {
  const base: StreamClientOptions = { url: "ws://127.0.0.1:1/ws/stream/a", stream: "public", topics: ["markprices"], onData: () => {} };

  test("options are validated when constructed", () => {
    const bad: Partial<StreamClientOptions>[] = [
      { url: "not a url" },
      { url: "http://127.0.0.1/ws" },
      { stream: "both" as "public" },
      { topics: [] },
      { topics: ["orderbook"] },
      { topics: ["position"] }, // a private topic on the public stream
      { topics: ["markprices", "markprices"] },
      { stream: "private", topics: ["position"] }, // no signer
      { pingIntervalMs: 0 },
      { deadAfterMs: Number.NaN },
      { pingIntervalMs: 30_000, deadAfterMs: 30_000 },
      { backoff: { initialMs: 100, maxMs: 10 } },
      { backoff: { initialMs: -1, maxMs: 10 } },
      { maxFrameBytes: 10 },
      { maxFrameBytes: 1.5e6 + 0.5 },
      { onData: undefined as unknown as StreamClientOptions["onData"] },
      { random: 4 as unknown as () => number },
      { logger: { info() {} } as unknown as StreamClientOptions["logger"] },
    ];
    for (const o of bad) expect(() => new StreamClient({ ...base, ...o }), JSON.stringify(o)).toThrow(InvalidArgumentError);
    expect(() => new StreamClient(base)).not.toThrow();
    expect(new StreamClient(base).state).toBe("stopped");
  });

  test("start may be called once", async () => {
    const client = new StreamClient(base);
    const controller = new AbortController();
    controller.abort();
    await client.start(controller.signal);
    await expect(client.start(controller.signal)).rejects.toThrow(InvalidArgumentError);
  });
});
