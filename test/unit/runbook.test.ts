/** docs/runbook.md: every alert links to its own section, every section belongs to an alert, and says what it means, what to check and what to do. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadAlertRules, REPO_ROOT } from "../support/dashboardNames.js";

const runbook = readFileSync(join(REPO_ROOT, "docs", "runbook.md"), "utf8");
/** GitHub's anchor for a heading: lower case, spaces to dashes, most punctuation dropped. */
const anchor = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, "")
    .replace(/ /g, "-");
const sections = new Map(
  runbook
    .split(/^## /m)
    .slice(1)
    .map((s) => [s.slice(0, s.indexOf("\n")).trim(), s] as const),
);

describe("runbook", () => {
  const rules = loadAlertRules();

  it("every alert's runbook_url points at its own section", () => {
    expect(rules.length).toBeGreaterThanOrEqual(16);
    for (const r of rules) {
      const name = r.alert ?? "";
      expect(r.annotations?.runbook_url, name).toBe(`docs/runbook.md#${anchor(name)}`);
      expect(sections.has(name), `section for ${name}`).toBe(true);
    }
  });

  it("every section is an alert's, with what it means, what to check and what to do", () => {
    const names = new Set(rules.map((r) => r.alert));
    for (const [heading, body] of sections) {
      expect(names.has(heading), `section ${heading} has no alert`).toBe(true);
      for (const part of ["**Means.**", "**Check.**", "**Do.**"]) expect(body, `${heading} ${part}`).toContain(part);
    }
  });
});
