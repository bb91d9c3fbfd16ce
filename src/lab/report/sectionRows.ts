/**
 * The per-symbol and per-day sections of a backtest report, shared by the text and the HTML page:
 * each distinct variant's rows with their amounts as cents that add up to the variant's totals (the
 * ledger's components; the days' net to the net), so no section disagrees with the table by a cent.
 */
import type { VariantReport } from "../replay/backtest.js";
import { centsAddingUp } from "./reportText.js";

/**
 * A variant's rows with the named amounts as cents that add up to its totals (`total` per key), the
 * text each column prints.
 */
function centsRows<T extends Record<K, number>, K extends string>(
  rows: readonly T[],
  keys: readonly K[],
  total: (key: K) => number,
): (T & { cents: Record<K, string> })[] {
  const cents = Object.fromEntries(
    keys.map((k) => [
      k,
      centsAddingUp(
        rows.map((r) => r[k]),
        total(k),
      ),
    ]),
  ) as Record<K, string[]>;
  return rows.map((r, i) => ({ ...r, cents: Object.fromEntries(keys.map((k) => [k, cents[k][i] as string])) as Record<K, string> }));
}

export const SYMBOL_KEYS = ["liquidator_fee", "trading", "fees", "open", "net"] as const;
export const DAY_KEYS = ["liquidator_fee", "net"] as const;

/** Per symbol of each distinct variant, in cents adding up to its components. */
export function symbolRows(variants: readonly VariantReport[]) {
  return variants
    .filter((v) => v.same_as === null)
    .flatMap((v) =>
      centsRows(v.by_symbol, SYMBOL_KEYS, (k) => (k === "net" ? v.estimated_net : v.components[k])).map((r) => ({ ...r, variant: v.name })),
    );
}

/** Per day of each distinct variant, in cents adding up to its liquidator fee and net. */
export function dayRows(variants: readonly VariantReport[]) {
  return variants
    .filter((v) => v.same_as === null)
    .flatMap((v) =>
      centsRows(v.by_day, DAY_KEYS, (k) => (k === "net" ? v.estimated_net : v.components.liquidator_fee)).map((r) => ({
        ...r,
        variant: v.name,
      })),
    );
}
