/**
 * A capture is untrusted input: before a replay hands an event to the daemon's code, its shape is
 * checked here (arrays where arrays are expected, ids and times as finite numbers, each element an
 * object with the fields the mapping reads). Values inside (a NaN price, a zero quantity) are left to
 * the daemon's own checks (mark book, symbol table, `decide`'s validation), as for live input.
 */
import type { CaptureEvent } from "../../daemon/records/captureTap.js";

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v);

function arrayOf(v: unknown, ok: (e: Obj) => boolean): boolean {
  if (!Array.isArray(v)) return false;
  for (const e of v) if (!isObj(e) || !ok(e)) return false;
  return true;
}

const mark = (e: Obj): boolean => typeof e.symbol === "string" && typeof e.price === "number";
const offered = (e: Obj): boolean =>
  typeof e.symbol === "string" && typeof e.positionQty === "number" && typeof e.liquidatorFee === "number";
const push = (e: Obj): boolean => num(e.liquidationId) && arrayOf(e.positionsByPerp, offered);
const openPos = (e: Obj): boolean =>
  typeof e.symbol === "string" && typeof e.position_qty === "number" && typeof e.liquidator_fee === "number";
const openRow = (e: Obj): boolean => num(e.liquidation_id) && arrayOf(e.positions_by_perp, openPos);
const futuresRow = (e: Obj): boolean => typeof e.symbol === "string" && typeof e.mark_price === "number";
const fill = (e: Obj): boolean => typeof e.symbol === "string" && num(e.qty) && num(e.price) && num(e.fee);
const infoRow = (e: Obj): boolean => typeof e.symbol === "string";
const numbers = (v: unknown): boolean => Array.isArray(v) && v.every(num);
const levels = (e: Obj): boolean =>
  typeof e.symbol === "string" &&
  (e.side === "long" || e.side === "short") &&
  numbers(e.prices) &&
  numbers(e.qty) &&
  (e.prices as unknown[]).length === (e.qty as unknown[]).length;

/** Whether `v` (already known to have a kind and a finite `at`) has the shape of its kind. */
export function hasEventShape(v: Obj): v is CaptureEvent & Obj {
  switch (v.k) {
    case "liquidation":
      return arrayOf(v.data, push);
    case "markprices":
      return arrayOf(v.data, mark);
    case "open":
      return num(v.requestedAt) && arrayOf(v.rows, openRow);
    case "futures":
      return num(v.markAt) && arrayOf(v.rows, futuresRow);
    case "info":
      return (
        num(v.requestedAt) && isObj(v.info) && arrayOf(v.info.rows, infoRow) && isObj(v.futures) && arrayOf(v.futures.rows, futuresRow)
      );
    case "claim":
      return num(v.id) && num(v.code) && num(v.sentAt);
    case "assigned":
      return num(v.id) && arrayOf(v.fills, fill);
    case "fill":
      return fill(v) && num(v.mark);
    case "forecast":
      return num(v.requestedAt) && arrayOf(v.marks, mark) && arrayOf(v.levels, levels);
    default:
      return false;
  }
}
