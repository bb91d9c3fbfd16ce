/**
 * Seeded order history for the admin order listing. The data is made to exercise docs/protocol.md §A.4.4:
 * runs of orders sharing a created_time or an updated_time (so the order_id tie-breaks decide), and
 * order ids that do not follow creation order (so a sort by id alone would be visibly wrong).
 */
import type { AdminOrderStatus, StoredOrder } from "./orderQuery.js";
import type { Prng } from "./prng.js";
import { type ListedSymbols, roundToStep } from "./symbols.js";

export interface OrderUser {
  accountId: string;
  address: string;
  userId: number;
  orderCount: number;
}

const STATUS_WEIGHTS: readonly [AdminOrderStatus, number][] = [
  ["FILLED", 45],
  ["CANCELLED", 25],
  ["NEW", 8],
  ["PARTIAL_FILLED", 8],
  ["REJECTED", 4],
  ["INCOMPLETE", 5],
  ["COMPLETED", 5],
];
const TYPES = ["LIMIT", "LIMIT", "LIMIT", "MARKET", "MARKET", "POST_ONLY", "IOC"] as const;
const TAGS = [null, null, null, "default", "grid_bot", "tp_sl"] as const;

function weighted<T>(prng: Prng, table: readonly [T, number][]): T {
  const total = table.reduce((s, [, w]) => s + w, 0);
  let r = prng.next() * total;
  for (const [v, w] of table) {
    r -= w;
    if (r < 0) return v;
  }
  return (table[table.length - 1] as [T, number])[0];
}

/** Orders per user account id, spread over the 30 days before `now`. */
export function seedOrderHistory(prng: Prng, symbols: ListedSymbols, users: readonly OrderUser[], now: number): Map<string, StoredOrder[]> {
  const total = users.reduce((s, u) => s + u.orderCount, 0);
  // Order ids: a shuffled block, so id order and time order disagree.
  const ids = Array.from({ length: total }, (_, i) => 100_000_000 + i * 7 + prng.int(0, 6));
  for (let i = ids.length - 1; i > 0; i--) {
    const j = prng.int(0, i);
    [ids[i], ids[j]] = [ids[j] as number, ids[i] as number];
  }
  const specs = symbols.all();
  const out = new Map<string, StoredOrder[]>();
  let next = 0;
  for (const user of users) {
    const orders: StoredOrder[] = [];
    let created = now - 30 * 86_400_000;
    // One order in five adds no time (a tie), so the others step 1/0.8 of the even share.
    const span = (30 * 86_400_000) / Math.max(1, 0.8 * user.orderCount);
    for (let i = 0; i < user.orderCount; i++) {
      // One order in five shares the previous order's creation time (batch orders do).
      if (i === 0 || !prng.chance(0.2)) created = Math.min(now, created + Math.max(1, Math.round(prng.uniform(0.2, 1.8) * span)));
      const spec = prng.pick(specs);
      const status = weighted(prng, STATUS_WEIGHTS);
      const type = prng.pick(TYPES);
      const side = prng.chance(0.5) ? "BUY" : "SELL";
      const price = roundToStep(spec.startPrice * (1 + 0.05 * prng.normal()), spec.baseTick);
      const quantity = Math.max(spec.qtyStep, roundToStep(prng.logUniform(20, 20_000) / spec.startPrice, spec.qtyStep));
      const fill =
        status === "FILLED" || status === "COMPLETED"
          ? 1
          : status === "PARTIAL_FILLED" || status === "INCOMPLETE"
            ? prng.uniform(0.1, 0.9)
            : 0;
      const executed = roundToStep(quantity * fill, spec.qtyStep);
      const avgPrice = executed > 0 ? roundToStep(price * (1 + 0.001 * prng.normal()), spec.baseTick) : 0;
      let updated = status === "NEW" ? created : created + prng.int(0, 3_600_000);
      // Ties on updated_time: reuse an earlier order's update time when it is not before creation.
      if (prng.chance(0.25)) {
        const earlier = orders.slice(-6).find((o) => o.updated_time >= created);
        if (earlier !== undefined) updated = earlier.updated_time;
      }
      updated = Math.min(updated, now);
      const notional = executed * avgPrice;
      orders.push({
        order_id: ids[next++] as number,
        user_id: user.userId,
        price: type === "MARKET" ? avgPrice : price,
        type,
        quantity,
        amount: Number((quantity * price).toFixed(6)),
        total_executed_quantity: executed,
        visible_quantity: quantity,
        symbol: spec.symbol,
        side,
        status,
        total_fee: Number((notional * 0.0005).toFixed(6)),
        fee_asset: "USDC",
        client_order_id: prng.chance(0.5) ? prng.int(1, 2_000_000_000) : 0,
        average_executed_price: avgPrice,
        created_time: created,
        updated_time: updated,
        realized_pnl: executed > 0 && prng.chance(0.4) ? Number((notional * 0.02 * prng.normal()).toFixed(6)) : 0,
        executed_quantity: executed,
        visible: quantity,
        executed,
        reduce_only: prng.chance(0.1) ? true : prng.chance(0.5) ? false : null,
        order_tag: prng.pick(TAGS),
        margin_mode: prng.chance(0.85) ? "CROSS" : "ISOLATED",
      });
    }
    out.set(user.accountId, orders);
  }
  return out;
}
