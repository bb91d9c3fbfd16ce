/**
 * What the symbol table says of the insurance fund (docs/protocol.md §10): each `GET /v1/public/info`
 * row's `claim_insurance_fund_discount`, the fee rate of a claim on the fund's positions (0.0075
 * where a liquidation pays 0.015). Read here, at the edge, so that no other module reads the field.
 */
import { numberFrom } from "./wireNumbers.js";

/** The discount of every info row that carries a usable one (a fraction in (0, 1)); others are left out. */
export function fundDiscountsFromInfo(rows: readonly unknown[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const row of rows) {
    if (typeof row !== "object" || row === null) continue;
    const r = row as Record<string, unknown>;
    const discount = numberFrom(r.claim_insurance_fund_discount);
    if (typeof r.symbol === "string" && discount !== undefined && discount > 0 && discount < 1) out.set(r.symbol, discount);
  }
  return out;
}
