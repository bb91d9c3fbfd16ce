/**
 * What becomes of a venue list's unreadable rows (venue/tolerantRows.ts): each is counted
 * (`rest_rows_skipped_total{endpoint}`), and each new shape of one is logged once, with the first
 * problem found and no values (a row may be large or hostile). The set of shapes logged is bounded.
 */
import type { Counter } from "prom-client";
import type { SkippedRow } from "../venue/tolerantRows.js";

/** Distinct (endpoint, shape) pairs logged before new ones are only counted. */
const MAX_SHAPES = 64;

export function skippedRowsReporter(
  counter: Pick<Counter<"endpoint">, "inc">,
  logger: { warn(obj: object, msg: string): void },
): (endpoint: string, rows: readonly SkippedRow[]) => void {
  const logged = new Set<string>();
  return (endpoint, rows) => {
    counter.inc({ endpoint }, rows.length);
    for (const row of rows) {
      const key = `${endpoint} ${row.shape}`;
      if (logged.has(key) || logged.size >= MAX_SHAPES) continue;
      logged.add(key);
      logger.warn(
        { endpoint, shape: row.shape, problem: row.problem, index: row.index },
        "venue list row unreadable; left out, the rest used",
      );
    }
  };
}
