/**
 * `npm run k8s:rules`: writes the PrometheusRule made from grafana/alerts.yml (prometheusRule.ts),
 * its runbook links under RUNBOOK_BASE_URL (runbookUrls.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { ALERTS_SOURCE_PATH, PROMETHEUS_RULE_PATH, prometheusRuleYaml, runbookBaseOf } from "./prometheusRule.js";
import { RUNBOOK_BASE_URL_ENV, runbookBaseUrl } from "./runbookUrls.js";

const root = new URL("../../", import.meta.url);
const target = new URL(PROMETHEUS_RULE_PATH, root);
let before = "";
try {
  before = readFileSync(target, "utf8");
} catch {
  // first generation
}
// Unset: the base the committed file was made with, so a regeneration after an alert edit keeps it.
let base: string;
try {
  base = runbookBaseUrl(process.env[RUNBOOK_BASE_URL_ENV] || runbookBaseOf(before));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(78);
}
const next = prometheusRuleYaml(readFileSync(new URL(ALERTS_SOURCE_PATH, root), "utf8"), base);
if (next !== before) writeFileSync(target, next);
process.stdout.write(`${PROMETHEUS_RULE_PATH} ${next === before ? "is up to date" : "rewritten"} (runbook links under ${base})\n`);
