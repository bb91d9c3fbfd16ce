/**
 * The image, without a Docker engine: the Dockerfile's own steps run in a clean temp copy (npm ci,
 * the TypeScript build, the production install, the config), then the entrypoint is started as the
 * image starts it, with the image's ENV, and the HEALTHCHECK's own command is run against it.
 * An instruction the runner does not know fails the test (see test/support/dockerfileSteps.ts).
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { REPO_ROOT } from "../support/dashboardNames.js";
import { parseDockerfile, runDockerfile } from "../support/dockerfileSteps.js";
import { freePort } from "../support/promStack.js";
import { waitFor } from "../support/wait.js";

const dockerfile = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");

it("the runner refuses an instruction it does not know", async () => {
  expect(parseDockerfile("FROM x AS a\nRUN a \\\n  b\n").map((i) => i.op)).toEqual(["FROM", "RUN"]);
  const dir = await mkdtemp(join(tmpdir(), "liq-image-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await expect(runDockerfile("FROM x AS a\nONBUILD RUN x\n", { context: REPO_ROOT, dir, runEnv: {} })).rejects.toThrow(
    /does not know ONBUILD/,
  );
});

it("the Dockerfile's steps build a runtime whose entrypoint starts and passes its HEALTHCHECK", { timeout: 240_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "liq-image-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const stages = await runDockerfile(dockerfile, {
    context: REPO_ROOT,
    dir,
    // npm's cache in the temp folder, so `npm cache clean --force` cleans only that.
    runEnv: { npm_config_cache: join(dir, "npm-cache"), npm_config_update_notifier: "false" },
    // The image's `node` user exists only in the image; the folder is made all the same.
    rewrite: (cmd) => cmd.replace("chown node:node", "chown $(id -u):$(id -g)"),
  });
  const runtime = stages.get("runtime");
  if (runtime === undefined) throw new Error("no runtime stage");
  const app = join(runtime.root, runtime.workdir);
  expect(existsSync(join(app, "dist", "cli.js"))).toBe(true);
  // Production install only: no compiler, no test runner in the image.
  expect(existsSync(join(app, "node_modules", "pino"))).toBe(true);
  expect(existsSync(join(app, "node_modules", "typescript"))).toBe(false);
  expect(existsSync(join(app, "node_modules", "vitest"))).toBe(false);
  expect(runtime.user).toBe("node");
  expect(runtime.env.NODE_ENV).toBe("production");

  // Start it as the image does: ENTRYPOINT + CMD, in WORKDIR, with the image's ENV (a free port
  // instead of 9464 on this shared machine; the HEALTHCHECK reads the same variable).
  const port = String(await freePort());
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...runtime.env,
    LIQUIDATOR_METRICS_HOST: "127.0.0.1",
    LIQUIDATOR_METRICS_PORT: port,
  };
  const [command, ...args] = [...runtime.entrypoint, ...runtime.cmd];
  expect([command, ...args]).toEqual(["node", "dist/cli.js", "run"]);
  const child = spawn(process.execPath, args, { cwd: app, env, stdio: ["ignore", "pipe", "pipe"] });
  const exit = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  onTestFinished(async () => {
    child.kill("SIGKILL");
    await exit;
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (out += s));
  await waitFor(() => out.includes("metrics server listening"), "the daemon's metrics server", 60_000, 100);

  const [hcBin, ...hcArgs] = runtime.healthcheck ?? [];
  expect(hcBin).toBe("node");
  const healthcheck = (): Promise<number | null> =>
    new Promise((resolve) => spawn(process.execPath, hcArgs, { cwd: app, env, stdio: "ignore" }).on("close", (code) => resolve(code)));
  await waitFor(async () => (await healthcheck()) === 0, "the HEALTHCHECK to pass", 30_000, 500);
  // The state went where the image says (/data), under the stage's root.
  expect(runtime.env.LIQUIDATOR_STATE_DIR).toBe(join(runtime.root, "data"));

  // docker stop: SIGTERM, clean exit; the HEALTHCHECK then fails.
  child.kill("SIGTERM");
  expect(await exit).toBe(0);
  expect(await healthcheck()).toBe(1);
});
