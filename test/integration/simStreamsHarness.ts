/**
 * Test harness for the simulator's streams: a real port-0 http server with `SimStreams` attached, and
 * a recording `ws` client that polls for frames with a deadline (no fixed sleeps for positive checks).
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket from "ws";
import { SimStreams, type SimStreamsOptions } from "../../src/sim/simStreams.js";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";
import { waitFor } from "../support/wait.js";

export type Frame = Record<string, unknown>;

export const PUBLIC_TOPIC = /^(liquidation|markprices|PERP_(BTC|ETH)_USDC@markprice)$/;

export interface Harness {
  streams: SimStreams;
  server: Server;
  /** `ws://127.0.0.1:PORT` */
  wsBase: string;
  /** Account → registered public keys (mutable by tests). */
  keys: Map<string, Set<string>>;
  /** A signer whose key is registered for `account`. */
  signer(account: string): Signer;
  close(): Promise<void>;
}

export async function startHarness(options: Partial<SimStreamsOptions> = {}): Promise<Harness> {
  const keys = new Map<string, Set<string>>();
  const streams = new SimStreams({
    isKeyAuthorized: (account, key) => keys.get(account)?.has(key) ?? false,
    isPublicTopic: (topic) => PUBLIC_TOPIC.test(topic),
    ...options,
  });
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" }).end("rest");
  });
  streams.attach(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    streams,
    server,
    wsBase: `ws://127.0.0.1:${port}`,
    keys,
    signer(account) {
      const pair = generateKeyPair();
      const set = keys.get(account) ?? new Set();
      set.add(pair.publicKey);
      keys.set(account, set);
      return new Signer({ secret: pair.secret, accountId: account });
    },
    async close() {
      await streams.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Poll `cond` until it holds or the deadline passes (the shared waitFor, polling often). */
export async function until(cond: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  await waitFor(cond, what, timeoutMs, 5);
}

export class TestClient {
  readonly ws: WebSocket;
  /** Every text frame received, raw. */
  readonly raw: string[] = [];
  /** Parsed frames (undefined where the text was not JSON). */
  readonly frames: (Frame | undefined)[] = [];
  closeCode: number | undefined;
  readonly closed: Promise<number>;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on("message", (data) => {
      const text = (data as Buffer).toString("utf8");
      this.raw.push(text);
      try {
        const v: unknown = JSON.parse(text);
        this.frames.push(typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Frame) : undefined);
      } catch {
        this.frames.push(undefined);
      }
    });
    this.closed = new Promise((resolve) =>
      ws.on("close", (code) => {
        this.closeCode = code;
        resolve(code);
      }),
    );
  }

  static open(url: string): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const client = new TestClient(ws);
      ws.once("open", () => resolve(client));
      ws.once("error", reject);
    });
  }

  /** The HTTP status of a refused upgrade (404, 503, ...). */
  static refusedStatus(url: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.on("unexpected-response", (_req, res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
        ws.terminate();
      });
      ws.on("error", () => {}); // the terminate above reports an error; the status is what matters
      ws.on("open", () => {
        ws.terminate();
        reject(new Error(`upgrade to ${url} unexpectedly succeeded`));
      });
    });
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** The first frame (already received or arriving before the deadline) matching `pred`. */
  async waitFor(pred: (f: Frame) => boolean, what: string, timeoutMs = 15_000): Promise<Frame> {
    let found: Frame | undefined;
    await until(
      () => {
        found = this.frames.find((f) => f !== undefined && pred(f));
        return found !== undefined;
      },
      what,
      timeoutMs,
    );
    return found as Frame;
  }

  /** The answer to a request id. */
  answer(id: string): Promise<Frame> {
    return this.waitFor((f) => f.id === id, `answer ${id}`);
  }

  /** Data frames of a topic received so far. */
  data(topic: string): Frame[] {
    return this.frames.filter((f): f is Frame => f !== undefined && f.topic === topic);
  }

  async subscribe(topic: string, id = `sub-${topic}`): Promise<Frame> {
    this.send({ id, event: "subscribe", topic });
    return this.answer(id);
  }

  async auth(signer: Signer, id = "auth-1"): Promise<Frame> {
    this.send({ id, event: "auth", params: signer.wsAuthParams() });
    return this.answer(id);
  }

  close(): void {
    this.ws.terminate();
  }
}
