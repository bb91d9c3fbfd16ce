/**
 * Every journal record kind is classified for compaction (journalFolder.ts RECORD_CLASSES): state
 * (folded into the snapshot by a named function) or history (kept in the dated segments only). A
 * kind added to the schema without a class fails here, rather than being dropped by a compaction.
 */
import { describe, expect, test } from "vitest";
import { RECORD_CLASSES } from "../../src/store/journalFolder.js";
import { recordSchema } from "../../src/core/journalRecords.js";

describe("journal record classes", () => {
  const kinds = recordSchema.options.map((o) => o.shape.t.value);

  test("every record kind of the schema is classified, and only those", () => {
    for (const kind of kinds) expect(RECORD_CLASSES, `record kind "${kind}" has no class`).toHaveProperty(kind);
    expect(Object.keys(RECORD_CLASSES).sort()).toEqual([...kinds].sort());
  });

  test("a state kind names its fold; a history kind has none", () => {
    for (const [kind, c] of Object.entries(RECORD_CLASSES)) {
      expect(["state", "history"], kind).toContain(c.class);
      if (c.class === "state") expect(typeof c.fold, kind).toBe("function");
    }
  });
});
