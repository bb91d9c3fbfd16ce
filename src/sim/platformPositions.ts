/**
 * Every open position on the simulated venue as `platformPositions` (docs/protocol.md §10) lists it: the
 * market's traders (traderPopulation.ts) and the venue's own accounts (the liquidators, the
 * competitors), each with its estimated liquidation price (traderMargin.ts: the mark at which its
 * margin pool meets its maintenance margin, the other marks fixed) and money as decimal strings.
 */

import { estimatedLiquidationPrice, type MarginPool, type TraderPosition } from "./traderMargin.js";
import type { TraderPopulation } from "./traderPopulation.js";
import type { VenueCore } from "./venueCore.js";

export interface PlatformPositionRow {
  /** Sort key (position id, newest first); not sent. */
  id: number;
  symbol: string;
  notional: number;
  side: "LONG" | "SHORT";
  wire: Record<string, unknown>;
}

/** A decimal string of `x` with at most `decimals` decimals, no exponent, no trailing zeros. */
export function decimalString(x: number, decimals: number): string {
  if (!Number.isFinite(x)) return "0";
  const d = Math.min(20, Math.max(0, decimals));
  // An integer over a power of ten is the double nearest that decimal, and String() spells the
  // shortest decimal that reads back as it: the number itself (a toFixed per field was most of a
  // poll of 12,000 positions). Exponents (below 1e-6, from 1e21) take the long way.
  const scale = 10 ** d;
  const n = Math.round(x * scale) / scale;
  if (n === 0) return "0";
  if (Math.abs(n) >= 1e-6 && Math.abs(n) < 1e21) return String(n);
  const fixed = x.toFixed(d);
  let end = fixed.length;
  while (fixed[end - 1] === "0") end--;
  return fixed.slice(0, fixed[end - 1] === "." ? end - 1 : end);
}

function decimalsOf(step: number): number {
  return step >= 1 ? 0 : Math.ceil(-Math.log10(step) - 1e-9);
}

/** The venue's own accounts' positions get ids above every trader's (their positions are few). */
const ACCOUNT_ID_BASE = 1e12;

export function platformPositionRows(core: VenueCore, population: TraderPopulation | undefined, brokerId: string): PlatformPositionRow[] {
  const rows: PlatformPositionRow[] = [];
  const spec = (s: string) => core.symbols.get(s);
  const mark = (s: string) => core.mark(s);
  const add = (accountId: string, address: string, pool: MarginPool, p: TraderPosition, mode: "CROSS" | "ISOLATED"): void => {
    const s = spec(p.symbol);
    const m = mark(p.symbol);
    if (s === undefined || m === undefined || p.qty === 0) return;
    const priceDecimals = decimalsOf(s.baseTick) + 2;
    const est = estimatedLiquidationPrice(pool, p, spec, mark);
    const notional = Math.abs(p.qty) * m;
    const pnl = p.qty * (m - p.entry);
    rows.push({
      id: p.positionId,
      symbol: p.symbol,
      notional,
      side: p.qty > 0 ? "LONG" : "SHORT",
      wire: {
        address,
        account_id: accountId,
        broker_id: brokerId,
        symbol: p.symbol,
        side: p.qty > 0 ? "LONG" : "SHORT",
        position_qty: decimalString(p.qty, decimalsOf(s.qtyStep)),
        notional: decimalString(notional, 6),
        average_open_price: decimalString(p.entry, priceDecimals),
        mark_price: decimalString(m, priceDecimals),
        est_liq_price: est === null ? null : decimalString(est, priceDecimals),
        unrealized_pnl: decimalString(pnl, 6),
        unsettled_pnl: decimalString(pnl, 6),
        leverage: p.leverage,
        margin_mode: mode,
        opened_at: p.openedAt,
      },
    });
  };
  if (population !== undefined) {
    for (const t of population.traders())
      for (const pool of t.pools) for (const p of pool.positions) add(t.accountId, t.address, pool, p, pool.mode);
  }
  let next = ACCOUNT_ID_BASE;
  for (const a of core.accounts.all()) {
    const held = core.positionsOf(a.accountId).filter((p) => p.qty !== 0);
    if (held.length === 0) continue;
    const positions = held.map((p) => ({
      positionId: next++,
      symbol: p.symbol,
      symbolIndex: 0,
      qty: p.qty,
      entry: p.averageOpenPrice,
      leverage: a.maxLeverage,
      openedAt: 0,
      closeAt: Number.POSITIVE_INFINITY,
    }));
    // The account's whole collateral backs its cross positions: holding is what is left after their unsettled P&L.
    const cross = positions.filter((_p, i) => held[i]?.marginMode === "CROSS");
    const unsettled = cross.reduce((sum, p) => sum + p.qty * ((mark(p.symbol) ?? p.entry) - p.entry), 0);
    const pool: MarginPool = { holding: core.trading.totalCollateral(a.accountId) - unsettled, positions: cross };
    for (const p of cross) add(a.accountId, a.address, pool, p, "CROSS");
  }
  return rows;
}
