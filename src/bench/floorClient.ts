/**
 * The floor: the least a client can do between a `liquidation` frame and a claim on the wire, with
 * the same building blocks as the daemon (ws for the stream, undici over one keep-alive connection,
 * node:crypto ed25519 with a KeyObject built once). Parse, build the body, sign, POST. No policy, no
 * validation beyond what it needs not to crash, no limiter, no journal, no metrics, no logs. Run by
 * run.ts as its own process (its own event loop, like the daemon), configured over IPC.
 */
import { sign } from "node:crypto";
import { Client } from "undici";
import WebSocket from "ws";
import { parseSecret, privateKeyFromSeed, Signer } from "../venue/signer.js";

export interface FloorConfig {
  baseUrl: string;
  wsUrl: string;
  accountId: string;
  secret: string;
  headerPrefix: string;
}

export type FloorMessage = { type: "ready" } | { type: "error"; error: string };

const PATH = "/v1/liquidation";
/** The daemon's default slippage (50 bps), so both send the same kind of guard. */
const UP = 1.005;
const DOWN = 0.995;

interface Row {
  liquidationId: number;
  positionsByPerp: { symbol: string; positionQty: number }[];
}

function start(c: FloorConfig): void {
  const key = privateKeyFromSeed(parseSecret(c.secret));
  const publicKey = new Signer({ secret: c.secret, accountId: c.accountId }).publicKey;
  const [hTs, hAccount, hKey, hSig] = ["timestamp", "account-id", "key", "signature"].map((h) => `${c.headerPrefix}-${h}`) as [
    string,
    string,
    string,
    string,
  ];
  const http = new Client(c.baseUrl, { keepAliveTimeout: 60_000, pipelining: 1 });
  const marks = new Map<string, number>();
  const claimed = new Set<number>();
  let acks = 0;
  let ready = false;

  const claim = (row: Row): void => {
    const ps = row.positionsByPerp;
    if (ps.length === 0 || claimed.has(row.liquidationId)) return;
    const limit: Record<string, number> = {};
    for (const p of ps) {
      const m = marks.get(p.symbol);
      if (m === undefined) return;
      limit[p.symbol] = p.positionQty > 0 ? m * UP : m * DOWN;
    }
    claimed.add(row.liquidationId);
    const body = JSON.stringify({ liquidation_id: row.liquidationId, ratio_qty_request: 1, limit_price: limit });
    const ts = String(Date.now());
    const signature = sign(null, Buffer.from(`${ts}POST${PATH}${body}`, "utf8"), key).toString("base64url");
    http
      .request({
        path: PATH,
        method: "POST",
        headers: { [hTs]: ts, [hAccount]: c.accountId, [hKey]: publicKey, [hSig]: signature, "content-type": "application/json" },
        body,
      })
      .then(
        (res) => res.body.dump(),
        () => undefined,
      );
  };

  const ws = new WebSocket(`${c.wsUrl}/ws/stream/${c.accountId}`, { perMessageDeflate: false });
  ws.on("open", () => {
    ws.send(JSON.stringify({ id: "s1", event: "subscribe", topic: "liquidation" }));
    ws.send(JSON.stringify({ id: "s2", event: "subscribe", topic: "markprices" }));
  });
  ws.on("message", (raw: Buffer) => {
    const msg = JSON.parse(raw.toString("utf8")) as { topic?: string; event?: string; data?: unknown; ts?: number; success?: boolean };
    if (msg.topic === "liquidation") {
      for (const row of msg.data as Row[]) claim(row);
    } else if (msg.topic === "markprices") {
      for (const m of msg.data as { symbol: string; price: number }[]) marks.set(m.symbol, m.price);
    } else if (msg.event === "ping") {
      ws.send(JSON.stringify({ event: "pong", ts: msg.ts }));
    } else if (msg.event === "subscribe" && msg.success === true) {
      acks++;
    }
    if (!ready && acks === 2 && marks.size > 0) {
      ready = true;
      process.send?.({ type: "ready" } satisfies FloorMessage);
    }
  });
  ws.on("error", (err) => process.send?.({ type: "error", error: err.message } satisfies FloorMessage));
  ws.on("close", () => void http.close().finally(() => process.exit(0)));
  process.on("disconnect", () => {
    ws.terminate();
    setTimeout(() => process.exit(0), 1_000).unref();
  });
}

if (process.send === undefined) throw new Error("floorClient must be started with an IPC channel (child_process.fork)");
process.once("message", (config: FloorConfig) => start(config));
