/**
 * The layer rules of biome-layers.jsonc fire: in a scratch tree with the same folders, every
 * forbidden import is reported and every allowed one is not. (`npm run lint` applies them to src/.)
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { ROOT } from "../support/buildOnce.js";

const CASES: { file: string; from: string; allowed: boolean }[] = [
  { file: "engine/a.ts", from: "./policy.js", allowed: true },
  { file: "engine/a.ts", from: "../errors.js", allowed: true },
  { file: "engine/a.ts", from: "../venue/rest.js", allowed: false },
  { file: "engine/a.ts", from: "../daemon/claimer.js", allowed: false },
  { file: "engine/a.ts", from: "zod", allowed: false },
  { file: "engine/a.ts", from: "node:fs", allowed: false },
  { file: "venue/a.ts", from: "../engine/types.js", allowed: true },
  { file: "venue/a.ts", from: "../daemon/claimer.js", allowed: false },
  { file: "venue/a.ts", from: "../sim/venueCore.js", allowed: false },
  { file: "venue/a.ts", from: "../observe/metrics.js", allowed: false },
  { file: "daemon/a.ts", from: "../venue/rest.js", allowed: true },
  { file: "daemon/a.ts", from: "../observe/metrics.js", allowed: true },
  { file: "daemon/a.ts", from: "../sim/startSimulator.js", allowed: false },
  { file: "daemon/a.ts", from: "../app/runDaemon.js", allowed: false },
  { file: "observe/a.ts", from: "../daemon/claimer.js", allowed: false },
  { file: "config/a.ts", from: "../sim/scenario.js", allowed: false },
  { file: "sim/a.ts", from: "../venue/signer.js", allowed: true },
  { file: "sim/a.ts", from: "../venue/errors.js", allowed: true },
  { file: "sim/a.ts", from: "../engine/policy.js", allowed: false },
  { file: "sim/a.ts", from: "../daemon/claimer.js", allowed: false },
  { file: "lab/a.ts", from: "../daemon/ingest.js", allowed: true },
  { file: "lab/a.ts", from: "../engine/policy.js", allowed: true },
  { file: "lab/a.ts", from: "../sim/startSimulator.js", allowed: false },
  { file: "lab/a.ts", from: "../commands/output.js", allowed: false },
  { file: "lab/a.ts", from: "../app/runDaemon.js", allowed: false },
];

const dir = mkdtempSync(join(tmpdir(), "liq-layers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Lints one file importing `from` (a dynamic import, so the rule's dynamic case is covered too); true when flagged. */
function flagged(file: string, from: string, dynamic: boolean, n: number): boolean {
  const path = join(dir, "src", file.replace(".ts", `${n}.ts`));
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, dynamic ? `export const m = () => import("${from}");\n` : `import * as m from "${from}";\nexport const x = m;\n`);
  const r = spawnSync(join(ROOT, "node_modules/.bin/biome"), ["lint", "--max-diagnostics=50", path], { cwd: dir, encoding: "utf8" });
  return `${r.stdout}${r.stderr}`.includes("noRestrictedImports");
}

describe("layer rules", () => {
  copyFileSync(join(ROOT, "biome-layers.jsonc"), join(dir, "biome.jsonc"));
  test.each(CASES.map((c, i) => ({ ...c, i })))("$file importing $from: allowed=$allowed", ({ file, from, allowed, i }) => {
    expect(flagged(file, from, false, i)).toBe(!allowed);
    expect(flagged(file, from, true, i + 1000)).toBe(!allowed);
  });
});
