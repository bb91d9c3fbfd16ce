/**
 * The Prometheus Operator `PrometheusRule` for Kubernetes, made from `grafana/alerts.yml`: one source
 * of truth for the alert rules (Prometheus in docker-compose and the tests load the file itself).
 * `npm run k8s:rules` writes the result; test/unit/kubernetesManifests.test.ts keeps them equal.
 */
import { parse, stringify } from "yaml";

export const PROMETHEUS_RULE_PATH = "deploy/kubernetes/components/prometheus-operator/prometheusrule.yaml";
export const ALERTS_SOURCE_PATH = "grafana/alerts.yml";

interface RuleGroup {
  name: string;
  rules: Record<string, unknown>[];
}

/** The rule groups of an alerts file, checked for the shape the operator's CRD requires. */
export function ruleGroups(alertsYaml: string): RuleGroup[] {
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

/** The PrometheusRule manifest's text for the given alerts file text. Deterministic. */
export function prometheusRuleYaml(alertsYaml: string): string {
  const manifest = {
    apiVersion: "monitoring.coreos.com/v1",
    kind: "PrometheusRule",
    metadata: {
      name: "liquidator",
      labels: { "app.kubernetes.io/name": "liquidator", "app.kubernetes.io/component": "alerting" },
    },
    spec: { groups: ruleGroups(alertsYaml) },
  };
  const header = [
    `# GENERATED from ${ALERTS_SOURCE_PATH} by \`npm run k8s:rules\`: edit that file, then regenerate.`,
    "# The Prometheus of the Prometheus Operator loads this object when its ruleSelector matches the",
    "# labels below (kube-prometheus-stack: add `release: <its release name>` in your overlay).",
  ].join("\n");
  return `${header}\n${stringify(manifest, { lineWidth: 0 })}`;
}
