import { describe, expect, it } from "vitest";
import { AccountBook } from "../../src/engine/accountBook.js";
import { marginParamsOf } from "../../src/engine/margin.js";
import { MarkBook } from "../../src/engine/marks.js";
import { createMetrics } from "../../src/observe/metrics.js";
import { parseBalance } from "../../src/venue/wireOrders.js";

describe("account metrics (docs/operations.md)", () => {
  it("account_collateral_quote{kind} and margin_usage_ratio follow the account book; nothing before it is known", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const account = new AccountBook();
    const marks = new MarkBook();
    marks.set("PERP_BTC_USDC", 100_000, 0);
    const params = () => marginParamsOf({ margin: { baseImr: 0.01, baseMmr: 0.006, imrFactor: 3.8e-7 } });
    metrics.setAccountSource(() => ({
      total: account.totalCollateral(marks),
      free: account.freeCollateral(params, marks),
      usage: account.marginUsage(params, marks),
    }));
    expect(await metrics.registry.metrics()).not.toMatch(/liquidator_account_collateral_quote\{/);
    account.applySnapshot({ totalCollateral: 40_000 }, [
      { symbol: "PERP_BTC_USDC", marginMode: "CROSS", positionQty: 1, costPosition: 100_000 },
    ]);
    account.setMaxLeverage(10);
    const balance = parseBalance({ balances: { USDC: { holding: 40_000, frozen: 500, pendingShortQty: 0, pendingLongQty: 0 } } });
    account.applyBalance(balance?.holding, balance?.frozen);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/liquidator_account_collateral_quote\{kind="total"\} 40000\n/);
    expect(text).toMatch(/liquidator_account_collateral_quote\{kind="free"\} 29500\n/);
    expect(text).toMatch(/liquidator_margin_usage_ratio 0\.25\n/);
  });
});
