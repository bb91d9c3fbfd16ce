/**
 * The claim rules of docs/protocol.md §4.1 and §7, as pure functions: `parseClaimBody` checks the
 * body's shape (-1004 / -1005), `evaluateClaim` applies the venue's rules to one open liquidation
 * and computes the transfer (or the refusal). No clock, no I/O, no state: the core supplies them.
 */
import type { BookedLiquidation } from "./liquidationBook.js";
import { type AccountMargin, initialMarginOfHeld } from "./margin.js";
import { floorToStep, roundQty, type SymbolSpec } from "./symbols.js";
import { type Checked, ok, refused } from "./venueRefusal.js";

/** docs/protocol.md §11: full take-over below these notionals (quote, at mark). */
const FULL_TAKE_LOW_TIER = 10_000;
const FULL_TAKE_HIGH_TIER = 5_000;

export interface SymbolClaim {
  symbol: string;
  /** Ratio quantised down to 0.001, as an integer number of thousandths (1..1000). */
  ratioThousandths: number;
}

export interface ClaimBody {
  liquidationId: number;
  ratioThousandths: number;
  limitPrice: ReadonlyMap<string, number>;
  extraLiquidationRatio: number | undefined;
  symbols: SymbolClaim[] | undefined;
}

const BODY_KEYS = new Set(["liquidation_id", "ratio_qty_request", "limit_price", "extra_liquidation_ratio", "symbols"]);
const SYMBOL_KEYS = new Set(["symbol", "ratio_qty_request"]);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * docs/protocol.md §4: a ratio is a number in (0, 1], quantised down to 0.001; one that quantises to 0
 * is refused. The epsilon keeps 0.29 (= 289.99999… thousandths in floating point) at 290.
 */
function quantiseRatio(value: unknown, name: string): Checked<number> {
  if (typeof value !== "number" || !Number.isFinite(value)) return refused(-1005, `${name} must be a number in (0, 1]`);
  if (!(value > 0 && value <= 1)) return refused(-1005, `${name} must be in (0, 1], got ${value}`);
  const thousandths = Math.min(1000, Math.floor(value * 1000 + 1e-6));
  if (thousandths < 1) return refused(-1005, `${name} ${value} quantises to 0 (quantum 0.001)`);
  return ok(thousandths);
}

/** Shape of the POST /v1/liquidation body (docs/protocol.md §4). */
export function parseClaimBody(body: unknown): Checked<ClaimBody> {
  if (!isPlainObject(body)) return refused(-1005, "body must be a JSON object");
  for (const key of Object.keys(body)) if (!BODY_KEYS.has(key)) return refused(-1004, key);

  const id = body.liquidation_id;
  if (id === undefined) return refused(-1005, "liquidation_id is required");
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id <= 0) return refused(-1005, "liquidation_id must be a positive integer");

  if (body.ratio_qty_request === undefined) return refused(-1005, "ratio_qty_request is required");
  const ratio = quantiseRatio(body.ratio_qty_request, "ratio_qty_request");
  if (!ratio.ok) return ratio;

  if (body.limit_price === undefined) return refused(-1005, "limit_price is required");
  if (!isPlainObject(body.limit_price)) return refused(-1005, "limit_price must be an object {symbol: price}");
  const limitPrice = new Map<string, number>();
  for (const [symbol, price] of Object.entries(body.limit_price)) {
    if (typeof price !== "number" || !Number.isFinite(price) || price <= 0) {
      return refused(-1005, `limit_price.${symbol} must be a positive number`);
    }
    limitPrice.set(symbol, price);
  }

  let extra: number | undefined;
  if (body.extra_liquidation_ratio !== undefined && body.extra_liquidation_ratio !== null) {
    const e = body.extra_liquidation_ratio;
    if (typeof e !== "number" || !Number.isFinite(e) || e < 0 || e > 1)
      return refused(-1005, "extra_liquidation_ratio must be a number in [0, 1]");
    if (ratio.value !== 1000) return refused(-1005, "extra_liquidation_ratio is only allowed when ratio_qty_request is 1");
    extra = e;
  }

  let symbols: SymbolClaim[] | undefined;
  if (body.symbols !== undefined && body.symbols !== null) {
    if (!Array.isArray(body.symbols) || body.symbols.length === 0) {
      return refused(-1005, "symbols must be a non-empty array of {symbol, ratio_qty_request}");
    }
    symbols = [];
    const seen = new Set<string>();
    for (const [i, entry] of body.symbols.entries()) {
      if (!isPlainObject(entry)) return refused(-1005, `symbols[${i}] must be an object {symbol, ratio_qty_request}`);
      for (const key of Object.keys(entry)) if (!SYMBOL_KEYS.has(key)) return refused(-1004, `symbols[${i}].${key}`);
      if (typeof entry.symbol !== "string" || entry.symbol === "") return refused(-1005, `symbols[${i}].symbol must be a symbol name`);
      if (seen.has(entry.symbol)) return refused(-1005, `symbols lists ${entry.symbol} twice`);
      seen.add(entry.symbol);
      if (entry.ratio_qty_request === undefined) return refused(-1005, `symbols[${i}].ratio_qty_request is required`);
      const r = quantiseRatio(entry.ratio_qty_request, `symbols[${i}].ratio_qty_request`);
      if (!r.ok) return r;
      symbols.push({ symbol: entry.symbol, ratioThousandths: r.value });
    }
  }

  return ok({ liquidationId: id, ratioThousandths: ratio.value, limitPrice, extraLiquidationRatio: extra, symbols });
}

export interface HeldPosition {
  qty: number;
  averageOpenPrice: number;
}

export interface ClaimContext {
  symbol(name: string): SymbolSpec | undefined;
  mark(name: string): number | undefined;
  /** The claimant's positions before the claim. */
  positions: ReadonlyMap<string, HeldPosition>;
  /** Total collateral: USDC holding + unsettled P&L (docs/protocol.md §7). */
  collateral: number;
  /** The account's leverage per symbol and own imr_factor (docs/protocol.md §10); a number: every symbol at that leverage. */
  margin: AccountMargin | number;
  /** Whether a position of a symbol going from one quantity to another passes the account's max_notional (docs/protocol.md §10). */
  growsPastMaxNotional?: (symbol: string, before: number, after: number, mark: number) => boolean;
  /** Initial margin of what the claim does not touch: isolated positions and open orders. */
  otherMargin?: number;
}

export interface Transfer {
  symbol: string;
  /** Signed quantity the claimant takes over (same sign as the liquidated position). */
  positionQty: number;
  transferPrice: number;
  costPositionTransfer: number;
  liquidatorFee: number;
  absLiquidatorFee: number;
  markPrice: number;
}

export interface ClaimOutcome {
  transfers: Transfer[];
  /** Remaining quantity of every symbol of the liquidation after the claim. */
  remaining: Map<string, number>;
  /** The claimant's positions after the claim (every symbol it holds). */
  positionsAfter: Map<string, HeldPosition>;
  fullyClaimed: boolean;
}

/** docs/protocol.md §11: the position after adding `q` at `price`; the average moves only when the position grows. */
export function addToPosition(held: HeldPosition | undefined, q: number, price: number): HeldPosition {
  const old = held ?? { qty: 0, averageOpenPrice: 0 };
  const qty = roundQty(old.qty + q);
  if (qty === 0) return { qty: 0, averageOpenPrice: 0 };
  if (old.qty === 0 || Math.sign(old.qty) === Math.sign(q)) {
    const avg = (Math.abs(old.qty) * old.averageOpenPrice + Math.abs(q) * price) / (Math.abs(old.qty) + Math.abs(q));
    return { qty, averageOpenPrice: avg };
  }
  if (Math.sign(qty) === Math.sign(old.qty)) return { qty, averageOpenPrice: old.averageOpenPrice };
  return { qty, averageOpenPrice: price }; // flipped through zero: the new side opened at this price
}

/**
 * What a ratio-1 claim takes of a position (docs/protocol.md §10): all of it as published, and of what it grew
 * by since then only up to `extra` of the published quantity (`extra_liquidation_ratio`; none: nothing).
 */
function wholeQty(pos: { positionQty: number; grownBy?: number }, extra: number | undefined): number {
  const grown = pos.grownBy ?? 0;
  if (grown === 0) return pos.positionQty;
  const published = pos.positionQty - grown;
  const most = Math.abs(published) * (1 + (extra ?? 0));
  return Math.sign(pos.positionQty) * roundQty(Math.min(Math.abs(pos.positionQty), most));
}

/** Apply docs/protocol.md §4.1 + §7 to one claim. `liq` undefined means gone / unknown (-1202). */
export function evaluateClaim(req: ClaimBody, liq: BookedLiquidation | undefined, ctx: ClaimContext): Checked<ClaimOutcome> {
  if (liq === undefined) return refused(-1202, `liquidation ${req.liquidationId} is unknown, fully claimed or expired`);
  const open = liq.positions.filter((p) => p.positionQty !== 0);
  if (open.length === 0) return refused(-1202, `liquidation ${req.liquidationId} is fully claimed`);

  const marks = new Map<string, number>();
  for (const p of open) {
    const m = ctx.mark(p.symbol);
    if (m === undefined || !(m > 0)) return refused(-1000, `no mark price for ${p.symbol}`);
    marks.set(p.symbol, m);
  }
  const notional = (p: { symbol: string; positionQty: number }): number => Math.abs(p.positionQty) * (marks.get(p.symbol) ?? 0);

  // Which symbols are claimed, and at what ratio.
  const claims: { pos: (typeof open)[number]; thousandths: number }[] = [];
  if (req.symbols !== undefined) {
    for (const s of req.symbols) {
      const pos = open.find((p) => p.symbol === s.symbol);
      if (pos === undefined) return refused(-1005, `symbol ${s.symbol} is not part of liquidation ${liq.liquidationId}`);
      if (ctx.symbol(s.symbol)?.tier !== 2) {
        return refused(-1005, `symbols is for high-risk tier only; ${s.symbol} is low tier and is claimed as a proportional share`);
      }
      claims.push({ pos, thousandths: s.ratioThousandths });
    }
  } else {
    for (const pos of open) claims.push({ pos, thousandths: req.ratioThousandths });
  }

  for (const c of claims) {
    if (!req.limitPrice.has(c.pos.symbol)) return refused(-1005, `limit_price has no price for ${c.pos.symbol}`);
  }

  // Full take-over thresholds (docs/protocol.md §11).
  if (req.symbols === undefined) {
    const total = open.reduce((sum, p) => sum + notional(p), 0);
    const threshold = open.some((p) => ctx.symbol(p.symbol)?.tier !== 2) ? FULL_TAKE_LOW_TIER : FULL_TAKE_HIGH_TIER;
    if (total < threshold && req.ratioThousandths !== 1000) {
      return refused(-1201, `notional ${total.toFixed(2)} is below ${threshold}: ratio_qty_request must be 1`);
    }
  } else {
    for (const c of claims) {
      const n = notional(c.pos);
      if (n < FULL_TAKE_HIGH_TIER && c.thousandths !== 1000) {
        return refused(-1201, `${c.pos.symbol} notional ${n.toFixed(2)} is below ${FULL_TAKE_HIGH_TIER}: its ratio_qty_request must be 1`);
      }
    }
  }

  // limit_price side rule (docs/protocol.md §A.4.5): a buyer of a long refuses a mark above its limit, etc.
  for (const c of claims) {
    const mark = marks.get(c.pos.symbol) as number;
    const limit = req.limitPrice.get(c.pos.symbol) as number;
    if ((c.pos.positionQty > 0 && mark > limit) || (c.pos.positionQty < 0 && mark < limit)) {
      return refused(-1203, `${c.pos.symbol} mark ${mark} is past limit_price ${limit}`);
    }
  }

  const transfers: Transfer[] = [];
  const remaining = new Map(open.map((p) => [p.symbol, p.positionQty]));
  const positionsAfter = new Map<string, HeldPosition>(ctx.positions);
  for (const c of claims) {
    // The venue's docs do not say how a ratio's quantity is rounded; its positions live on the
    // symbol's quantity grid (orders must, docs/protocol.md §6), so the simulator assigns the share
    // rounded toward zero to the step: never more than asked, and what stays open stays on the grid
    // (docs/protocol.md §11). A share below one step transfers nothing of that symbol.
    const step = ctx.symbol(c.pos.symbol)?.qtyStep;
    const share = (c.pos.positionQty * c.thousandths) / 1000;
    const q =
      c.thousandths === 1000 ? wholeQty(c.pos, req.extraLiquidationRatio) : step === undefined ? roundQty(share) : floorToStep(share, step);
    if (q === 0) continue;
    const mark = marks.get(c.pos.symbol) as number;
    const fee = c.pos.liquidatorFee;
    // At the mark: the liquidator fee is a separate credit to the holding (docs/protocol.md §6), not a
    // discount in the price as well.
    const transferPrice = mark;
    const cost = q * transferPrice;
    transfers.push({
      symbol: c.pos.symbol,
      positionQty: q,
      transferPrice,
      costPositionTransfer: cost,
      liquidatorFee: fee,
      absLiquidatorFee: Math.abs(cost) * fee,
      markPrice: mark,
    });
    remaining.set(c.pos.symbol, roundQty(c.pos.positionQty - q));
    positionsAfter.set(c.pos.symbol, addToPosition(positionsAfter.get(c.pos.symbol), q, transferPrice));
  }
  if (transfers.length === 0) return refused(-1201, "the requested ratio transfers no quantity");

  // docs/protocol.md §7, §10: the initial margin of everything held after the claim (per-symbol IMR at the
  // symbol's leverage, the 4/5 term included) must fit in the total collateral, as for a new order.
  const held = [...positionsAfter].map(([symbol, h]) => ({ symbol, qty: h.qty }));
  const required =
    initialMarginOfHeld(held, ctx.symbol, (s) => marks.get(s) ?? ctx.mark(s) ?? positionsAfter.get(s)?.averageOpenPrice, ctx.margin) +
    (ctx.otherMargin ?? 0);
  if (required > ctx.collateral) {
    return refused(-1101, `initial margin ${required.toFixed(2)} after the claim exceeds collateral ${ctx.collateral.toFixed(2)}`);
  }
  // docs/protocol.md §10: no symbol may grow past the account's max_notional ("risk exposure too high").
  for (const t of transfers) {
    const after = positionsAfter.get(t.symbol)?.qty ?? 0;
    if (ctx.growsPastMaxNotional?.(t.symbol, ctx.positions.get(t.symbol)?.qty ?? 0, after, t.markPrice) === true) {
      return refused(-1101, `${t.symbol} position ${(Math.abs(after) * t.markPrice).toFixed(2)} after the claim exceeds its max_notional`);
    }
  }

  const fullyClaimed = [...remaining.values()].every((q) => q === 0);
  return ok({ transfers, remaining, positionsAfter, fullyClaimed });
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export {
  FULL_TAKE_HIGH_TIER as FULL_TAKE_HIGH_TIER_FOR_TESTS,
  FULL_TAKE_LOW_TIER as FULL_TAKE_LOW_TIER_FOR_TESTS,
  quantiseRatio as quantiseRatioForTests,
};
