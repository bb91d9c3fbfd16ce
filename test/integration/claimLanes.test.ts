/**
 * The claim connections kept warm (venue/claimLanes.ts), against a real HTTP server on port 0 that
 * announces a 1 s keep-alive: after idle spells longer than the hint no claim waits for a
 * connection; a claim that arrives while a warm-up is in flight goes out at once on the other lane
 * (the warm-up's answer is held until the claim has arrived); a lane the venue closed is re-opened
 * before a claim needs it.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { keepAliveHintMsForTests } from "../../src/venue/claimLanes.js";
import { type ClaimLaneKind, HttpTransport } from "../../src/venue/httpTransport.js";
import { sleep, waitFor } from "../support/wait.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Venue {
  origin: string;
  connections: number;
  /** Paths in arrival order. */
  seen: string[];
  /** While set, the next warm-up's answer is held until `release` is called. */
  holdNextWarmUp: boolean;
  held: (() => void) | undefined;
  closeAll(): void;
}

async function venue(): Promise<Venue> {
  const sockets = new Set<import("node:net").Socket>();
  const v: Venue = {
    origin: "",
    connections: 0,
    seen: [],
    holdNextWarmUp: false,
    held: undefined,
    closeAll: () => {
      for (const s of sockets) s.destroy();
    },
  };
  const answer = (res: ServerResponse) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"success":true,"data":{}}');
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    v.seen.push(req.url ?? "");
    req.resume();
    req.on("end", () => {
      if (req.url === "/warm" && v.holdNextWarmUp) {
        v.holdNextWarmUp = false;
        v.held = () => {
          if (!res.headersSent) answer(res);
        };
        return;
      }
      answer(res);
    });
  });
  // Node announces this as `Keep-Alive: timeout=1` and closes sockets idle longer.
  server.keepAliveTimeout = 1_000;
  server.on("connection", (s) => {
    v.connections++;
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  v.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(async () => {
    v.held?.();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return v;
}

function transport(v: Venue, kinds: ClaimLaneKind[]): HttpTransport {
  const t = new HttpTransport({
    origin: v.origin,
    timeoutMs: 5_000,
    warmUp: { path: () => "/warm", permit: () => true },
    onClaimLane: (k) => kinds.push(k),
  });
  cleanups.push(() => t.destroy());
  return t;
}

const claim = (t: HttpTransport) => t.send("POST", "/claim", ["content-type", "application/json"], "{}", "claim", undefined, "claim");

describe("warm claim connections", () => {
  test("the keep-alive hint is read from the header", () => {
    expect(keepAliveHintMsForTests("timeout=5")).toBe(5_000);
    expect(keepAliveHintMsForTests("timeout=5, max=1000")).toBe(5_000);
    expect(keepAliveHintMsForTests("max=100")).toBeUndefined();
    expect(keepAliveHintMsForTests(undefined)).toBeUndefined();
    expect(keepAliveHintMsForTests("timeout=0")).toBeUndefined();
  });

  test("after idle spells past the venue's 1 s hint, every claim goes out on a connection already open", async () => {
    const v = await venue();
    const kinds: ClaimLaneKind[] = [];
    const t = transport(v, kinds);
    await waitFor(() => v.connections === 2, "both lanes open");
    for (let i = 0; i < 3; i++) {
      await sleep(2_500); // an idle spell past the venue's 1 s hint: the time passing is the scenario
      const before = v.connections;
      expect((await claim(t)).status).toBe(200);
      // Any reconnect happened before the claim (the venue closes idle sockets; a warm-up re-opens them).
      expect(v.seen.filter((p) => p === "/claim")).toHaveLength(i + 1);
      expect(v.connections).toBe(before);
    }
    expect(kinds).toEqual(["warm", "warm", "warm"]);
    expect(v.seen.filter((p) => p === "/warm").length).toBeGreaterThan(3);
  }, 30_000);

  test("a claim during a warm-up goes out at once on the other lane, before the warm-up's answer", async () => {
    const v = await venue();
    const kinds: ClaimLaneKind[] = [];
    const t = transport(v, kinds);
    await waitFor(() => v.connections === 2, "both lanes open");
    v.holdNextWarmUp = true;
    await waitFor(() => v.held !== undefined, "a warm-up held by the venue", 5_000, 5);
    const connections = v.connections;
    const answered = await claim(t);
    expect(answered.status).toBe(200);
    // The warm-up is still unanswered: the claim did not wait for it, nor for a new connection.
    expect(v.held).toBeDefined();
    expect(v.connections).toBe(connections);
    expect(kinds).toEqual(["warm"]);
    v.held?.();
  }, 30_000);

  test("lanes the venue closed are re-opened before a claim needs them", async () => {
    const v = await venue();
    const kinds: ClaimLaneKind[] = [];
    const t = transport(v, kinds);
    await waitFor(() => v.connections === 2, "both lanes open");
    v.closeAll();
    await waitFor(() => v.connections >= 4, "both lanes re-opened without a claim", 5_000);
    expect((await claim(t)).status).toBe(200);
    expect(kinds).toEqual(["warm"]);
  }, 30_000);
});
