/**
 * The production build (tsconfig.build.json, what the image and `npm run build` compile) holds the
 * product and not the measuring tools: no file of src/bench or src/soak is in its program, so nothing
 * shipped imports them (tsc would pull an imported file in despite the exclude). The simulator and
 * the lab stay: `npm start` and `backtest` need them. The tools' build (tsconfig.tools.json, used by
 * `npm run bench` / `npm run soak`) holds both.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, test } from "vitest";
import { ROOT } from "../support/buildOnce.js";

function programFiles(project: string): string[] {
  const tsc = join(ROOT, "node_modules/.bin/tsc");
  const r = spawnSync(tsc, ["-p", project, "--listFilesOnly"], { cwd: ROOT, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`tsc -p ${project} --listFilesOnly failed: ${r.stdout}${r.stderr}`);
  return r.stdout
    .split("\n")
    .filter((f) => f.startsWith(join(ROOT, "src/")))
    .map((f) => f.slice(ROOT.length + 1));
}

const under = (files: string[], folder: string): string[] => files.filter((f) => f.startsWith(`src/${folder}/`));

test("the production build leaves bench/ and soak/ out and keeps the simulator and the lab", () => {
  const files = programFiles("tsconfig.build.json");
  expect(under(files, "bench")).toEqual([]);
  expect(under(files, "soak")).toEqual([]);
  expect(files).toContain("src/cli.ts");
  expect(under(files, "sim").length).toBeGreaterThan(0);
  expect(under(files, "lab").length).toBeGreaterThan(0);
  // Worker threads' entry files, loaded by URL (no import pulls them in): the image's dist/ must hold them.
  expect(files).toContain("src/lab/shadow/shadowWorker.ts");
  expect(files).toContain("src/lab/replay/backtestWorker.ts");
});

test("the tools' build holds bench/ and soak/ as well", () => {
  const files = programFiles("tsconfig.tools.json");
  expect(files).toContain("src/bench/run.ts");
  expect(files).toContain("src/soak/soak.ts");
  expect(files).toContain("src/cli.ts");
});
