/**
 * The StatefulSet's key handling, run for real: its init container's own script copies a Secret file
 * (0440, as the kubelet leaves it when fsGroup is set) to the 0400 file LIQUIDATOR_SECRET_FILE names;
 * the daemon's config loader then accepts the ConfigMap's file with the pod's environment, and
 * refuses the Secret file as mounted (which is why the copy exists).
 */
import { spawnSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/loadConfig.js";
import { generateKeyPair } from "../../src/venue/signer.js";
import { envValue, findObject, KUBE_DIR, type KubeObject, parseManifests } from "../support/kubeManifests.js";

const sts = findObject(parseManifests(await readFile(join(KUBE_DIR, "base", "statefulset.yaml"), "utf8")), "StatefulSet");
const pod = sts.spec.template.spec;
const init = pod.initContainers[0] as KubeObject;
const daemon = pod.containers[0] as KubeObject;
const mountOf = (c: KubeObject, volume: string): string => c.volumeMounts.find((m: KubeObject) => m.name === volume).mountPath;

let dir = "";
afterEach(async () => {
  if (dir !== "") await rm(dir, { recursive: true, force: true });
  dir = "";
});

/** Runs the init container's script with its mount paths moved under a temp folder. */
async function runInit(podName: string, files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), "liq-k8s-key-"));
  const secretMount = mountOf(init, "venue-secret");
  const keyMount = mountOf(init, "signing-key");
  await mkdir(join(dir, secretMount), { recursive: true });
  await mkdir(join(dir, keyMount), { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(dir, secretMount, name), text);
    await chmod(join(dir, secretMount, name), 0o440);
  }
  expect(init.command.slice(0, 2)).toEqual(["sh", "-c"]);
  // One pass, longest path first: /run/liquidator is a part of /var/run/liquidator-venue.
  const paths = [secretMount, keyMount].sort((x, y) => y.length - x.length);
  const script = String(init.command[2]).replace(new RegExp(paths.join("|"), "g"), (p) => join(dir, p));
  const r = spawnSync("sh", ["-c", script], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", POD_NAME: podName }, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return join(dir, keyMount, "secret");
}

function podEnv(secretFile: string): NodeJS.ProcessEnv {
  return {
    LIQUIDATOR_SECRET_FILE: secretFile,
    LIQUIDATOR_ACCOUNT_ID: `0x${"ab".repeat(32)}`,
    LIQUIDATOR_STATE_DIR: join(dir, "data"),
    LIQUIDATOR_METRICS_PORT: envValue(daemon, "LIQUIDATOR_METRICS_PORT"),
  };
}

describe("the signing key on Kubernetes", () => {
  const configPath = join(KUBE_DIR, "base", "liquidator.yaml");

  it("the init container writes a 0400 copy the daemon's config loader accepts with the ConfigMap's file", async () => {
    const { secret } = generateKeyPair();
    const keyFile = await runInit("liquidator-0", { secret: `${secret}\n` });
    expect(keyFile.endsWith(envValue(daemon, "LIQUIDATOR_SECRET_FILE") ?? "?")).toBe(true);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o400);
    const loaded = await loadConfig({ path: configPath, env: podEnv(keyFile) });
    expect(loaded.secret).toBe(secret);
    expect(loaded.config.venue.mode).toBe("live");
    expect(loaded.config.venue.preset).toBe("orderly-testnet");
    expect(loaded.config.venue.base_url).toMatch(/^https:\/\//);
    expect(loaded.config.policy.dry_run).toBe(true);
    expect(loaded.config.metrics.port).toBe(9464);
  });

  it("a replica's own key (secret-<pod name>) wins over the shared one", async () => {
    const shared = generateKeyPair().secret;
    const own = generateKeyPair().secret;
    const keyFile = await runInit("liquidator-1", { secret: shared, "secret-liquidator-1": own });
    expect((await readFile(keyFile, "utf8")).trim()).toBe(own);
    await rm(keyFile);
    const other = await runInit("liquidator-0", { secret: shared, "secret-liquidator-1": own });
    expect((await readFile(other, "utf8")).trim()).toBe(shared);
  });

  it("the Secret file as the kubelet mounts it (0440) is refused by the daemon", async () => {
    const { secret } = generateKeyPair();
    await runInit("liquidator-0", { secret });
    const mounted = join(dir, mountOf(init, "venue-secret"), "secret");
    await expect(loadConfig({ path: configPath, env: podEnv(mounted) })).rejects.toThrow(
      /readable or writable by group or others \(mode 0440\)/,
    );
  });
});
