/**
 * Preflight's `account` check counts the open orders the daemon takes over (issue #34 item 4): an
 * open order whose row the daemon cannot read (left out of the page, tolerantRows.ts) is still an
 * open order, so an account whose only open order is unreadable is not passed as flat.
 */
import { expect, test } from "vitest";
import { accountCheck } from "../../src/preflight/accountChecks.js";
import type { PreflightContext } from "../../src/preflight/check.js";
import { ordersPageSchema } from "../../src/venue/orderSchemas.js";

test("an open order the daemon cannot read is counted, and warned about", async () => {
  const unreadable = { order_id: 7, symbol: "PERP_ETH_USDC", side: "SELL", status: "PENDING_NEW" };
  const page = ordersPageSchema.parse({ meta: { total: 1, records_per_page: 500, current_page: 1 }, rows: [unreadable] });
  expect(page.rows).toEqual([]);
  // Only what the check reads: the positions answer, the open orders and the fee rates.
  const ctx = {
    rest: { get: async () => ({ data: { total_collateral_value: 1000, free_collateral: 1000, rows: [] } }) },
    orders: {
      openOrders: async () => page,
      clientInfo: async () => ({ futures_taker_fee_rate: 6, futures_maker_fee_rate: 2, imr_factor: {}, max_notional: {} }),
    },
    signal: new AbortController().signal,
    observed: {},
  } as unknown as PreflightContext;
  const result = await accountCheck(ctx);
  expect(result.status).toBe("warn");
  expect(result.detail).toContain("1 open order(s)");
  expect(result.detail).toContain("1 unreadable");
  expect(ctx.observed.account).toMatchObject({ open_orders: 1, open_orders_unreadable: 1 });
});
