/**
 * A small scripted HTTP venue for REST client and command tests: a real node:http server on port 0,
 * routes answered by test-supplied handlers, every request recorded with its exact bytes. Not the
 * simulator (src/sim): it has no market, only what each test scripts.
 */
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as ed from "@noble/ed25519";
import { parsePublicKey } from "../../src/venue/signer.js";
import { sleep } from "./wait.js";

export interface RecordedRequest {
  method: string;
  /** Raw request target as received: path plus `?query` (what the client signed). */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export type Reply =
  | { status?: number; json?: unknown; raw?: string; contentType?: string; delayMs?: number }
  | { destroy: true }
  | { hang: true };

export type Handler = (req: RecordedRequest, nth: number) => Reply | Promise<Reply>;

export interface FakeVenueServer {
  baseUrl: string;
  requests: RecordedRequest[];
  route(method: string, path: string, handler: Handler): void;
  count(method: string, path: string): number;
  close(): Promise<void>;
}

export function ok(data: unknown, timestamp: number = Date.now()): Reply {
  return { status: 200, json: { success: true, data, timestamp } };
}

export function fail(code: number | string, message: string, status = 400, timestamp?: number): Reply {
  return { status, json: { success: false, code, message, ...(timestamp === undefined ? {} : { timestamp }) } };
}

export async function startFakeVenue(): Promise<FakeVenueServer> {
  const routes = new Map<string, Handler>();
  const counts = new Map<string, number>();
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const url = req.url ?? "/";
        const parsed = new URL(url, "http://fake");
        const rec: RecordedRequest = {
          method: req.method ?? "",
          url,
          path: parsed.pathname,
          query: parsed.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          receivedAt: Date.now(),
        };
        requests.push(rec);
        const key = `${rec.method} ${rec.path}`;
        const nth = (counts.get(key) ?? 0) + 1;
        counts.set(key, nth);
        const handler = routes.get(key);
        const reply: Reply = handler ? await handler(rec, nth) : fail(-1006, "no such route", 404);
        if ("destroy" in reply) {
          req.socket.destroy();
          return;
        }
        if ("hang" in reply) return;
        if (reply.delayMs) await sleep(reply.delayMs); // a slow answer, as the test scripted it
        const body = reply.raw ?? JSON.stringify(reply.json ?? null);
        res.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "application/json" });
        res.end(body);
      })().catch((err: unknown) => {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      });
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    route: (method, path, handler) => routes.set(`${method} ${path}`, handler),
    count: (method, path) => counts.get(`${method} ${path}`) ?? 0,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/**
 * Verifies the four auth headers of a recorded request with @noble/ed25519 (an implementation
 * independent of the client's node:crypto) over `timestamp + METHOD + url + body` as received.
 */
export async function verifySignature(
  req: RecordedRequest,
  expected: { publicKey: string; accountId: string; prefix?: string },
): Promise<boolean> {
  const p = expected.prefix ?? "service";
  const ts = req.headers[`${p}-timestamp`];
  const account = req.headers[`${p}-account-id`];
  const key = req.headers[`${p}-key`];
  const sig = req.headers[`${p}-signature`];
  if (typeof ts !== "string" || typeof account !== "string" || typeof key !== "string" || typeof sig !== "string") return false;
  if (account !== expected.accountId || key !== expected.publicKey || !/^\d{13}$/.test(ts)) return false;
  const message = new TextEncoder().encode(`${ts}${req.method}${req.url}${req.body}`);
  return ed.verifyAsync(Buffer.from(sig, "base64url"), message, parsePublicKey(key));
}
