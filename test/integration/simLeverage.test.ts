/**
 * The simulated venue's leverage (docs/protocol.md §10) over real HTTP: every symbol's setting (the account's
 * `maxLeverage` up to each symbol's maximum), a change for all symbols at once or one, the venue's
 * refusals (-1005 over a maximum or out of 1..100, -1101 for positions the new leverage cannot carry,
 * -1003 past 5 changes per 60 s), the venue's maximum as a string, client info's own imr_factor and
 * max_notional, and the leverage on position rows.
 */
import { afterEach, describe, expect, test } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { VenueError } from "../../src/venue/errors.js";
import { RestClient } from "../../src/venue/rest.js";
import { Signer } from "../../src/venue/signer.js";
import { startQuietSim } from "../support/daemonHarness.js";

let sim: SimulatorHandle | undefined;
let rest: RestClient | undefined;
afterEach(async () => {
  await rest?.close();
  await sim?.close();
  rest = undefined;
  sim = undefined;
});

async function open(options: Parameters<typeof startQuietSim>[0] = {}) {
  sim = await startQuietSim(options);
  rest = new RestClient({
    baseUrl: sim.baseUrl,
    signer: new Signer({ secret: sim.secret, accountId: sim.accountId }),
    retry: { retries: 0, minTimeoutMs: 0, maxTimeoutMs: 0 },
  });
  return { sim, rest };
}

const levOf = async (r: RestClient, symbol: string) => (await r.leverages()).data.rows.find((x) => x.symbol === symbol)?.leverage;
const code = (p: Promise<unknown>) =>
  p.then(
    () => 0,
    (e: unknown) => (e instanceof VenueError ? e.venueCode : "other"),
  );

describe("the simulator's leverage routes", () => {
  test("settings, the maximum, a change for all and for one, and what the venue refuses", async () => {
    const { rest: r } = await open({ maxLeverage: 100 });
    expect((await r.leverage.maxLeverage()).max_futures_leverage).toBe(50);
    // 100 asked of every symbol: each at its maximum (majors 50, alts 10).
    expect(await levOf(r, "PERP_ETH_USDC")).toBe(50);
    expect(await levOf(r, "PERP_DOGE_USDC")).toBe(10);
    await r.leverage.setLeverage({ leverage: 20 });
    expect([await levOf(r, "PERP_ETH_USDC"), await levOf(r, "PERP_DOGE_USDC")]).toEqual([20, 10]);
    await r.leverage.setLeverage({ symbol: "PERP_ETH_USDC", leverage: 4 });
    expect(await levOf(r, "PERP_ETH_USDC")).toBe(4);
    expect(await code(r.leverage.setLeverage({ symbol: "PERP_DOGE_USDC", leverage: 20 }))).toBe(-1005);
    // Five changes in 60 s (a refused one counts too): the sixth is refused before it is read.
    await r.leverage.setLeverage({ leverage: 10 });
    await r.leverage.setLeverage({ leverage: 12 });
    expect(await code(r.leverage.setLeverage({ leverage: 50 }))).toBe(-1003);
    expect(await levOf(r, "PERP_ETH_USDC")).toBe(12);
  });

  test("values out of 1..100 are refused; a lower leverage the positions cannot carry is refused whole", async () => {
    const { sim: s, rest: r } = await open({ collateral: 1_000 });
    expect(await code(r.leverage.setLeverage({ leverage: 101 }))).toBe(-1005);
    expect(await code(r.leverage.setLeverage({ leverage: 0 }))).toBe(-1005);
    // 1 ETH held (3,850 at 10× = 385 of margin): at 2× it would need 1,925 > 1,000.
    const id = s.core.addLiquidation({ positions: [{ symbol: "PERP_ETH_USDC", position_qty: 1 }] });
    const claimed = await s.core.submitClaim(
      s.accountId,
      { liquidation_id: id, ratio_qty_request: 1, limit_price: { PERP_ETH_USDC: 5_000 } },
      s.core.now(),
    );
    expect(claimed.ok).toBe(true);
    expect(await code(r.leverage.setLeverage({ symbol: "PERP_ETH_USDC", leverage: 2 }))).toBe(-1101);
    expect(await levOf(r, "PERP_ETH_USDC")).toBe(10);
    // The position row carries the symbol's leverage.
    expect((await r.positions()).data.rows.find((x) => x.symbol === "PERP_ETH_USDC")?.leverage).toBe(10);
  });

  test("client info: the account-wide leverage, its own imr_factor and max_notional per symbol", async () => {
    const { rest: r } = await open({
      maxLeverage: 10,
      accountMargin: { imrFactor: { PERP_NEAR_USDC: 3e-4 }, maxNotional: { PERP_BTC_USDC: 500_000 } },
    });
    const info = (await r.clientInfo()).data;
    expect(info).toMatchObject({ max_leverage: 10, imr_factor: { PERP_NEAR_USDC: 3e-4 }, max_notional: { PERP_BTC_USDC: 500_000 } });
  });
});
