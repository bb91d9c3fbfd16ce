/**
 * Debian's podman with a private store in a fresh temp folder (its own --root, --runroot and
 * TMPDIR), so a test touches no other image and `destroy` takes everything it made: image mounts
 * undone, podman's own mounts under the folder undone, then the folder removed. Builds use
 * `--isolation=chroot` (the OCI runtime cannot start containers on these machines; build steps
 * run fine) and the docker image format (OCI drops HEALTHCHECK). The storage driver is overlay,
 * else vfs (much slower: a full copy per layer) where overlay cannot be mounted; LIQUIDATOR_PODMAN_DRIVER
 * picks one. An exit hook removes the store if the run dies first. Needs root. Not a test file itself.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { mountsUnder, removeUnmounted } from "./mounts.js";
import { hostSuite } from "./nodeBaseImage.js";

const exec = promisify(execFile);

export const PODMAN_INSTALL_HINT = "as root: apt-get install podman debootstrap (what .ci/run does)";

const has = (tool: string): boolean => spawnSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" }).status === 0;

/** Why the image cannot be built and run here, or undefined when it can. */
export function podmanUnavailableReason(): string | undefined {
  if (process.platform !== "linux") return "building and running the image needs Linux";
  if (process.getuid?.() !== 0) return "building and running the image needs root (image mounts, chroot, bind mounts)";
  if (hostSuite() === undefined) return "the test's base image is made with debootstrap from the host's Debian suite: not a Debian host";
  const missing = ["podman", "debootstrap", "chroot", "mount", "umount", "tar"].filter((t) => !has(t));
  if (missing.length > 0) return `${missing.join(", ")} not found: ${PODMAN_INSTALL_HINT}`;
  return undefined;
}

/** `describe` needing podman: skipped with the reason outside CI, failed in CI (`CI` set). */
export function describeWithPodman(name: string, body: () => void): void {
  const reason = podmanUnavailableReason();
  if (reason === undefined) return void describe(name, body);
  if (process.env.CI !== undefined && process.env.CI !== "") {
    describe(name, () => it("needs podman (required in CI)", () => expect.fail(reason)));
    return;
  }
  process.stderr.write(`NOTE: skipping "${name}": ${reason}\n`);
  describe.skip(`${name} (skipped: ${reason})`, body);
}

/** What the image's config says (docker format, `podman image inspect`). */
export interface ImageConfig {
  User: string;
  Env: string[];
  Entrypoint: string[];
  Cmd: string[];
  WorkingDir: string;
  StopSignal?: string;
  Healthcheck?: { Test: string[] };
  Size: number;
}

export interface Podman {
  readonly dir: string;
  readonly driver: string;
  /** Runs podman with the private store; rejects with its output on a non-zero exit. */
  run(args: string[], signal?: AbortSignal): Promise<string>;
  inspect(image: string): Promise<ImageConfig>;
  /** `podman image mount`: the image's root filesystem, read-only. */
  mount(image: string): Promise<string>;
  destroy(): Promise<void>;
}

function open(driver: string): Podman {
  const dir = mkdtempSync(join(tmpdir(), "liq-podman-"));
  const tmp = join(dir, "tmp");
  mkdirSync(tmp);
  const base = ["--root", join(dir, "storage"), "--runroot", join(dir, "run"), "--storage-driver", driver, "--events-backend", "file"];
  const env = { ...process.env, TMPDIR: tmp };
  // The last resort when the run dies before `destroy`: synchronous, as exit hooks must be.
  const onExit = (): void => {
    spawnSync("podman", [...base, "image", "unmount", "--all", "--force"], { stdio: "ignore", env });
    for (const p of mountsUnder(dir)) spawnSync("umount", ["-l", p], { stdio: "ignore" });
    if (mountsUnder(dir).length === 0) spawnSync("rm", ["-rf", dir], { stdio: "ignore" });
  };
  process.on("exit", onExit);
  const run = async (args: string[], signal?: AbortSignal): Promise<string> => {
    try {
      const { stdout } = await exec("podman", [...base, ...args], { env, signal, maxBuffer: 64 * 1024 * 1024 });
      return stdout;
    } catch (err) {
      const e = err as Error & { stdout?: string; stderr?: string };
      throw new Error(`podman ${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}`);
    }
  };
  return {
    dir,
    driver,
    run,
    inspect: async (image) => {
      const [first] = JSON.parse(await run(["image", "inspect", image])) as { Config: ImageConfig; Size: number }[];
      if (first === undefined) throw new Error(`no image ${image}`);
      // Healthcheck sits beside Config in podman's answer; Config holds it in docker's.
      const raw = first as unknown as { Healthcheck?: { Test: string[] } };
      return { ...first.Config, Healthcheck: first.Config.Healthcheck ?? raw.Healthcheck, Size: first.Size };
    },
    mount: async (image) => (await run(["image", "mount", image])).trim(),
    destroy: async () => {
      await run(["image", "unmount", "--all", "--force"]).catch(() => undefined);
      await removeUnmounted(dir);
      process.off("exit", onExit);
    },
  };
}

/**
 * A private podman whose store works: the driver asked for (LIQUIDATOR_PODMAN_DRIVER), else overlay,
 * else vfs when overlay cannot import `probeTar` here (e.g. a store on an overlay filesystem).
 * The probe's import is kept: `probeName` is then in the store.
 */
export async function startPodman(probeTar: string, probeName: string, changes: string[], signal?: AbortSignal): Promise<Podman> {
  const asked = process.env.LIQUIDATOR_PODMAN_DRIVER;
  const drivers = asked !== undefined && asked !== "" ? [asked] : ["overlay", "vfs"];
  const errors: string[] = [];
  for (const driver of drivers) {
    const podman = open(driver);
    try {
      await podman.run(["import", ...changes.flatMap((c) => ["--change", c]), probeTar, probeName], signal);
      return podman;
    } catch (err) {
      errors.push(`${driver}: ${(err as Error).message}`);
      await podman.destroy();
    }
  }
  throw new Error(`no podman storage driver works here:\n${errors.join("\n")}`);
}
