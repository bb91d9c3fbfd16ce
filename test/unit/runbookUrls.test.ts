/**
 * Absolute runbook links (src/ops/runbookUrls.ts): the base setting, and the two places rules are
 * rendered for a Prometheus. The docker-compose Prometheus's start script (docker-compose.yml) is
 * run here with its paths moved to a temp folder and promtool in place of Prometheus: it must
 * produce the same links as the TypeScript renderer and a config promtool accepts.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ruleGroupsForTests } from "../../src/ops/prometheusRule.js";
import { DEFAULT_RUNBOOK_BASE_URL, runbookBaseUrl, withAbsoluteRunbookUrls } from "../../src/ops/runbookUrls.js";
import { ALERTS_PATH, loadAlertRules, REPO_ROOT } from "../support/dashboardNames.js";

const alertsText = readFileSync(ALERTS_PATH, "utf8");
const urlsOf = (rules: { annotations?: Record<string, string> }[]) => rules.map((r) => r.annotations?.runbook_url);

describe("runbook base URL", () => {
  it("defaults to a base that resolves nowhere, trims a trailing slash, refuses what is not an absolute http(s) URL", () => {
    expect(runbookBaseUrl(undefined)).toBe(DEFAULT_RUNBOOK_BASE_URL);
    expect(runbookBaseUrl("  ")).toBe(DEFAULT_RUNBOOK_BASE_URL);
    expect(new URL(DEFAULT_RUNBOOK_BASE_URL).hostname.endsWith(".invalid")).toBe(true);
    expect(runbookBaseUrl("https://git.example.org/ops/liquidator/blob/v1/")).toBe("https://git.example.org/ops/liquidator/blob/v1");
    expect(() => runbookBaseUrl("docs")).toThrow(/RUNBOOK_BASE_URL=docs is not an absolute URL/);
    expect(() => runbookBaseUrl("ftp://x.example/")).toThrow(/http\(s\)/);
    expect(() => runbookBaseUrl("https://x.example/?a=1")).toThrow(/no query/);
  });

  it("every rule's link becomes absolute under the base, pointing at its own section", () => {
    const base = "https://git.example.org/ops/liquidator/blob/v1";
    const rules = ruleGroupsForTests(alertsText).flatMap((g) => withAbsoluteRunbookUrls(g.rules, base)) as {
      alert: string;
      annotations: Record<string, string>;
    }[];
    expect(rules.length).toBeGreaterThanOrEqual(20);
    for (const r of rules) expect(r.annotations.runbook_url).toBe(`${base}/docs/runbook.md#${r.alert.toLowerCase()}`);
    expect(() => withAbsoluteRunbookUrls([{ annotations: { runbook_url: "https://elsewhere/x" } }], base)).toThrow(/does not start with/);
  });
});

const promtool = spawnSync("promtool", ["--version"], { encoding: "utf8" }).status === 0;

describe.skipIf(!promtool)("docker-compose Prometheus start script", () => {
  it("renders the rules with RUNBOOK_BASE_URL exactly as the TypeScript renderer does, into a config promtool accepts", () => {
    const compose = parse(readFileSync(join(REPO_ROOT, "docker-compose.yml"), "utf8")) as {
      services: { prometheus: { entrypoint: string[]; command: string[]; environment: Record<string, string> } };
    };
    const service = compose.services.prometheus;
    expect(service.entrypoint).toEqual(["/bin/sh", "-ec"]);
    expect(service.environment.RUNBOOK_BASE_URL).toBe(`\${RUNBOOK_BASE_URL:-${DEFAULT_RUNBOOK_BASE_URL}}`);
    const dir = mkdtempSync(join(tmpdir(), "liq-compose-prom-"));
    try {
      const script = (service.command[0] ?? "")
        .replaceAll("$$", "$") // compose's escape of a literal $
        .replaceAll("/etc/prometheus/", `${join(REPO_ROOT, "grafana")}/`)
        .replaceAll("/prometheus/config", dir)
        .replace(/^exec \/bin\/prometheus --config\.file=(\S+).*$/m, "exec promtool check config $1");
      expect(script).toContain("exec promtool check config");
      const base = "https://git.example.org/ops/liquidator/blob/v1";
      const out = execFileSync("sh", ["-ec", script], { encoding: "utf8", env: { ...process.env, RUNBOOK_BASE_URL: `${base}/` } });
      expect(out).toMatch(/SUCCESS: 1 rule files found/);
      const rendered = parse(readFileSync(join(dir, "alerts.yml"), "utf8")) as {
        groups: { rules: { annotations?: Record<string, string> }[] }[];
      };
      const expected = ruleGroupsForTests(alertsText).flatMap((g) => withAbsoluteRunbookUrls(g.rules, base));
      expect(urlsOf(rendered.groups.flatMap((g) => g.rules))).toEqual(urlsOf(expected as { annotations?: Record<string, string> }[]));
      // Nothing else changed: the same rules as the source but for the links.
      const stripped = (rules: Record<string, unknown>[]) =>
        rules.map((r) => ({ ...r, annotations: { ...(r.annotations as object), runbook_url: "" } }));
      expect(stripped(rendered.groups.flatMap((g) => g.rules))).toEqual(stripped(loadAlertRules() as unknown as Record<string, unknown>[]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
