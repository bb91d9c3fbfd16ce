/** `liquidator simulate`, run in-process through the real dispatcher with real sockets. */
import { PassThrough } from "node:stream";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { main } from "../../src/commands/dispatch.js";
import { Signer } from "../../src/venue/signer.js";
import { waitFor } from "../support/wait.js";

function capture(stream: PassThrough): { text: () => string; firstLine: () => Promise<string> } {
  let buf = "";
  stream.on("data", (c: Buffer) => (buf += c.toString("utf8")));
  return {
    text: () => buf,
    firstLine: async () => {
      await waitFor(() => buf.includes("\n"), "a stdout line", 30_000, 20);
      return buf.slice(0, buf.indexOf("\n"));
    },
  };
}

function run(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const controller = new AbortController();
  const out = capture(stdout);
  const err = capture(stderr);
  const status = main(["simulate", ...args], { stdout, stderr, env: { LIQUIDATOR_LOG_LEVEL: "info" }, signal: controller.signal });
  return { out, err, status, stop: () => controller.abort() };
}

describe("liquidator simulate", () => {
  it("prints one JSON line with the seven fields; its secret signs requests the venue accepts; SIGINT closes it", async () => {
    const r = run(["--port", "0", "--seed", "1234"]);
    try {
      const info = JSON.parse(await r.out.firstLine()) as Record<string, unknown>;
      expect(Object.keys(info).sort()).toEqual(["account_id", "base_url", "flavor", "order_users", "secret", "ws_private_url", "ws_url"]);
      expect(info.flavor).toBe("spec");
      expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(info.ws_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
      expect(info.ws_private_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
      expect(Array.isArray(info.order_users) && info.order_users.length).toBeGreaterThan(0);

      const signer = new Signer({ secret: info.secret as string, accountId: info.account_id as string });
      const users = info.order_users as string[];
      for (const user of users) {
        const path = `/v1/admin/orders?user_account=${encodeURIComponent(user)}&size=3`;
        const res = await request(`${info.base_url as string}${path}`, { headers: signer.headers("GET", path) });
        const body = (await res.body.json()) as { success: boolean; data: { meta: { total: number } } };
        expect(res.statusCode).toBe(200);
        expect(body.success).toBe(true);
        expect(body.data.meta.total).toBeGreaterThan(0);
      }
      // A claim signed with the printed secret reaches the rules (not refused by auth).
      const claim = JSON.stringify({ liquidation_id: 999_999_999, ratio_qty_request: 1, limit_price: {} });
      const res = await request(`${info.base_url as string}/v1/liquidation`, {
        method: "POST",
        headers: { ...signer.headers("POST", "/v1/liquidation", claim), "content-type": "application/json" },
        body: claim,
      });
      expect(res.statusCode).toBe(400);
      expect(await res.body.json()).toMatchObject({ success: false, code: -1202 });
    } finally {
      r.stop();
    }
    expect(await r.status).toBe(0);
    expect(r.out.text().trim().split("\n")).toHaveLength(1);
    expect(r.err.text()).toContain("simulated venue listening");
    expect(r.err.text()).not.toContain(JSON.parse(r.out.text()).secret as string);
    // Its log lines read like the daemon's: level names, ISO times, one component key.
    const lines = r.err.text().trim().split("\n");
    for (const line of lines) {
      expect(line.match(/"component":/g)).toHaveLength(1);
      const l = JSON.parse(line) as Record<string, unknown>;
      expect(l).toMatchObject({ component: "simulator", name: "liquidator" });
      expect(["trace", "debug", "info", "warn", "error", "fatal"]).toContain(l.level);
      expect(String(l.time)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
  });

  it("--capture FILE must be named as what it is (gzip): x.jsonl is a usage error, nothing started", async () => {
    const r = run(["--capture", "x.jsonl", "--minutes", "0.01"]);
    expect(await r.status).toBe(64);
    expect(r.err.text()).toContain("a capture is gzip JSONL");
    expect(r.err.text()).toContain("x.jsonl.gz");
    expect(r.out.text()).toBe("");
  });

  it("--key-expiry-days takes a negative number, as its help says (an expired key)", async () => {
    const r = run(["--key-expiry-days", "-1"]);
    try {
      const first = JSON.parse(await r.out.firstLine()) as { base_url: string; account_id: string; secret: string };
      const signer = new Signer({ secret: first.secret, accountId: first.account_id });
      const path = "/v1/client/key_info";
      const res = await request(`${first.base_url}${path}`, { headers: signer.headers("GET", path, "") });
      const rows = ((await res.body.json()) as { data: { rows: { expiration: number }[] } }).data.rows;
      expect(rows[0]?.expiration).toBeLessThan(Date.now());
    } finally {
      r.stop();
    }
    expect(await r.status).toBe(0);
  });

  it("the seed fixes the account and the order users", async () => {
    const lines: Record<string, unknown>[] = [];
    for (let i = 0; i < 2; i++) {
      const r = run(["--seed", "77"]);
      lines.push(JSON.parse(await r.out.firstLine()) as Record<string, unknown>);
      r.stop();
      expect(await r.status).toBe(0);
    }
    expect(lines[0]!.account_id).toBe(lines[1]!.account_id);
    expect(lines[0]!.order_users).toEqual(lines[1]!.order_users);
    expect(lines[0]!.secret).not.toBe(lines[1]!.secret); // keys are never derived from the seed
  });

  it("--flavor real: the first line says so and the answers take the real venue's spelling", async () => {
    const r = run(["--flavor", "real"]);
    try {
      const info = JSON.parse(await r.out.firstLine()) as Record<string, unknown>;
      expect(info.flavor).toBe("real");
      const res = await request(`${info.base_url as string}/v1/public/info`);
      const body = (await res.body.json()) as { timestamp: unknown; data: { rows: { liquidation_tier: unknown }[] } };
      expect(typeof body.timestamp).toBe("string");
      expect(body.data.rows.map((row) => row.liquidation_tier)).toContain("1");
    } finally {
      r.stop();
    }
    expect(await r.status).toBe(0);
  });

  it.each([[["--port", "abc"]], [["--port", "70000"]], [["--seed", "-1"]], [["--flavor", "nope"]], [["--nope"]]])(
    "refuses %j with exit status 64",
    async (args) => {
      const r = run(args);
      expect(await r.status).toBe(64);
      expect(r.out.text()).toBe("");
    },
  );
});
