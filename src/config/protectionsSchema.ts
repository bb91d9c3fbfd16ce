/**
 * The `protections` section (engine/protections.ts): limits that stop new claims when claims lose
 * money. Each limit is off unless set; `off` (or null) spells it out. SIGHUP applies new limits and
 * re-arms only when this section changed; `liquidator rearm` re-arms otherwise (app/policyReloader.ts).
 */
import { z } from "zod";
import { doc, section } from "./schemaParts.js";

/** A positive number, or `off` / null (the default). */
function offOr<T extends z.ZodType<number>>(value: T) {
  return z.preprocess((v) => (v === "off" ? null : v), value.nullable()).default(null);
}

export const protectionsSchema = section({
  daily_loss_limit: doc(
    offOr(z.number().positive().finite()),
    "quote; the UTC day's net P&L (realized + unrealized) at or below minus this → state `halted` (no new claims; unwinding goes on) until the next UTC day or `liquidator rearm`; `off` (default)",
  ),
  drawdown_limit: doc(
    offOr(z.number().positive().finite()),
    "quote; net P&L (realized + unrealized, since the journal began) this far below its running peak → state `reducing` until it is back within half of it, or `liquidator rearm`; `off` (default)",
  ),
  loss_streak: doc(
    offOr(z.number().int().min(1)),
    "N claims in a row on one symbol that each lost money (net of fees, once flat) → that symbol is not claimed for `cooldown_s`; `off` (default)",
  ),
  cooldown_s: doc(z.number().int().min(1).max(86_400).default(600), "seconds a symbol is not claimed after a loss streak"),
});
