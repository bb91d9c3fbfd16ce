/**
 * The image, built for real: podman builds the Dockerfile (FROM a local Debian base with this
 * machine's node, passed as NODE_IMAGE: the registry's image cannot be pulled here), then the
 * image's own filesystem (`podman image mount`, read-only) is entered with chroot as the image's
 * USER, in its WORKDIR, with its ENV, running its ENTRYPOINT + CMD, with a writable folder
 * bind-mounted on /data and /proc mounted, as a container would have them. The default config runs
 * the embedded simulator: the daemon must claim, pass the image's own HEALTHCHECK command, and exit
 * 0 on SIGTERM. The image must hold the product only. Needs root, podman and debootstrap (.ci/run
 * installs them); skipped with the reason elsewhere. The base is cached between runs
 * (LIQUIDATOR_IMAGE_CACHE, default /var/cache/liquidator-test).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chown, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROOT } from "../support/buildOnce.js";
import { LogCollector } from "../support/logCollector.js";
import { bindMount, mountProc, removeUnmounted, unmount } from "../support/mounts.js";
import { BASE_CA_BUNDLE, nodeBaseImage } from "../support/nodeBaseImage.js";
import { describeWithPodman, type ImageConfig, type Podman, startPodman } from "../support/podman.js";
import { freePort } from "../support/promStack.js";
import { waitFor } from "../support/wait.js";

const BASE = "localhost/liquidator-test-node-base:latest";
const IMAGE = "localhost/liquidator:image-test";
const CACHE = process.env.LIQUIDATOR_IMAGE_CACHE || "/var/cache/liquidator-test";
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Every file under `dir` (relative), not following symlinks, skipping folders named in `skip`. */
function filesUnder(dir: string, skip: ReadonlySet<string>, from = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return skip.has(e.name) ? [] : filesUnder(path, skip, from);
    return [relative(from, path)];
  });
}

/** The image's USER as the image's /etc/passwd has it. */
function imageUser(root: string, user: string): { uid: number; gid: number; home: string } {
  for (const line of readFileSync(join(root, "etc/passwd"), "utf8").split("\n")) {
    const [name, , uid, gid, , home] = line.split(":");
    if (name === user || uid === user) return { uid: Number(uid), gid: Number(gid), home: home ?? "/" };
  }
  throw new Error(`user ${user} not in the image's /etc/passwd`);
}

describeWithPodman("the image, built with podman and run from its own filesystem", () => {
  const teardown: (() => Promise<void>)[] = [];
  let podman: Podman;
  let config: ImageConfig;
  let root: string;

  beforeAll(async () => {
    const started = Date.now();
    const base = await nodeBaseImage(CACHE);
    const baseAt = Date.now();
    podman = await startPodman(base.tar, BASE, [
      `ENV NODE_EXTRA_CA_CERTS=${BASE_CA_BUNDLE}`,
      "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    ]);
    teardown.push(() => podman.destroy());
    // --layers=false: one commit per stage instead of one per instruction (vfs copies each whole).
    await podman.run([
      "build",
      "--isolation=chroot",
      "--layers=false",
      "--format=docker",
      `--build-arg=NODE_IMAGE=${BASE}`,
      "--build-arg=GIT_COMMIT=image-test",
      "--tag",
      IMAGE,
      ROOT,
    ]);
    config = await podman.inspect(IMAGE);
    root = await podman.mount(IMAGE);
    teardown.push(() => podman.run(["image", "unmount", IMAGE]).then(() => undefined));
    process.stderr.write(
      `image test: base ${base.made ? "made" : "from the cache"} (${base.key}) in ${Math.round((baseAt - started) / 1000)} s, ` +
        `built with ${podman.driver} in ${Math.round((Date.now() - baseAt) / 1000)} s; image ${Math.round(config.Size / 1e6)} MB\n`,
    );
  }, 900_000);

  afterAll(async () => {
    for (const step of teardown.reverse()) await step();
  }, 120_000);

  it("holds the product only: production dependencies, no dev dependency, no test file, no bench or soak", () => {
    const app = join(root, config.WorkingDir);
    for (const dep of Object.keys(pkg.dependencies)) expect(existsSync(join(app, "node_modules", dep)), dep).toBe(true);
    const dev = Object.keys(pkg.devDependencies).filter((dep) => existsSync(join(app, "node_modules", dep)));
    expect(dev).toEqual([]);
    expect(existsSync(join(app, "dist/cli.js"))).toBe(true);
    // The simulator and the lab stay: the default config and `backtest` need them.
    expect(existsSync(join(app, "dist/sim"))).toBe(true);
    expect(existsSync(join(app, "dist/lab"))).toBe(true);
    const ours = filesUnder(app, new Set(["node_modules"]));
    expect(ours.filter((f) => /(^|\/)(test|bench|soak|src)\//.test(f) || /\.test\.[cm]?[jt]s$/.test(f))).toEqual([]);
    expect(ours.filter((f) => f.endsWith(".ts"))).toEqual([]);
  });

  it("runs as its non-root USER with /data mounted: claims, passes its HEALTHCHECK, exits 0 on SIGTERM", { timeout: 180_000 }, async () => {
    const user = imageUser(root, config.User);
    expect(user.uid).toBe(1000);
    const data = await mkdtemp(join(tmpdir(), "liq-image-data-"));
    teardown.push(() => removeUnmounted(data));
    await chown(data, user.uid, user.gid);
    await bindMount(data, join(root, "data"));
    teardown.push(() => unmount(join(root, "data")));
    await mountProc(join(root, "proc"));
    teardown.push(() => unmount(join(root, "proc")));

    // The image's ENV as a container gets it (plus HOME from the user), with the metrics server on
    // loopback and a free port: chroot shares this machine's network. The HEALTHCHECK reads the same.
    const env = [
      ...config.Env.filter((e) => !e.startsWith("LIQUIDATOR_METRICS_")),
      `HOME=${user.home}`,
      "LIQUIDATOR_METRICS_HOST=127.0.0.1",
      `LIQUIDATOR_METRICS_PORT=${await freePort()}`,
      // The generator market: its steady arrivals make "a claim within 30 s" exact.
      "LIQUIDATOR_SIM_MARKET=generator",
    ];
    // chroot and env exec in turn, so the child's pid ends as node's: SIGTERM reaches the daemon.
    const inImage = (argv: string[]): [string, string[]] => [
      "chroot",
      [`--userspec=${user.uid}:${user.gid}`, root, "/usr/bin/env", "-i", "-C", config.WorkingDir, ...env, ...argv],
    ];
    const [file, args] = inImage([...config.Entrypoint, ...config.Cmd]);
    const child: ChildProcess = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    teardown.push(async () => {
      child.kill("SIGKILL");
      await exit;
    });
    const logs = new LogCollector();
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (s: string) => logs.push(s));
    child.stderr?.setEncoding("utf8").on("data", (s: string) => (stderr += s));

    const [kind, ...check] = config.Healthcheck?.Test ?? [];
    expect(kind).toBe("CMD");
    const healthcheck = (): Promise<number | null> =>
      new Promise((resolve) => {
        const [hcFile, hcArgs] = inImage(check);
        spawn(hcFile, hcArgs, { stdio: "ignore" }).on("close", (code) => resolve(code));
      });

    // What the daemon said, on a failure.
    const told = (err: unknown): never => {
      throw new Error(`${(err as Error).message}\n--- stdout ---\n${logs.text().slice(-4000)}\n--- stderr ---\n${stderr.slice(-4000)}`);
    };
    await waitFor(() => logs.has("claim accepted"), "a claim accepted within 30 s", 30_000, 100).catch(told);
    // The journal went through the bind mount into the folder on this side.
    const journal = (): string[] =>
      readdirSync(data)
        .filter((f) => f.endsWith(".jsonl"))
        .flatMap((f) => readFileSync(join(data, f), "utf8").split("\n"));
    await waitFor(
      () => journal().some((l) => l.includes('"t":"outcome"') && l.includes('"result":"accepted"')),
      "an accepted claim in the journal on /data",
      10_000,
      100,
    ).catch(told);
    await waitFor(async () => (await healthcheck()) === 0, "the image's HEALTHCHECK to pass", 30_000, 500).catch(told);

    // docker stop: the image's STOPSIGNAL, a clean exit; the HEALTHCHECK then fails (it can).
    expect(config.StopSignal ?? "SIGTERM").toBe("SIGTERM");
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(await healthcheck()).toBe(1);
  });
});
