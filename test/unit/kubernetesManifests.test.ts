/**
 * deploy/kubernetes/: every object valid against the Kubernetes (and Prometheus Operator) schemas,
 * both overlays rendered by `kubectl kustomize`, the settings an operator relies on (probes,
 * non-root, read-only root, resources, grace period, the state volume, the HA wiring), and the
 * PrometheusRule equal to what grafana/alerts.yml generates.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { SHUTDOWN_DEADLINE_MS_FOR_TESTS } from "../../src/commands/run.js";
import { liveLimitProblems } from "../../src/config/liveLimits.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import {
  ALERTS_SOURCE_PATH,
  PROMETHEUS_RELEASE_LABEL_FOR_TESTS,
  PROMETHEUS_RULE_PATH,
  prometheusRuleYaml,
  ruleGroupsForTests,
  runbookBaseOf,
} from "../../src/ops/prometheusRule.js";
import { withAbsoluteRunbookUrls } from "../../src/ops/runbookUrls.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import { REPO_ROOT } from "../support/dashboardNames.js";
import {
  envValue,
  findObject,
  KUBE_DIR,
  type KubeObject,
  kubectlAvailable,
  OVERLAYS,
  parseManifests,
  render,
  resourceFiles,
  validateObject,
} from "../support/kubeManifests.js";

const sourceFiles = [...new Set(OVERLAYS.flatMap((o) => resourceFiles(join(KUBE_DIR, "overlays", o))))];
const sourceObjects = sourceFiles.flatMap((f) => parseManifests(readFileSync(f, "utf8")).map((o) => ({ file: relative(REPO_ROOT, f), o })));
const baseStatefulSet = findObject(
  sourceObjects.map((s) => s.o),
  "StatefulSet",
);

describe("Kubernetes manifests as written", () => {
  it("every resource file of both overlays holds objects valid against the schemas", () => {
    expect(sourceFiles.length).toBe(6);
    const kinds = sourceObjects.map((s) => s.o.kind).sort();
    expect(kinds).toEqual(["PodDisruptionBudget", "PrometheusRule", "Service", "ServiceAccount", "ServiceMonitor", "StatefulSet"]);
    for (const { file, o } of sourceObjects) expect(() => validateObject(o), file).not.toThrow();
  });

  it("the validator rejects what the API server would (it is not a no-op)", () => {
    const broken = structuredClone(baseStatefulSet);
    broken.spec.template.spec.containers[0].ports[0].containerPort = "metrics";
    expect(() => validateObject(broken)).toThrow(/containerPort must be integer/);
    const noSelector = structuredClone(baseStatefulSet);
    delete noSelector.spec.selector;
    expect(() => validateObject(noSelector)).toThrow(/selector/);
    expect(() => validateObject({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" } })).toThrow(/no schema model/);
  });

  it("the PrometheusRule is the one grafana/alerts.yml generates (npm run k8s:rules), with absolute runbook links", () => {
    const alerts = readFileSync(join(REPO_ROOT, ALERTS_SOURCE_PATH), "utf8");
    const committed = readFileSync(join(REPO_ROOT, PROMETHEUS_RULE_PATH), "utf8");
    // Made with the base its header names (RUNBOOK_BASE_URL when it was generated).
    const base = runbookBaseOf(committed) ?? "";
    expect(base).toMatch(/^https?:\/\//);
    expect(committed).toBe(prometheusRuleYaml(alerts, base));
    // And equal in content, not only in text: the same groups, rules, labels and annotations but
    // for the runbook links, each absolute and pointing at its alert's section.
    const rule = findObject(parseManifests(committed), "PrometheusRule");
    const source = ruleGroupsForTests(alerts);
    expect(rule.spec.groups).toEqual(source.map((g) => ({ name: g.name, rules: withAbsoluteRunbookUrls(g.rules, base) })));
    const rules = rule.spec.groups.flatMap((g: { rules: KubeObject[] }) => g.rules) as KubeObject[];
    expect(rules.length).toBeGreaterThanOrEqual(20);
    for (const r of rules) expect(r.annotations.runbook_url, r.alert).toBe(`${base}/docs/runbook.md#${String(r.alert).toLowerCase()}`);
    // The label kube-prometheus-stack selects by, the same on the rule and the ServiceMonitor.
    expect(rule.metadata.labels?.release).toBe(PROMETHEUS_RELEASE_LABEL_FOR_TESTS);
    const sm = findObject(
      sourceObjects.map((x) => x.o),
      "ServiceMonitor",
    );
    expect(sm.metadata.labels?.release).toBe(PROMETHEUS_RELEASE_LABEL_FOR_TESTS);
  });

  it("the ConfigMap's daemon config is a valid live config with its limits set (live mode refuses the built-in ones)", async () => {
    const path = join(KUBE_DIR, "base", "liquidator.yaml");
    const env = { LIQUIDATOR_SECRET: generateKeyPair().secret, LIQUIDATOR_ACCOUNT_ID: `0x${"ab".repeat(32)}` };
    const loaded = await loadConfig({ path, env });
    expect(loaded.config.venue.mode).toBe("live");
    expect(liveLimitProblems(loaded.config, loaded.given ?? new Set())).toEqual([]);
  });

  it("the daemon's pod: non-root, read-only root, probes, resources, a grace period past the drain", () => {
    const pod = baseStatefulSet.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(2 * SHUTDOWN_DEADLINE_MS_FOR_TESTS);
    for (const c of [...pod.initContainers, ...pod.containers] as KubeObject[]) {
      expect(c.securityContext, c.name).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ["ALL"] },
      });
      expect(c.resources?.requests?.memory, c.name).toBeDefined();
      expect(c.resources?.limits?.memory, c.name).toBeDefined();
    }
    const daemon = pod.containers[0] as KubeObject;
    expect(daemon.startupProbe.httpGet).toEqual({ path: "/healthz", port: "metrics" });
    expect(daemon.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "metrics" });
    expect(daemon.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "metrics" });
    expect(daemon.ports).toEqual([{ name: "metrics", containerPort: 9464, protocol: "TCP" }]);
    expect(envValue(daemon, "LIQUIDATOR_METRICS_PORT")).toBe("9464");
    // Writable mounts only where the daemon writes: its state, /tmp, and the key copy (read-only here).
    const writable = (daemon.volumeMounts as { name: string; readOnly?: boolean }[]).filter((m) => m.readOnly !== true).map((m) => m.name);
    expect(writable.sort()).toEqual(["data", "tmp"]);
  });

  it("the key reaches the daemon as a 0400 file it owns, the config as a ConfigMap file", () => {
    const pod = baseStatefulSet.spec.template.spec;
    const daemon = pod.containers[0] as KubeObject;
    const init = pod.initContainers[0] as KubeObject;
    const secretFile = envValue(daemon, "LIQUIDATOR_SECRET_FILE") ?? "";
    const keyMount = (daemon.volumeMounts as { name: string; mountPath: string }[]).find((m) => secretFile.startsWith(`${m.mountPath}/`));
    expect(keyMount?.name).toBe("signing-key");
    expect(init.command.join(" ")).toContain(`install -m 0400 "$src" ${secretFile}`);
    const volumes = new Map((pod.volumes as KubeObject[]).map((v) => [v.name as string, v]));
    expect(volumes.get("signing-key")?.emptyDir).toMatchObject({ medium: "Memory" });
    expect(volumes.get("venue-secret")?.secret.secretName).toBe("liquidator-venue");
    const configPath = envValue(daemon, "LIQUIDATOR_CONFIG") ?? "";
    const configMount = (daemon.volumeMounts as { name: string; mountPath: string }[]).find(
      (m) => configPath === `${m.mountPath}/liquidator.yaml`,
    );
    expect(volumes.get(configMount?.name ?? "")?.configMap.name).toBe("liquidator-config");
  });
});

describe.skipIf(!kubectlAvailable)("Kubernetes overlays rendered by kubectl kustomize", () => {
  const rendered = new Map(OVERLAYS.map((o) => [o, render(join(KUBE_DIR, "overlays", o))]));
  const get = (o: (typeof OVERLAYS)[number]): KubeObject[] => rendered.get(o) ?? [];

  it.each(OVERLAYS)("%s: every rendered object is valid, and every mount has its volume", (overlay) => {
    const objects = get(overlay);
    for (const o of objects) expect(() => validateObject(o)).not.toThrow();
    const sts = findObject(objects, "StatefulSet", "liquidator");
    const pod = sts.spec.template.spec;
    const volumes = new Set(
      [...(pod.volumes ?? []), ...(sts.spec.volumeClaimTemplates ?? []).map((t: KubeObject) => t.metadata)].map(
        (v: { name: string }) => v.name,
      ),
    );
    for (const c of [...pod.initContainers, ...pod.containers]) {
      for (const m of c.volumeMounts) expect(volumes.has(m.name), `${overlay} ${c.name} mounts ${m.name}`).toBe(true);
    }
    // The generated ConfigMap (hashed name) is the one mounted, and holds the daemon's file.
    const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("liquidator-config-"));
    expect(pod.volumes.find((v: KubeObject) => v.name === "config").configMap.name).toBe(cm?.metadata.name);
    expect(Object.keys(cm?.data ?? {})).toEqual(["liquidator.yaml"]);
    // The ServiceMonitor finds the Service, the Service finds the pods, by the port name.
    const svc = findObject(objects, "Service", "liquidator");
    const sm = findObject(objects, "ServiceMonitor", "liquidator");
    expect(svc.metadata.labels).toMatchObject(sm.spec.selector.matchLabels);
    expect(pod.containers[0].ports.map((p: KubeObject) => p.name)).toContain(svc.spec.ports[0].targetPort);
    expect(sm.spec.endpoints[0].port).toBe(svc.spec.ports[0].name);
    expect(sts.spec.template.metadata.labels).toMatchObject(svc.spec.selector);
    expect(sts.spec.serviceName).toBe(svc.metadata.name);
    expect(svc.spec.publishNotReadyAddresses).toBe(true);
    expect(findObject(objects, "PrometheusRule").spec.groups.length).toBeGreaterThanOrEqual(3);
  });

  it.each(OVERLAYS)("%s: the ServiceMonitor and the PrometheusRule carry the `release` label the overlay sets", (overlay) => {
    const objects = get(overlay);
    const k = readFileSync(join(KUBE_DIR, "overlays", overlay, "kustomization.yaml"), "utf8");
    const set = /kind: ServiceMonitor\|PrometheusRule[\s\S]*?path: \/metadata\/labels\/release\s+value: (\S+)/.exec(k)?.[1];
    expect(set).toBeDefined();
    expect(findObject(objects, "ServiceMonitor").metadata.labels?.release).toBe(set);
    expect(findObject(objects, "PrometheusRule").metadata.labels?.release).toBe(set);
  });

  it("an overlay on top sets another `release` on both objects with the documented patch (README)", () => {
    const dir = mkdtempSync(join(tmpdir(), "liq-kust-"));
    try {
      const patchFor = (release: string): string =>
        [
          "  - target:",
          "      group: monitoring.coreos.com",
          "      kind: ServiceMonitor|PrometheusRule",
          "    patch: |-",
          "      - op: add",
          "        path: /metadata/labels/release",
          `        value: ${release}`,
        ].join("\n");
      // README shows it inside a list item, two spaces further in.
      const documented = patchFor("<your Helm release name>")
        .split("\n")
        .map((l) => `  ${l}`)
        .join("\n");
      expect(readFileSync(join(REPO_ROOT, "docs", "deployment.md"), "utf8")).toContain(documented);
      const base = relative(dir, join(KUBE_DIR, "overlays", "single"));
      writeFileSync(
        join(dir, "kustomization.yaml"),
        `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ${base}\npatches:\n${patchFor("monitoring")}\n`,
      );
      const objects = render(dir);
      expect(findObject(objects, "ServiceMonitor").metadata.labels?.release).toBe("monitoring");
      expect(findObject(objects, "PrometheusRule").metadata.labels?.release).toBe("monitoring");
      expect(findObject(objects, "StatefulSet").metadata.labels?.release).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("single: one replica, the journal on a claimed volume, the file backend", () => {
    const objects = get("single");
    const sts = findObject(objects, "StatefulSet", "liquidator");
    expect(sts.spec.replicas).toBe(1);
    expect(sts.spec.volumeClaimTemplates.map((t: KubeObject) => t.metadata.name)).toEqual(["data"]);
    expect(sts.spec.volumeClaimTemplates[0].spec.accessModes).toEqual(["ReadWriteOnce"]);
    const daemon = sts.spec.template.spec.containers[0];
    expect(daemon.volumeMounts.find((m: KubeObject) => m.name === "data").mountPath).toBe(envValue(daemon, "LIQUIDATOR_STATE_DIR"));
    expect(envValue(daemon, "LIQUIDATOR_STATE_BACKEND")).toBeUndefined();
    expect(objects.some((o) => o.kind === "PodDisruptionBudget")).toBe(false);
  });

  it("ha: two replicas on PostgreSQL, the URL from a Secret, a disruption budget keeping one", () => {
    const objects = get("ha");
    const sts = findObject(objects, "StatefulSet", "liquidator");
    expect(sts.spec.replicas).toBe(2);
    const daemon = sts.spec.template.spec.containers[0];
    expect(envValue(daemon, "LIQUIDATOR_STATE_BACKEND")).toBe("postgres");
    const url = daemon.env.find((e: KubeObject) => e.name === "LIQUIDATOR_POSTGRES_URL");
    expect(url).toEqual({ name: "LIQUIDATOR_POSTGRES_URL", valueFrom: { secretKeyRef: { name: "liquidator-postgres", key: "url" } } });
    const pdb = findObject(objects, "PodDisruptionBudget", "liquidator");
    expect(pdb.spec.minAvailable).toBe(1);
    expect(sts.spec.template.metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
    expect(sts.spec.volumeClaimTemplates).toBeUndefined();
  });
});

if (!kubectlAvailable) {
  process.stderr.write(
    "NOTE: kubectl not on PATH; skipping the `kubectl kustomize` render of deploy/kubernetes/overlays (install kubectl to run it)\n",
  );
}
