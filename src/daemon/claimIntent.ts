/**
 * The journal intent of a claim (docs/architecture.md "The journal and the hot path"): what is about
 * to be sent, written before it leaves so a claim is never sent twice. Copies, not references: the
 * PostgreSQL store writes the record after the send call has returned.
 */
import type { ClaimDecision } from "../engine/policy.js";
import type { LiquidationPosition } from "../engine/types.js";
import type { IntentRecord } from "../store/journalRecords.js";
import type { ClaimRequest } from "../venue/restSchemas.js";

export function intentRecord(
  d: ClaimDecision,
  body: ClaimRequest,
  at: number,
  dryRun: boolean,
  open: readonly LiquidationPosition[] | undefined,
): IntentRecord {
  return {
    t: "intent",
    id: d.liquidationId,
    at,
    ratio: d.ratio,
    ...(body.symbols ? { symbols: body.symbols } : {}),
    limitPrice: { ...d.limitPrice },
    expectedFee: d.expectedFee,
    perSymbolQty: { ...d.perSymbolQty },
    ...(dryRun ? { dryRun } : {}),
    ...(open !== undefined ? { open: open.map((p) => ({ ...p })) } : {}),
  };
}
