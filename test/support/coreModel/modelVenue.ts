/**
 * The venue of the core's model-based tests, and the truth the invariants are judged against: which
 * claims of ours it applied (and with what), what our orders traded, what the account holds and how
 * much of it is the operator's own. It answers claims and orders as the commands say (in full, lean,
 * lost, refused), queues what it pushes (assignments, positions, execution reports) for the test to
 * deliver in any order or drop, and keeps the record of our claims (docs/protocol.md §10) that settles what
 * the answers did not say.
 *
 * Kept small on purpose: one margin mode (cross), each symbol's liquidations of one side — the side
 * of the operator's own position there — so that nothing of ours nets against the operator's.
 */
import type { ClaimAnswer, RecordRead } from "../../../src/core/corePort.js";
import type { Fill } from "../../../src/engine/types.js";
import { TransportError, VenueError } from "../../../src/venue/errors.js";
import type { OrderAck, OrderRecord, OrderRequest, OrdersPage } from "../../../src/venue/orderSchemas.js";
import type { ClaimRequest } from "../../../src/venue/restSchemas.js";
import type { ExecutionReport } from "../../../src/venue/wireOrders.js";

export const ETH = "PERP_ETH_USDC";
export const BTC = "PERP_BTC_USDC";
/** Per symbol: mark, the side every liquidation (and so every claim of ours) is on, the claim step, the operator's own position. */
export const MARKET = {
  [ETH]: { mark: 2_000, side: 1, step: 0.1, own: 0.5 },
  [BTC]: { mark: 50_000, side: -1, step: 0.01, own: 0 },
} as const;
export type ModelSymbol = keyof typeof MARKET;
export const SYMBOLS = Object.keys(MARKET) as ModelSymbol[];
const FEE_RATE = 0.02;

/** What the venue does with the next claim request it takes. */
export type ClaimFate = "full" | "lean" | "late" | "lost_after" | "lost_before" | "price_moved";
/** What the venue does with the next order placed. */
export type OrderFate = "fill" | "partial" | "none" | "lost_after" | "lost_before";

/** Something the venue pushes, in the order it happened; the test delivers them in any order. */
export type Pushed =
  | { kind: "assignment"; gen: number; id: number; at: number; fills: Fill[] }
  | { kind: "position"; gen: number; symbol: string; qty: number; at: number }
  | { kind: "execution"; gen: number; report: ExecutionReport }
  /** An answer the venue made at `at` and the network held: the pushes it caused may come first. */
  | { kind: "answer"; gen: number; at: number; reply: (lost: boolean) => void };

interface Request {
  gen: number;
  body: ClaimRequest;
  answered: (a: ClaimAnswer) => void;
}

export class ModelVenue {
  readonly open = new Map<number, { symbol: ModelSymbol; qty: number }[]>();
  /** Every liquidation as first listed (a stale push repeats it). */
  readonly listed = new Map<number, { symbol: ModelSymbol; qty: number }[]>();
  readonly held = new Map<string, number>(SYMBOLS.map((s) => [s, MARKET[s].own]));
  /** Σ of what our applied claims assigned, and of what our orders traded, per symbol (signed). */
  readonly assigned = new Map<string, number>(SYMBOLS.map((s) => [s, 0]));
  readonly traded = new Map<string, number>(SYMBOLS.map((s) => [s, 0]));
  readonly record: { liquidationId: number; timestamp: number; fills: Fill[] }[] = [];
  readonly requests: Request[] = [];
  readonly pushed: Pushed[] = [];
  readonly orders = new Map<string, OrderRecord>();
  /** Every claim request that reached the venue, by id, and the ids it applied for us. */
  readonly requestsById = new Map<number, number>();
  readonly applied = new Set<number>();
  /** Broken invariants seen as they happen (a second claim of an applied id, an order eating the operator's own). */
  readonly violations: string[] = [];
  nextOrderFate: OrderFate = "fill";
  recordDown = false;
  #orderId = 1;

  constructor(readonly clock: { now: number; gen: number }) {}

  /** Ours as the venue knows it: what our claims assigned, less what our orders closed. */
  trueOurs(symbol: string): number {
    return round((this.assigned.get(symbol) ?? 0) + (this.traded.get(symbol) ?? 0));
  }

  /** A new liquidation. */
  list(id: number, symbol: ModelSymbol, steps: number): void {
    this.open.set(id, [{ symbol, qty: round(MARKET[symbol].side * MARKET[symbol].step * steps) }]);
    this.listed.set(
      id,
      [...(this.open.get(id) ?? [])].map((p) => ({ ...p })),
    );
  }

  /** Someone else claimed one step of an open liquidation (its quantities shrink; docs/protocol.md §5: the id is pushed again). */
  rivalTakes(id: number): boolean {
    const p = this.open.get(id)?.[0];
    if (p === undefined || Math.abs(p.qty) <= MARKET[p.symbol].step + 1e-12) return false;
    p.qty = round(p.qty - MARKET[p.symbol].side * MARKET[p.symbol].step);
    return true;
  }

  sendClaim(body: ClaimRequest, answered: (a: ClaimAnswer) => void): void {
    const id = body.liquidation_id;
    if (this.applied.has(id)) this.violations.push(`claim ${id} sent again after the venue applied it`);
    if (this.requests.some((r) => r.body.liquidation_id === id)) this.violations.push(`claim ${id} sent while one is in flight`);
    this.requestsById.set(id, (this.requestsById.get(id) ?? 0) + 1);
    this.requests.push({ gen: this.clock.gen, body, answered });
  }

  /** Take the `k`-th request waiting (modulo), and do with it what `fate` says. */
  answer(k: number, fate: ClaimFate, dropPush: boolean): void {
    if (this.requests.length === 0) return;
    const [r] = this.requests.splice(k % this.requests.length, 1) as [Request];
    const id = r.body.liquidation_id;
    const reply = (a: ClaimAnswer): void => {
      if (r.gen === this.clock.gen) r.answered(a);
    };
    const open = this.open.get(id);
    if (fate === "lost_before") return reply({ error: new TransportError("connection reset before the request was written", false) });
    if (open === undefined)
      return reply({ error: new VenueError({ venueCode: -1202, status: 400, venueMessage: "gone", endpoint: "/v1/liquidation" }) });
    if (fate === "price_moved")
      return reply({ error: new VenueError({ venueCode: -1203, status: 400, venueMessage: "limit", endpoint: "/v1/liquidation" }) });
    const at = this.clock.now;
    const fills: Fill[] = [];
    for (const p of open) {
      const qty = round(p.qty * r.body.ratio_qty_request);
      if (qty === 0) continue;
      const mark = MARKET[p.symbol].mark;
      fills.push({ symbol: p.symbol, qty, price: mark, fee: round(Math.abs(qty) * mark * FEE_RATE) });
      p.qty = round(p.qty - qty);
      this.#move(p.symbol, qty, at);
      this.assigned.set(p.symbol, round((this.assigned.get(p.symbol) ?? 0) + qty));
    }
    this.open.set(
      id,
      open.filter((p) => p.qty !== 0),
    );
    if (this.open.get(id)?.length === 0) this.open.delete(id);
    this.applied.add(id);
    this.record.push({ liquidationId: id, timestamp: at, fills });
    if (!dropPush) this.pushed.push({ kind: "assignment", gen: this.clock.gen, id, at, fills });
    if (fate === "lost_after") return reply({ error: new TransportError("socket hang up", true) });
    const result =
      fate === "lean"
        ? {}
        : {
            liquidation_id: id,
            timestamp: at,
            positions_by_perp: fills.map((f) => ({
              symbol: f.symbol,
              position_qty: f.qty,
              transfer_price: f.price,
              abs_liquidator_fee: f.fee,
            })),
          };
    if (fate === "late")
      this.pushed.push({
        kind: "answer",
        gen: this.clock.gen,
        at,
        // Dropped, it is an answer lost: the connection ends without one.
        reply: (lost) => reply(lost ? { error: new TransportError("socket hang up", true) } : { sent: true, result }),
      });
    else reply({ sent: true, result });
  }

  readRecord(startT: number, endT: number): Promise<RecordRead> {
    if (this.recordDown) return Promise.resolve({ ok: false, reason: "503 from the model", permanent: false });
    const claims = this.record.filter((r) => r.timestamp >= startT && r.timestamp <= endT).map((r) => ({ ...r, fills: [...r.fills] }));
    return Promise.resolve({ ok: true, claims, asOf: this.clock.now });
  }

  placeOrder(body: OrderRequest): Promise<OrderAck> {
    const fate = this.nextOrderFate;
    this.nextOrderFate = "fill";
    if (fate === "lost_before") return Promise.reject(new TransportError("connection reset before the request was written", false));
    const held = this.held.get(body.symbol) ?? 0;
    const dir = body.side === "BUY" ? 1 : -1;
    // Reduce-only: an order that would not reduce the position (or more than it) is refused.
    if (Math.sign(held) !== -dir || body.order_quantity > Math.abs(held) + 1e-9)
      return Promise.reject(new VenueError({ venueCode: -1106, status: 400, venueMessage: "reduce only", endpoint: "/v1/order" }));
    const qty =
      fate === "none" ? 0 : fate === "partial" ? round(Math.floor((body.order_quantity / 2) * 1_000) / 1_000) : body.order_quantity;
    const price = body.order_price ?? MARKET[body.symbol as ModelSymbol].mark;
    const orderId = this.#orderId++;
    const at = this.clock.now;
    const before = this.trueOurs(body.symbol);
    if (qty > 0) {
      this.#move(body.symbol, dir * qty, at);
      this.traded.set(body.symbol, round((this.traded.get(body.symbol) ?? 0) + dir * qty));
      const after = this.trueOurs(body.symbol);
      if (Math.sign(after) === -Math.sign(before) || Math.abs(after) > Math.abs(before) + 1e-9)
        this.violations.push(
          `order ${body.client_order_id} closed ${qty} of ${body.symbol} where ours was ${before}: the operator's own was traded`,
        );
    }
    const fee = round(qty * price * 0.0005);
    const record: OrderRecord = {
      order_id: orderId,
      client_order_id: body.client_order_id,
      symbol: body.symbol,
      side: body.side,
      status: qty >= body.order_quantity ? "FILLED" : "CANCELLED",
      quantity: body.order_quantity,
      price,
      total_executed_quantity: qty,
      average_executed_price: qty > 0 ? price : 0,
      total_fee: fee,
      reduce_only: true,
      updated_time: at,
    };
    this.orders.set(body.client_order_id, record);
    this.pushed.push({
      kind: "execution",
      gen: this.clock.gen,
      report: {
        symbol: body.symbol,
        clientOrderId: body.client_order_id,
        orderId,
        side: body.side,
        status: record.status,
        executedQuantity: qty,
        executedPrice: qty > 0 ? price : 0,
        fee,
        totalExecutedQuantity: qty,
        avgExecutedPrice: qty > 0 ? price : 0,
        totalFee: fee,
        tradeId: qty > 0 ? `t${orderId}` : "",
        reduceOnly: true,
        timestamp: at,
      },
    });
    if (fate === "lost_after") return Promise.reject(new TransportError("socket hang up", true));
    return Promise.resolve({ order_id: orderId, client_order_id: body.client_order_id });
  }

  orderByClientId(clientOrderId: string): Promise<OrderRecord> {
    const r = this.orders.get(clientOrderId);
    if (r === undefined)
      return Promise.reject(new VenueError({ venueCode: -1006, status: 400, venueMessage: "no such order", endpoint: "order" }));
    return Promise.resolve({ ...r });
  }

  ordersOf(symbol: string): Promise<OrdersPage> {
    const rows = [...this.orders.values()].filter((r) => r.symbol === symbol);
    return Promise.resolve({ meta: { total: rows.length, records_per_page: 500, current_page: 1 }, rows });
  }

  /** The account as `GET /v1/positions` reports it now. */
  positions(): { symbol: string; positionQty: number }[] {
    return SYMBOLS.map((symbol) => ({ symbol, positionQty: this.held.get(symbol) ?? 0 }));
  }

  /** Pushes of the dead process's streams are gone with it. */
  restartStreams(): void {
    const keep = this.pushed.filter((p) => p.gen === this.clock.gen);
    this.pushed.splice(0, this.pushed.length, ...keep);
  }

  #move(symbol: string, qty: number, at: number): void {
    const held = round((this.held.get(symbol) ?? 0) + qty);
    this.held.set(symbol, held);
    this.pushed.push({ kind: "position", gen: this.clock.gen, symbol, qty: held, at });
  }
}

/** Quantities on a 1e-9 grid (the venue's arithmetic is exact; ours must not drift from it). */
export function round(x: number): number {
  const r = Math.round(x * 1e9) / 1e9;
  return r === 0 ? 0 : r;
}
