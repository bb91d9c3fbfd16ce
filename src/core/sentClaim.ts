/**
 * A claim as it leaves: what its answer is matched against (`SentClaim`, claimLife.ts keeps them) and
 * the journal intent written before it is sent (`intentRecord`, also built by the rehearsal,
 * claimPipeline.ts).
 */
import type { ClaimDecision } from "../engine/policy.js";
import type { LiquidationPosition } from "../engine/types.js";
import type { LiquidatorLiquidation } from "../venue/wire.js";
import { isFundBody, type SendBody } from "./fundSupply.js";
import type { IntentRecord } from "./journalRecords.js";

/** A claim that left (or is about to): what its answer is matched against. */
export interface SentClaim {
  readonly id: number;
  attempt: number;
  readonly decision: ClaimDecision;
  /** Monotonic ms at which the frame that made us want it arrived. */
  readonly receivedAt: number;
  /** Wall ms the intent was written. */
  sentAt: number;
  readonly sentPositions: readonly LiquidationPosition[];
  /** A `liquidatorliquidations` push that beat the answer (the venue pushes as it applies). */
  assignment: LiquidatorLiquidation | undefined;
}

/** The journal intent: what is about to be sent. Copies, not references: the database writes it after the send call returned. */
export function intentRecord(
  d: ClaimDecision,
  body: SendBody,
  at: number,
  dryRun: boolean,
  open: readonly LiquidationPosition[] | undefined,
  attempt: number,
): IntentRecord {
  return {
    t: "intent",
    id: d.liquidationId,
    at,
    ratio: d.ratio,
    ...(!isFundBody(body) && body.symbols ? { symbols: body.symbols } : {}),
    limitPrice: { ...d.limitPrice },
    expectedFee: d.expectedFee,
    perSymbolQty: { ...d.perSymbolQty },
    ...(dryRun ? { dryRun } : {}),
    attempt,
    ...(open !== undefined ? { open: open.map((p) => ({ ...p })) } : {}),
  };
}
