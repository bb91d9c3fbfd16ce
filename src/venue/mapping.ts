/**
 * The venue's wire at the edge: REST rows (snake_case) and stream payloads (camelCase, already
 * validated by wire.ts) become the engine's domain types, and decisions become request bodies. No
 * other module reads a wire field name; the engine imports nothing from here.
 */
import type { AccountFigures, AccountPositionInput, ClientMargin, LeverageSetting } from "../engine/accountBook.js";
import type { HeldPositionInput } from "../engine/exposure.js";
import type { MarginParams } from "../engine/margin.js";
import type { ClaimDecision, Fill, Liquidation, LiquidationPosition, OrderFilters, SymbolInfo } from "../engine/types.js";
import type { LeverageRow } from "./leverageSchemas.js";
import type { ClientInfo } from "./orderSchemas.js";
import type { ClaimRequest, ClaimResult, FuturesRow, OpenLiquidation, PositionRow, Positions } from "./restSchemas.js";
import type { FundClaimRequest } from "./supplySchemas.js";
import type { LiquidationEntry, LiquidatorLiquidation, Position } from "./wire.js";
import { integerFrom, numberFrom } from "./wireNumbers.js";

/**
 * The `type` of the open list's rows that are the insurance fund's positions (docs/protocol.md §10),
 * claimed through `POST /v1/claim_insurance_fund` at the fund's discount, not as liquidations.
 */
export const FUND_ROW_TYPE = "claim";

/**
 * The rows that are liquidations, not the fund's: the same array when none is the fund's (the
 * usual frame allocates nothing).
 */
export function withoutFundRows<T extends { type?: string }>(rows: readonly T[]): readonly T[] {
  for (const r of rows) if (r.type === FUND_ROW_TYPE) return rows.filter((x) => x.type !== FUND_ROW_TYPE);
  return rows;
}

/** One symbol of an insurance fund row (docs/protocol.md §10): claimable through `POST /v1/claim_insurance_fund`. */
export interface FundOffer {
  /** The row's `liquidation_id`: the `claim_id` of a fund claim. */
  claimId: number;
  symbol: string;
  /** Signed, as held by the fund: a claim takes this side. */
  positionQty: number;
  /** The row's `liquidator_fee`: the symbol's `claim_insurance_fund_discount`. */
  discount: number;
}

/**
 * The `POST /v1/claim_insurance_fund` body for `qty` (base, positive, already on the symbol's step)
 * of an offer, with its limit price. Throws RangeError on what the venue must not receive.
 */
export function fundClaimRequestBody(offer: FundOffer, qty: number, limitPrice: number): FundClaimRequest {
  if (!(qty > 0) || !Number.isFinite(qty) || qty > Math.abs(offer.positionQty))
    throw new RangeError(`fund claim ${offer.claimId}: qty ${qty} is not in (0, ${Math.abs(offer.positionQty)}]`);
  if (!(limitPrice > 0) || !Number.isFinite(limitPrice)) throw new RangeError(`fund claim ${offer.claimId}: limit price ${limitPrice}`);
  return { claim_id: offer.claimId, symbol: offer.symbol, qty_request: qty, limit_price: { [offer.symbol]: limitPrice } };
}

/** A row of `GET /v1/public/liquidation`. */
export function liquidationFromRow(row: OpenLiquidation): Liquidation {
  return {
    liquidationId: row.liquidation_id,
    timestamp: row.timestamp,
    positions: row.positions_by_perp.map((p) => ({ symbol: p.symbol, positionQty: p.position_qty, liquidatorFee: p.liquidator_fee })),
    type: row.type,
  };
}

/** Whether a row of `GET /v1/public/liquidation` has exactly these positions (no domain object built). */
export function rowHasPositions(row: OpenLiquidation, positions: readonly LiquidationPosition[]): boolean {
  const ps = row.positions_by_perp;
  if (ps.length !== positions.length) return false;
  for (let i = 0; i < ps.length; i++) {
    const a = ps[i] as OpenLiquidation["positions_by_perp"][number];
    const b = positions[i] as LiquidationPosition;
    if (a.symbol !== b.symbol || a.position_qty !== b.positionQty || a.liquidator_fee !== b.liquidatorFee) return false;
  }
  return true;
}

/** An entry of a `liquidation` push (its positions are validated, camelCase already). */
export function liquidationFromPush(e: LiquidationEntry): Liquidation {
  // A removal (no positions) may carry no type (wire.ts reads it as ""): absent, not a type.
  return { liquidationId: e.liquidationId, timestamp: e.timestamp, positions: e.positionsByPerp, type: e.type === "" ? undefined : e.type };
}

/**
 * A row of `GET /v1/public/info`, not yet validated (engine/symbolInfo.ts checks the numbers). The
 * price step is `quote_tick`; `base_tick` is the quantity step (docs/protocol.md §4.2). Numbers may
 * be written as decimal strings (docs/protocol.md §9: `liquidation_tier` was `"1"` in the venue's docs until
 * 2024); a value that spells no finite number becomes NaN here, which the engine refuses.
 */
export function symbolInfoFromRow(row: unknown): SymbolInfo {
  // A row that is not even an object is kept as an info the engine refuses (reported as "?").
  if (typeof row !== "object" || row === null || Array.isArray(row))
    return { symbol: "?", tier: 1, liquidatorFee: Number.NaN, priceTick: Number.NaN, minNotional: Number.NaN };
  const r = row as Record<string, unknown>;
  return {
    symbol: r.symbol as string,
    tier: tierFrom(r.liquidation_tier),
    liquidatorFee: numberOrNaN(r.liquidator_fee),
    priceTick: numberOrNaN(r.quote_tick),
    minNotional: numberOrNaN(r.min_notional),
    orderFilters: orderFiltersFromRow(r),
    margin: marginFromRow(r),
  };
}

/** docs/protocol.md §7: `base_imr`, `base_mmr`, `imr_factor`, when the row carries all three as numbers (or decimal strings). */
function marginFromRow(r: Record<string, unknown>): MarginParams | undefined {
  const baseImr = numberFrom(r.base_imr);
  const baseMmr = numberFrom(r.base_mmr);
  const imrFactor = numberFrom(r.imr_factor);
  if (baseImr === undefined || baseMmr === undefined || imrFactor === undefined) return undefined;
  return { baseImr, baseMmr, imrFactor };
}

/** 1 or 2 from `1`, `2`, `"1"` or `"2"`; anything else is passed on as NaN for the engine to refuse. */
function tierFrom(v: unknown): 1 | 2 {
  const n = integerFrom(v);
  return n === 1 || n === 2 ? n : (Number.NaN as 1 | 2);
}

function numberOrNaN(v: unknown): number {
  return numberFrom(v) ?? Number.NaN;
}

/** The order filters of an info row, when it carries all of them as numbers (or decimal strings). */
function orderFiltersFromRow(r: Record<string, unknown>): OrderFilters | undefined {
  const qtyTick = numberFrom(r.base_tick);
  const qtyMin = numberFrom(r.base_min);
  const qtyMax = numberFrom(r.base_max);
  const priceRange = numberFrom(r.price_range);
  if (qtyTick === undefined || qtyMin === undefined || qtyMax === undefined || priceRange === undefined) return undefined;
  return { qtyTick, qtyMin, qtyMax, priceRange };
}

/** Mark prices of `GET /v1/public/futures` that are usable (positive, finite). */
export function marksFromFutures(rows: readonly FuturesRow[]): { symbol: string; price: number }[] {
  const out: { symbol: string; price: number }[] = [];
  for (const r of rows) if (Number.isFinite(r.mark_price) && r.mark_price > 0) out.push({ symbol: r.symbol, price: r.mark_price });
  return out;
}

/** Rows of `GET /v1/positions`. */
export function heldFromRows(rows: readonly PositionRow[]): HeldPositionInput[] {
  return rows.map((r) => ({
    symbol: r.symbol,
    positionQty: r.position_qty,
    ...(r.mark_price !== undefined ? { markPrice: r.mark_price } : {}),
    marginMode: r.margin_mode ?? "CROSS",
  }));
}

/** The account-level figures of `GET /v1/positions` (docs/protocol.md §6, §7). */
export function accountFiguresFrom(p: Positions): AccountFigures {
  return { totalCollateral: p.total_collateral_value, freeCollateral: p.free_collateral, marginRatio: p.margin_ratio };
}

/** Rows of `GET /v1/positions` for the account book (cost and unsettled P&L: collateral follows the marks). */
export function accountRowsFrom(rows: readonly PositionRow[]): AccountPositionInput[] {
  return rows.map((r) => ({
    symbol: r.symbol,
    marginMode: r.margin_mode ?? "CROSS",
    positionQty: r.position_qty,
    costPosition: r.cost_position,
    unsettledPnl: r.unsettled_pnl,
    markPrice: r.mark_price,
    leverage: r.leverage,
  }));
}

/** A `position` push for the account book. */
export function accountRowsFromPush(positions: readonly Position[]): AccountPositionInput[] {
  return positions.map((p) => ({
    symbol: p.symbol,
    marginMode: p.marginMode,
    positionQty: p.positionQty,
    costPosition: p.costPosition,
    markPrice: p.markPrice,
    leverage: p.leverage,
  }));
}

/** Rows of `GET /v1/client/leverages` (docs/protocol.md §10); absent margin mode = CROSS. */
export function leverageSettingsFrom(rows: readonly LeverageRow[]): LeverageSetting[] {
  return rows.map((r) => ({ symbol: r.symbol, marginMode: r.margin_mode ?? "CROSS", leverage: r.leverage }));
}

/** What `GET /v1/client/info` says of the account's margin (docs/protocol.md §7, §10). */
export function clientMarginFrom(info: ClientInfo): ClientMargin {
  const map = (r: Record<string, number> | undefined) => (r === undefined ? undefined : new Map(Object.entries(r)));
  return { maxLeverage: info.max_leverage, imrFactor: map(info.imr_factor), maxNotional: map(info.max_notional) };
}

/** A `position` push. */
export function heldFromPush(positions: readonly Position[]): HeldPositionInput[] {
  return positions.map((p) => ({
    symbol: p.symbol,
    positionQty: p.positionQty,
    ...(p.markPrice !== undefined ? { markPrice: p.markPrice } : {}),
    marginMode: p.marginMode,
  }));
}

/**
 * What a claim transferred, from its answer; undefined when the answer does not say it completely
 * (the venue's OpenAPI makes every field optional): no `timestamp` to order it against `position`
 * pushes, no `positions_by_perp`, or an entry without its symbol, quantity, price or fee amount.
 * Then the claim is settled from the private stream or the positions reconcile instead
 * (daemon/claimOutcomes.ts), never from a guess.
 */
export function claimFills(result: ClaimResult): Fill[] | undefined {
  const ps = result.positions_by_perp;
  if (result.timestamp === undefined || ps === undefined) return undefined;
  const fills: Fill[] = [];
  for (const p of ps) {
    if (p.symbol === undefined || p.position_qty === undefined || p.transfer_price === undefined || p.abs_liquidator_fee === undefined)
      return undefined;
    fills.push({ symbol: p.symbol, qty: p.position_qty, price: p.transfer_price, fee: p.abs_liquidator_fee });
  }
  return fills;
}

/** What a claim transferred, from the private `liquidatorliquidations` push. */
export function assignmentFills(push: LiquidatorLiquidation): Fill[] {
  return push.positionsByPerp.map((p) => ({ symbol: p.symbol, qty: p.positionQty, price: p.transferPrice, fee: p.absLiquidatorFee }));
}

/**
 * The POST /v1/liquidation body of a claim decision (docs/protocol.md §4.1). The numbers are
 * already quantised (ratio k/1000, prices n ticks written with the tick's decimals) so
 * `JSON.stringify` prints them without float noise. Throws RangeError if the decision was tampered
 * with into something the venue must not receive.
 */
export function claimRequestBody(d: ClaimDecision): ClaimRequest {
  const okRatio = (r: number): boolean => r > 0 && r <= 1 && Number.isFinite(r);
  if (!okRatio(d.ratio)) throw new RangeError(`claim ${d.liquidationId}: ratio ${d.ratio} is not in (0, 1]`);
  const limit: Record<string, number> = {};
  for (const symbol of Object.keys(d.limitPrice)) {
    const p = d.limitPrice[symbol] as number;
    if (!(p > 0) || !Number.isFinite(p))
      throw new RangeError(`claim ${d.liquidationId}: limit_price of ${symbol} is not a positive finite number`);
    limit[symbol] = p;
  }
  const body: ClaimRequest = { liquidation_id: d.liquidationId, ratio_qty_request: d.ratio, limit_price: limit };
  // docs/protocol.md §10: only with ratio 1 (the venue refuses it otherwise).
  if (d.extraRatio !== undefined && d.extraRatio > 0 && d.ratio === 1 && okRatio(d.extraRatio)) body.extra_liquidation_ratio = d.extraRatio;
  if (d.symbols !== undefined) {
    body.symbols = d.symbols.map((s) => {
      if (!okRatio(s.ratio)) throw new RangeError(`claim ${d.liquidationId}: ratio of ${s.symbol} is not in (0, 1]`);
      return { symbol: s.symbol, ratio_qty_request: s.ratio };
    });
  }
  return body;
}
