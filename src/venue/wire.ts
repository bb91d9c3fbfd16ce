/**
 * Types and runtime validation of every inbound stream payload (docs/protocol.md §5). Hand-written on
 * purpose: this runs for every frame on the hot path, after the one JSON.parse, so no schema library
 * and no intermediate objects; each validator builds a fresh typed object holding only known fields
 * (nothing from the wire is passed through by reference).
 *
 * Bounds (anything outside is treated as corrupt, never clamped):
 * - arrays in a push (liquidations, mark prices, positions): at most MAX_ITEMS entries;
 *   positionsByPerp of one liquidation: at most MAX_PERPS entries, no duplicate symbol;
 * - |quantity| <= MAX_ABS_QTY; prices in (0, MAX_PRICE]; |notional| <= MAX_ABS_NOTIONAL;
 * - ids: safe integers >= 0 (integers beyond 2^53 cannot be trusted, docs/protocol.md §5);
 * - timestamps: finite ms in [0, MAX_TIMESTAMP_MS]; fees: fractions in [0, 1);
 * - symbols: `PERP_<BASE>_<QUOTE>` (upper-case letters and digits); `type`: 1..64 chars.
 * The bounds are far above anything a real venue sends, so they only catch corruption, and with the
 * frame size cap (stream.ts) they bound the work one frame can cause.
 *
 * Bad entries: in `liquidation` and `markprices` arrays, a bad entry is dropped and the good ones
 * are kept: one corrupt row must not hide the others (a missed liquidation is reconciled from REST
 * anyway). The frame then counts ONCE as `bad_entry` (the metric counts messages, not rows); the
 * number of dropped rows is kept apart (StreamClient.status().droppedEntries). `position` and `liquidatorliquidations` are rejected
 * whole: a partially trusted position snapshot or assignment would mis-state exposure.
 *
 * Longer than most files: one hand-written validator per stream payload, side by side so that each follows the same rules.
 */
import { type MarginMode, SYMBOL_PATTERN } from "../engine/types.js";
import { MAX_ABS_NOTIONAL, MAX_ABS_QTY, MAX_LEVERAGE, MAX_PRICE, MAX_TIMESTAMP_MS } from "./wireNumbers.js";
import type { BalancePush, ExecutionReport } from "./wireOrders.js";

const MAX_ITEMS = 10_000;
const MAX_PERPS = 1_000;
const MAX_TYPE_LENGTH = 64;

// The bounds of a wire number live in wireNumbers.ts (the schema files use them without importing
// this file, which imports theirs); named here too for the callers that read them with the frames.
export { MAX_ABS_NOTIONAL, MAX_ABS_QTY, MAX_LEVERAGE, MAX_PRICE, MAX_TIMESTAMP_MS } from "./wireNumbers.js";

/**
 * Why a frame (or one entry of it) was dropped. A small closed set: it may become a metric label.
 * - not_json: binary frame, or text that does not parse as JSON
 * - not_object: JSON that is not an object (array, string, null, ...)
 * - no_topic: an object with neither `topic` nor `event`
 * - unknown_topic: a data frame for a topic this connection did not subscribe to
 * - unknown_event: an `event` this client does not know
 * - unexpected_ack: an auth/subscribe/unsubscribe answer whose id this connection never sent
 * - bad_payload: a data frame whose `data` (or `ts`) fails validation (dropped whole)
 * - bad_entry: a liquidation / mark-price frame of which some entries were dropped (the good ones
 *   are delivered); counted once per frame
 * - oversized: a frame larger than the configured cap (the socket is closed)
 * - protocol_error: a WebSocket-level violation (bad UTF-8, bad opcode...; the socket is closed)
 */
export type BadMessageReason =
  | "not_json"
  | "not_object"
  | "no_topic"
  | "unknown_topic"
  | "unknown_event"
  | "unexpected_ack"
  | "bad_payload"
  | "bad_entry"
  | "oversized"
  | "protocol_error";

export const BAD_MESSAGE_REASONS: readonly BadMessageReason[] = [
  "not_json",
  "not_object",
  "no_topic",
  "unknown_topic",
  "unknown_event",
  "unexpected_ack",
  "bad_payload",
  "bad_entry",
  "oversized",
  "protocol_error",
];

/** One symbol of an open liquidation: the signed quantity a claimer takes over (docs/protocol.md §11). */
export interface OfferedPosition {
  symbol: string;
  positionQty: number;
  liquidatorFee: number;
}

/**
 * One entry of a `liquidation` push (a delta). Empty `positionsByPerp` = the liquidation was removed
 * (docs/protocol.md §11); for such removals a missing `timestamp` / `type` is tolerated (0 / "").
 */
export interface LiquidationEntry {
  liquidationId: number;
  timestamp: number;
  type: string;
  positionsByPerp: OfferedPosition[];
}

export interface MarkPrice {
  symbol: string;
  price: number;
}

/** One symbol of what this account was assigned by a claim. */
export interface AssignedPosition {
  symbol: string;
  positionQty: number;
  costPositionTransfer: number;
  transferPrice: number;
  liquidatorFee: number;
  absLiquidatorFee: number;
}

/** `liquidatorliquidations` push. `assigned`: the venue sends a number (booleans map to 1/0); undefined if absent. */
export interface LiquidatorLiquidation {
  liquidationId: number;
  timestamp: number;
  type: string;
  assigned: number | undefined;
  positionsByPerp: AssignedPosition[];
}

/** One held position; optional fields are undefined when absent or null on the wire. */
export interface Position {
  symbol: string;
  positionQty: number;
  /** >= 0: a flat position may report 0. */
  averageOpenPrice: number | undefined;
  markPrice: number | undefined;
  costPosition: number | undefined;
  /** `marginMode`; absent or null on the wire = CROSS (docs/protocol.md §9). */
  marginMode: MarginMode;
  /** The symbol's leverage setting (docs/protocol.md §10); undefined when absent or not a usable number (it is informational). */
  leverage?: number | undefined;
}

export interface PositionPush {
  positions: Position[];
}

/** Validated payload per topic kind. `markprice` is the `{symbol}@markprice` topic. */
export interface TopicPayloads {
  liquidation: LiquidationEntry[];
  markprices: MarkPrice[];
  markprice: MarkPrice;
  liquidatorliquidations: LiquidatorLiquidation;
  position: PositionPush;
  executionreport: ExecutionReport;
  balance: BalancePush;
}

export type TopicKind = keyof TopicPayloads;

/** Arguments of a stream data callback, discriminated by topic kind; `ts` is the frame's server ts when valid. */
export type StreamData = {
  [K in TopicKind]: [topic: K, data: TopicPayloads[K], ts: number | undefined];
}[TopicKind];

/** Where a subscribable topic lives and what it carries. */
export interface TopicRoute {
  kind: TopicKind;
  stream: "public" | "private";
  /** For `{symbol}@markprice`: the symbol the data must carry. */
  symbol: string | undefined;
}

/** The route of a topic string, or undefined for a topic a liquidator does not use (docs/protocol.md §5). */
export function routeTopic(topic: string): TopicRoute | undefined {
  switch (topic) {
    case "liquidation":
    case "markprices":
      return { kind: topic, stream: "public", symbol: undefined };
    case "liquidatorliquidations":
    case "position":
    case "executionreport":
    case "balance":
      return { kind: topic, stream: "private", symbol: undefined };
  }
  const at = topic.indexOf("@");
  if (at > 0 && topic.slice(at + 1) === "markprice") {
    const symbol = topic.slice(0, at);
    if (isSymbol(symbol)) return { kind: "markprice", stream: "public", symbol };
  }
  return undefined;
}

/**
 * The `ts` of a data frame: undefined when absent, the number when it is a sane ms timestamp, null
 * when present but invalid (the frame is then malformed).
 */
export function frameTimestamp(v: unknown): number | undefined | null {
  if (v === undefined) return undefined;
  return isTimestamp(v) ? v : null;
}

/** A result of an array push: the good entries and how many were dropped. */
export interface ArrayResult<T> {
  items: T[];
  dropped: number;
}

export function isSymbol(v: unknown): v is string {
  return typeof v === "string" && v.length <= 54 && SYMBOL_PATTERN.test(v);
}

// The numeric guards rely on comparisons being false for NaN, and on the bounds excluding ±Infinity
// (JSON.parse turns 1e999 into Infinity).
function isId(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}
function isTimestamp(v: unknown): v is number {
  return typeof v === "number" && v >= 0 && v <= MAX_TIMESTAMP_MS;
}
function isQty(v: unknown): v is number {
  return typeof v === "number" && v >= -MAX_ABS_QTY && v <= MAX_ABS_QTY;
}
function isPrice(v: unknown): v is number {
  return typeof v === "number" && v > 0 && v <= MAX_PRICE;
}
function isFee(v: unknown): v is number {
  return typeof v === "number" && v >= 0 && v < 1;
}
function isNotional(v: unknown): v is number {
  return typeof v === "number" && v >= -MAX_ABS_NOTIONAL && v <= MAX_ABS_NOTIONAL;
}
function isType(v: unknown): v is string {
  return typeof v === "string" && v.length > 0 && v.length <= MAX_TYPE_LENGTH;
}
function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** True when two entries of `list` share a symbol. Small lists (the usual case) avoid the Set. */
function hasDuplicateSymbol(list: readonly { symbol: string }[]): boolean {
  const n = list.length;
  if (n <= 8) {
    for (let i = 1; i < n; i++) {
      const s = list[i]!.symbol;
      for (let j = 0; j < i; j++) if (list[j]!.symbol === s) return true;
    }
    return false;
  }
  const seen = new Set<string>();
  for (const p of list) {
    if (seen.has(p.symbol)) return true;
    seen.add(p.symbol);
  }
  return false;
}

/** One `liquidation` entry, or undefined when any field is bad. */
function parseLiquidationEntry(v: unknown): LiquidationEntry | undefined {
  if (!isRecord(v)) return undefined;
  const id = v.liquidationId;
  const raw = v.positionsByPerp;
  if (!isId(id) || !Array.isArray(raw) || raw.length > MAX_PERPS) return undefined;
  let timestamp = v.timestamp;
  let type = v.type;
  if (raw.length === 0) {
    // A removal (docs/protocol.md §11): only the id matters; tolerate the rest being absent.
    if (timestamp === undefined) timestamp = 0;
    if (type === undefined) type = "";
    else if (!isType(type)) return undefined;
  } else if (!isType(type)) return undefined;
  if (!isTimestamp(timestamp)) return undefined;
  const positions: OfferedPosition[] = [];
  for (let i = 0; i < raw.length; i++) {
    const p: unknown = raw[i];
    if (!isRecord(p)) return undefined;
    const { symbol, positionQty, liquidatorFee } = p;
    if (!isSymbol(symbol) || !isQty(positionQty) || !isFee(liquidatorFee)) return undefined;
    positions.push({ symbol, positionQty, liquidatorFee });
  }
  if (hasDuplicateSymbol(positions)) return undefined;
  return { liquidationId: id, timestamp, type: type as string, positionsByPerp: positions };
}

/** A `liquidation` push: undefined when `data` is not an array within bounds; else good entries + dropped count. */
export function parseLiquidations(data: unknown): ArrayResult<LiquidationEntry> | undefined {
  if (!Array.isArray(data) || data.length > MAX_ITEMS) return undefined;
  const items: LiquidationEntry[] = [];
  let dropped = 0;
  for (let i = 0; i < data.length; i++) {
    const e = parseLiquidationEntry(data[i]);
    if (e === undefined) dropped++;
    else items.push(e);
  }
  return { items, dropped };
}

/** `{symbol, price}`; with `expectedSymbol` (the `{symbol}@markprice` topic) the symbol must match. */
export function parseMarkPrice(v: unknown, expectedSymbol?: string): MarkPrice | undefined {
  if (!isRecord(v)) return undefined;
  const { symbol, price } = v;
  if (!isSymbol(symbol) || !isPrice(price)) return undefined;
  if (expectedSymbol !== undefined && symbol !== expectedSymbol) return undefined;
  return { symbol, price };
}

/** A `markprices` push: undefined when `data` is not an array within bounds; else good entries + dropped count. */
export function parseMarkPrices(data: unknown): ArrayResult<MarkPrice> | undefined {
  if (!Array.isArray(data) || data.length > MAX_ITEMS) return undefined;
  const items: MarkPrice[] = [];
  let dropped = 0;
  for (let i = 0; i < data.length; i++) {
    const m = parseMarkPrice(data[i]);
    if (m === undefined) dropped++;
    else items.push(m);
  }
  return { items, dropped };
}

function parseAssigned(v: unknown): number | undefined | null {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number" && v >= -MAX_ABS_QTY && v <= MAX_ABS_QTY) return v;
  return null; // present but invalid
}

/** A `liquidatorliquidations` push (one object), or undefined when anything in it is bad. */
export function parseLiquidatorLiquidation(v: unknown): LiquidatorLiquidation | undefined {
  if (!isRecord(v)) return undefined;
  const { liquidationId, timestamp, type } = v;
  const raw = v.positionsByPerp;
  const assigned = parseAssigned(v.assigned);
  if (!isId(liquidationId) || !isTimestamp(timestamp) || !isType(type) || assigned === null) return undefined;
  if (!Array.isArray(raw) || raw.length > MAX_PERPS) return undefined;
  const positions: AssignedPosition[] = [];
  for (let i = 0; i < raw.length; i++) {
    const p: unknown = raw[i];
    if (!isRecord(p)) return undefined;
    const { symbol, positionQty, costPositionTransfer, transferPrice, liquidatorFee, absLiquidatorFee } = p;
    if (
      !isSymbol(symbol) ||
      !isQty(positionQty) ||
      !isNotional(costPositionTransfer) ||
      !isPrice(transferPrice) ||
      !isFee(liquidatorFee) ||
      !isNotional(absLiquidatorFee) ||
      absLiquidatorFee < 0
    ) {
      return undefined;
    }
    positions.push({ symbol, positionQty, costPositionTransfer, transferPrice, liquidatorFee, absLiquidatorFee });
  }
  if (hasDuplicateSymbol(positions)) return undefined;
  return { liquidationId, timestamp, type, assigned, positionsByPerp: positions };
}

/** An optional wire number: undefined/null → undefined (valid), otherwise it must pass `ok`, else null (invalid). */
function optional(v: unknown, ok: (x: unknown) => x is number): number | undefined | null {
  if (v === undefined || v === null) return undefined;
  return ok(v) ? v : null;
}
function isOpenPrice(v: unknown): v is number {
  return typeof v === "number" && v >= 0 && v <= MAX_PRICE;
}

/** A `position` push `{positions:[...]}`, or undefined when anything in it is bad (rejected whole). */
export function parsePositions(v: unknown): PositionPush | undefined {
  if (!isRecord(v)) return undefined;
  const raw = v.positions;
  if (!Array.isArray(raw) || raw.length > MAX_ITEMS) return undefined;
  const positions: Position[] = [];
  for (let i = 0; i < raw.length; i++) {
    const p: unknown = raw[i];
    if (!isRecord(p)) return undefined;
    const { symbol, positionQty } = p;
    if (!isSymbol(symbol) || !isQty(positionQty)) return undefined;
    const averageOpenPrice = optional(p.averageOpenPrice, isOpenPrice);
    // A flat position may carry no mark (0); it is only a fallback price for exposure, so 0 = absent.
    const markPrice = p.markPrice === 0 ? undefined : optional(p.markPrice, isPrice);
    const costPosition = optional(p.costPosition, isNotional);
    if (averageOpenPrice === null || markPrice === null || costPosition === null) return undefined;
    const marginMode = p.marginMode === undefined || p.marginMode === null ? "CROSS" : p.marginMode;
    if (marginMode !== "CROSS" && marginMode !== "ISOLATED") return undefined;
    const leverage = typeof p.leverage === "number" && p.leverage > 0 && p.leverage <= MAX_LEVERAGE ? p.leverage : undefined;
    positions.push({ symbol, positionQty, averageOpenPrice, markPrice, costPosition, marginMode, leverage });
  }
  // A symbol may appear once per margin mode: cross and isolated are two positions.
  if (hasDuplicatePosition(positions)) return undefined;
  return { positions };
}

function hasDuplicatePosition(list: readonly Position[]): boolean {
  const seen = new Set<string>();
  for (const p of list) {
    const k = `${p.symbol} ${p.marginMode}`;
    if (seen.has(k)) return true;
    seen.add(k);
  }
  return false;
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { MAX_ITEMS as MAX_ITEMS_FOR_TESTS, MAX_PERPS as MAX_PERPS_FOR_TESTS, parseLiquidationEntry as parseLiquidationEntryForTests };
