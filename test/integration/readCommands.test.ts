import { Writable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import type { CommandIO } from "../../src/commands/command.js";
import { main } from "../../src/commands/dispatch.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import { type FakeVenueServer, fail, type Handler, ok, startFakeVenue, verifySignature } from "../support/fakeVenue.js";

const EPOCH_INFO = "/v1/public/trading_rewards/epoch_info";
const EPOCH_DATA = "/v1/public/trading_rewards/epoch_data";
const CAMPAIGN = "/v1/public/campaign/user";
const ORDERS = "/v1/admin/orders";
const ACCOUNT = "0xliquidator";
const keys = generateKeyPair();
const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

function infoRow(id: number, token = "ORDER"): Record<string, unknown> {
  return {
    epoch_id: id,
    start_time: T0 + (id - 1) * 14 * DAY,
    end_time: T0 + id * 14 * DAY,
    power_fees_paid_major: 0.7,
    power_fees_paid_alts: 0.7,
    power_staked_major: 0.3,
    power_staked_alts: 0.3,
    epoch_token: token,
    max_reward_amount: 1_000_000 + id,
    k_constant_major: 1,
    k_constant_alts: 1.5,
  };
}

function dataRow(id: number, status: string): Record<string, unknown> {
  return {
    epoch_id: id,
    total_trader_score_major: 100 * id,
    total_trader_score_alts: 10 * id,
    epoch_token: "ORDER",
    reward_status: status,
    r_major: 600 * id,
    r_alts: 400 * id,
  };
}

const ORDER_TOTAL = 23;
function orderRow(i: number): Record<string, unknown> {
  return {
    order_id: 9000 + i,
    user_id: 42,
    price: 100 + i,
    type: i % 2 ? "LIMIT" : "MARKET",
    quantity: 1,
    amount: 100 + i,
    total_executed_quantity: 1,
    visible_quantity: 1,
    symbol: "PERP_BTC_USDC",
    side: i % 3 ? "BUY" : "SELL",
    status: "FILLED",
    total_fee: 0.01,
    fee_asset: "USDC",
    client_order_id: i,
    average_executed_price: 100 + i,
    created_time: T0 - i * 1000,
    updated_time: T0 - i * 1000 + 5,
    realized_pnl: 0,
    executed_quantity: 1,
    visible: 1,
    executed: 1,
    reduce_only: null,
    order_tag: i === 0 ? 'tag "q", comma' : null,
    margin_mode: "CROSS",
    venue_added_field: "ignored",
  };
}

let venue: FakeVenueServer;
const signatureChecks: boolean[] = [];

/** GET /v1/admin/orders over ORDER_TOTAL rows, honouring page and size like the venue. */
const ordersHandler: Handler = async (req) => {
  signatureChecks.push(await verifySignature(req, { publicKey: keys.publicKey, accountId: ACCOUNT }));
  const page = Number(req.query.get("page") ?? "1");
  const size = Number(req.query.get("size") ?? "10");
  const rows = Array.from({ length: ORDER_TOTAL }, (_, i) => orderRow(i)).slice((page - 1) * size, page * size);
  return ok({ meta: { total: ORDER_TOTAL, records_per_page: size, current_page: page }, rows });
};

function liveEnv(): NodeJS.ProcessEnv {
  return {
    LIQUIDATOR_VENUE: "live",
    LIQUIDATOR_BASE_URL: venue.baseUrl,
    LIQUIDATOR_WS_URL: "ws://127.0.0.1:9",
    LIQUIDATOR_WS_PRIVATE_URL: "ws://127.0.0.1:9",
    LIQUIDATOR_ACCOUNT_ID: ACCOUNT,
    LIQUIDATOR_SECRET: keys.secret,
  };
}

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function sink(into: string[]): Writable {
  return new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      into.push(chunk.toString());
      cb();
    },
  });
}

async function run(argv: string[], env: NodeJS.ProcessEnv = liveEnv()): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = { stdout: sink(out), stderr: sink(err), env, signal: new AbortController().signal };
  const status = await main(argv, io);
  return { status, stdout: out.join(""), stderr: err.join("") };
}

/** Minimal RFC 4180 reader for the assertions (quoted fields, doubled quotes, CRLF records). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += c;
  }
  return rows;
}

beforeAll(async () => {
  venue = await startFakeVenue();
});
afterAll(async () => {
  await venue.close();
});
beforeEach(() => {
  venue.route("GET", EPOCH_INFO, () => ok({ current_epoch: 3, rows: [infoRow(1), infoRow(2, 'A "B", C'), infoRow(3)] }));
  venue.route("GET", EPOCH_DATA, () =>
    ok({
      total_released_trading_rewards_native: 1234.5,
      total_released_trading_rewards_escrow: 99,
      current_epoch: 3,
      rows: [dataRow(1, "Confirmed"), dataRow(2, "Pending"), dataRow(3, "Ongoing"), dataRow(4, "0")],
    }),
  );
  venue.route("GET", ORDERS, ordersHandler);
  signatureChecks.length = 0;
});

describe("epochs", () => {
  test("table: joined rows with ISO times, then current epoch and totals", async () => {
    const r = await run(["epochs"]);
    expect(r.status).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^epoch_id\s+start\s+end\s+token/);
    expect(r.stdout).toContain(new Date(T0).toISOString());
    expect(r.stdout).toContain("Pending");
    expect(lines.filter((l) => /^\s*[1-4]\s/.test(l))).toHaveLength(4);
    expect(r.stdout).toContain("current epoch: 3");
    expect(r.stdout).toContain("1234.5 native, 99 escrow");
  });

  test("--json: the rows, times in ms, an epoch only in epoch_data still listed", async () => {
    const r = await run(["epochs", "--json"]);
    expect(r.status).toBe(0);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.map((x) => x.epoch_id)).toEqual([1, 2, 3, 4]);
    expect(rows[0]).toMatchObject({
      start_time: T0,
      end_time: T0 + 14 * DAY,
      max_reward_amount: 1_000_001,
      reward_status: "Confirmed",
      r_major: 600,
      k_constant_alts: 1.5,
    });
    expect(rows[3]).toMatchObject({ start_time: null, reward_status: "0", r_alts: 1600 });
    expect(r.stderr).toContain("current epoch: 3");
  });

  test("--csv: RFC 4180 quoting and CRLF records", async () => {
    const r = await run(["epochs", "--csv"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('"A ""B"", C"');
    const rows = parseCsv(r.stdout);
    const header = rows[0] ?? [];
    expect(header.slice(0, 3)).toEqual(["epoch_id", "start_time", "end_time"]);
    expect(rows).toHaveLength(5);
    const second = rows[2] ?? [];
    expect(second[header.indexOf("epoch_token")]).toBe('A "B", C');
    expect(second[header.indexOf("start_time")]).toBe(String(T0 + 14 * DAY));
    expect(rows.every((row) => row.length === header.length)).toBe(true);
  });

  test("--info only asks epoch_info; --info with --data is a usage error", async () => {
    const before = venue.count("GET", EPOCH_DATA);
    const r = await run(["epochs", "--info", "--json"]);
    expect(r.status).toBe(0);
    expect(venue.count("GET", EPOCH_DATA)).toBe(before);
    expect(Object.keys((JSON.parse(r.stdout) as Record<string, unknown>[])[0] ?? {})).not.toContain("r_major");
    expect((await run(["epochs", "--info", "--data"])).status).toBe(64);
    expect((await run(["epochs", "--json", "--csv"])).status).toBe(64);
    expect((await run(["epochs", "--bogus"])).status).toBe(64);
  });

  test("a row that cannot be read: the others listed, the left-out row said on stderr", async () => {
    venue.route("GET", EPOCH_INFO, () => ok({ current_epoch: 3, rows: [infoRow(1), { ...infoRow(2), end_time: "later" }, infoRow(3)] }));
    const r = await run(["epochs", "--info", "--json"]);
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as Record<string, unknown>[]).map((x) => x.epoch_id)).toEqual([1, 3]);
    expect(r.stderr).toContain("1 row(s) of epoch_info could not be read and are not shown");
  });

  test("--help", async () => {
    const r = await run(["epochs", "--help"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("usage: liquidator epochs");
  });
});

describe("campaign", () => {
  const stats = {
    volume: 1500.25,
    filled_order_count: 12,
    updated_time: T0,
    pnl: -3.5,
    total_deposit_amount: 1000,
    total_withdrawal_amount: 0,
    start_account_value: 900,
    end_account_value: 896.5,
    new_invited_referee: 2,
    new_traded_referee: 1,
    total_staked_native: 10,
    total_staked_esnative: 0,
  };

  test("passes the query and shows the docs/protocol.md §A.2.4 fields", async () => {
    let query: URLSearchParams | undefined;
    venue.route("GET", CAMPAIGN, (req) => {
      query = req.query;
      return ok({ ...stats, extra: true });
    });
    const r = await run(["campaign", "--campaign-id", "7", "--account-id", "0xuser", "--order-tag", "t1", "--symbol", "PERP_ETH_USDC"]);
    expect(r.status).toBe(0);
    expect(query?.get("campaign_id")).toBe("7");
    expect(query?.get("account_id")).toBe("0xuser");
    expect(query?.get("order_tag")).toBe("t1");
    expect(query?.get("symbol")).toBe("PERP_ETH_USDC");
    expect(query?.has("address")).toBe(false);
    expect(r.stdout).toMatch(/volume\s+1500\.25/);
    expect(r.stdout).toContain(new Date(T0).toISOString());

    const j = await run(["campaign", "--campaign-id", "7", "--address", "0xaddr", "--json"]);
    expect(j.status).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual(stats);
    expect(query?.get("address")).toBe("0xaddr");

    const c = parseCsv((await run(["campaign", "--campaign-id", "7", "--address", "0xaddr", "--csv"])).stdout);
    expect(c[0]).toContain("total_staked_esnative");
    expect(c[1]?.[c[0]?.indexOf("pnl") ?? -1]).toBe("-3.5");
  });

  test("user mistakes are refused before any request", async () => {
    const before = venue.count("GET", CAMPAIGN);
    for (const argv of [
      ["campaign", "--account-id", "0xu"],
      ["campaign", "--campaign-id", "x1", "--account-id", "0xu"],
      ["campaign", "--campaign-id", "1", "--account-id", "0xu", "--address", "0xa"],
      ["campaign", "--campaign-id", "1"], // live venue: no default user
      ["campaign", "--campaign-id", "1", "--account-id", "0xu", "--symbol", "BTC"],
    ]) {
      const r = await run(argv);
      expect(r.status, argv.join(" ")).toBe(64);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
    expect(venue.count("GET", CAMPAIGN)).toBe(before);
  });
});

describe("orders", () => {
  test("--all walks every page under the limiter, signed, and prints every row", async () => {
    const before = venue.count("GET", ORDERS);
    const r = await run(["orders", "--user-account", "0xuser", "--size", "10", "--all", "--json"]);
    expect(r.status).toBe(0);
    expect(venue.count("GET", ORDERS) - before).toBe(3);
    const rows = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rows.map((x) => x.order_id)).toEqual(Array.from({ length: ORDER_TOTAL }, (_, i) => 9000 + i));
    expect(rows[0]).not.toHaveProperty("venue_added_field");
    expect(signatureChecks).toEqual([true, true, true]);
    const pages = venue.requests
      .filter((q) => q.path === ORDERS)
      .slice(-3)
      .map((q) => q.query.get("page"));
    expect(pages).toEqual(["1", "2", "3"]);
    expect(r.stderr).toContain("23 orders in 3 page(s)");
  });

  test("a row that cannot be read: the others listed, the left-out rows said on stderr (one page and --all)", async () => {
    venue.route("GET", ORDERS, async () =>
      ok({
        meta: { total: 3, records_per_page: 10, current_page: 1 },
        rows: [orderRow(0), { ...orderRow(1), quantity: "lots" }, orderRow(2)],
      }),
    );
    try {
      for (const extra of [[], ["--all"]]) {
        const r = await run(["orders", "--user-account", "0xuser", "--json", ...extra]);
        expect(r.status, r.stderr).toBe(0);
        expect((JSON.parse(r.stdout) as Record<string, unknown>[]).map((x) => x.order_id)).toEqual([9000, 9002]);
        expect(r.stderr).toContain("1 row(s) could not be read and are not shown");
      }
    } finally {
      venue.route("GET", ORDERS, ordersHandler);
    }
  });

  test("one page by default with the meta on stderr; filters reach the venue", async () => {
    const r = await run([
      "orders",
      "--user-address",
      "0xaddr",
      "--side",
      "buy",
      "--status",
      "FILLED",
      "--order-type",
      "LIMIT",
      "--start-t",
      String(T0 - DAY),
      "--end-t",
      String(T0),
      "--update-start-t",
      String(T0 - DAY),
      "--sort-by",
      "UPDATED_TIME_ASC",
      "--page",
      "2",
      "--size",
      "5",
      "--order-tag",
      "x y",
    ]);
    expect(r.status).toBe(0);
    const q = venue.requests.at(-1)?.query;
    expect(Object.fromEntries(q ?? [])).toEqual({
      user_address: "0xaddr",
      side: "BUY",
      status: "FILLED",
      order_type: "LIMIT",
      start_t: String(T0 - DAY),
      end_t: String(T0),
      update_start_t: String(T0 - DAY),
      sort_by: "UPDATED_TIME_ASC",
      page: "2",
      size: "5",
      order_tag: "x y",
    });
    expect(r.stdout.split("\n")[0]).toMatch(/order_id\s+created/);
    expect(r.stderr).toContain("page 2 of 5");
    expect(signatureChecks).toEqual([true]);
  });

  test("--csv quotes venue strings", async () => {
    const r = await run(["orders", "--user-account", "0xuser", "--csv", "--size", "3"]);
    expect(r.status).toBe(0);
    const rows = parseCsv(r.stdout);
    const header = rows[0] ?? [];
    expect(rows[1]?.[header.indexOf("order_tag")]).toBe('tag "q", comma');
    expect(rows).toHaveLength(4);
  });

  test("invalid values are refused before any request", async () => {
    const before = venue.requests.length;
    const cases = [
      ["--size", "501"],
      ["--size", "0"],
      ["--sort-by", "PRICE_DESC"],
      ["--side", "LONG"],
      ["--order-type", "STOP"],
      ["--status", "OPEN"],
      ["--start-t", "1700000000"],
      ["--start-t", String(T0), "--end-t", String(T0 - 1)],
      ["--page", "0"],
      ["--page", "2", "--all"],
      ["--symbol", "btc"],
    ];
    for (const extra of cases) {
      const r = await run(["orders", "--user-account", "0xu", ...extra]);
      expect(r.status, extra.join(" ")).toBe(64);
      expect(r.stderr.trim().split("\n"), extra.join(" ")).toHaveLength(1);
    }
    expect((await run(["orders", "--user-account", "0xu", "--user-address", "0xa"])).status).toBe(64);
    expect((await run(["orders"])).status).toBe(64); // live venue: the user is required
    expect((await run(["orders", "--user-account", "0xu", "--size", "501"])).stderr).toContain("500");
    expect(venue.requests.length).toBe(before);
  });

  test("a venue error is one line naming the code, non-zero status", async () => {
    venue.route("GET", ORDERS, () => fail(-1005, "size too large\nsecond line"));
    const r = await run(["orders", "--user-account", "0xu"]);
    expect(r.status).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("-1005");
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe("");
  });

  test("an invalid config exits 78 before any request", async () => {
    const before = venue.requests.length;
    const env = { ...liveEnv(), LIQUIDATOR_BASE_URL: "" };
    const r = await run(["orders", "--user-account", "0xu"], env);
    expect(r.status).toBe(78);
    expect(venue.requests.length).toBe(before);
  });
});

describe("embedded simulated venue (the default)", () => {
  test("epochs and orders work with no configuration at all", async () => {
    const e = await run(["epochs", "--json"], {});
    expect(e.status, e.stderr).toBe(0);
    expect(e.stderr).toContain("embedded simulated venue");
    const rows = JSON.parse(e.stdout) as { epoch_id: number }[];
    expect(rows.length).toBeGreaterThan(0);
    const o = await run(["orders", "--size", "3", "--json"], {});
    expect(o.status, o.stderr).toBe(0);
    expect((JSON.parse(o.stdout) as unknown[]).length).toBe(3);
  });
});
