import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { AbortedError, ConfigError, InvalidArgumentError } from "../../src/errors.js";
import { BadResponseError, TimeoutError, TransportError, VENUE_CODES, VenueError } from "../../src/venue/errors.js";
import type { LimiterName, VenueLimiters } from "../../src/venue/limiters.js";
import { buildQuery, RestClient, type RestClientOptions } from "../../src/venue/rest.js";
import { ServerClock } from "../../src/venue/serverClock.js";
import { generateKeyPair, Signer } from "../../src/venue/signer.js";
import { type FakeVenueServer, fail, ok, startFakeVenue, verifySignature } from "../support/fakeVenue.js";
import { waitFor } from "../support/wait.js";

const EPOCH_INFO = "/v1/public/trading_rewards/epoch_info";
const FUTURES = "/v1/public/futures";
const ORDERS = "/v1/admin/orders";
const CLAIM = "/v1/liquidation";
const LIQS = "/v1/public/liquidation";

function epochInfoRow(id: number): Record<string, unknown> {
  return {
    epoch_id: id,
    start_time: 1_700_000_000_000 + id * 1000,
    end_time: 1_700_000_000_000 + id * 1000 + 999,
    power_fees_paid_major: 0.5,
    power_fees_paid_alts: 0.6,
    power_staked_major: 0.1,
    power_staked_alts: 0.2,
    epoch_token: "ORDER",
    max_reward_amount: 1000 + id,
    k_constant_major: 1.5,
    k_constant_alts: 2.5,
  };
}

const claimAnswer = {
  liquidation_id: 101,
  timestamp: 1663313562090,
  type: "liquidated",
  positions_by_perp: [
    {
      symbol: "PERP_BTC_USDC",
      position_qty: 0.00017,
      cost_position_transfer: 21.002786,
      transfer_price: 123545.8,
      liquidator_fee: 0.006,
      abs_liquidator_fee: 1.152279,
    },
  ],
};

let venue: FakeVenueServer;
const clients: RestClient[] = [];
const keys = generateKeyPair();
const ACCOUNT = "0xabc123";

function client(extra: Partial<RestClientOptions> = {}): RestClient {
  const c = new RestClient({ baseUrl: venue.baseUrl, timeoutMs: 3000, retry: { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 20 }, ...extra });
  clients.push(c);
  return c;
}

function signer(prefix = "service", clock?: ServerClock): Signer {
  return new Signer({ secret: keys.secret, accountId: ACCOUNT, headerPrefix: prefix, ...(clock ? { clock } : {}) });
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

beforeAll(async () => {
  venue = await startFakeVenue();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await venue.close();
});

describe("envelopes", () => {
  test("success: payload validated, unknown fields tolerated", async () => {
    venue.route("GET", EPOCH_INFO, () => ({
      status: 200,
      json: {
        success: true,
        data: { current_epoch: 2, rows: [{ ...epochInfoRow(1), new_field: "x" }, epochInfoRow(2)], extra: 1 },
        timestamp: Date.now(),
        more: true,
      },
    }));
    const info = await client().epochInfo();
    expect(info.current_epoch).toBe(2);
    expect(info.rows.map((r) => r.epoch_id)).toEqual([1, 2]);
    expect(info.rows[0]?.max_reward_amount).toBe(1001);
  });

  test("failure with a numeric code and with a string code", async () => {
    const c = client({ retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } });
    venue.route("GET", FUTURES, (_req, nth) => (nth % 2 === 1 ? fail(-1005, "bad size") : fail(" -1011 ", "net error")));
    const before = venue.count("GET", FUTURES);
    const e1 = await caught(c.futures());
    const e2 = await caught(c.futures());
    expect(venue.count("GET", FUTURES) - before).toBe(2);
    expect(e1).toBeInstanceOf(VenueError);
    expect((e1 as VenueError).venueCode).toBe(-1005);
    expect((e1 as VenueError).kind).toBe("bad_param");
    expect((e1 as VenueError).message).toContain("-1005");
    expect(e2).toBeInstanceOf(VenueError);
    expect((e2 as VenueError).venueCode).toBe(-1011);
    expect((e2 as VenueError).kind).toBe("retry_later");
  });

  test("garbage bodies", async () => {
    const c = client({ retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } });
    const cases: { reply: Parameters<FakeVenueServer["route"]>[2]; check: (e: unknown) => void }[] = [
      { reply: () => ({ status: 200, raw: "not json {" }), check: (e) => expect(e).toBeInstanceOf(BadResponseError) },
      {
        reply: () => ({ status: 200, raw: "<html>hi</html>", contentType: "text/html" }),
        check: (e) => expect(e).toBeInstanceOf(BadResponseError),
      },
      { reply: () => ({ status: 200, json: [1, 2] }), check: (e) => expect(e).toBeInstanceOf(BadResponseError) },
      {
        // A numeric string is read (docs/protocol.md §9); a string that spells no number is not.
        reply: () => ok({ current_epoch: "two", rows: [] }),
        check: (e) => expect((e as BadResponseError).message).toContain("current_epoch"),
      },
      {
        // A bad row is left out (rest.tolerantRows.test.ts); rows that are no list fail the page.
        reply: () => ok({ current_epoch: 2, rows: { 0: epochInfoRow(1) } }),
        check: (e) => expect((e as BadResponseError).message).toContain("data.rows"),
      },
      { reply: () => ({ status: 200, json: { success: "yes", data: {} } }), check: (e) => expect(e).toBeInstanceOf(BadResponseError) },
      {
        reply: () => ({ status: 502, raw: "<html>Bad Gateway</html>", contentType: "text/html" }),
        check: (e) => {
          expect(e).toBeInstanceOf(VenueError);
          expect((e as VenueError).venueCode).toBe(-1000);
          expect((e as VenueError).status).toBe(502);
        },
      },
      { reply: () => ({ status: 429, raw: "slow down" }), check: (e) => expect((e as VenueError).kind).toBe("rate_limited") },
      { reply: () => ({ status: 404, raw: "<html>Not found</html>" }), check: (e) => expect((e as VenueError).status).toBe(404) },
      { reply: () => fail("oops", "line1\nline2\u001b[31m"), check: (e) => expect((e as VenueError).message).not.toMatch(/[\n\u001b]/) },
    ];
    for (const { reply, check } of cases) {
      venue.route("GET", EPOCH_INFO, reply);
      check(await caught(c.epochInfo()));
    }
  });

  test("every venue code of docs/protocol.md §3 maps to its kind", async () => {
    const c = client({ retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } });
    let current = 0;
    venue.route("GET", FUTURES, () => fail(current, `code ${current}`, VENUE_CODES.get(current)?.status ?? 400));
    for (const [code, { kind }] of [...VENUE_CODES.entries(), [-4242, { kind: "unmapped" }] as const]) {
      current = code;
      const err = await caught(c.futures());
      expect(err).toBeInstanceOf(VenueError);
      expect((err as VenueError).venueCode).toBe(code);
      expect((err as VenueError).kind).toBe(kind);
      expect((err as VenueError).status).toBe(VENUE_CODES.get(code)?.status ?? 400);
    }
  });
});

describe("retries", () => {
  test.each([
    ["-1003", () => fail(-1003, "too many", 429)],
    ["-1011", () => fail(-1011, "retry later", 400)],
    ["HTTP 503", () => fail(-1000, "unavailable", 503)],
    ["connection reset", () => ({ destroy: true }) as const],
  ])("GET retried on %s", async (_name, failure) => {
    const path = FUTURES;
    const before = venue.count("GET", path);
    venue.route("GET", path, (_req, nth) =>
      nth - before <= 2 ? failure() : ok({ rows: [{ symbol: "PERP_BTC_USDC", mark_price: 1, index_price: 1 }] }),
    );
    const res = await client().futures();
    expect(res.rows[0]?.symbol).toBe("PERP_BTC_USDC");
    expect(venue.count("GET", path) - before).toBe(3);
  });

  test("GET not retried on -1005; retries are bounded", async () => {
    const c = client();
    let before = venue.count("GET", FUTURES);
    venue.route("GET", FUTURES, () => fail(-1005, "bad"));
    expect(await caught(c.futures())).toBeInstanceOf(VenueError);
    expect(venue.count("GET", FUTURES) - before).toBe(1);

    before = venue.count("GET", FUTURES);
    venue.route("GET", FUTURES, () => fail(-1011, "still down"));
    expect(((await caught(c.futures())) as VenueError).venueCode).toBe(-1011);
    expect(venue.count("GET", FUTURES) - before).toBe(4); // 1 + 3 retries
  });

  test("each attempt passes through the limiter", async () => {
    const acquired: LimiterName[] = [];
    const limiters: VenueLimiters = {
      acquire: async (name) => {
        acquired.push(name);
      },
      tryAcquire: () => false,
      restamp: () => undefined,
      queued: () => 0,
      spacingMs: () => 0,
      stop: async () => undefined,
    };
    const before = venue.count("GET", FUTURES);
    venue.route("GET", FUTURES, (_req, nth) => (nth - before === 1 ? fail(-1011, "x") : ok({ rows: [] })));
    await client({ limiters }).futures();
    expect(acquired).toEqual(["public", "public"]);
  });

  test.each([
    ["-1011", () => fail(-1011, "retry later")],
    ["HTTP 500", () => fail(-1000, "boom", 500)],
    ["-1003", () => fail(-1003, "limit", 429)],
  ])("POST is never retried (%s)", async (_name, failure) => {
    const before = venue.count("POST", CLAIM);
    venue.route("POST", CLAIM, failure);
    const err = await caught(
      client({ signer: signer() }).claimLiquidation({ liquidation_id: 1, ratio_qty_request: 1, limit_price: { PERP_BTC_USDC: 1 } }),
    );
    expect(err).toBeInstanceOf(VenueError);
    expect(venue.count("POST", CLAIM) - before).toBe(1);
  });

  test("a claim rehearsal builds and signs the claim's request and sends nothing; the claim after it goes out once", async () => {
    const c = client({ signer: signer() });
    const body = { liquidation_id: 9, ratio_qty_request: 1, limit_price: { PERP_BTC_USDC: 1 } };
    const before = venue.requests.length;
    const sizes = Array.from({ length: 20 }, () => c.claimText(body));
    venue.route("POST", CLAIM, () => ok(claimAnswer));
    // The claim, sent after the rehearsals through the same client, is what the venue sees: one request
    // (a rehearsal that wrote one would have gone out before it).
    await c.claimLiquidation(body);
    expect(venue.requests.length).toBe(before + 1);
    const sent = venue.requests.at(-1);
    expect(sent?.body).toBe(JSON.stringify(body));
    // The request line, host, keep-alive, the signed headers, content-length and the body.
    const signed = ["timestamp", "account-id", "key", "signature"].map((h) => `service-${h}`);
    const head = Object.entries(sent?.headers ?? {}).filter(([k]) => [...signed, "accept", "content-type", "user-agent"].includes(k));
    expect(head).toHaveLength(7);
    const length =
      `POST ${CLAIM} HTTP/1.1\r\nhost: ${new URL(venue.baseUrl).host}\r\nconnection: keep-alive\r\n`.length +
      head.reduce((n, [k, v]) => n + `${k}: ${v}\r\n`.length, 0) +
      `content-length: ${sent?.body.length}\r\n\r\n`.length +
      (sent?.body.length ?? 0);
    expect(new Set(sizes)).toEqual(new Set([length]));
  });

  test("POST cut off after delivery: TransportError maybeDelivered, one attempt", async () => {
    const before = venue.count("POST", CLAIM);
    venue.route("POST", CLAIM, () => ({ destroy: true }));
    const err = await caught(
      client({ signer: signer() }).claimLiquidation({ liquidation_id: 1, ratio_qty_request: 1, limit_price: { PERP_BTC_USDC: 1 } }),
    );
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).maybeDelivered).toBe(true);
    expect(venue.count("POST", CLAIM) - before).toBe(1);
  });

  test("connection refused: TransportError not delivered", async () => {
    const s = createServer();
    s.listen(0, "127.0.0.1");
    await once(s, "listening");
    const port = (s.address() as AddressInfo).port;
    s.close();
    await once(s, "close");
    const c = new RestClient({
      baseUrl: `http://127.0.0.1:${port}`,
      signer: signer(),
      retry: { retries: 1, minTimeoutMs: 1, maxTimeoutMs: 2 },
    });
    clients.push(c);
    const err = await caught(c.claimLiquidation({ liquidation_id: 1, ratio_qty_request: 1, limit_price: {} }));
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).maybeDelivered).toBe(false);
    expect(await caught(c.info())).toBeInstanceOf(TransportError);
  });
});

describe("signing", () => {
  test("admin orders: signed query verifies over the exact received bytes", async () => {
    const s = signer("orderly");
    let verified: boolean | undefined;
    let received: URLSearchParams | undefined;
    venue.route("GET", ORDERS, async (req) => {
      verified = await verifySignature(req, { publicKey: s.publicKey, accountId: ACCOUNT, prefix: "orderly" });
      received = req.query;
      return ok({ meta: { total: 0, records_per_page: 25, current_page: 1 }, rows: [] });
    });
    const page = await client({ signer: s }).adminOrders({
      user_account: "0xu",
      order_tag: "a b&c=d/é+?",
      symbol: "PERP_BTC_USDC",
      page: 2,
      size: 25,
      start_t: 1_700_000_000_000,
      sort_by: "CREATED_TIME_ASC",
    });
    expect(page.meta.records_per_page).toBe(25);
    expect(verified).toBe(true);
    expect(received?.get("order_tag")).toBe("a b&c=d/é+?");
    expect(received?.get("page")).toBe("2");
    expect(received?.get("user_account")).toBe("0xu");
    const last = venue.requests.at(-1);
    expect(last?.url).toContain("?");
    expect(last?.headers["service-signature"]).toBeUndefined();
  });

  test("claim: one JSON body, signed, content-type json, tampering detected", async () => {
    const s = signer();
    const bodies: string[] = [];
    let verified: boolean | undefined;
    let tampered: boolean | undefined;
    venue.route("POST", CLAIM, async (req) => {
      bodies.push(req.body);
      verified = await verifySignature(req, { publicKey: s.publicKey, accountId: ACCOUNT });
      tampered = await verifySignature({ ...req, body: req.body.replace("0.5", "0.6") }, { publicKey: s.publicKey, accountId: ACCOUNT });
      expect(req.headers["content-type"]).toBe("application/json");
      return ok(claimAnswer);
    });
    const body = {
      liquidation_id: 101,
      ratio_qty_request: 0.5,
      limit_price: { PERP_BTC_USDC: 123456.7 },
      symbols: [{ symbol: "PERP_BTC_USDC", ratio_qty_request: 0.5 }],
    };
    const res = await client({ signer: s }).claimLiquidation(body);
    expect(res.positions_by_perp?.[0]?.abs_liquidator_fee).toBe(1.152279);
    expect(verified).toBe(true);
    expect(tampered).toBe(false);
    expect(JSON.parse(bodies[0] ?? "")).toEqual(body);
  });

  test("signed call without a signer is refused before any request", async () => {
    const before = venue.requests.length;
    expect(await caught(client().adminOrders({ user_account: "x" }))).toBeInstanceOf(ConfigError);
    expect(venue.requests.length).toBe(before);
  });
});

describe("clock, abort and timeout", () => {
  test("server clock offset is learned from envelopes and used for signing", async () => {
    const skew = 600_000;
    const clock = new ServerClock();
    const s = signer("service", clock);
    venue.route("GET", EPOCH_INFO, () => ok({ current_epoch: 1, rows: [] }, Date.now() + skew));
    await client({ signer: s }).epochInfo();
    expect(Math.abs(clock.offsetMs - skew)).toBeLessThan(5_000);
    venue.route("GET", ORDERS, () => fail(-1005, "x", 400, Date.now() + skew));
    await caught(client({ signer: s }).adminOrders({ user_account: "u" }));
    const sent = Number(venue.requests.at(-1)?.headers["service-timestamp"]);
    expect(Math.abs(sent - (Date.now() + skew))).toBeLessThan(5_000);
  });

  test("abort: before the call, while waiting, and during retry backoff", async () => {
    venue.route("GET", EPOCH_INFO, () => ({ hang: true }));
    const c = client();
    expect(await caught(c.epochInfo({ signal: AbortSignal.abort() }))).toBeInstanceOf(AbortedError);
    const ac = new AbortController();
    const before = venue.count("GET", EPOCH_INFO);
    const p = caught(c.epochInfo({ signal: ac.signal }));
    await waitFor(() => venue.count("GET", EPOCH_INFO) > before, "the request seen", 10_000, 10);
    ac.abort();
    expect(await p).toBeInstanceOf(AbortedError);

    venue.route("GET", FUTURES, () => fail(-1011, "x"));
    const slow = client({ retry: { retries: 5, minTimeoutMs: 10_000, maxTimeoutMs: 10_000 } });
    const ac2 = new AbortController();
    const n0 = venue.count("GET", FUTURES);
    const p2 = caught(slow.futures({ signal: ac2.signal }));
    await waitFor(() => venue.count("GET", FUTURES) > n0, "the request seen", 10_000, 10);
    ac2.abort();
    expect(await p2).toBeInstanceOf(AbortedError);
    expect(venue.count("GET", FUTURES) - n0).toBe(1);
  });

  test("timeout: TimeoutError, retried for GET, single attempt for POST", async () => {
    venue.route("GET", EPOCH_INFO, () => ({ hang: true }));
    const n0 = venue.count("GET", EPOCH_INFO);
    // Long enough for a request to reach the fake on a loaded machine (the attempt count is checked).
    const c = client({ timeoutMs: 1000, signer: signer(), retry: { retries: 1, minTimeoutMs: 1, maxTimeoutMs: 2 } });
    expect(await caught(c.epochInfo())).toBeInstanceOf(TimeoutError);
    expect(venue.count("GET", EPOCH_INFO) - n0).toBe(2);
    venue.route("POST", CLAIM, () => ({ hang: true }));
    const p0 = venue.count("POST", CLAIM);
    expect(await caught(c.claimLiquidation({ liquidation_id: 1, ratio_qty_request: 1, limit_price: {} }))).toBeInstanceOf(TimeoutError);
    expect(venue.count("POST", CLAIM) - p0).toBe(1);
  });
});

describe("paging, hooks and options", () => {
  test("allOpenLiquidations walks every page and de-duplicates ids", async () => {
    const row = (id: number) => ({
      liquidation_id: id,
      timestamp: 1,
      type: "liquidated",
      positions_by_perp: [{ symbol: "PERP_ETH_USDC", position_qty: 1, liquidator_fee: 0.01 }],
    });
    const all = [1, 2, 3, 4, 5, 6, 7];
    venue.route("GET", LIQS, (req) => {
      const page = Number(req.query.get("page"));
      const rows = all.slice((page - 1) * 3, page * 3).map(row);
      if (page === 3) rows.push(row(6)); // the list moved while paging
      return ok({ meta: { total: all.length, records_per_page: 3, current_page: page }, rows });
    });
    const n0 = venue.count("GET", LIQS);
    const rows = await client().allOpenLiquidations();
    expect(rows.map((r) => r.liquidation_id).sort((a, b) => a - b)).toEqual(all);
    expect(venue.count("GET", LIQS) - n0).toBe(3);
  });

  test("onRequest sees path templates and statuses", async () => {
    const seen: [string, number | "error"][] = [];
    venue.route("GET", ORDERS, () => fail(-1005, "x"));
    venue.route("GET", EPOCH_INFO, () => ok({ current_epoch: 1, rows: [] }));
    const c = client({
      signer: signer(),
      onRequest: (e, st, secs) => {
        expect(secs).toBeGreaterThanOrEqual(0);
        seen.push([e, st]);
      },
    });
    await c.epochInfo();
    await caught(c.adminOrders({ user_account: "u", page: 3 }));
    expect(seen).toEqual([
      [EPOCH_INFO, 200],
      [ORDERS, 400],
    ]);
  });

  test("options are validated when constructed", () => {
    expect(() => new RestClient({ baseUrl: "not a url" })).toThrow(ConfigError);
    expect(() => new RestClient({ baseUrl: "ftp://x" })).toThrow(ConfigError);
    expect(() => new RestClient({ baseUrl: "http://x/?a=1" })).toThrow(ConfigError);
    expect(() => new RestClient({ baseUrl: "http://x", timeoutMs: 0 })).toThrow(ConfigError);
    expect(() => new RestClient({ baseUrl: "http://x", retry: { retries: -1, minTimeoutMs: 1, maxTimeoutMs: 2 } })).toThrow(
      InvalidArgumentError,
    );
  });

  test("buildQuery encodes consistently and skips empty values", () => {
    expect(buildQuery({ a: "x y", b: undefined, c: "", d: 5, e: "é&=" })).toBe("a=x%20y&d=5&e=%C3%A9%26%3D");
    expect(() => buildQuery({ n: Number.NaN })).toThrow(RangeError);
  });
});
