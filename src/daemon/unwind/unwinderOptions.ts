/**
 * What the unwinder (unwinder.ts) is given and keeps per position: its options, the observer it
 * reports to, the state of one position in one margin mode. Apart so that how an order ends
 * (orderEnds.ts) reads the same shapes without importing the unwinder.
 */
import type { Cancel } from "../../core/corePort.js";
import type { OwnOrders } from "../../core/ownOrders.js";
import type { MarkBook } from "../../engine/marks.js";
import type { PositionBook } from "../../engine/positionBook.js";
import type { SymbolTable } from "../../engine/symbolInfo.js";
import type { MarginMode } from "../../engine/types.js";
import type { ORDER_RESULTS } from "../../observe/unwindMetrics.js";
import type { OrderApi } from "../../venue/orderApi.js";
import type { HeldOrder } from "./orderLookupSettlement.js";
import type { UnwindSettings } from "./unwindSettings.js";

/** `orders_total{result}` (observe/unwindMetrics.ts): the metric's list is the one source. */
export type OrderResultLabel = (typeof ORDER_RESULTS)[number];

export interface UnwinderObserver {
  order(result: OrderResultLabel): void;
  timeToFlat(seconds: number): void;
  halted(symbol: string, on: boolean): void;
  /** An order neither its lookup nor the order list could settle: given up, positions re-read (an alert). */
  unsettled(symbol: string): void;
}

export interface UnwinderOptions {
  /** Lookups of an order whose answer or final report did not come. */
  orders: Pick<OrderApi, "orderByClientId" | "ordersOf">;
  /** The core's orders: intent, placement, trades, end (core/ownOrders.ts). */
  own: Pick<OwnOrders, "place" | "outcome" | "trade" | "complete" | "remember" | "nextSeq">;
  positions: PositionBook;
  marks: MarkBook;
  symbols: () => SymbolTable;
  settings: UnwindSettings;
  dryRun: () => boolean;
  /** Whether this replica may send now. */
  mayLead: () => boolean;
  observer: UnwinderObserver;
  logger: {
    debug(o: object, m: string): void;
    info(o: object, m: string): void;
    warn(o: object, m: string): void;
    error(o: object, m: string): void;
  };
  /** The part of a position's held quantity to close (signed like it, no larger): the core's `target`. */
  target: (symbol: string, mode: MarginMode, held: number) => number;
  /** Ask the REST feed for a positions read now (after a refusal that says ours are wrong). */
  requestPositions: () => void;
  /** Read `GET /v1/positions` now and apply it; resolves once applied (an unsettled order is decided on it). */
  readPositions: (signal: AbortSignal) => Promise<void>;
  /** Client order ids are `${prefix}-${seq}` (≤ 36 chars). */
  clientOrderIdPrefix: string;
  now?: () => number;
  /** Run `f` after `ms` (real timers by default; a model in virtual time passes its own). */
  schedule?: (ms: number, f: () => void) => Cancel;
  /** Pause after an order that traded; doubles from `noFillMs` to `maxBackoffMs` after one that did not. */
  afterFillMs?: number;
  noFillMs?: number;
  maxBackoffMs?: number;
  /** An accepted order with no final report this long after its answer is looked up. */
  settleAfterMs?: number;
  /** Between lookups of an order not yet settled, doubling up to 8× (the first of them). */
  lookupRetryMs?: number;
  /** Lookups (each with the order list once the lookup cannot say) before the order is given up. */
  maxSettleRounds?: number;
}

export interface SymbolState {
  readonly symbol: string;
  readonly mode: MarginMode;
  order: HeldOrder | undefined;
  busy: boolean;
  timer: Cancel | undefined;
  backoffMs: number;
  halted: boolean;
  /** Local ms since which the position is not flat (time to flat). */
  openSince: number | undefined;
  lastNote: string | undefined;
}
