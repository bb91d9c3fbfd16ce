/**
 * The hand-written claim connection (venue/claimConnection.ts) against a real HTTP server on port 0
 * that announces a 1 s keep-alive: a request on an open, idle connection is written inside
 * `dispatch` (the bytes are on the socket before dispatch returns); answers come back whole; a
 * connection idle past the hint (less the margin) is re-opened rather than written to; one the
 * venue closed is seen as closed; an unreachable venue is "not sent"; an abort drops the connection.
 */
import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Dispatcher } from "undici";
import { afterEach, describe, expect, test, vi } from "vitest";
import { ClaimConnection } from "../../src/venue/claimConnection.js";
import { TextResponse } from "../../src/venue/textResponse.js";
import { sleep, waitFor } from "../support/wait.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A venue on port 0 announcing a 1 s keep-alive; with `tls`, over https at `https://localhost`. */
async function venue(tls?: {
  key: Buffer;
  cert: Buffer;
}): Promise<{ origin: string; server: Server; connections: () => number; bodies: string[] }> {
  let connections = 0;
  const bodies: string[] = [];
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      bodies.push(`${req.method} ${req.url} ${body}`);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`{"success":true,"n":${bodies.length}}`);
    });
  };
  const server: Server = tls === undefined ? createServer(handle) : createHttpsServer(tls, handle);
  server.keepAliveTimeout = 1_000; // announced as Keep-Alive: timeout=1
  server.on(tls === undefined ? "connection" : "secureConnection", () => connections++);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const port = (server.address() as AddressInfo).port;
  const origin = tls === undefined ? `http://127.0.0.1:${port}` : `https://localhost:${port}`;
  return { origin, server, connections: () => connections, bodies };
}

function connection(origin: string): ClaimConnection {
  const c = new ClaimConnection({ origin, connectTimeoutMs: 2_000, maxResponseBytes: 1 << 20, staleMarginMs: 250 });
  cleanups.push(() => c.destroy());
  return c;
}

function send(c: ClaimConnection, body = '{"liquidation_id":1}') {
  let written = false;
  const answer = new Promise<{ status: number; text: string; keepAlive: string | undefined }>((resolve, reject) => {
    const h: TextResponse = new TextResponse((err, status, text) =>
      err === undefined ? resolve({ status, text, keepAlive: h.keepAlive }) : reject(err),
    );
    c.dispatch({ path: "/v1/liquidation", method: "POST", headers: ["content-type", "application/json"], body }, h);
    written = true;
  });
  return { answer, written: () => written };
}

describe("ClaimConnection", () => {
  test("on an open idle connection the request is written inside dispatch, and the connection is reused", async () => {
    const v = await venue();
    const c = connection(v.origin);
    expect((await send(c).answer).status).toBe(200); // opens it
    expect(c.ready).toBe(true);
    const write = vi.spyOn(net.Socket.prototype, "write");
    let writesInside = -1;
    const done = new Promise<void>((resolve) => {
      const r = new TextResponse((err) => (err === undefined ? resolve() : undefined));
      c.dispatch({ path: "/v1/liquidation", method: "POST", headers: ["x-a", "1"], body: '{"id":2}' }, r);
      writesInside = write.mock.calls.length;
    });
    expect(writesInside).toBe(1);
    const sent = String(write.mock.calls[0]?.[0]);
    expect(sent.startsWith("POST /v1/liquidation HTTP/1.1\r\n")).toBe(true);
    expect(sent.endsWith('content-length: 8\r\n\r\n{"id":2}')).toBe(true);
    await done;
    expect(v.connections()).toBe(1);
    expect(v.bodies).toEqual(['POST /v1/liquidation {"liquidation_id":1}', 'POST /v1/liquidation {"id":2}']);
  });

  test("onWritten: after the connect on a new connection, inside dispatch on an open one", async () => {
    const v = await venue();
    const c = connection(v.origin);
    const events: string[] = [];
    c.on("connect", () => events.push("connect"));
    const dispatch = (id: number): Promise<void> =>
      new Promise<void>((resolve) => {
        const h = new TextResponse(() => resolve());
        const onWritten = (): number => events.push(`written ${id}`);
        c.dispatch({ path: "/v1/liquidation", method: "POST", headers: [], body: `{"id":${id}}`, onWritten }, h);
        events.push(`dispatched ${id}`);
      });
    await dispatch(1);
    await dispatch(2);
    expect(events).toEqual(["dispatched 1", "connect", "written 1", "written 2", "dispatched 2"]);
  });

  test("the answer carries the venue's keep-alive hint", async () => {
    const v = await venue();
    const r = await send(connection(v.origin)).answer;
    expect(JSON.parse(r.text)).toEqual({ success: true, n: 1 });
    expect(r.keepAlive).toBe("timeout=1");
  });

  test("a connection idle past the hint (less the margin) is re-opened, not written to", async () => {
    const v = await venue();
    const c = connection(v.origin);
    await send(c).answer;
    await sleep(800); // idle for > 1,000 − 250 ms: the time passing is what the test is about
    expect(c.ready).toBe(false);
    expect((await send(c).answer).status).toBe(200);
    expect(v.connections()).toBe(2);
  });

  test("a connection the venue closes is seen as closed; the next request opens another", async () => {
    const v = await venue();
    const c = connection(v.origin);
    const disconnected = once(c, "disconnect");
    await send(c).answer;
    v.server.closeIdleConnections();
    await disconnected;
    expect(c.ready).toBe(false);
    expect((await send(c).answer).status).toBe(200);
    expect(v.connections()).toBe(2);
  });

  test("bytes after the end of an answer: the answer is delivered, the connection is not used again", async () => {
    const server = net.createServer((s) => {
      s.once("data", () => s.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}HTTP/1.1 200 OK\r\n"));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    const c = connection(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const disconnected = once(c, "disconnect");
    const r = await send(c).answer;
    expect(r).toMatchObject({ status: 200, text: "{}" });
    await disconnected;
    expect(c.ready).toBe(false);
  });

  test("an unreachable venue: the request was not sent (a code read as never delivered)", async () => {
    const v = await venue();
    await new Promise((r) => v.server.close(r));
    const err = await send(connection(v.origin)).answer.catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe("ECONNREFUSED");
  });

  test("https: a failed TLS handshake is a request not sent", async () => {
    const v = await venue(); // plain HTTP: the handshake cannot succeed
    const err = await send(connection(v.origin.replace("http:", "https:"))).answer.catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe("UND_ERR_CLOSED");
    expect(v.bodies).toEqual([]);
  });

  test("https: claims over TLS are answered whole on one kept-alive connection, the host name verified", async () => {
    // A throwaway certificate for localhost, made for this test (no key is committed).
    const dir = mkdtempSync(join(tmpdir(), "claim-tls-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost",
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stdio: "ignore" },
    );
    const v = await venue({ key: readFileSync(key), cert: readFileSync(cert) });
    const port = new URL(v.origin).port;
    const c = new ClaimConnection({
      origin: `https://localhost:${port}`,
      connectTimeoutMs: 2_000,
      maxResponseBytes: 1 << 20,
      ca: readFileSync(cert, "utf8"),
    });
    cleanups.push(() => c.destroy());
    for (let i = 1; i <= 3; i++) {
      const r = await send(c, `{"liquidation_id":${i}}`).answer;
      expect(r.status).toBe(200);
      expect(JSON.parse(r.text)).toEqual({ success: true, n: i });
      expect(r.keepAlive).toBe("timeout=1");
    }
    expect(v.connections()).toBe(1);
    expect(v.bodies).toEqual([1, 2, 3].map((i) => `POST /v1/liquidation {"liquidation_id":${i}}`));
    // The same server under a name its certificate does not carry: refused, nothing sent.
    const wrong = new ClaimConnection({
      origin: `https://127.0.0.1:${port}`,
      connectTimeoutMs: 2_000,
      maxResponseBytes: 1 << 20,
      ca: readFileSync(cert, "utf8"),
    });
    cleanups.push(() => wrong.destroy());
    const err = await send(wrong).answer.catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(v.bodies).toHaveLength(3);
  });

  test("an abort while the answer is awaited ends the request with its reason and drops the connection", async () => {
    const v = await venue();
    v.server.removeAllListeners("request");
    let arrived = false;
    v.server.on("request", () => {
      arrived = true; // and never answers
    });
    const c = connection(v.origin);
    let controller: Dispatcher.DispatchController | undefined;
    const failed = new Promise<unknown>((resolve) => {
      c.dispatch(
        { path: "/x", method: "GET", headers: [] },
        {
          onRequestStart: (ctl) => {
            controller = ctl;
          },
          onResponseError: (_ctl, err) => resolve(err),
        },
      );
    });
    await waitFor(() => arrived, "the request at the venue, its answer awaited");
    const reason = new Error("deadline");
    controller?.abort(reason);
    expect(await failed).toBe(reason);
    expect(c.ready).toBe(false);
  });
});
