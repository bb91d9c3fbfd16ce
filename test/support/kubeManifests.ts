/**
 * The Kubernetes manifests under deploy/kubernetes/ for the tests: the resource files as written,
 * the overlays as `kubectl kustomize` renders them (when kubectl is installed), and schema
 * validation of every object with kubernetes-models (the Kubernetes OpenAPI schemas, offline) and
 * its Prometheus Operator models. Not a test file itself.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PrometheusRule, ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { StatefulSet } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import { parse, parseAllDocuments } from "yaml";
import { REPO_ROOT } from "./dashboardNames.js";

export const KUBE_DIR = join(REPO_ROOT, "deploy", "kubernetes");
export const OVERLAYS = ["single", "ha"] as const;
export type Overlay = (typeof OVERLAYS)[number];

// biome-ignore lint/suspicious/noExplicitAny: manifests are untyped YAML, read by path in the tests
type Untyped = any;
export type KubeObject = { apiVersion: string; kind: string; metadata: { name: string; labels?: Record<string, string> } } & Record<
  string,
  Untyped
>;

interface Validatable {
  validate(): void;
}
const MODELS: Record<string, new (data: never) => Validatable> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "v1/ServiceAccount": ServiceAccount,
  "apps/v1/StatefulSet": StatefulSet,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "monitoring.coreos.com/v1/ServiceMonitor": ServiceMonitor,
  "monitoring.coreos.com/v1/PrometheusRule": PrometheusRule,
};

/** Throws with the schema's message (and which object) when an object is not valid; unknown kinds throw too. */
export function validateObject(obj: KubeObject): void {
  const Model = MODELS[`${obj.apiVersion}/${obj.kind}`];
  if (Model === undefined) throw new Error(`no schema model for ${obj.apiVersion} ${obj.kind} (${obj.metadata?.name})`);
  try {
    new Model(obj as never).validate();
  } catch (err) {
    throw new Error(`${obj.kind}/${obj.metadata?.name}: ${(err as Error).message}`);
  }
}

export function parseManifests(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

/** Every file a kustomization lists under `resources` that is a file (folders are followed), recursively. */
export function resourceFiles(kustomizationDir: string): string[] {
  const k = parse(readFileSync(join(kustomizationDir, "kustomization.yaml"), "utf8")) as { resources?: string[]; components?: string[] };
  const out: string[] = [];
  for (const entry of [...(k.resources ?? []), ...(k.components ?? [])]) {
    const path = join(kustomizationDir, entry);
    if (entry.endsWith(".yaml")) out.push(path);
    else out.push(...resourceFiles(path));
  }
  return [...new Set(out)];
}

export const kubectlAvailable = spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" }).status === 0;

/** `kubectl kustomize` of an overlay (or any kustomization folder). */
export function render(dir: string): KubeObject[] {
  const r = spawnSync("kubectl", ["kustomize", dir], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${r.stderr}`);
  return parseManifests(r.stdout);
}

export function findObject(objects: KubeObject[], kind: string, name?: string): KubeObject {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1) throw new Error(`expected one ${kind}${name ? ` ${name}` : ""}, found ${found.length}`);
  return found[0] as KubeObject;
}

/** The value an env entry of a container sets (`value` only). */
export function envValue(container: KubeObject, name: string): string | undefined {
  return (container.env as { name: string; value?: string }[] | undefined)?.find((e) => e.name === name)?.value;
}
