/**
 * The `data` of each read endpoint, built from the core's state: query checks (-1004 / -1005 /
 * -1006) and wire shapes (snake_case, docs/protocol.md §4). Pure with respect to I/O.
 */
import { type CampaignFill, type CampaignStats, campaignStats, parseCampaignQuery } from "./campaigns.js";
import { fundDiscountOf } from "./insuranceFund.js";
import { marginOf } from "./margin.js";
import { type Page, parseOrderQuery, queryOrders, type StoredOrder } from "./orderQuery.js";
import { orderFilters } from "./orderRules.js";
import { intParam, rangeParams, readParams } from "./queryParams.js";
import type { SymbolSpec } from "./symbols.js";
import type { VenueCore } from "./venueCore.js";
import { type Checked, ok, refused } from "./venueRefusal.js";

/** docs/protocol.md §4: GET /v1/public/liquidation pages default to 60 rows. */
const DEFAULT_LIQUIDATION_PAGE_SIZE = 60;
const MAX_LIQUIDATION_PAGE_SIZE = 500;

export interface LiquidationRow {
  liquidation_id: number;
  timestamp: number;
  type: string;
  positions_by_perp: { symbol: string; position_qty: number; liquidator_fee: number }[];
}

/** Endpoints without query parameters still refuse unknown ones (-1004). */
export function noParams(search: URLSearchParams): Checked<void> {
  const p = readParams(search, []);
  return p.ok ? ok(undefined) : p;
}

/** Liquidations open for claims now, newest first (ties by id, newest first). */
export function liquidationList(core: VenueCore, search: URLSearchParams): Checked<Page<LiquidationRow>> {
  const p = readParams(search, ["page", "size", "start_t", "end_t"]);
  if (!p.ok) return p;
  const page = intParam(p.value, "page", 1, 1, 1_000_000_000);
  if (!page.ok) return page;
  const size = intParam(p.value, "size", DEFAULT_LIQUIDATION_PAGE_SIZE, 1, MAX_LIQUIDATION_PAGE_SIZE);
  if (!size.ok) return size;
  const range = rangeParams(p.value, "start_t", "end_t");
  if (!range.ok) return range;
  const { start, end } = range.value;
  const rows = core
    .openLiquidations()
    .filter((l) => (start === undefined || l.timestamp >= start) && (end === undefined || l.timestamp <= end))
    .sort((a, b) => b.timestamp - a.timestamp || b.liquidationId - a.liquidationId)
    .map(
      (l): LiquidationRow => ({
        liquidation_id: l.liquidationId,
        timestamp: l.timestamp,
        type: l.type,
        positions_by_perp: l.positions
          .filter((x) => x.positionQty !== 0)
          .map((x) => ({ symbol: x.symbol, position_qty: x.positionQty, liquidator_fee: x.liquidatorFee })),
      }),
    );
  const from = (page.value - 1) * size.value;
  return ok({
    meta: { total: rows.length, records_per_page: size.value, current_page: page.value },
    rows: rows.slice(from, from + size.value),
  });
}

/** GET /v1/public/futures: the mark-price snapshot. */
export function futuresData(core: VenueCore): { rows: unknown[] } {
  const now = core.now();
  const eightHours = 8 * 3_600_000;
  return {
    rows: core.market.rows().map((r) => ({
      symbol: r.symbol,
      index_price: r.indexPrice,
      mark_price: r.markPrice,
      est_funding_rate: 0.0001,
      last_funding_rate: 0.0001,
      next_funding_time: Math.ceil((now + 1) / eightHours) * eightHours,
      open_interest: null,
      updated_time: r.updatedAt,
    })),
  };
}

/** One row of GET /v1/public/info[/{symbol}]: the symbol's parameters and order filters (docs/protocol.md §4, §6). */
export function infoRow(s: SymbolSpec): Record<string, unknown> {
  const f = orderFilters(s);
  const m = marginOf(s);
  return {
    symbol: s.symbol,
    liquidation_tier: s.tier,
    liquidator_fee: s.liquidatorFee,
    quote_min: f.quoteMin,
    quote_max: f.quoteMax,
    quote_tick: f.quoteTick,
    base_min: f.baseMin,
    base_max: f.baseMax,
    base_tick: f.baseTick,
    min_notional: s.minNotional,
    price_range: f.priceRange,
    base_imr: m.baseImr,
    base_mmr: m.baseMmr,
    imr_factor: m.imrFactor,
    claim_insurance_fund_discount: fundDiscountOf(s),
  };
}

/** GET /v1/public/info: every symbol's row. */
export function infoData(core: VenueCore): { rows: Record<string, unknown>[] } {
  return { rows: core.symbols.all().map(infoRow) };
}

/** What an account did that counts toward campaigns: its filled orders and its claims. */
function fillsOf(core: VenueCore, accountId: string): CampaignFill[] {
  const fills: CampaignFill[] = [];
  for (const o of core.ordersOf(accountId)) {
    if (o.executed_quantity > 0) {
      fills.push({
        time: o.updated_time,
        symbol: o.symbol,
        notional: o.executed_quantity * o.average_executed_price,
        pnl: o.realized_pnl,
        orderTag: o.order_tag,
      });
    }
  }
  for (const c of core.claimLog.successes()) {
    if (c.accountId !== accountId) continue;
    for (const t of c.transfers)
      fills.push({ time: c.decidedAt, symbol: t.symbol, notional: Math.abs(t.costPositionTransfer), pnl: 0, orderTag: null });
  }
  return fills;
}

/** The simulator's broker: activity filtered by another broker id is empty. */
export const SIM_BROKER_ID = "sim_broker";

export function campaignUserData(core: VenueCore, search: URLSearchParams): Checked<CampaignStats> {
  const q = parseCampaignQuery(search);
  if (!q.ok) return q;
  const campaign = core.campaigns.find((c) => c.campaignId === q.value.campaignId);
  if (campaign === undefined) return refused(-1006, `campaign ${q.value.campaignId}`);
  const byId = q.value.accountId === undefined ? undefined : core.accounts.get(q.value.accountId);
  const byAddress = q.value.address === undefined ? undefined : core.accounts.byAddress(q.value.address);
  const user = byId ?? byAddress;
  if (user === undefined || (q.value.accountId !== undefined && q.value.address !== undefined && byId !== byAddress)) {
    return refused(-1006, "user not found");
  }
  const fills = q.value.brokerId !== undefined && q.value.brokerId !== SIM_BROKER_ID ? [] : fillsOf(core, user.accountId);
  return ok(campaignStats(campaign, user.accountId, fills, q.value, core.now()));
}

/** GET /v1/admin/orders data for an authenticated admin. */
export function adminOrdersData(core: VenueCore, search: URLSearchParams): Checked<Page<StoredOrder>> {
  const q = parseOrderQuery(search);
  if (!q.ok) return q;
  const byId = q.value.userAccount === undefined ? undefined : core.accounts.get(q.value.userAccount);
  const byAddress = q.value.userAddress === undefined ? undefined : core.accounts.byAddress(q.value.userAddress);
  const user = byId ?? byAddress;
  if (user === undefined || (q.value.userAccount !== undefined && q.value.userAddress !== undefined && byId !== byAddress)) {
    return refused(-1006, "user not found");
  }
  return ok(queryOrders(core.ordersOf(user.accountId), q.value));
}
