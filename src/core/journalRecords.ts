/**
 * The records of the state journal, whichever store holds them (the JSONL file, or PostgreSQL's
 * journal_events): claim intents and outcomes, unwind order intents, outcomes and fills, and the
 * record naming the venue and account. An intent is written before its request leaves; replay
 * rebuilds from them which ids were claimed, which orders are unsettled, and the P&L.
 * Longer than most files: every record's schema in one place, because the file journal, PostgreSQL,
 * the fold and the lab must read one format, and a record split from its siblings drifts.
 */
import { z } from "zod";

/**
 * The journal format this build writes and the newest it reads. 1: one claims.jsonl, no `version`.
 * 2: a venue header with `version`, a compacted snapshot and dated history segments (journalFiles.ts).
 * 3: the trading core's records (`ours`, outcome `given_up`, `attempt`) and its snapshot
 * (core/coreFold.ts); format 2 journals and snapshots are read and continued.
 */
export const JOURNAL_VERSION = 3;

import { goneSchema, seenSchema, skipSchema } from "./opportunityRecords.js";

const finite = z.number().finite();

const intentSchema = z.object({
  t: z.literal("intent"),
  id: z.number().int().nonnegative(),
  at: finite,
  ratio: finite,
  /** The request's `symbols` as sent (a per-symbol claim). */
  symbols: z.array(z.object({ symbol: z.string(), ratio_qty_request: finite })).optional(),
  limitPrice: z.record(z.string(), finite),
  expectedFee: finite,
  perSymbolQty: z.record(z.string(), finite),
  dryRun: z.boolean().optional(),
  /** The claim's attempt on this id (1 for the first; a re-claim the venue's record allowed counts on). */
  attempt: z.number().int().positive().optional(),
  /**
   * The liquidation's open positions when the claim was decided: after a restart, an intent with no
   * outcome is settled by the open list against them (unchanged 30 s later = never applied).
   */
  open: z.array(z.object({ symbol: z.string(), positionQty: finite, liquidatorFee: finite })).optional(),
  /**
   * Per claimed symbol, the operator's own position when the claim was sent (what the account held
   * beyond what was ours, measured while nothing of ours moved on it): a claim given up unsettled is
   * inferred from what grew past it, never from the operator's position.
   */
  notOurs: z.record(z.string(), finite).optional(),
  /**
   * Where the claimed row came from (core/fundSupply.ts): `insurance_fund` for the fund's rows
   * (docs/protocol.md §10), claimed under the same id space; absent (every older journal): a liquidation.
   */
  supply: z.enum(["liquidation", "insurance_fund"]).optional(),
});
const fillSchema = z.object({ symbol: z.string(), qty: finite, price: finite, fee: finite });
/**
 * A claim's `outcome.result`. accepted: the venue assigned us positions. rejected: the venue refused
 * (code says why). unknown: the request may have reached the venue but no answer came; never resent
 * blindly. dry_run: decided but deliberately not sent. confirmed / not_accepted: a later resolution of
 * an unknown outcome (private push, the venue's record of our claims, or the open list). given_up: an
 * unknown the venue's record could not settle within its bound; `fills` then holds what the
 * positions showed of it (possibly nothing), and the id is never claimed again.
 * `claims_result_total{result}` counts in other words: core/claimFailure.ts maps them.
 */
export const CLAIM_OUTCOME_RESULTS = ["accepted", "rejected", "unknown", "dry_run", "confirmed", "not_accepted", "given_up"] as const;
export type ClaimOutcomeResult = (typeof CLAIM_OUTCOME_RESULTS)[number];
const outcomeSchema = z.object({
  t: z.literal("outcome"),
  id: z.number().int().nonnegative(),
  at: finite,
  result: z.enum(CLAIM_OUTCOME_RESULTS),
  code: z.number().int().optional(),
  fills: z.array(fillSchema).optional(),
  /** Venue time the claim was applied (the answer's or the assignment push's `timestamp`). */
  venueTs: finite.optional(),
  /** The intent's attempt this outcome answers (PostgreSQL moves the id's state only if it is still that attempt). */
  attempt: z.number().int().positive().optional(),
  /** A refusal whose re-decisions are spent (the failure table's budget): the id is not claimed again, a restart included. */
  final: z.boolean().optional(),
});
/** Written by journals of an earlier version; read so that they replay, never written now. */
const positionsSchema = z.object({
  t: z.literal("positions"),
  at: finite,
  venueTs: finite,
  held: z.record(z.string(), finite),
});
/**
 * The venue and account a journal belongs to: its first record. Ids are only unique per venue and
 * account, so a journal replayed against another pair would block claims it never made.
 */
const venueSchema = z.object({
  t: z.literal("venue"),
  at: finite,
  baseUrl: z.string(),
  accountId: z.string(),
  /** Journal format of the writer (absent: 1). A reader refuses a version newer than its own. */
  version: z.number().int().positive().optional(),
  /**
   * A record that only makes a build of format 1 refuse the file (its venue differs, so it exits 78
   * naming it) instead of replaying a tail without the compacted ids; later builds skip it.
   */
  guard: z.boolean().optional(),
});
/** An unwind order, written before it is sent; `clientOrderId` is deterministic per journal and slice. */
const orderIntentSchema = z.object({
  t: z.literal("order_intent"),
  clientOrderId: z.string(),
  at: finite,
  symbol: z.string(),
  side: z.enum(["BUY", "SELL"]),
  orderType: z.enum(["IOC", "LIMIT", "FOK", "MARKET", "POST_ONLY"]),
  price: finite,
  quantity: finite,
  reduceOnly: z.boolean(),
  /** The position the order trades (absent in older journals: CROSS). */
  marginMode: z.enum(["CROSS", "ISOLATED"]).optional(),
  /** The mark the order was priced on (slippage is measured against it). */
  mark: finite.optional(),
  /** Order number within this journal (the next order's number is the largest + 1). */
  seq: z.number().int().nonnegative().optional(),
  liquidationId: z.number().int().optional(),
  dryRun: z.boolean().optional(),
});
/**
 * accepted: the venue took the order (fills follow). filled / cancelled: the order is over (an IOC's
 * unfilled rest is cancelled; `filledQty` says how much traded). rejected: refused (code says why).
 * unknown: may have reached the venue, no answer; looked up by client order id, never resent
 * blindly. not_accepted: an unknown one found not to exist. dry_run: decided, deliberately not sent.
 */
const orderOutcomeSchema = z.object({
  t: z.literal("order_outcome"),
  clientOrderId: z.string(),
  at: finite,
  result: z.enum(["accepted", "filled", "cancelled", "rejected", "unknown", "not_accepted", "dry_run"]),
  orderId: z.number().int().optional(),
  code: z.number().int().optional(),
  /** Cumulative executed base quantity, signed like the order's side (+ buy, − sell). */
  filledQty: finite.optional(),
  avgPrice: finite.optional(),
  fee: finite.optional(),
  venueTs: finite.optional(),
});
/** One trade of an unwind order: what P&L is computed from. */
const orderFillSchema = z.object({
  t: z.literal("order_fill"),
  clientOrderId: z.string(),
  symbol: z.string(),
  /** Signed base quantity (+ buy, − sell). */
  qty: finite,
  price: finite,
  fee: finite,
  /** The venue's trade id; empty when the fill was read off the order's totals (no trade ids). */
  tradeId: z.string(),
  at: finite,
  venueTs: finite.optional(),
});

/**
 * Which margin mode a claim's quantity of one symbol landed in (the claim's answer does not say; the
 * venue's next report of the symbol does). What the unwinder may close in `unwind.scope: claimed`.
 */
const claimModeSchema = z.object({
  t: z.literal("claim_mode"),
  id: z.number().int().nonnegative(),
  symbol: z.string(),
  marginMode: z.enum(["CROSS", "ISOLATED"]),
  at: finite,
});
/**
 * The claimed quantity of one position (symbol and margin mode) is settled as of these cumulative
 * totals: the position went flat or past zero, so what was claimed and unwound before is done.
 * What remains to unwind is what was claimed and unwound since (`claimed` + `unwound` − these).
 */
const claimedBaseSchema = z.object({
  t: z.literal("claimed_base"),
  symbol: z.string(),
  marginMode: z.enum(["CROSS", "ISOLATED"]),
  /** Cumulative signed quantity claims assigned to the position. */
  claimed: finite,
  /** Cumulative signed quantity the position's unwind orders traded. */
  unwound: finite,
  at: finite,
});

/**
 * What is ours of one position (core/holdings.ts) set outright: the venue reported less of it than
 * ours while nothing of ours was moving (closed by hand or by another process). `was` is what the
 * record replaces; `price` is the mark the closed part is realized at in the P&L (0: there was no
 * mark; realized at the lots' own prices, no P&L).
 */
const oursSchema = z.object({
  t: z.literal("ours"),
  symbol: z.string(),
  marginMode: z.enum(["CROSS", "ISOLATED"]),
  qty: finite,
  was: finite,
  price: finite,
  reason: z.enum(["closed_elsewhere"]),
  at: finite,
});

/**
 * Where the mark went after a claim assigned a symbol (engine/markouts.ts): one record per claim,
 * symbol and horizon, written when the horizon was sampled, or found missing. Positive `bps` =
 * against us. `liquidator pnl --by claim` and `liquidator report` read these.
 */
const markoutSchema = z.object({
  t: z.literal("markout"),
  /** The claim (liquidation id). */
  id: z.number().int().nonnegative(),
  symbol: z.string(),
  horizon: z.enum(["1s", "5s", "30s", "60s", "300s"]),
  /** When the horizon was sampled (or found missing), daemon clock. */
  at: finite,
  /** When the claim's assignment was applied (daemon clock): the horizon counts from it. */
  assignedAt: finite,
  /** Signed base quantity assigned (+ long). */
  qty: finite,
  /** Transfer price. */
  price: finite,
  /** The latest mark at the horizon and when it was received; absent when missing. */
  mark: finite.optional(),
  markAt: finite.optional(),
  /** bps of the transfer price, positive = against us; absent when missing. */
  bps: finite.optional(),
  /** Why there is no sample: `stale` (no fresh mark then), `down` (nobody sampling then: not running, or not leading). */
  missing: z.enum(["stale", "down"]).optional(),
});

/**
 * The protections' state (engine/protections.ts), written whenever it changes (and as the peak
 * rises): the last one is where a restart or a new leader carries on. `trip` names what tripped.
 */
const protectionSchema = z.object({
  t: z.literal("protection"),
  at: finite,
  state: z.enum(["active", "reducing", "halted"]),
  halted: z.boolean(),
  reducing: z.boolean(),
  day: z.string(),
  dayBaseline: finite,
  peak: finite.nullable(),
  streaks: z.record(z.string(), z.number().int().nonnegative()),
  cooldowns: z.record(z.string(), finite),
  trip: z.enum(["daily_loss", "drawdown", "loss_streak"]).optional(),
  symbol: z.string().optional(),
  /** A re-arm (SIGHUP) wrote it. */
  rearmed: z.boolean().optional(),
});

export const recordSchema = z.discriminatedUnion("t", [
  intentSchema,
  outcomeSchema,
  positionsSchema,
  venueSchema,
  orderIntentSchema,
  orderOutcomeSchema,
  orderFillSchema,
  claimModeSchema,
  claimedBaseSchema,
  oursSchema,
  seenSchema,
  skipSchema,
  goneSchema,
  markoutSchema,
  protectionSchema,
]);

export type IntentRecord = z.infer<typeof intentSchema>;
export type OutcomeRecord = z.infer<typeof outcomeSchema>;
export type PositionsRecord = z.infer<typeof positionsSchema>;
export type VenueRecord = z.infer<typeof venueSchema>;
export type OrderIntentRecord = z.infer<typeof orderIntentSchema>;
export type OrderOutcomeRecord = z.infer<typeof orderOutcomeSchema>;
export type OrderFillRecord = z.infer<typeof orderFillSchema>;
export type ClaimModeRecord = z.infer<typeof claimModeSchema>;
export type ClaimedBaseRecord = z.infer<typeof claimedBaseSchema>;
export type OursRecord = z.infer<typeof oursSchema>;
export type MarkoutRecord = z.infer<typeof markoutSchema>;
export type ProtectionRecord = z.infer<typeof protectionSchema>;
export type OrderResult = OrderOutcomeRecord["result"];
export type JournalRecord = z.infer<typeof recordSchema>;

/** One line of a journal as a record, or undefined when it is not a valid one. */
export function parseRecord(line: string): JournalRecord | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  const result = recordSchema.safeParse(parsed);
  return result.success ? result.data : undefined;
}

/** An unwind order's intent: IOC and reduce-only, as the unwinder sends it and the lab models it. */
export function unwindIntent(o: {
  clientOrderId: string;
  at: number;
  symbol: string;
  order: { side: "BUY" | "SELL"; qty: number; price: number };
  marginMode: OrderIntentRecord["marginMode"];
  mark: number;
  seq: number;
}): OrderIntentRecord {
  return {
    t: "order_intent",
    clientOrderId: o.clientOrderId,
    at: o.at,
    symbol: o.symbol,
    side: o.order.side,
    orderType: "IOC",
    price: o.order.price,
    quantity: o.order.qty,
    reduceOnly: true,
    marginMode: o.marginMode,
    mark: o.mark,
    seq: o.seq,
  };
}
