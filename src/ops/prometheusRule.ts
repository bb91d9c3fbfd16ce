/**
 * The Prometheus Operator `PrometheusRule` for Kubernetes, made from `grafana/alerts.yml`: one source
 * of truth for the alert rules (Prometheus in docker-compose and the tests load the file itself).
 * `npm run k8s:rules` writes the result with the runbook links made absolute (runbookUrls.ts);
 * test/unit/kubernetesManifests.test.ts keeps them equal.
 */
import { parse, stringify } from "yaml";
import { DEFAULT_RUNBOOK_BASE_URL, RUNBOOK_BASE_URL_ENV, runbookBaseUrl, withAbsoluteRunbookUrls } from "./runbookUrls.js";

export const PROMETHEUS_RULE_PATH = "deploy/kubernetes/components/prometheus-operator/prometheusrule.yaml";
export const ALERTS_SOURCE_PATH = "grafana/alerts.yml";
/**
 * The label kube-prometheus-stack's Prometheus selects ServiceMonitors and PrometheusRules by
 * (`release: <Helm release name>`), at the chart's documented release name. The ServiceMonitor
 * carries the same value; an overlay sets its own on both (deploy/kubernetes/overlays/*).
 */
const PROMETHEUS_RELEASE_LABEL = "kube-prometheus-stack";
const BASE_HEADER = "# runbook_url base: ";

interface RuleGroup {
  name: string;
  rules: Record<string, unknown>[];
}

/** The rule groups of an alerts file, checked for the shape the operator's CRD requires. */
function ruleGroups(alertsYaml: string): RuleGroup[] {
  const doc = parse(alertsYaml) as { groups?: unknown };
  if (!Array.isArray(doc?.groups) || doc.groups.length === 0) throw new Error(`${ALERTS_SOURCE_PATH} has no rule groups`);
  return doc.groups.map((g: unknown, i: number) => {
    const group = g as Partial<RuleGroup>;
    if (typeof group.name !== "string" || !Array.isArray(group.rules)) {
      throw new Error(`${ALERTS_SOURCE_PATH}: group ${i} needs a name and a rules list`);
    }
    return { name: group.name, rules: group.rules };
  });
}

/**
 * The PrometheusRule manifest's text for the given alerts file text, its runbook links under
 * `runbookBase` (checked by runbookBaseUrl). Deterministic.
 */
export function prometheusRuleYaml(alertsYaml: string, runbookBase: string = DEFAULT_RUNBOOK_BASE_URL): string {
  const base = runbookBaseUrl(runbookBase);
  const manifest = {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "PrometheusRule",
    metadata: {
      name: "liquidator",
      labels: {
        "app.kubernetes.io/name": "liquidator",
        "app.kubernetes.io/component": "alerting",
        release: PROMETHEUS_RELEASE_LABEL,
      },
    },
    spec: { groups: ruleGroups(alertsYaml).map((g) => ({ name: g.name, rules: withAbsoluteRunbookUrls(g.rules, base) })) },
  };
  const header = [
    `# GENERATED from ${ALERTS_SOURCE_PATH} by \`npm run k8s:rules\`: edit that file, then regenerate.`,
    `# Runbook links are made absolute under ${RUNBOOK_BASE_URL_ENV} (default ${DEFAULT_RUNBOOK_BASE_URL},`,
    "# which resolves nowhere on purpose): RUNBOOK_BASE_URL=https://<where docs/runbook.md is served> npm run k8s:rules",
    `${BASE_HEADER}${base}`,
    "# The Prometheus of the Prometheus Operator loads this object when its ruleSelector matches the",
    "# labels below; kube-prometheus-stack selects `release: <its Helm release name>` (set in the overlay).",
  ].join("\n");
  return `${header}\n${stringify(manifest, { lineWidth: 0 })}`;
}

/** The runbook base a generated PrometheusRule text was made with (its header), if it says. */
export function runbookBaseOf(ruleYaml: string): string | undefined {
  const line = ruleYaml.split("\n").find((l) => l.startsWith(BASE_HEADER));
  return line?.slice(BASE_HEADER.length).trim();
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { PROMETHEUS_RELEASE_LABEL as PROMETHEUS_RELEASE_LABEL_FOR_TESTS, ruleGroups as ruleGroupsForTests };
