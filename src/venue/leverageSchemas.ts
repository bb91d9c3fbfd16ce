/**
 * The account's margin settings on the wire (docs/protocol.md §10): `GET /v1/client/leverages` rows (read row
 * by row: a row left out leaves that symbol at the account-wide leverage, never at a guess above it),
 * `GET /v1/public/leverage` (the venue's maximum, a string in the OpenAPI), and the per-symbol maps of
 * `GET /v1/client/info` (`imr_factor`, `max_notional`), whose entries are read one by one too.
 */
import { z } from "zod";
import { tolerantRows } from "./tolerantRows.js";
import { MAX_LEVERAGE, numberFrom, wireNumber } from "./wireNumbers.js";

const leverage = wireNumber(z.number().positive().max(MAX_LEVERAGE));

/** One row of `GET /v1/client/leverages`. `max_leverage` is read where a venue adds it (not in the OpenAPI). */
const leverageRowSchema = z.object({
  symbol: z.string(),
  margin_mode: z.enum(["CROSS", "ISOLATED"]).nullish(),
  leverage,
  max_leverage: leverage.optional().catch(undefined),
});
export type LeverageRow = z.infer<typeof leverageRowSchema>;

export const leveragesSchema = z.object({ rows: tolerantRows(leverageRowSchema) });
export type Leverages = z.infer<typeof leveragesSchema>;

/** `GET /v1/public/leverage`: `{max_futures_leverage: "100"}`; an unreadable value reads as absent. */
export const publicLeverageSchema = z.object({ max_futures_leverage: leverage.optional().catch(undefined) });
export type PublicLeverage = z.infer<typeof publicLeverageSchema>;

/** `POST /v1/client/leverages` body: without `symbol`, every symbol to min(leverage, its maximum). */
export interface SetLeverageRequest {
  symbol?: string;
  leverage: number;
  margin_mode?: "CROSS" | "ISOLATED";
}

/** The answer is not relied on (the settings are read again after a change). */
export const setLeverageAnswerSchema = z.unknown();

/**
 * `{SYMBOL: number}` of client info: the entries that spell a finite number ≥ 0 (a number or a
 * decimal string), the others left out; anything that is not an object reads as absent.
 */
export const symbolNumbers = z
  .unknown()
  .transform((v): Record<string, number> | undefined => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
    const out: Record<string, number> = {};
    for (const [k, raw] of Object.entries(v as Record<string, unknown>)) {
      const n = numberFrom(raw);
      if (n !== undefined && n >= 0) out[k] = n;
    }
    return out;
  })
  .optional();
