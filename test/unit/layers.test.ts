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
  { file: "venue/a.ts", from: "../sleep.js", allowed: true },
  { file: "venue/a.ts", from: "../daemon/claimer.js", allowed: false },
  { file: "venue/a.ts", from: "../sim/venueCore.js", allowed: false },
  { file: "venue/a.ts", from: "../observe/metrics.js", allowed: false },
  { file: "venue/a.ts", from: "../store/stateStore.js", allowed: false },
  { file: "config/a.ts", from: "../venue/signer.js", allowed: true },
  { file: "config/a.ts", from: "../redaction.js", allowed: true },
  { file: "config/a.ts", from: "../sim/scenario.js", allowed: false },
  { file: "config/a.ts", from: "../store/postgres/pgStore.js", allowed: false },
  { file: "observe/a.ts", from: "../venue/rest.js", allowed: true },
  { file: "observe/a.ts", from: "../daemon/claimer.js", allowed: false },
  { file: "observe/a.ts", from: "../config/schema.js", allowed: false },
  { file: "store/a.ts", from: "./postgres/pgStore.js", allowed: true },
  { file: "store/a.ts", from: "../venue/errors.js", allowed: true },
  { file: "store/a.ts", from: "../app/runDaemon.js", allowed: false },
  { file: "store/a.ts", from: "../config/schema.js", allowed: false },
  { file: "store/postgres/a.ts", from: "../storeErrors.js", allowed: true },
  { file: "store/postgres/a.ts", from: "../../redaction.js", allowed: true },
  { file: "store/postgres/a.ts", from: "../../app/runDaemon.js", allowed: false },
  { file: "store/postgres/a.ts", from: "../../config/redact.js", allowed: false },
  { file: "daemon/a.ts", from: "../venue/rest.js", allowed: true },
  { file: "daemon/a.ts", from: "../observe/metrics.js", allowed: true },
  { file: "daemon/a.ts", from: "../sim/startSimulator.js", allowed: false },
  { file: "daemon/a.ts", from: "../app/runDaemon.js", allowed: false },
  { file: "daemon/a.ts", from: "../lab/backtest.js", allowed: false },
  { file: "lab/a.ts", from: "../daemon/ingest.js", allowed: true },
  { file: "lab/a.ts", from: "../engine/policy.js", allowed: true },
  { file: "lab/a.ts", from: "../sim/startSimulator.js", allowed: false },
  { file: "lab/a.ts", from: "../commands/output.js", allowed: false },
  { file: "lab/a.ts", from: "../app/runDaemon.js", allowed: false },
  { file: "app/a.ts", from: "../lab/captureQueue.js", allowed: true },
  { file: "app/a.ts", from: "../sim/startSimulator.js", allowed: true },
  { file: "app/a.ts", from: "../commands/run.js", allowed: false },
  { file: "app/a.ts", from: "../bench/run.js", allowed: false },
  { file: "commands/a.ts", from: "../app/runDaemon.js", allowed: true },
  { file: "commands/a.ts", from: "../sim/startSimulator.js", allowed: true },
  { file: "commands/a.ts", from: "../preflight/runPreflight.js", allowed: true },
  { file: "commands/a.ts", from: "../bench/run.js", allowed: false },
  { file: "commands/a.ts", from: "../soak/soak.js", allowed: false },
  { file: "bench/a.ts", from: "../sim/startSimulator.js", allowed: true },
  { file: "bench/a.ts", from: "../commands/run.js", allowed: false },
  { file: "bench/a.ts", from: "../soak/soakRun.js", allowed: false },
  { file: "soak/a.ts", from: "../app/runDaemon.js", allowed: true },
  { file: "soak/a.ts", from: "../bench/run.js", allowed: false },
  { file: "ops/a.ts", from: "yaml", allowed: true },
  { file: "ops/a.ts", from: "../config/schema.js", allowed: false },
  { file: "preflight/a.ts", from: "../app/venueConnection.js", allowed: true },
  { file: "preflight/a.ts", from: "../daemon/claimer.js", allowed: false },
  { file: "preflight/a.ts", from: "../sim/startSimulator.js", allowed: false },
  { file: "sim/a.ts", from: "../venue/signer.js", allowed: true },
  { file: "sim/a.ts", from: "../venue/errors.js", allowed: true },
  { file: "sim/a.ts", from: "../engine/policy.js", allowed: false },
  { file: "sim/a.ts", from: "../daemon/claimer.js", allowed: false },
  { file: "a.ts", from: "./commands/dispatch.js", allowed: true },
  { file: "a.ts", from: "./daemon/claimer.js", allowed: false },
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
