/**
 * Versions and sizes the deployment files must agree on: the image tag pinned in the Kubernetes base
 * is package.json's version (semver, CHANGELOG.md); each overlay's data volume holds the capture cap
 * of the shipped config plus the journal's reserve (the daemon cannot see an emptyDir's sizeLimit);
 * the daemon's memory request and limit cover the soak measured in docs/deployment.md.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { JOURNAL_RESERVE_FOR_TESTS } from "../../src/app/openCapture.js";
import { loadConfig } from "../../src/config/loadConfig.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import { REPO_ROOT } from "../support/dashboardNames.js";
import { findObject, KUBE_DIR, type KubeObject, parseManifests } from "../support/kubeManifests.js";

const version = (JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string }).version;
const yamlAt = (...parts: string[]) => parse(readFileSync(join(KUBE_DIR, ...parts), "utf8"));

/** A Kubernetes quantity (binary or decimal suffix) in bytes. */
function bytes(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(q);
  if (m === null) throw new Error(`not a quantity: ${q}`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2] ?? ""] ?? 1;
  return Number(m[1]) * unit;
}

/** docs/deployment.md "Resources": the 60-minute soak's RSS plateau and the kill -9 restart's peak. */
const SOAK_PLATEAU = 131e6;
const RESTART_PEAK = 174e6;

describe("deployment versions and sizes", () => {
  it("the image tag pinned in the Kubernetes base is package.json's version, a semver", () => {
    expect(version).toMatch(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/);
    const images = (yamlAt("base", "kustomization.yaml") as { images: { name: string; newTag: string }[] }).images;
    expect(images.find((i) => i.name === "liquidator")?.newTag).toBe(version);
    // The build line operators copy tags with the same version.
    expect(readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8")).toContain(`liquidator:$(node -p 'require("./package.json").version')`);
    expect(readFileSync(join(REPO_ROOT, "CHANGELOG.md"), "utf8")).toMatch(/^## /m);
  });

  it("each overlay's data volume holds the shipped capture cap plus the journal's reserve; the cap is explicit (not the statfs default)", async () => {
    const env = { LIQUIDATOR_SECRET: generateKeyPair().secret, LIQUIDATOR_ACCOUNT_ID: `0x${"ab".repeat(32)}` };
    const { config } = await loadConfig({ path: join(KUBE_DIR, "base", "liquidator.yaml"), env });
    const cap = config.state.capture_max_bytes;
    expect(cap).toBeGreaterThan(0);
    const single = findObject(
      parseManifests(readFileSync(join(KUBE_DIR, "overlays", "single", "state-volume.yaml"), "utf8")),
      "StatefulSet",
    );
    const claim = (single.spec.volumeClaimTemplates as KubeObject[]).find((t) => t.metadata.name === "data");
    expect(bytes(claim?.spec.resources.requests.storage)).toBeGreaterThanOrEqual(cap + JOURNAL_RESERVE_FOR_TESTS);
    const ha = findObject(parseManifests(readFileSync(join(KUBE_DIR, "overlays", "ha", "replicas.yaml"), "utf8")), "StatefulSet");
    const scratch = (ha.spec.template.spec.volumes as KubeObject[]).find((v) => v.name === "data");
    expect(bytes(scratch?.emptyDir.sizeLimit)).toBeGreaterThanOrEqual(cap + JOURNAL_RESERVE_FOR_TESTS);
  });

  it("the daemon's memory request covers the soak's plateau with headroom, its limit twice the restart peak", () => {
    const base = findObject(parseManifests(readFileSync(join(KUBE_DIR, "base", "statefulset.yaml"), "utf8")), "StatefulSet");
    const daemon = (base.spec.template.spec.containers as KubeObject[]).find((c) => c.name === "liquidator") as KubeObject;
    expect(bytes(daemon.resources.requests.memory)).toBeGreaterThanOrEqual(1.25 * SOAK_PLATEAU);
    expect(bytes(daemon.resources.limits.memory)).toBeGreaterThanOrEqual(2 * RESTART_PEAK);
  });
});
