/**
 * The venue's seeded population besides the liquidator: users with order history (GET
 * /v1/admin/orders), competing liquidators, and campaigns around the start time.
 */
import type { Accounts } from "./accounts.js";
import type { Campaign } from "./campaigns.js";
import type { StoredOrder } from "./orderQuery.js";
import { type OrderUser, seedOrderHistory } from "./orderSeed.js";
import type { Prng } from "./prng.js";
import type { ListedSymbols } from "./symbols.js";

/** Competitors must never be stopped by the margin rule. */
const COMPETITOR_COLLATERAL = 1e12;

export interface Population {
  orderUsers: OrderUser[];
  orders: Map<string, StoredOrder[]>;
  competitorIds: string[];
  campaigns: Campaign[];
}

export function seedPopulation(
  prng: Prng,
  symbols: ListedSymbols,
  accounts: Accounts,
  orderCounts: readonly number[],
  start: number,
): Population {
  const orderUsers: OrderUser[] = orderCounts.map((orderCount, i) => ({
    accountId: `0x${prng.hex(32)}`,
    address: `0x${prng.hex(20)}`,
    userId: 10_000 + i * 37 + prng.int(0, 30),
    orderCount,
  }));
  for (const u of orderUsers) accounts.add({ accountId: u.accountId, address: u.address, collateral: prng.logUniform(1e3, 1e6) });
  const orders = seedOrderHistory(prng, symbols, orderUsers, start);
  const competitorIds = [0, 1].map(() => {
    const id = `0x${prng.hex(32)}`;
    accounts.add({ accountId: id, address: `0x${prng.hex(20)}`, collateral: COMPETITOR_COLLATERAL });
    return id;
  });
  const day = 86_400_000;
  const campaigns: Campaign[] = [
    { campaignId: 1, startTime: start - 40 * day, endTime: start - 10 * day }, // over
    { campaignId: 2, startTime: start - 20 * day, endTime: start + 20 * day }, // running
    { campaignId: 3, startTime: start + 5 * day, endTime: start + 35 * day }, // not started
  ];
  return { orderUsers, orders, competitorIds, campaigns };
}
