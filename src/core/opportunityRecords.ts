/**
 * The opportunity ledger's journal records (docs/report.md): what the daemon saw of each liquidation
 * and what its policy decided, beside the claim records. Written off the claim path in batches
 * (daemon/records/opportunityLedger.ts), and small: one `seen` per liquidation, one `skip` per change of
 * skip reason, one `gone` when it leaves the open list. A journal without them replays as before.
 */
import { z } from "zod";

const finite = z.number().finite();
const id = z.number().int().nonnegative();

/** The first push of a liquidation: when, and the liquidator fee at stake per symbol at that push's marks. */
export const seenSchema = z.object({
  t: z.literal("seen"),
  id,
  at: finite,
  /** The venue's timestamp of the liquidation. */
  venueTs: finite.optional(),
  /** Expected liquidator fee (quote) per symbol: |position_qty| × mark × liquidator_fee. */
  fees: z.record(z.string(), finite),
  /** |position_qty| per symbol (the report values a claimed part's rest per unit; absent in older journals). */
  qty: z.record(z.string(), finite).optional(),
  /** `insurance_fund`: a row of the fund (docs/protocol.md §10, its fee at the fund's discount); absent: a liquidation. */
  supply: z.enum(["liquidation", "insurance_fund"]).optional(),
});
/**
 * The policy skipped the id for a new reason (`claims_skipped_total{reason}`); with `cut`, it claimed
 * part of it and `reason` is what cut the rest (a cap, or a symbol left out: ClaimDecision.cut).
 */
export const skipSchema = z.object({ t: z.literal("skip"), id, at: finite, reason: z.string(), cut: z.boolean().optional() });
/** The id left the open list; `wanted`: our claim was queued for it then (not yet sent). */
export const goneSchema = z.object({ t: z.literal("gone"), id, at: finite, wanted: z.boolean() });

export type SeenRecord = z.infer<typeof seenSchema>;
export type SkipRecord = z.infer<typeof skipSchema>;
export type GoneRecord = z.infer<typeof goneSchema>;
export type OpportunityRecord = SeenRecord | SkipRecord | GoneRecord;

/** Their `journal_events.kind` in PostgreSQL (migration 7). */
const OPPORTUNITY_KINDS: readonly OpportunityRecord["t"][] = ["seen", "skip", "gone"];

/**
 * Every record kind `liquidator report` reads, from the file journal or `journal_events`: the
 * ledger's own and the claim records. A section of the report fed by other records (markouts per
 * symbol) adds their kind here.
 */
export const REPORT_KINDS: readonly string[] = [...OPPORTUNITY_KINDS, "intent", "outcome", "markout"];
