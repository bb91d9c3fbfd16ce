/**
 * What reaches a real port-0 server: `User-Agent: liquidator/<version>` on every REST request (the
 * read pool, a signed claim on its own connection) and on the stream's upgrade (docs/protocol.md §9); and
 * the server time learnt from an envelope whose `timestamp` is a string.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { WebSocketServer } from "ws";
import type { ClaimLaneKind } from "../../src/venue/httpTransport.js";
import { RestClient } from "../../src/venue/rest.js";
import { ServerClock } from "../../src/venue/serverClock.js";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";
import { StreamClient } from "../../src/venue/stream.js";
import { type FakeVenueServer, startFakeVenue } from "../support/fakeVenue.js";
import { waitFor } from "../support/wait.js";

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
const UA = `liquidator/${VERSION}`;
const NO_RETRY = { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 };

let venue: FakeVenueServer | undefined;
let client: RestClient | undefined;

afterEach(async () => {
  await client?.close();
  await venue?.close();
  client = undefined;
  venue = undefined;
});

describe("User-Agent", () => {
  test("on public reads, signed reads and a claim sent on its own connection", async () => {
    venue = await startFakeVenue();
    const lanes: ClaimLaneKind[] = [];
    venue.route("GET", "/v1/public/futures", () => ({ status: 200, json: { success: true, data: { rows: [] }, timestamp: Date.now() } }));
    venue.route("GET", "/v1/positions", () => ({ status: 200, json: { success: true, data: { rows: [] }, timestamp: Date.now() } }));
    // A lean claim answer (docs/protocol.md §9): accepted as is.
    venue.route("POST", "/v1/liquidation", () => ({ status: 200, json: { success: true, data: {}, timestamp: Date.now() } }));
    const signer = new Signer({ secret: generateKeyPair().secret, accountId: "0xabc" });
    client = new RestClient({ baseUrl: venue.baseUrl, signer, retry: NO_RETRY, onClaimLane: (k) => void lanes.push(k) });
    await client.futures();
    await client.positions();
    await expect(client.claimLiquidation({ liquidation_id: 1, ratio_qty_request: 1, limit_price: { PERP_BTC_USDC: 1 } })).resolves.toEqual(
      {},
    );
    expect(lanes).toHaveLength(1);
    expect(lanes[0]).not.toBe("pool"); // the raw claim connection wrote this one
    expect(venue.requests.map((r) => [r.method, r.path, r.headers["user-agent"]])).toEqual([
      ["GET", "/v1/public/futures", UA],
      ["GET", "/v1/positions", UA],
      ["POST", "/v1/liquidation", UA],
    ]);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("on the stream's upgrade request", async () => {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
    const seen: (string | undefined)[] = [];
    wss.on("connection", (ws, req) => {
      seen.push(req.headers["user-agent"]);
      ws.close();
    });
    const controller = new AbortController();
    const stream = new StreamClient({
      url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws/stream/a`,
      stream: "public",
      topics: ["markprices"],
      backoff: { initialMs: 10, maxMs: 50 },
      onData: () => {},
    });
    const running = stream.start(controller.signal);
    try {
      await waitFor(() => seen.length > 0, "an upgrade request");
      expect(seen[0]).toBe(UA);
    } finally {
      controller.abort();
      await running;
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    }
  });
});

describe("server time from the envelope", () => {
  test.each([
    ["a number", (ts: number): unknown => ts],
    ["a numeric string", (ts: number): unknown => String(ts)],
  ])("a timestamp written as %s is learnt (the clock gets a sample and the offset)", async (_what, spell) => {
    venue = await startFakeVenue();
    const ahead = 600_000; // the venue's clock 10 minutes ahead of ours
    venue.route("GET", "/v1/public/futures", () => ({
      status: 200,
      json: { success: true, data: { rows: [] }, timestamp: spell(Date.now() + ahead) },
    }));
    const clock = new ServerClock();
    const signer = new Signer({ secret: generateKeyPair().secret, accountId: "0xabc", clock });
    client = new RestClient({ baseUrl: venue.baseUrl, signer, retry: NO_RETRY });
    expect(clock.lastSampleAt).toBe(0);
    const stamped = await client.futuresStamped();
    expect(clock.lastSampleAt).toBeGreaterThan(0);
    // Half the round trip at most off, however slow the machine: far from 0, near 10 minutes.
    expect(Math.abs(clock.offsetMs - ahead)).toBeLessThan(60_000);
    expect(stamped.venueTs).toBeGreaterThan(Date.now());
  });
});
