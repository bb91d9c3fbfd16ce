/**
 * The composed simulator: one port serves REST and both streams, and the core's pushes reach
 * WebSocket subscribers (public liquidation and marks; private claim results after auth).
 */

import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { type SimulatorHandle, startSimulator } from "../../src/sim/startSimulator.js";
import { Signer } from "../../src/venue/signer.js";
import { waitFor } from "../support/wait.js";

let sim: SimulatorHandle;
let signer: Signer;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  sim = await startSimulator({ seed: 21, scenario: { ...QUIET_SCENARIO, markIntervalMs: 100 } });
  signer = new Signer({ secret: sim.secret, accountId: sim.accountId });
});

afterAll(async () => {
  for (const s of sockets) s.terminate();
  await sim.close();
});

interface Frame {
  id?: string;
  event?: string;
  success?: boolean;
  topic?: string;
  data?: unknown;
}

async function open(
  url: string,
): Promise<{ ws: WebSocket; frames: Frame[]; next: (pred: (f: Frame) => boolean, what: string) => Promise<Frame> }> {
  const ws = new WebSocket(url);
  sockets.push(ws);
  const frames: Frame[] = [];
  ws.on("message", (raw: Buffer) => frames.push(JSON.parse(raw.toString("utf8")) as Frame));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const next = (pred: (f: Frame) => boolean, what: string): Promise<Frame> =>
    waitFor(() => frames.find(pred), `a frame: ${what}`, 20_000, 10);
  return { ws, frames, next };
}

describe("startSimulator composition", () => {
  it("public stream: liquidation pushes and mark prices on the REST port", async () => {
    const s = await open(`${sim.wsUrl}/ws/stream/${sim.accountId}`);
    s.ws.send(JSON.stringify({ id: "l1", event: "subscribe", topic: "liquidation" }));
    s.ws.send(JSON.stringify({ id: "m1", event: "subscribe", topic: "markprices" }));
    s.ws.send(JSON.stringify({ id: "m2", event: "subscribe", topic: "PERP_ETH_USDC@markprice" }));
    await s.next((f) => f.id === "l1" && f.success === true, "liquidation subscribed");
    await s.next((f) => f.id === "m2" && f.success === true, "symbol mark subscribed");
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 2 }] });
    const push = await s.next((f) => f.topic === "liquidation", "liquidation push");
    expect(push.data).toEqual([
      expect.objectContaining({
        liquidationId: id,
        positionsByPerp: [expect.objectContaining({ symbol: "PERP_ETH_USDC", positionQty: 2 })],
      }),
    ]);
    const marks = await s.next((f) => f.topic === "markprices", "markprices push");
    expect((marks.data as unknown[]).length).toBe(sim.core.symbols.names().length);
    await s.next((f) => f.topic === "PERP_ETH_USDC@markprice", "symbol mark push");
  });

  it("private stream: after auth with the printed key, a REST claim pushes liquidatorliquidations and position", async () => {
    const s = await open(`${sim.wsPrivateUrl}/v2/ws/private/stream/${sim.accountId}`);
    s.ws.send(JSON.stringify({ id: "auth-1", event: "auth", params: signer.wsAuthParams() }));
    await s.next((f) => f.id === "auth-1" && f.success === true, "auth ok");
    s.ws.send(JSON.stringify({ id: "p1", event: "subscribe", topic: "liquidatorliquidations" }));
    s.ws.send(JSON.stringify({ id: "p2", event: "subscribe", topic: "position" }));
    await s.next((f) => f.id === "p2" && f.success === true, "position subscribed");

    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: -1 }] });
    const body = JSON.stringify({
      liquidation_id: id,
      ratio_qty_request: 1,
      limit_price: { PERP_ETH_USDC: sim.core.mark("PERP_ETH_USDC")! * 0.9 },
    });
    const res = await request(`${sim.baseUrl}/v1/liquidation`, {
      method: "POST",
      headers: { ...signer.headers("POST", "/v1/liquidation", body), "content-type": "application/json" },
      body,
    });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    const assigned = await s.next((f) => f.topic === "liquidatorliquidations", "liquidatorliquidations push");
    expect(assigned.data).toMatchObject({ liquidationId: id, positionsByPerp: [{ symbol: "PERP_ETH_USDC", positionQty: -1 }] });
    const position = await s.next((f) => f.topic === "position", "position push");
    expect(position.data).toMatchObject({ positions: [expect.objectContaining({ symbol: "PERP_ETH_USDC", positionQty: -1 })] });
  });

  it("the handle exposes both fault sets and closes idempotently", async () => {
    const other = await startSimulator({ seed: 1, scenario: QUIET_SCENARIO });
    expect(typeof other.faults.rest.serverError).toBe("function");
    expect(typeof other.faults.streams.dropAll).toBe("function");
    await Promise.all([other.close(), other.close()]);
    await expect(request(`${other.baseUrl}/v1/public/info`)).rejects.toThrow();
  });
});
