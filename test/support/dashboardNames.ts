/**
 * Metric names used by the Grafana dashboard and the Prometheus alert rules, and the names a
 * Prometheus text scrape offers, so a test can check that every name a panel or an alert queries
 * exists. Reused by the live-daemon scrape test: pass the text of a real `/metrics` answer to
 * `scrapeNames`.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import { parsePrometheus } from "../../src/observe/promText.js";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const DASHBOARD_PATH = join(REPO_ROOT, "grafana", "dashboards", "liquidator.json");
export const ALERTS_PATH = join(REPO_ROOT, "grafana", "alerts.yml");

export interface DashboardPanel {
  id?: unknown;
  type?: string;
  title?: string;
  datasource?: unknown;
  targets?: { refId?: string; expr?: string; datasource?: unknown }[];
  panels?: DashboardPanel[];
  gridPos?: { x: number; y: number; w: number; h: number };
}

export interface Dashboard {
  uid?: string;
  schemaVersion?: number;
  panels: DashboardPanel[];
  templating?: { list: { name: string; type: string; query?: unknown; definition?: string; datasource?: unknown }[] };
}

export function loadDashboard(path = DASHBOARD_PATH): Dashboard {
  return JSON.parse(readFileSync(path, "utf8")) as Dashboard;
}

export interface AlertRule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function loadAlertRules(path = ALERTS_PATH): AlertRule[] {
  const doc = parseYaml(readFileSync(path, "utf8")) as { groups: { rules: AlertRule[] }[] };
  return doc.groups.flatMap((g) => g.rules);
}

/** Every panel, row panels' nested panels included. */
export function allPanels(dashboard: Dashboard): DashboardPanel[] {
  const out: DashboardPanel[] = [];
  const walk = (ps: DashboardPanel[] | undefined): void => {
    for (const p of ps ?? []) {
      out.push(p);
      walk(p.panels);
    }
  };
  walk(dashboard.panels);
  return out;
}

/** Every PromQL expression of the dashboard: panel targets and query variables. */
export function dashboardExpressions(dashboard: Dashboard): string[] {
  const exprs = allPanels(dashboard).flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ""));
  for (const v of dashboard.templating?.list ?? []) {
    if (v.type !== "query") continue;
    const q = typeof v.query === "string" ? v.query : (v.query as { query?: string } | undefined)?.query;
    if (q !== undefined) exprs.push(q);
    if (v.definition !== undefined) exprs.push(v.definition);
  }
  return exprs.filter((e) => e.trim() !== "");
}

/**
 * `liquidator_*` identifiers of a PromQL expression. String literals are removed first, so label
 * values (`code="-1003"`, a legend `{{symbol}}`) are never mistaken for names.
 */
export function metricNamesIn(expr: string): string[] {
  const code = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
  const names = new Set<string>();
  for (const m of code.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const start = m.index ?? 0;
    const before = start > 0 ? code[start - 1] : "";
    // Part of a longer token (a number like 1e3 or a `$variable`) is not a name of its own.
    if (before !== undefined && /[A-Za-z0-9_:$]/.test(before)) continue;
    if (m[0].startsWith("liquidator_")) names.add(m[0]);
  }
  return [...names];
}

/** Sorted, deduplicated metric names used by the dashboard and by the alert rules. */
export function metricNamesInDashboardAndRules(dashboardPath = DASHBOARD_PATH, alertsPath = ALERTS_PATH): string[] {
  const exprs = [...dashboardExpressions(loadDashboard(dashboardPath)), ...loadAlertRules(alertsPath).map((r) => r.expr)];
  return [...new Set(exprs.flatMap(metricNamesIn))].sort();
}

/**
 * Names a Prometheus text scrape offers: every series, every `# TYPE` family, and for histograms and
 * summaries their `_bucket`/`_sum`/`_count` series even when no label set was touched yet.
 */
export function scrapeNames(text: string): Set<string> {
  const names = new Set(parsePrometheus(text).map((s) => s.name));
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)/gm)) {
    const [, name = "", kind] = m;
    names.add(name);
    if (kind === "histogram") for (const s of ["_bucket", "_sum", "_count"]) names.add(name + s);
    if (kind === "summary") for (const s of ["_sum", "_count"]) names.add(name + s);
  }
  return names;
}
