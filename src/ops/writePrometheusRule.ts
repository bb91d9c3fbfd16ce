/** `npm run k8s:rules`: writes the PrometheusRule made from grafana/alerts.yml (prometheusRule.ts). */
import { readFileSync, writeFileSync } from "node:fs";
import { ALERTS_SOURCE_PATH, PROMETHEUS_RULE_PATH, prometheusRuleYaml } from "./prometheusRule.js";

const root = new URL("../../", import.meta.url);
const target = new URL(PROMETHEUS_RULE_PATH, root);
const next = prometheusRuleYaml(readFileSync(new URL(ALERTS_SOURCE_PATH, root), "utf8"));
let before = "";
try {
  before = readFileSync(target, "utf8");
} catch {
  // first generation
}
if (next !== before) writeFileSync(target, next);
process.stdout.write(`${PROMETHEUS_RULE_PATH} ${next === before ? "is up to date" : "rewritten"}\n`);
