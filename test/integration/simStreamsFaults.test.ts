/**
 * Faults of the simulator's streams over real sockets: dropAll, refuseConnections, stall,
 * sendMalformed, failAuth.
 */

import { afterEach, describe, expect, test } from "vitest";
import { OVERSIZED_FRAME_BYTES_FOR_TESTS } from "../../src/sim/streamMalformed.js";
import { type Harness, startHarness, TestClient, until } from "./simStreamsHarness.js";

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

describe("dropAll", () => {
  test("terminates every socket of a scope; the other scope and new connections are unaffected", async () => {
    const { streams, signer } = await start();
    const p1 = await open("/ws/stream/a");
    const p2 = await open("/ws/stream/b");
    const priv = await open("/v2/ws/private/stream/acct");
    await priv.auth(signer("acct"));
    expect(streams.faults.dropAll("public")).toBe(2);
    expect(await p1.closed).toBe(1006); // no close frame: a network drop
    expect(await p2.closed).toBe(1006);
    await until(() => streams.stats().publicSockets === 0, "public sockets gone");
    expect(priv.closeCode).toBeUndefined();
    expect(streams.stats().privateSockets).toBe(1);
    const again = await open("/ws/stream/a");
    expect(await again.subscribe("liquidation")).toMatchObject({ success: true });
  });

  test("without a scope drops both; `close` mode sends 1012", async () => {
    const { streams } = await start();
    const p = await open("/ws/stream/a");
    const q = await open("/v2/ws/private/stream/b");
    expect(streams.faults.dropAll(undefined, "close")).toBe(2);
    expect(await p.closed).toBe(1012);
    expect(await q.closed).toBe(1012);
    await until(() => streams.stats().publicSockets + streams.stats().privateSockets === 0, "no sockets");
  });
});

describe("refuseConnections", () => {
  test("answers 503 on the scope while on; other scope and existing sockets unaffected", async () => {
    const { streams, wsBase } = await start();
    const existing = await open("/v2/ws/private/stream/a");
    streams.faults.refuseConnections(true, "private");
    expect(await TestClient.refusedStatus(`${wsBase}/v2/ws/private/stream/a`)).toBe(503);
    const pub = await open("/ws/stream/a");
    expect(pub.ws.readyState).toBe(pub.ws.OPEN);
    existing.send({ event: "ping" });
    await existing.waitFor((f) => f.event === "pong", "pong on the existing socket");
    streams.faults.refuseConnections(true);
    expect(await TestClient.refusedStatus(`${wsBase}/ws/stream/a`)).toBe(503);
    streams.faults.refuseConnections(false);
    const back = await open("/v2/ws/private/stream/a");
    expect(back.ws.readyState).toBe(back.ws.OPEN);
    expect(streams.stats().upgradesRefused).toBe(2);
  });
});

describe("stall", () => {
  test("a stalled scope sends nothing (no pings, answers or data) and ignores inbound, then recovers", async () => {
    // Dead-client threshold shorter than the stall: the stall must suspend the check.
    const { streams } = await start({ pingIntervalMs: 50, deadAfterMs: 500 });
    const stalled = await open("/ws/stream/a");
    const other = await open("/v2/ws/private/stream/x");
    for (const c of [stalled, other])
      c.ws.on("message", (d) => {
        if ((d as Buffer).toString().includes('"event":"ping"')) c.send({ event: "pong", ts: Date.now() });
      });
    await stalled.subscribe("liquidation");
    const stallAt = Date.now();
    streams.faults.stall("public", true);
    stalled.send({ id: "during", event: "subscribe", topic: "markprices" });
    stalled.send({ event: "ping" });
    streams.publish({ scope: "public", topic: "liquidation", data: [{ liquidationId: 1 }] });
    // The other scope keeps its heartbeat meanwhile.
    await other.waitFor((f) => f.event === "ping" && (f.ts as number) > stallAt, "ping on the other scope");
    // Nothing may arrive over a span longer than deadAfterMs: the other scope's heartbeat, stamped
    // more than that after the stall began, shows the server's timers ran through it.
    await other.waitFor((f) => f.event === "ping" && (f.ts as number) > stallAt + 600, "the other scope's ping 600 ms into the stall");
    // Frames stamped after the stall began would be the server speaking while stalled.
    expect(stalled.frames.filter((f) => f === undefined || (f.ts as number) > stallAt)).toEqual([]);
    expect(stalled.data("liquidation")).toEqual([]);
    expect(stalled.closeCode).toBeUndefined();
    expect(streams.stats().publicSockets).toBe(1);

    streams.faults.stall("public", false);
    await stalled.waitFor((f) => f.event === "ping" && (f.ts as number) > stallAt, "ping after the stall");
    // The subscribe sent during the stall was ignored: markprices is not subscribed.
    expect(stalled.frames.find((f) => f?.id === "during")).toBeUndefined();
    streams.publish({ scope: "public", topic: "markprices", data: [] });
    streams.publish({ scope: "public", topic: "liquidation", data: [{ liquidationId: 2 }] });
    await until(() => stalled.data("liquidation").length === 1, "push after the stall");
    expect(stalled.data("liquidation")[0]?.data).toEqual([{ liquidationId: 2 }]);
    expect(stalled.data("markprices")).toEqual([]);
    expect(stalled.closeCode).toBeUndefined();
  });
});

describe("sendMalformed", () => {
  test("every kind reaches every socket of the scope; the server keeps working", async () => {
    const { streams } = await start();
    const a = await open("/ws/stream/a");
    const b = await open("/ws/stream/b");
    const priv = await open("/v2/ws/private/stream/x");
    expect(streams.faults.sendMalformed(20, "public")).toBe(40);
    await until(() => a.raw.length >= 20 && b.raw.length >= 20, "20 frames each");
    expect(a.raw).toEqual(b.raw);
    // The mix holds text that is not JSON, JSON that is not an object, and topics nobody subscribed to.
    expect(a.frames.some((f) => f === undefined)).toBe(true);
    expect(a.raw.some((t) => t.includes('"topic":"nosuchtopic"'))).toBe(true);
    expect(a.raw.some((t) => t.includes('"positionQty":"NaN"'))).toBe(true);
    expect(a.raw.some((t) => t.includes("1e400"))).toBe(true);
    expect(priv.raw).toEqual([]);
    expect(await a.subscribe("liquidation")).toMatchObject({ success: true });
  });

  test("oversized sends one ~2 MiB frame; private kinds use private topics", async () => {
    const { streams } = await start();
    const a = await open("/ws/stream/a");
    const priv = await open("/v2/ws/private/stream/x");
    expect(streams.faults.sendMalformed(1, "public", "oversized")).toBe(1);
    await until(() => a.raw.length === 1, "oversized frame");
    expect(Buffer.byteLength(a.raw[0] as string)).toBe(OVERSIZED_FRAME_BYTES_FOR_TESTS);
    expect(a.frames[0]?.topic).toBe("liquidation");
    expect(streams.faults.sendMalformed(4, undefined, "nan_strings")).toBe(8);
    await until(() => priv.raw.length === 4 && a.raw.length === 5, "nan frames");
    expect(priv.frames.every((f) => f?.topic === "liquidatorliquidations" || f?.topic === "position")).toBe(true);
    expect(() => streams.faults.sendMalformed(-1)).toThrow(RangeError);
  });

  test("stalled scopes get no malformed frames", async () => {
    const { streams } = await start();
    const a = await open("/ws/stream/a");
    streams.faults.stall("public", true);
    expect(streams.faults.sendMalformed(5, "public")).toBe(0);
    streams.faults.stall("public", false);
    expect(streams.faults.sendMalformed(5, "public")).toBe(5);
    await until(() => a.raw.length === 5, "five frames");
  });
});

describe("failAuth", () => {
  test("a valid auth is refused while on, accepted again when off", async () => {
    const { streams, signer } = await start();
    const s = signer("acct");
    streams.faults.failAuth(true);
    const c = await open("/v2/ws/private/stream/acct");
    expect(await c.auth(s)).toMatchObject({ success: false, errorMsg: "auth failed" });
    await c.closed;
    expect(streams.stats().authFailuresByReason).toEqual({ fault: 1 });
    streams.faults.failAuth(false);
    const d = await open("/v2/ws/private/stream/acct");
    expect(await d.auth(s)).toMatchObject({ success: true });
  });

  test("reset() turns every fault off", async () => {
    const { streams } = await start();
    streams.faults.refuseConnections(true);
    streams.faults.stall("both", true);
    streams.faults.failAuth(true);
    expect(streams.faults.state()).toEqual({
      refusing: { public: true, private: true },
      stalled: { public: true, private: true },
      failingAuth: true,
    });
    streams.faults.reset();
    expect(streams.faults.state()).toEqual({
      refusing: { public: false, private: false },
      stalled: { public: false, private: false },
      failingAuth: false,
    });
  });
});
