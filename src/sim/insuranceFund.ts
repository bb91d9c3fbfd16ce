/**
 * The insurance fund as docs/protocol.md §10 models it (the simulator's reading of an unsettled point):
 * a liquidation no liquidator claimed within its TTL (`takeover_ms`, the core's
 * `liquidationTtlMs`), and every position of a bankrupt account, moves to the fund; the fund offers
 * what it holds as rows of the open list with `type: "claim"`, whose `liquidation_id` is the
 * `claim_id` of `POST /v1/claim_insurance_fund`, at each symbol's `claim_insurance_fund_discount`
 * (default half its `liquidator_fee`, the venue's example: 0.0075 against 0.015). A row nobody
 * claims within `holdMs` the fund closes itself at the mark. `GET /v1/public/insurancefund` shows
 * the fund's balance and its positions (the open claim rows, by symbol).
 *
 * Claims (one symbol at a time, `qty_request` of it): unknown or fully claimed id -1202, a row that
 * is not the fund's -1202, a race on one id -1012, a bad body -1004 / -1005, a mark past
 * `limit_price` -1203, the margin rule of docs/protocol.md §7 -1101. A request above what remains takes
 * what remains (simulator's choice: a competitor's partial take is no reason to refuse).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { ClaimLogEntry } from "./claimLog.js";
import { addToPosition, type HeldPosition, type Transfer } from "./claimRules.js";
import { type BookedLiquidation, CLAIM_ROW_TYPE } from "./liquidationBook.js";
import { initialMarginOfHeld } from "./margin.js";
import { roundQty, type SymbolSpec } from "./symbols.js";
import type { ClaimResponseData, VenueCore } from "./venueCore.js";
import { type Checked, ok, refused } from "./venueRefusal.js";

/** A symbol's discount for claims on the fund's positions: its own, else half its liquidator fee. */
export function fundDiscountOf(spec: SymbolSpec): number {
  return spec.claimInsuranceFundDiscount ?? spec.liquidatorFee / 2;
}

export interface InsuranceFundOptions {
  /** The fund's balance at the start, quote (default 5,000,000). */
  balance?: number;
  /** A claim row nobody claims within this long is closed by the fund itself, ms (default one hour). */
  holdMs?: number;
}

export interface FundClaimRequest {
  claimId: number;
  symbol: string;
  qty: number;
  limitPrice: number;
}

const BODY_KEYS = new Set(["claim_id", "symbol", "qty_request", "limit_price"]);

function positiveNumber(v: unknown): number | undefined {
  const n = typeof v === "string" && /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : undefined;
}

/** The shape of a `POST /v1/claim_insurance_fund` body. */
function parseFundClaimBody(body: unknown): Checked<FundClaimRequest> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return refused(-1005, "body must be a JSON object");
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) if (!BODY_KEYS.has(key)) return refused(-1004, key);
  const id = b.claim_id;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id <= 0) return refused(-1005, "claim_id must be a positive integer");
  if (typeof b.symbol !== "string" || b.symbol === "") return refused(-1005, "symbol is required");
  const qty = positiveNumber(b.qty_request);
  if (qty === undefined) return refused(-1005, "qty_request must be a positive number");
  const limits = b.limit_price;
  if (typeof limits !== "object" || limits === null || Array.isArray(limits))
    return refused(-1005, "limit_price must be an object {symbol: price}");
  const limit = positiveNumber((limits as Record<string, unknown>)[b.symbol]);
  if (limit === undefined) return refused(-1005, `limit_price has no positive price for ${b.symbol}`);
  return ok({ claimId: id, symbol: b.symbol, qty, limitPrice: limit });
}

interface RowBook {
  /** The price each symbol of the row was taken over at. */
  takenAt: Map<string, number>;
}

export class InsuranceFund {
  readonly #core: VenueCore;
  readonly #holdMs: number;
  readonly #rows = new Map<number, RowBook>();
  readonly #inProcess = new Set<number>();
  /** Positions the fund holds that no claim row offers (`holdUnlisted`), by symbol. */
  readonly #unlisted = new Map<string, { qty: number; cost: number }>();
  #balance: number;

  constructor(core: VenueCore, options: InsuranceFundOptions = {}) {
    this.#core = core;
    this.#balance = options.balance ?? 5_000_000;
    this.#holdMs = options.holdMs ?? 3_600_000;
    if (!(this.#holdMs > 0) || !Number.isFinite(this.#balance)) throw new RangeError("insurance fund options out of range");
  }

  /** Start taking over expired liquidations (and closing expired claim rows). */
  attach(): void {
    this.#core.onExpire = (liq) => this.#expired(liq);
  }

  get balance(): number {
    return this.#balance;
  }

  /**
   * The fund takes these positions over at the marks (a bankrupt account's, or an unclaimed
   * liquidation's) and offers them as one claim row; `collateral` is what the account had left (a
   * bankrupt account's may be negative: the fund pays it). Returns the claim id.
   */
  takeOver(positions: readonly { symbol: string; position_qty: number }[], collateral = 0): number | undefined {
    const core = this.#core;
    this.#balance += collateral;
    const open: { symbol: string; position_qty: number; liquidator_fee: number }[] = [];
    const takenAt = new Map<string, number>();
    for (const p of positions) {
      const spec = core.symbols.get(p.symbol);
      if (spec === undefined || p.position_qty === 0) continue;
      open.push({ symbol: p.symbol, position_qty: p.position_qty, liquidator_fee: fundDiscountOf(spec) });
      takenAt.set(p.symbol, core.mark(p.symbol) ?? spec.startPrice);
    }
    if (open.length === 0) return undefined;
    const [id] = core.addLiquidations([{ positions: open, type: CLAIM_ROW_TYPE, ttlMs: this.#holdMs }]);
    this.#rows.set(id as number, { takenAt });
    return id;
  }

  /**
   * The other reading of docs/protocol.md §10's unsettled point, for tests: the fund holds these
   * positions (in `GET /v1/public/insurancefund`) and offers them through no claim row.
   */
  holdUnlisted(positions: readonly { symbol: string; position_qty: number }[]): void {
    for (const p of positions) {
      const s = this.#unlisted.get(p.symbol) ?? { qty: 0, cost: 0 };
      s.qty = roundQty(s.qty + p.position_qty);
      s.cost += p.position_qty * (this.#core.mark(p.symbol) ?? 0);
      this.#unlisted.set(p.symbol, s);
    }
  }

  #expired(liq: BookedLiquidation): void {
    if (liq.type === CLAIM_ROW_TYPE) {
      // Nobody wanted it: the fund closes what is left at the mark.
      const row = this.#rows.get(liq.liquidationId);
      for (const p of liq.positions) this.#realize(row, p.symbol, p.positionQty, this.#core.mark(p.symbol));
      this.#rows.delete(liq.liquidationId);
      return;
    }
    this.takeOver(liq.positions.map((p) => ({ symbol: p.symbol, position_qty: p.positionQty })));
  }

  /** The fund's P&L on `qty` it held (taken over at the row's price) leaving at `price`. */
  #realize(row: RowBook | undefined, symbol: string, qty: number, price: number | undefined): void {
    const from = row?.takenAt.get(symbol);
    if (from !== undefined && price !== undefined) this.#balance += qty * (price - from);
  }

  /** `GET /v1/public/insurancefund` data: the balance and the positions the open claim rows hold. */
  data(): Record<string, unknown> {
    const core = this.#core;
    core.expireDue();
    const bySymbol = new Map<string, { qty: number; cost: number }>([...this.#unlisted].map(([k, v]) => [k, { ...v }]));
    for (const liq of core.book.list()) {
      const row = this.#rows.get(liq.liquidationId);
      if (liq.type !== CLAIM_ROW_TYPE || row === undefined) continue;
      for (const p of liq.positions) {
        if (p.positionQty === 0) continue;
        const s = bySymbol.get(p.symbol) ?? { qty: 0, cost: 0 };
        s.qty = roundQty(s.qty + p.positionQty);
        s.cost += p.positionQty * (row.takenAt.get(p.symbol) ?? 0);
        bySymbol.set(p.symbol, s);
      }
    }
    const now = core.now();
    let unsettled = 0;
    let notional = 0;
    const rows = [...bySymbol].map(([symbol, s]) => {
      const mark = core.mark(symbol) ?? 0;
      unsettled += s.qty * mark - s.cost;
      notional += Math.abs(s.qty) * mark;
      return {
        symbol,
        position_qty: s.qty,
        cost_position: s.cost,
        average_open_price: s.qty === 0 ? 0 : s.cost / s.qty,
        mark_price: mark,
        unsettled_pnl: s.qty * mark - s.cost,
        timestamp: now,
      };
    });
    const total = this.#balance + unsettled;
    return {
      balance: this.#balance,
      total_collateral_value: total,
      free_collateral: total - notional,
      margin_ratio: notional === 0 ? 10 : total / notional,
      rows,
    };
  }

  /** One `POST /v1/claim_insurance_fund` by `accountId`, decided and applied as the venue would. */
  async claim(
    accountId: string,
    body: unknown,
    receivedAt: number,
    source: ClaimLogEntry["source"] = "rest",
  ): Promise<Checked<ClaimResponseData>> {
    const core = this.#core;
    const parsed = parseFundClaimBody(body);
    if (!parsed.ok) return this.#refuse(accountId, undefined, receivedAt, parsed);
    const req = parsed.value;
    if (this.#inProcess.has(req.claimId)) return this.#refuse(accountId, req.claimId, receivedAt, refused(-1012, `claim ${req.claimId}`));
    this.#inProcess.add(req.claimId);
    try {
      if (core.claimProcessingDelayMs > 0) await sleep(core.claimProcessingDelayMs);
      core.expireDue();
      const account = core.accounts.get(accountId);
      if (account === undefined) return this.#refuse(accountId, req.claimId, receivedAt, refused(-1002, "unknown account"));
      const liq = core.book.get(req.claimId);
      const row = this.#rows.get(req.claimId);
      if (liq === undefined || liq.type !== CLAIM_ROW_TYPE || row === undefined)
        return this.#refuse(accountId, req.claimId, receivedAt, refused(-1202, `no open insurance fund claim ${req.claimId}`));
      const decided = this.#decide(req, liq, account.positions, accountId, account.maxLeverage);
      if (!decided.ok) return this.#refuse(accountId, req.claimId, receivedAt, decided);
      const { transfer, positionsAfter } = decided.value;
      const remaining = new Map(liq.positions.map((p) => [p.symbol, p.positionQty]));
      remaining.set(req.symbol, roundQty((remaining.get(req.symbol) ?? 0) - transfer.positionQty));
      // The fund sells at the mark and pays the discount.
      this.#realize(row, req.symbol, transfer.positionQty, transfer.transferPrice);
      this.#balance -= transfer.absLiquidatorFee;
      const answer = core.claimProcessor.apply(account, liq, [transfer], remaining, positionsAfter, receivedAt, source);
      if (core.book.get(req.claimId) === undefined) this.#rows.delete(req.claimId);
      return ok(answer);
    } finally {
      this.#inProcess.delete(req.claimId);
    }
  }

  #decide(
    req: FundClaimRequest,
    liq: BookedLiquidation,
    positions: ReadonlyMap<string, HeldPosition>,
    accountId: string,
    maxLeverage: number,
  ): Checked<{ transfer: Transfer; positionsAfter: Map<string, HeldPosition> }> {
    const core = this.#core;
    const pos = liq.positions.find((p) => p.symbol === req.symbol && p.positionQty !== 0);
    if (pos === undefined) return refused(-1005, `symbol ${req.symbol} is not open in claim ${req.claimId}`);
    const spec = core.symbols.get(req.symbol) as SymbolSpec;
    const mark = core.mark(req.symbol);
    if (mark === undefined) return refused(-1011, `no mark for ${req.symbol}`);
    if ((pos.positionQty > 0 && mark > req.limitPrice) || (pos.positionQty < 0 && mark < req.limitPrice))
      return refused(-1203, `${req.symbol} mark ${mark} is past limit_price ${req.limitPrice}`);
    // Down to the quantity step; what remains when asked for more.
    const stepped = Math.floor(req.qty / spec.qtyStep + 1e-9) * spec.qtyStep;
    const abs = Math.min(Math.abs(pos.positionQty), roundQty(stepped));
    if (!(abs > 0)) return refused(-1005, `qty_request ${req.qty} is below the quantity step ${spec.qtyStep}`);
    const q = Math.sign(pos.positionQty) * abs;
    const positionsAfter = new Map(positions);
    positionsAfter.set(req.symbol, addToPosition(positionsAfter.get(req.symbol), q, mark));
    const held = [...positionsAfter].map(([symbol, h]) => ({ symbol, qty: h.qty }));
    const required =
      initialMarginOfHeld(
        held,
        (s) => core.symbols.get(s),
        (s) => core.mark(s),
        maxLeverage,
      ) +
      core.trading.initialMargin(accountId, "ISOLATED") +
      core.trading.frozen(accountId);
    const collateral = core.trading.totalCollateral(accountId);
    if (required > collateral)
      return refused(-1101, `initial margin ${required.toFixed(2)} after the claim exceeds collateral ${collateral.toFixed(2)}`);
    const cost = q * mark;
    const transfer: Transfer = {
      symbol: req.symbol,
      positionQty: q,
      transferPrice: mark,
      costPositionTransfer: cost,
      liquidatorFee: pos.liquidatorFee,
      absLiquidatorFee: Math.abs(cost) * pos.liquidatorFee,
      markPrice: mark,
    };
    return ok({ transfer, positionsAfter });
  }

  #refuse(accountId: string, id: number | undefined, receivedAt: number, r: Checked<never>): Checked<never> {
    if (!r.ok) this.#core.logRejectedClaim(accountId, receivedAt, r.refusal.code, r.refusal.message, id);
    return r;
  }
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { parseFundClaimBody as parseFundClaimBodyForTests };
