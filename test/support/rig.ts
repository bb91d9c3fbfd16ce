/**
 * The tests' rig: vitest fixtures that make what a test needs and register its teardown where it is
 * made, undone in reverse order after the test (a daemon before its venue, a venue before its dir),
 * whatever the test did. `build` compiles the CLI once per file. Not a test file itself.
 *
 * `rig` is one fixture of factories (dir, sim, daemon, spawn, cli, defer) rather than a fixture per
 * thing: a test makes several of a kind with different options, and one list undone in reverse
 * keeps the order right whatever the test destructures (separate fixtures are torn down by their
 * declared dependencies, and a daemon takes its venue as an argument, not as a dependency). A file
 * that needs more (a database server, a venue knowing a key) extends this `test` with its own.
 *
 *   test("...", async ({ rig }) => {
 *     const sim = await rig.sim();
 *     const daemon = await rig.daemon({ sim }); // state in a temp dir of its own
 *   });
 */
import { test as base } from "vitest";
import type { SimulatorHandle } from "../../src/sim/startSimulator.js";
import { type Build, buildOnce } from "./buildOnce.js";
import { removeDir, startQuietSim, tempDir } from "./daemonHarness.js";
import { type CliResult, type DaemonProcess, resultOf, spawnCli, spawnDaemon } from "./daemonProcess.js";
import { type InProcessDaemon, type InProcessDaemonOptions, startInProcessDaemon } from "./inProcessDaemon.js";

export interface Rig {
  /** A temp dir, removed after the test. */
  dir(prefix: string): Promise<string>;
  /** The simulated venue on port 0 with a still market, closed after the test. */
  sim(options?: Parameters<typeof startQuietSim>[0]): Promise<SimulatorHandle>;
  /** The daemon in this process, stopped after the test; its state in a new temp dir unless `stateDir` says where. */
  daemon(options: Omit<InProcessDaemonOptions, "stateDir"> & { stateDir?: string }): Promise<InProcessDaemon>;
  /** The daemon as a child process (`node <cli> run`), woken and killed after the test. */
  spawn(...args: Parameters<typeof spawnDaemon>): DaemonProcess;
  /** A one-shot CLI command (`node <cli> <args>`) run to its end; killed after the test if it hangs. */
  cli(...args: Parameters<typeof spawnCli>): Promise<CliResult>;
  /** Any other teardown, run with the rest in reverse order. */
  defer(teardown: () => unknown): void;
}

export const test = base.extend<{ rig: Rig; build: Build }>({
  build: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const build = await buildOnce("rig");
      await use(build);
      await build.remove();
    },
    { scope: "file" },
  ],
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  rig: async ({}, use) => {
    const teardowns: (() => unknown)[] = [];
    const rig: Rig = {
      dir: async (prefix) => {
        const dir = await tempDir(prefix);
        teardowns.push(() => removeDir(dir));
        return dir;
      },
      sim: async (options) => {
        const sim = await startQuietSim(options);
        teardowns.push(() => sim.close());
        return sim;
      },
      daemon: async (options) => {
        const daemon = await startInProcessDaemon({ ...options, stateDir: options.stateDir ?? (await rig.dir("daemon")) });
        teardowns.push(() => daemon.stop().catch(() => undefined));
        return daemon;
      },
      spawn: (...args) => {
        const proc = spawnDaemon(...args);
        teardowns.push(async () => {
          if (!proc.exited()) proc.child.kill("SIGCONT"); // a test may have frozen it
          await proc.kill();
        });
        return proc;
      },
      cli: (...args) => {
        const proc = spawnCli(...args);
        teardowns.push(() => proc.kill());
        return resultOf(proc);
      },
      defer: (teardown) => {
        teardowns.push(teardown);
      },
    };
    await use(rig);
    const errors: unknown[] = [];
    for (const t of teardowns.reverse()) {
      try {
        await t();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw errors[0];
  },
});
