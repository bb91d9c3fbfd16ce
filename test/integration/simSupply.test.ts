/**
 * docs/protocol.md §10's other supply on the simulated venue, through the project's own client over real
 * HTTP: platform positions (paging by cursor, the 5 s cache, the weight pool, rateLimitStatus, the
 * estimated liquidation price), the insurance fund (an unclaimed liquidation becomes a `type:
 * "claim"` row and a fund position, claimed at the discount through its own endpoint, refused
 * through /v1/liquidation), and a bad row of a page dropped and counted (the fake venue).
 */
import { afterEach, describe, expect, it } from "vitest";
import { QUIET_SCENARIO } from "../../src/sim/scenario.js";
import { startSimulator } from "../../src/sim/startSimulator.js";
import { VenueError } from "../../src/venue/errors.js";
import { RestClient } from "../../src/venue/rest.js";
import { Signer } from "../../src/venue/signer.js";
import { SupplyApi } from "../../src/venue/supplyApi.js";
import { ok, startFakeVenue } from "../support/fakeVenue.js";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function venue(options: Parameters<typeof startSimulator>[0]) {
  const sim = await startSimulator({ port: 0, seed: 4, ...options });
  const signer = new Signer({ secret: sim.secret, accountId: sim.accountId });
  const rest = new RestClient({ baseUrl: sim.baseUrl, signer, retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 } });
  closers.push(
    () => rest.close(),
    () => sim.close(),
  );
  return { sim, rest, supply: new SupplyApi(rest) };
}

/** The position-driven market, still (marks are not stepped): the population stays as seeded. */
const STILL_MARKET = { ...QUIET_SCENARIO, market: "positions" as const, liquidationsPerSec: 0.1, markIntervalMs: 0 };

async function allPages(supply: SupplyApi, limit: number) {
  const rows = [];
  let cursor: string | undefined;
  let pages = 0;
  let total: number | undefined;
  do {
    const page = await supply.platformPositions({ limit, ...(cursor !== undefined ? { cursor } : {}) });
    expect(page.bad.size).toBe(0);
    rows.push(...page.rows);
    total = page.totalPositions;
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { rows, pages, total };
}

describe("platformPositions", () => {
  it("pages through one snapshot by cursor: every position once, with its estimated liquidation price on the right side of the mark", async () => {
    const clock = { t: Date.UTC(2026, 0, 5) };
    const { sim, supply } = await venue({ now: () => clock.t, scenario: STILL_MARKET });
    const population = sim.scenario.market?.population;
    let held = 0;
    for (const t of population?.traders() ?? []) for (const pool of t.pools) held += pool.positions.length;
    expect(held).toBeGreaterThan(500);
    const { rows, pages, total } = await allPages(supply, 400);
    expect(total).toBe(held);
    expect(rows).toHaveLength(held);
    expect(pages).toBe(Math.ceil(held / 400));
    let priced = 0;
    for (const r of rows) {
      if (r.est_liq_price === null || r.mark_price === undefined) continue;
      priced++;
      if (r.side === "LONG") expect(r.est_liq_price).toBeLessThan(r.mark_price);
      else expect(r.est_liq_price).toBeGreaterThan(r.mark_price);
    }
    expect(priced).toBeGreaterThan(held * 0.9);
  });

  it("serves a snapshot for 5 s: the market moves, the answer does not until the cache expires", async () => {
    const clock = { t: Date.UTC(2026, 0, 5) };
    const { sim, supply } = await venue({ now: () => clock.t, scenario: STILL_MARKET });
    const first = await supply.platformPositions({ limit: 5000 });
    for (let i = 0; i < 600; i++) sim.scenario.market?.step(1); // ten minutes: traders come and go
    clock.t += 4_000;
    const cached = await supply.platformPositions({ limit: 5000 });
    expect(cached.rows).toEqual(first.rows);
    clock.t += 1_001;
    const fresh = await supply.platformPositions({ limit: 5000 });
    expect(fresh.rows).not.toEqual(first.rows);
  });

  it("counts weights per minute: past the pool the venue answers -1003 (counting nothing), and rateLimitStatus says what is left", async () => {
    const clock = { t: Date.UTC(2026, 0, 5) };
    const { supply } = await venue({ now: () => clock.t, scenario: STILL_MARKET, query: { weightPerMinute: 100 } });
    for (let i = 0; i < 5; i++) await supply.platformPositions({ limit: 1 });
    const refused = await supply.platformPositions({ limit: 1 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(VenueError);
    expect((refused as VenueError).venueCode).toBe(-1003);
    clock.t += 30_000;
    await expect(supply.rateLimitStatus()).rejects.toBeInstanceOf(VenueError); // 100 of 100 used
    clock.t += 30_001;
    const status = await supply.rateLimitStatus();
    expect(status).toEqual({ weight_limit: 100, weight_used: 1, weight_remaining: 99 });
  });
});

describe("the insurance fund", () => {
  it("takes an unclaimed liquidation at its TTL: a claim row and a fund position, claimed at the discount, refused through /v1/liquidation", async () => {
    const clock = { t: Date.UTC(2026, 0, 5) };
    const { sim, rest, supply } = await venue({
      now: () => clock.t,
      liquidationTtlMs: 1_000,
      scenario: { ...QUIET_SCENARIO, insuranceFund: true, markIntervalMs: 0 },
    });
    const id = sim.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 2 }] });
    clock.t += 1_001;
    const open = await rest.allOpenLiquidations();
    expect(open.map((r) => r.liquidation_id)).not.toContain(id);
    const row = open.find((r) => r.type === "claim");
    expect(row?.positions_by_perp).toEqual([{ symbol: "PERP_ETH_USDC", position_qty: 2, liquidator_fee: 0.004 }]);
    const fund = await supply.insuranceFund();
    expect(fund.rows).toEqual([expect.objectContaining({ symbol: "PERP_ETH_USDC", position_qty: 2 })]);

    const claimId = row?.liquidation_id as number;
    const viaLiquidation = await rest
      .claimLiquidation({ liquidation_id: claimId, ratio_qty_request: 1, limit_price: { PERP_ETH_USDC: 4_000 } })
      .catch((e: unknown) => e);
    expect((viaLiquidation as VenueError).venueCode).toBe(-1005);

    const mark = sim.core.mark("PERP_ETH_USDC") as number;
    const answer = await supply.claimInsuranceFund({
      claim_id: claimId,
      symbol: "PERP_ETH_USDC",
      qty_request: 0.5,
      limit_price: { PERP_ETH_USDC: mark },
    });
    expect(answer.liquidation_id).toBe(claimId);
    expect(answer.positions_by_perp).toEqual([
      expect.objectContaining({
        symbol: "PERP_ETH_USDC",
        position_qty: 0.5,
        transfer_price: mark,
        liquidator_fee: 0.004,
        abs_liquidator_fee: 0.5 * mark * 0.004,
      }),
    ]);
    // More than remains takes what remains; then the row is gone and the id answers -1202.
    await supply.claimInsuranceFund({ claim_id: claimId, symbol: "PERP_ETH_USDC", qty_request: 9, limit_price: { PERP_ETH_USDC: mark } });
    expect((await supply.insuranceFund()).rows).toEqual([]);
    const gone = await supply
      .claimInsuranceFund({ claim_id: claimId, symbol: "PERP_ETH_USDC", qty_request: 1, limit_price: { PERP_ETH_USDC: mark } })
      .catch((e: unknown) => e);
    expect((gone as VenueError).venueCode).toBe(-1202);
    expect(sim.core.positionsOf(sim.accountId)).toEqual([expect.objectContaining({ symbol: "PERP_ETH_USDC", qty: 2 })]);
  });
});

describe("the client", () => {
  it("drops a malformed row of a page and counts it by its problem; the other rows are read", async () => {
    const fake = await startFakeVenue();
    closers.push(() => fake.close());
    const good = {
      symbol: "PERP_BTC_USDC",
      side: "LONG",
      position_qty: "1.5",
      notional: "150000",
      mark_price: "100000",
      est_liq_price: "95000",
    };
    fake.route("POST", "/v1/public/query", () =>
      ok({
        total_long_notional: "150000",
        total_short_notional: "0",
        total_positions: 3,
        rows: [good, { ...good, side: "SIDEWAYS" }, { ...good, est_liq_price: null }, "junk"],
        next_cursor: null,
      }),
    );
    const rest = new RestClient({ baseUrl: fake.baseUrl });
    closers.push(() => rest.close());
    const page = await new SupplyApi(rest).platformPositions({ limit: 10 });
    expect(page.rows).toEqual([
      { symbol: "PERP_BTC_USDC", side: "LONG", position_qty: 1.5, notional: 150_000, mark_price: 100_000, est_liq_price: 95_000 },
      { symbol: "PERP_BTC_USDC", side: "LONG", position_qty: 1.5, notional: 150_000, mark_price: 100_000, est_liq_price: null },
    ]);
    expect([...page.bad]).toEqual([
      ["side: invalid_value", 1],
      ["row: invalid_type", 1],
    ]);
    expect(page.nextCursor).toBeUndefined();
    expect(JSON.parse(fake.requests[0]?.body ?? "{}")).toEqual({ type: "platformPositions", limit: 10 });
    expect(fake.requests[0]?.headers["content-type"]).toBe("application/json");
  });
});
