/**
 * The simulator's streams over real sockets (docs/protocol.md §5): auth (signed by the project's node:crypto
 * Signer, verified by @noble/ed25519), subscriptions, heartbeat, routing of pushes, paths.
 */
import { afterEach, describe, expect, test } from "vitest";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";
import { type Frame, type Harness, startHarness, TestClient, until } from "./simStreamsHarness.js";

let h: Harness | undefined;
const clients: TestClient[] = [];

async function start(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  h = await startHarness(options);
  return h;
}

async function open(path: string): Promise<TestClient> {
  const c = await TestClient.open(`${(h as Harness).wsBase}${path}`);
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
  h = undefined;
});

function authFrame(params: unknown, id = "auth-1"): Frame {
  return { id, event: "auth", params };
}

describe("private auth", () => {
  test("a Signer.wsAuthParams frame authenticates; the answer echoes the id", async () => {
    const { signer, streams } = await start();
    const s = signer("acct-1");
    const c = await open("/v2/ws/private/stream/acct-1");
    const ack = await c.auth(s, "auth-1");
    expect(ack).toMatchObject({ id: "auth-1", event: "auth", success: true });
    expect(typeof ack.ts).toBe("number");
    expect(streams.stats()).toMatchObject({ authSuccesses: 1, authFailures: 0, authenticatedSockets: 1 });
  });

  test.each([
    ["padded base64url", (sig: string) => `${sig}==`],
    ["standard base64", (sig: string) => Buffer.from(sig, "base64url").toString("base64")],
    ["unpadded base64url", (sig: string) => sig],
  ])("%s signature accepted", async (_name, encode) => {
    const { signer } = await start();
    const s = signer("acct-1");
    const c = await open("/v2/ws/private/stream/acct-1");
    const params = s.wsAuthParams();
    c.send(authFrame({ ...params, sign: encode(params.sign) }));
    expect(await c.answer("auth-1")).toMatchObject({ success: true });
  });

  async function expectAuthFailure(harness: Harness, path: string, params: unknown, reason: string): Promise<void> {
    const c = await open(path);
    c.send(authFrame(params));
    expect(await c.answer("auth-1")).toMatchObject({ id: "auth-1", event: "auth", success: false, errorMsg: "auth failed" });
    await c.closed; // docs/protocol.md §5: the socket is closed after a failed auth
    expect(harness.streams.stats().authFailuresByReason[reason]).toBeGreaterThanOrEqual(1);
  }

  test("a key registered nowhere is refused and the socket closed", async () => {
    const harness = await start();
    const stranger = new Signer({ secret: generateKeyPair().secret, accountId: "acct-1" });
    await expectAuthFailure(harness, "/v2/ws/private/stream/acct-1", stranger.wsAuthParams(), "unauthorized");
  });

  test("a key of another account is refused", async () => {
    const harness = await start();
    const other = harness.signer("acct-2");
    harness.signer("acct-1");
    await expectAuthFailure(harness, "/v2/ws/private/stream/acct-1", other.wsAuthParams(), "unauthorized");
    // The same key on its own account's path is fine.
    const c = await open("/v2/ws/private/stream/acct-2");
    expect(await c.auth(other)).toMatchObject({ success: true });
  });

  test("a timestamp more than 300 s old or ahead is refused", async () => {
    const harness = await start();
    const s = harness.signer("acct-1");
    await expectAuthFailure(harness, "/v2/ws/private/stream/acct-1", s.wsAuthParams(Date.now() - 301_000), "stale_timestamp");
    await expectAuthFailure(harness, "/v2/ws/private/stream/acct-1", s.wsAuthParams(Date.now() + 301_000), "stale_timestamp");
    expect(harness.streams.stats().authFailuresByReason.stale_timestamp).toBe(2);
  });

  test("the auth timestamp is checked against the injected server clock", async () => {
    const skew = 3_600_000;
    const harness = await start({ now: () => Date.now() + skew });
    const s = harness.signer("acct-1");
    await expectAuthFailure(harness, "/v2/ws/private/stream/acct-1", s.wsAuthParams(), "stale_timestamp");
    const c = await open("/v2/ws/private/stream/acct-1");
    c.send(authFrame(s.wsAuthParams(Date.now() + skew)));
    expect(await c.answer("auth-1")).toMatchObject({ success: true });
  });

  test("a signature that does not verify is refused", async () => {
    const harness = await start();
    const s = harness.signer("acct-1");
    const now = Date.now();
    // Signature of another timestamp: well-formed, wrong message.
    const wrong = { ...s.wsAuthParams(now), sign: s.wsAuthParams(now + 1).sign };
    await expectAuthFailure(harness, "/v2/ws/private/stream/acct-1", wrong, "bad_signature");
    // The REST signing message (timestamp + method + path) is not the stream's message.
    const restSig = { ...s.wsAuthParams(now), sign: s.sign(`${now}GET/v1/public/info`) };
    await expectAuthFailure(harness, "/v2/ws/private/stream/acct-1", restSig, "bad_signature");
    await expectAuthFailure(harness, "/v2/ws/private/stream/acct-1", { ...s.wsAuthParams(now), sign: "not-base64!" }, "bad_signature");
  });

  test("missing or mistyped params are refused", async () => {
    const harness = await start();
    const s = harness.signer("acct-1");
    await expectAuthFailure(harness, "/v2/ws/private/stream/acct-1", undefined, "bad_params");
    await expectAuthFailure(harness, "/v2/ws/private/stream/acct-1", { ...s.wsAuthParams(), timestamp: 1.5 }, "bad_params");
    await expectAuthFailure(harness, "/v2/ws/private/stream/acct-1", { ...s.wsAuthParams(), orderly_key: "ed25519:0OIl" }, "bad_key");
  });

  test("subscribing before auth is refused with 'Auth is needed.', after auth it works", async () => {
    const { signer } = await start();
    const s = signer("acct-1");
    const c = await open("/v2/ws/private/stream/acct-1");
    expect(await c.subscribe("position", "early")).toMatchObject({
      id: "early",
      event: "subscribe",
      success: false,
      errorMsg: "Auth is needed.",
    });
    await c.auth(s);
    expect(await c.subscribe("position", "late")).toMatchObject({ id: "late", event: "subscribe", success: true });
  });

  test("auth and subscriptions sent back to back are handled in order", async () => {
    const { signer } = await start();
    const s = signer("acct-1");
    const c = await open("/v2/ws/private/stream/acct-1");
    c.send(authFrame(s.wsAuthParams()));
    c.send({ id: "p", event: "subscribe", topic: "position" });
    c.send({ id: "l", event: "subscribe", topic: "liquidatorliquidations" });
    expect(await c.answer("p")).toMatchObject({ success: true });
    expect(await c.answer("l")).toMatchObject({ success: true });
    const ids = c.frames.map((f) => f?.id).filter((id) => id !== undefined);
    expect(ids).toEqual(["auth-1", "p", "l"]);
  });
});

describe("subscriptions", () => {
  test("public stream: ack, unknown topic, private topic refused, unsubscribe ack", async () => {
    await start();
    const c = await open("/ws/stream/anything");
    expect(await c.subscribe("markprices", "c1")).toMatchObject({ id: "c1", event: "subscribe", success: true });
    expect(await c.subscribe("PERP_BTC_USDC@markprice", "c2")).toMatchObject({ success: true });
    expect(await c.subscribe("nope", "c3")).toMatchObject({ id: "c3", success: false, errorMsg: "invalid topic nope" });
    expect(await c.subscribe("PERP_DOGE_USDC@markprice", "c4")).toMatchObject({ success: false });
    expect(await c.subscribe("position", "c5")).toMatchObject({ success: false, errorMsg: "invalid topic position" });
    c.send({ id: "c6", event: "subscribe" });
    expect(await c.answer("c6")).toMatchObject({ success: false, errorMsg: "invalid topic" });
    c.send({ id: "u1", event: "unsubscribe", topic: "markprices" });
    expect(await c.answer("u1")).toMatchObject({ id: "u1", event: "unsubscribe", success: true });
    c.send({ id: "u2", event: "unsubscribe", topic: "bogus" });
    expect(await c.answer("u2")).toMatchObject({ event: "unsubscribe", success: false, errorMsg: "invalid topic bogus" });
  });

  test("private stream: ack for its topics, public topics and unknown ones refused", async () => {
    const { signer } = await start();
    const s = signer("acct-1");
    const c = await open("/v2/ws/private/stream/acct-1");
    await c.auth(s);
    expect(await c.subscribe("liquidatorliquidations", "a")).toMatchObject({ success: true });
    expect(await c.subscribe("position", "b")).toMatchObject({ success: true });
    expect(await c.subscribe("liquidation", "c")).toMatchObject({ success: false, errorMsg: "invalid topic liquidation" });
    expect(await c.subscribe("balance", "d")).toMatchObject({ success: true });
    expect(await c.subscribe("executionreport", "e")).toMatchObject({ success: true });
    expect(await c.subscribe("markprices", "f")).toMatchObject({ success: false, errorMsg: "invalid topic markprices" });
  });

  test("malformed client frames get an error answer and the socket stays usable", async () => {
    const { streams } = await start();
    const c = await open("/ws/stream/x");
    c.send("not json");
    c.send("[1,2]");
    c.send({ id: "e1", event: "dance" });
    c.send({ id: "e2" });
    c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await c.answer("e1")).toMatchObject({ event: "dance", success: false, errorMsg: "unknown event dance" });
    expect(await c.answer("e2")).toMatchObject({ success: false });
    await until(() => c.frames.filter((f) => f?.event === "error").length >= 4, "four error answers");
    expect(await c.subscribe("markprices", "ok")).toMatchObject({ success: true });
    expect(streams.stats().badClientFrames).toBe(5);
  });

  test("an inbound frame above maxFrameBytes closes that socket only", async () => {
    const { streams } = await start({ maxFrameBytes: 1024 });
    const big = await open("/ws/stream/x");
    const other = await open("/ws/stream/y");
    big.send({ id: "big", event: "subscribe", topic: "x".repeat(2000) });
    expect(await big.closed).toBe(1009);
    expect(await other.subscribe("markprices")).toMatchObject({ success: true });
    await until(() => streams.stats().publicSockets === 1, "one public socket left");
  });
});

describe("heartbeat", () => {
  test("the server pings every pingIntervalMs and a client that pongs stays connected", async () => {
    // A dead-client threshold well above the interval: a noisy machine's event-loop pause must not
    // look like a dead client; fifteen pings still outlast it, so a client that never pongs would fail.
    const { streams } = await start({ pingIntervalMs: 100, deadAfterMs: 1_000 });
    const c = await open("/ws/stream/x");
    c.ws.on("message", (d) => {
      const f = JSON.parse((d as Buffer).toString()) as Frame;
      if (f.event === "ping") c.send({ event: "pong", ts: Date.now() });
    });
    await until(() => c.frames.filter((f) => f?.event === "ping").length >= 15, "fifteen pings");
    const ping = c.frames.find((f) => f?.event === "ping") as Frame;
    expect(typeof ping.ts).toBe("number");
    expect(c.closeCode).toBeUndefined();
    expect(streams.stats().deadClientsTerminated).toBe(0);
  });

  test("a client that never answers is terminated after three silent intervals", async () => {
    const { streams } = await start({ pingIntervalMs: 50 });
    const c = await open("/ws/stream/x");
    await c.closed;
    expect(streams.stats().deadClientsTerminated).toBe(1);
    expect(c.frames.filter((f) => f?.event === "ping").length).toBeGreaterThanOrEqual(1);
  });

  test("a client ping is answered with a pong carrying the server time", async () => {
    const { streams } = await start({ now: () => 1_700_000_000_000 });
    const c = await open("/ws/stream/x");
    c.send({ event: "ping" });
    const pong = await c.waitFor((f) => f.event === "pong", "pong");
    expect(pong).toEqual({ event: "pong", ts: 1_700_000_000_000 });
    expect(streams.stats().clientPings).toBe(1);
  });
});

describe("publish routing", () => {
  test("public pushes reach the topic's subscribers only, once per push, with server ts", async () => {
    const writes: [string, number, number][] = [];
    const { streams } = await start({ onPublicWrite: (topic, _d, ts, sockets) => writes.push([topic, ts, sockets]) });
    const liq = await open("/ws/stream/a");
    const marks = await open("/ws/stream/b");
    const none = await open("/ws/stream/c");
    await liq.subscribe("liquidation");
    await liq.subscribe("markprices");
    await marks.subscribe("markprices");
    await none.subscribe("PERP_ETH_USDC@markprice");
    const data = [{ liquidationId: 7, timestamp: 1, type: "liquidated", positionsByPerp: [] }];
    streams.publish({ scope: "public", topic: "liquidation", data });
    // A sentinel on a topic everyone has: frames on one socket are ordered, so once it arrived,
    // anything routed earlier would have arrived too.
    streams.publish({ scope: "public", topic: "markprices", data: [{ symbol: "PERP_BTC_USDC", price: 1 }] });
    streams.publish({ scope: "public", topic: "PERP_ETH_USDC@markprice", data: { symbol: "PERP_ETH_USDC", price: 2 } });
    await until(() => liq.data("markprices").length === 1 && marks.data("markprices").length === 1, "sentinel");
    await until(() => none.data("PERP_ETH_USDC@markprice").length === 1, "sentinel on none");
    expect(liq.data("liquidation")).toEqual([{ topic: "liquidation", ts: expect.any(Number), data }]);
    expect(marks.data("liquidation")).toEqual([]);
    expect(none.data("liquidation")).toEqual([]);
    expect(liq.data("PERP_ETH_USDC@markprice")).toEqual([]);
    const liqTs = liq.data("liquidation")[0]?.ts;
    expect(writes[0]).toEqual(["liquidation", liqTs, 1]);
    expect(writes[1]).toEqual(["markprices", expect.any(Number), 2]);
    const stats = streams.stats();
    expect(stats.lastLiquidationWriteTs).toBe(liqTs);
    expect(stats.framesPublished).toEqual({ liquidation: 1, markprices: 1, "PERP_ETH_USDC@markprice": 1 });
    expect(stats.framesSent).toBe(4);
  });

  test("private pushes reach only the authenticated subscribers of that account", async () => {
    const h1 = await start();
    const writes: string[] = [];
    h1.streams.addWriteListener((w) => writes.push(`${w.scope}:${w.accountId ?? "-"}:${w.topic}:${w.sockets}`));
    const a = await open("/v2/ws/private/stream/acct-a");
    const aNoSub = await open("/v2/ws/private/stream/acct-a");
    const b = await open("/v2/ws/private/stream/acct-b");
    const unauth = await open("/v2/ws/private/stream/acct-a");
    const pub = await open("/ws/stream/acct-a");
    await a.auth(h1.signer("acct-a"));
    await aNoSub.auth(h1.signer("acct-a"));
    await b.auth(h1.signer("acct-b"));
    for (const c of [a, b]) {
      await c.subscribe("position");
      await c.subscribe("liquidatorliquidations");
    }
    await aNoSub.subscribe("liquidatorliquidations");
    await unauth.subscribe("position"); // refused: not authenticated
    await pub.subscribe("liquidation");
    h1.streams.publish({ scope: "private", accountId: "acct-a", topic: "position", data: { positions: [] } });
    h1.streams.publish({ scope: "private", accountId: "acct-c", topic: "position", data: { positions: [] } });
    // Sentinels on liquidatorliquidations for each account, then a public one.
    h1.streams.publish({ scope: "private", accountId: "acct-a", topic: "liquidatorliquidations", data: { liquidationId: 1 } });
    h1.streams.publish({ scope: "private", accountId: "acct-b", topic: "liquidatorliquidations", data: { liquidationId: 2 } });
    h1.streams.publish({ scope: "public", topic: "liquidation", data: [] });
    await until(() => a.data("liquidatorliquidations").length === 1, "a sentinel");
    await until(() => aNoSub.data("liquidatorliquidations").length === 1, "aNoSub sentinel");
    await until(() => b.data("liquidatorliquidations").length === 1, "b sentinel");
    await until(() => pub.data("liquidation").length === 1, "public sentinel");
    expect(a.data("position")).toEqual([{ topic: "position", ts: expect.any(Number), data: { positions: [] } }]);
    expect(aNoSub.data("position")).toEqual([]);
    expect(b.data("position")).toEqual([]);
    expect(b.data("liquidatorliquidations")[0]?.data).toEqual({ liquidationId: 2 });
    expect(unauth.frames.filter((f) => f?.topic !== undefined)).toEqual([]);
    expect(pub.data("position")).toEqual([]);
    expect(writes).toEqual([
      "private:acct-a:position:1",
      "private:acct-c:position:0",
      "private:acct-a:liquidatorliquidations:2",
      "private:acct-b:liquidatorliquidations:1",
      "public:-:liquidation:1",
    ]);
  });

  test("unsubscribe stops delivery", async () => {
    const { streams } = await start();
    const c = await open("/ws/stream/a");
    await c.subscribe("liquidation");
    await c.subscribe("markprices");
    streams.publish({ scope: "public", topic: "liquidation", data: [{ liquidationId: 1 }] });
    await until(() => c.data("liquidation").length === 1, "first push");
    c.send({ id: "u", event: "unsubscribe", topic: "liquidation" });
    await c.answer("u");
    streams.publish({ scope: "public", topic: "liquidation", data: [{ liquidationId: 2 }] });
    streams.publish({ scope: "public", topic: "markprices", data: [] });
    await until(() => c.data("markprices").length === 1, "sentinel");
    expect(c.data("liquidation").map((f) => f.data)).toEqual([[{ liquidationId: 1 }]]);
  });

  test("thousands of pushes arrive complete and in order at every subscriber", async () => {
    const { streams } = await start();
    const subs = await Promise.all([open("/ws/stream/a"), open("/ws/stream/b"), open("/ws/stream/c")]);
    for (const c of subs) await c.subscribe("liquidation");
    const n = 5000;
    for (let i = 0; i < n; i++) {
      streams.publish({ scope: "public", topic: "liquidation", data: [{ liquidationId: i, positionsByPerp: [] }] });
    }
    for (const c of subs) await until(() => c.data("liquidation").length === n, `${n} frames`);
    for (const c of subs) {
      const ids = c.data("liquidation").map((f) => (f.data as { liquidationId: number }[])[0]?.liquidationId);
      expect(ids).toEqual(Array.from({ length: n }, (_, i) => i));
    }
    expect(streams.stats().framesSent).toBe(3 * n);
  });
});

describe("paths and lifecycle", () => {
  test("other paths get HTTP 404; both stream paths accept any id segment", async () => {
    const { wsBase, streams } = await start();
    for (const path of [
      "/",
      "/ws/stream",
      "/ws/stream/",
      "/ws/stream/a/b",
      "/v2/ws/private/stream/",
      "/v1/ws/private/stream/a",
      "/ws/private/x",
    ]) {
      expect(await TestClient.refusedStatus(`${wsBase}${path}`), path).toBe(404);
    }
    const a = await open("/ws/stream/0xabc?x=1");
    const b = await open("/v2/ws/private/stream/some%20account");
    expect(a.ws.readyState).toBe(a.ws.OPEN);
    expect(b.ws.readyState).toBe(b.ws.OPEN);
    expect(streams.stats()).toMatchObject({ publicSockets: 1, privateSockets: 1, upgradesNotFound: 7 });
  });

  test("close() terminates every socket and detaches from the server", async () => {
    const harness = await start();
    const a = await open("/ws/stream/a");
    const b = await open("/v2/ws/private/stream/b");
    await harness.streams.close();
    await Promise.all([a.closed, b.closed]);
    expect(harness.streams.stats()).toMatchObject({ publicSockets: 0, privateSockets: 0 });
    // Without the upgrade listener node drops upgrade requests: connecting fails.
    await expect(TestClient.open(`${harness.wsBase}/ws/stream/a`)).rejects.toThrow();
    harness.streams.publish({ scope: "public", topic: "liquidation", data: [] }); // no throw after close
  });
});
