/**
 * The claim hot path's transport and headers: the flat signed header list, and HttpTransport on
 * undici's dispatch API (answer collected once, deadline and caller abort armed after the write,
 * settled exactly once whatever comes first), against a real port-0 server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as ed from "@noble/ed25519";
import { afterEach, describe, expect, test } from "vitest";
import { AbortedError } from "../../src/errors.js";
import { TimeoutError, TransportError } from "../../src/venue/errors.js";
import { HttpTransport } from "../../src/venue/httpTransport.js";
import { generateKeyPair, parsePublicKey, Signer, signingMessage } from "../../src/venue/signer.js";
import { waitFor } from "../support/wait.js";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const servers: Server[] = [];
const transports: HttpTransport[] = [];

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.destroy()));
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void): Promise<{ origin: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const s = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      seen.push(s);
      handler(req, res, s);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function transport(origin: string, timeoutMs = 2_000): HttpTransport {
  const t = new HttpTransport({ origin, timeoutMs });
  transports.push(t);
  return t;
}

describe("Signer.headerList", () => {
  test("the same four headers as headers(), as a flat list, and the signature verifies", async () => {
    const key = generateKeyPair();
    const signer = new Signer({ secret: key.secret, accountId: "0xacc", headerPrefix: "orderly" });
    const body = '{"liquidation_id":7,"ratio_qty_request":1,"limit_price":{"PERP_BTC_USDC":100}}';
    const list = signer.headerList("POST", "/v1/liquidation", body, 1_700_000_000_123.7);
    expect(list).toHaveLength(8);
    const asObject = Object.fromEntries([0, 2, 4, 6].map((i) => [list[i], list[i + 1]]));
    expect(asObject).toEqual(signer.headers("POST", "/v1/liquidation", body, 1_700_000_000_123.7));
    expect(asObject["orderly-timestamp"]).toBe("1700000000123");
    const ok = await ed.verifyAsync(
      Buffer.from(asObject["orderly-signature"] as string, "base64url"),
      Buffer.from(signingMessage(1_700_000_000_123, "POST", "/v1/liquidation", body), "utf8"),
      parsePublicKey(key.publicKey),
    );
    expect(ok).toBe(true);
  });
});

describe("HttpTransport (dispatch)", () => {
  test("sends path, flat headers and body byte for byte; returns status and the whole text", async () => {
    const big = "x".repeat(200_000); // several chunks on the wire
    const { origin, seen } = await serve((_req, res) => {
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true, big }));
    });
    const t = transport(origin);
    const res = await t.send(
      "POST",
      "/v1/liquidation?a=1",
      ["service-key", "k", "content-type", "application/json"],
      '{"é":1}',
      "/v1/liquidation",
      undefined,
    );
    expect(res.status).toBe(201);
    expect(JSON.parse(res.text)).toEqual({ ok: true, big });
    expect(res.receivedAt).toBeGreaterThanOrEqual(res.sentAt);
    expect(seen[0]).toMatchObject({ method: "POST", url: "/v1/liquidation?a=1", body: '{"é":1}' });
    expect(seen[0]?.headers["service-key"]).toBe("k");
    // An object of headers still works (GETs).
    const get = await t.send("GET", "/x", { accept: "application/json" }, undefined, "/x", undefined);
    expect(get.status).toBe(201);
    expect(seen[1]?.headers.accept).toBe("application/json");
  });

  test("the deadline rejects with TimeoutError once, and the connection is usable again", async () => {
    let hang = true;
    const { origin } = await serve((_req, res) => {
      if (hang) return; // never answers
      res.end("late but fine");
    });
    const t = transport(origin, 150);
    const started = performance.now();
    await expect(t.send("POST", "/slow", [], "{}", "/slow", undefined)).rejects.toBeInstanceOf(TimeoutError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    hang = false;
    const res = await t.send("GET", "/ok", {}, undefined, "/ok", undefined);
    expect(res.text).toBe("late but fine");
  });

  test("caller abort: before the call (nothing sent) and while waiting for the answer", async () => {
    const { origin, seen } = await serve(() => undefined);
    const t = transport(origin, 5_000);
    const pre = new AbortController();
    pre.abort();
    await expect(t.send("POST", "/a", [], "{}", "/a", pre.signal)).rejects.toBeInstanceOf(AbortedError);
    const during = new AbortController();
    const p = t.send("POST", "/b", [], "{}", "/b", during.signal);
    await waitUntil(() => seen.length === 1);
    during.abort();
    await expect(p).rejects.toBeInstanceOf(AbortedError);
    expect(seen.map((s) => s.url)).toEqual(["/b"]);
  });

  test("a request still queued for a socket settles on abort and is never sent", async () => {
    const held: ServerResponse[] = [];
    const { origin, seen } = await serve((_req, res) => held.push(res));
    const t = transport(origin, 5_000);
    // Occupy every pooled connection (32), so the next request waits in undici's queue.
    const busy = Array.from({ length: 32 }, (_, i) => t.send("GET", `/busy${i}`, {}, undefined, "/busy", undefined));
    await waitUntil(() => seen.length === 32);
    const queued = new AbortController();
    const p = t.send("POST", "/queued", [], "{}", "/queued", queued.signal);
    queued.abort();
    await expect(p).rejects.toBeInstanceOf(AbortedError);
    // A request queued after it: undici's queue is first in, first out, so an aborted request still
    // in it would go out on the first socket freed, before this one.
    const after = t.send("GET", "/after", {}, undefined, "/after", undefined);
    for (const res of held.splice(0)) res.end("done");
    await Promise.all(busy);
    await waitUntil(() => seen.some((s) => s.url === "/after"));
    for (const res of held) res.end("done");
    await after;
    expect(seen.some((s) => s.url === "/queued")).toBe(false);
  });

  test("a connection cut after the request was written is a TransportError that may have been delivered", async () => {
    const { origin } = await serve((req) => req.socket.destroy());
    const t = transport(origin);
    const err = await t.send("POST", "/cut", [], "{}", "/cut", undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).maybeDelivered).toBe(true);
  });

  test("no server: not delivered", async () => {
    const { origin } = await serve(() => undefined);
    const server = servers.pop() as Server;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const err = await transport(origin)
      .send("POST", "/x", [], "{}", "/x", undefined)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).maybeDelivered).toBe(false);
  });
});

describe("claim lane", () => {
  const ok = (data: unknown): string => JSON.stringify({ success: true, data, timestamp: Date.now() });
  const claimData = { liquidation_id: 1, timestamp: 1, type: "claim", positions_by_perp: [] };

  test("a claim never queues behind an unanswered one: the second goes through the pool", async () => {
    const held: ServerResponse[] = [];
    const { origin, seen } = await serve((_req, res, s) => {
      if (s.body.includes('"liquidation_id":1')) return void held.push(res); // the first claim hangs
      res.writeHead(200, { "content-type": "application/json" }).end(ok({ ...claimData, liquidation_id: 2 }));
    });
    const key = generateKeyPair();
    const { RestClient } = await import("../../src/venue/rest.js");
    const rest = new RestClient({ baseUrl: origin, signer: new Signer({ secret: key.secret, accountId: "0xa" }), timeoutMs: 5_000 });
    const body = (id: number) => ({ liquidation_id: id, ratio_qty_request: 1, limit_price: { PERP_BTC_USDC: 1 } });
    const first = rest.claimLiquidation(body(1), { permitHeld: true });
    await waitUntil(() => seen.length === 1);
    const second = await rest.claimLiquidation(body(2), { permitHeld: true });
    expect(second.liquidation_id).toBe(2);
    held[0]?.writeHead(200, { "content-type": "application/json" }).end(ok(claimData));
    expect((await first).liquidation_id).toBe(1);
    await rest.close();
  });
});

async function waitUntil(cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  await waitFor(cond, "the condition", timeoutMs, 10);
}
