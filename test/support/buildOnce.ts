/**
 * Compiles `src/` once per test file into a private folder under node_modules/.cache (so the
 * package's dependencies resolve from there and dist/ is left alone), for tests that run the CLI as
 * an operator would: a child process. tsc emits even when files outside the command's import graph
 * have type errors; `npm test` type-checks the tree separately. Not a test file itself.
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "../..");

export interface Build {
  /** Folder holding cli.js and the rest of the compiled tree. */
  dir: string;
  cli: string;
  remove(): Promise<void>;
}

/** Builds into a fresh folder; throws with tsc's output when an expected file was not emitted. */
export async function buildOnce(
  prefix: string,
  expect: readonly string[] = ["cli.js", "app/runDaemon.js", "commands/run.js"],
): Promise<Build> {
  await mkdir(join(ROOT, "node_modules/.cache"), { recursive: true });
  const dir = await mkdtemp(join(ROOT, `node_modules/.cache/${prefix}-`));
  const tsc = join(ROOT, "node_modules/.bin/tsc");
  const result = spawnSync(tsc, ["-p", "tsconfig.build.json", "--outDir", dir], { cwd: ROOT, encoding: "utf8" });
  for (const file of expect) {
    const ok = await stat(join(dir, file)).then(
      () => true,
      () => false,
    );
    if (!ok) throw new Error(`build did not emit ${file}: ${result.stdout}${result.stderr}`);
  }
  return { dir, cli: join(dir, "cli.js"), remove: () => rm(dir, { recursive: true, force: true }) };
}
