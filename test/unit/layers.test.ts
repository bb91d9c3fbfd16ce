/**
 * The layer rules and the circle check of scripts/layers.mjs (run by `npm run lint`) fire on
 * resolved paths: in a scratch tree with the same folders, every forbidden import is reported in
 * every form it can be written — static, dynamic, type-position `import("…")`, `import type`,
 * `export … from`, a worker's URL — including the forms that escape a rule matched on the
 * import's text (`./../app/x.js`, `../engine/../app/x.js`, a subfolder's `../../sim/x.js`); every
 * allowed one is not; a circle of type-only imports is a circle. The real tree passes.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { ROOT } from "../support/buildOnce.js";

interface Case {
  file: string;
  from: string;
  allowed: boolean;
}

const CASES: Case[] = [
  { file: "engine/a.ts", from: "./policy.js", allowed: true },
  { file: "engine/a.ts", from: "../errors.js", allowed: true },
  { file: "engine/a.ts", from: "../venue/rest.js", allowed: false },
  { file: "engine/a.ts", from: "../core/tradingCore.js", allowed: false },
  { file: "engine/a.ts", from: "zod", allowed: false },
  { file: "engine/a.ts", from: "node:fs", allowed: false },
  { file: "venue/a.ts", from: "../engine/types.js", allowed: true },
  { file: "venue/a.ts", from: "../sleep.js", allowed: true },
  { file: "venue/a.ts", from: "../daemon/claim/claimer.js", allowed: false },
  { file: "venue/a.ts", from: "../sim/venueCore.js", allowed: false },
  { file: "venue/a.ts", from: "../observe/metrics.js", allowed: false },
  { file: "venue/a.ts", from: "../store/stateStore.js", allowed: false },
  { file: "core/a.ts", from: "../observe/logMoney.js", allowed: true },
  { file: "core/a.ts", from: "../daemon/claim/claimSender.js", allowed: false },
  { file: "core/a.ts", from: "../store/stateStore.js", allowed: false },
  { file: "config/a.ts", from: "../venue/signer.js", allowed: true },
  { file: "config/a.ts", from: "../redaction.js", allowed: true },
  { file: "config/a.ts", from: "../sim/scenario.js", allowed: false },
  { file: "config/a.ts", from: "../store/postgres/pgStore.js", allowed: false },
  { file: "observe/a.ts", from: "../venue/rest.js", allowed: true },
  { file: "observe/a.ts", from: "../daemon/claim/claimer.js", allowed: false },
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
  { file: "daemon/a.ts", from: "../lab/replay/backtest.js", allowed: false },
  { file: "daemon/claim/a.ts", from: "../unwind/unwindSettings.js", allowed: true },
  { file: "daemon/feeds/a.ts", from: "../claim/claimer.js", allowed: true },
  // Rooms of one folder import one way (ROOMS): the claim side does not read the feeds, the top file is nobody's.
  { file: "daemon/claim/a.ts", from: "../feeds/ingest.js", allowed: false },
  { file: "daemon/unwind/a.ts", from: "../claim/claimer.js", allowed: false },
  { file: "daemon/records/a.ts", from: "../daemon.js", allowed: false },
  { file: "lab/capture/a.ts", from: "../prepared/preparedCapture.js", allowed: false },
  { file: "lab/sweep/a.ts", from: "../replay/variantCurves.js", allowed: false },
  { file: "lab/report/a.ts", from: "../replay/backtest.js", allowed: true },
  { file: "daemon/claim/a.ts", from: "../../core/tradingCore.js", allowed: true },
  { file: "daemon/claim/a.ts", from: "../../app/later.js", allowed: false },
  { file: "daemon/feeds/a.ts", from: "../../lab/capture/captureQueue.js", allowed: false },
  { file: "lab/a.ts", from: "../daemon/feeds/ingest.js", allowed: true },
  { file: "lab/a.ts", from: "../engine/policy.js", allowed: true },
  { file: "lab/a.ts", from: "../sim/startSimulator.js", allowed: false },
  { file: "lab/a.ts", from: "../commands/output.js", allowed: false },
  { file: "lab/a.ts", from: "../app/runDaemon.js", allowed: false },
  { file: "lab/capture/a.ts", from: "../../daemon/claim/claimer.js", allowed: true },
  { file: "lab/replay/a.ts", from: "../capture/captureReader.js", allowed: true },
  { file: "lab/capture/a.ts", from: "../../sim/startSimulator.js", allowed: false },
  { file: "app/a.ts", from: "../lab/capture/captureQueue.js", allowed: true },
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
  { file: "preflight/a.ts", from: "../daemon/claim/claimer.js", allowed: false },
  { file: "preflight/a.ts", from: "../sim/startSimulator.js", allowed: false },
  { file: "sim/a.ts", from: "../venue/signer.js", allowed: true },
  { file: "sim/a.ts", from: "../venue/errors.js", allowed: true },
  { file: "sim/a.ts", from: "../venue/rest.js", allowed: false },
  { file: "sim/a.ts", from: "../engine/policy.js", allowed: false },
  { file: "sim/a.ts", from: "../daemon/claim/claimer.js", allowed: false },
  { file: "cli.ts", from: "./commands/dispatch.js", allowed: true },
  { file: "cli.ts", from: "./daemon/claim/claimer.js", allowed: false },
  { file: "errors.ts", from: "./commands/dispatch.js", allowed: false },
  // The forms a rule on the import's text lets through: each reaches a forbidden file.
  { file: "daemon/a.ts", from: "./../app/later.js", allowed: false },
  { file: "daemon/a.ts", from: "../engine/../app/later.js", allowed: false },
  { file: "daemon/a.ts", from: "../daemon/../app/later.js", allowed: false },
  { file: "lab/a.ts", from: "../daemon/../sim/startSimulator.js", allowed: false },
  { file: "lab/report/a.ts", from: "../../lab/../sim/startSimulator.js", allowed: false },
  { file: "engine/a.ts", from: "./../venue/rest.js", allowed: false },
  { file: "sim/a.ts", from: "../venue/../venue/rest.js", allowed: false },
  // ... and the forms that look forbidden and reach an allowed file.
  { file: "daemon/a.ts", from: "../app/../engine/policy.js", allowed: true },
  { file: "sim/a.ts", from: "../engine/../venue/signer.js", allowed: true },
];

/** Every way a file can depend on another; each must be judged the same. */
const FORMS: Record<string, (from: string) => string> = {
  static: (from) => `import * as m from "${from}";\nexport const x = m;\n`,
  dynamic: (from) => `export const m = () => import("${from}");\n`,
  typePosition: (from) => `export type T = typeof import("${from}");\n`,
  importType: (from) => `import type * as m from "${from}";\nexport type T = typeof m;\n`,
  exportFrom: (from) => `export * from "${from}";\n`,
  multiLine: (from) => `import {\n  type A,\n  b,\n} from "${from}";\nexport { type A, b };\n`,
  sideEffect: (from) => `import "${from}";\n`,
  worker: (from) =>
    `import { Worker } from "node:worker_threads";\nexport const w = () => new Worker(new URL("${from}", import.meta.url));\n`,
};

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A scratch tree with `files` (path under src/ → text) and an empty module at every path they import. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "liq-layers-"));
  dirs.push(dir);
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(dir, "src", rel)), { recursive: true });
    writeFileSync(join(dir, "src", rel), text);
  };
  for (const [rel, text] of Object.entries(files)) {
    for (const m of text.matchAll(/["'](\.\.?\/[^"']+)\.js["']/g)) {
      const target = posix.normalize(posix.join(posix.dirname(rel), `${m[1]}.ts`));
      if (!(target in files)) write(target, "export const b = 1;\nexport type A = number;\n");
    }
  }
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  return dir;
}

function layers(dir: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [join(ROOT, "scripts/layers.mjs"), dir], { encoding: "utf8" });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("layer rules on resolved paths", () => {
  // Files in folders share one tree (named apart); a root file's layer is its name, so each gets its own.
  const files: Record<string, string> = {};
  const named: { c: Case; form: string; rel: string; alone?: string }[] = [];
  CASES.forEach((c, i) => {
    for (const [form, text] of Object.entries(FORMS)) {
      // A worker needs node:worker_threads, a package the engine may not import.
      if (form === "worker" && (!c.from.startsWith(".") || c.file.startsWith("engine/"))) continue;
      if (!c.file.includes("/")) {
        named.push({ c, form, rel: c.file, alone: layers(tree({ [c.file]: text(c.from) })).out });
        continue;
      }
      const rel = c.file.replace(/\.ts$/, `_${i}_${form}.ts`);
      files[rel] = text(c.from);
      named.push({ c, form, rel });
    }
  });
  const { out } = layers(tree(files));

  test("the scratch tree's run reported in full (its summary line is there)", () => {
    expect(out).toMatch(/layers: \d+ layer findings, 0 import circles/);
  });

  test.each(named)("$c.file importing $c.from ($form): allowed=$c.allowed", ({ c, rel, alone }) => {
    const flagged = new Set((alone ?? out).split("\n").map((l) => l.split(":")[0]));
    expect(flagged.has(`src/${rel}`)).toBe(!c.allowed);
  });

  test("a commented-out import is no import", () => {
    const r = layers(
      tree({ "engine/a.ts": `// import { x } from "../venue/rest.js";\n/*\nimport("../app/later.js")\n*/\nexport const a = 1;\n` }),
    );
    expect(r.out).toContain("no import circle");
    expect(r.status).toBe(0);
  });

  test("an import that reaches no file, or a computed one outside the tools, is reported", () => {
    const r = layers(tree({ "daemon/a.ts": `export const a = (p: string) => import(p);\n`, "daemon/b.ts": `import "./gone.js";\n` }));
    expect(r.status).toBe(1);
    expect(r.out).toContain("src/daemon/a.ts: a computed import()");
  });
});

describe("import circles", () => {
  test("a circle of type-only imports is a circle, and so is a longer one through subfolders", () => {
    const r = layers(
      tree({
        "venue/a.ts": `import type { B } from "./b.js";\nexport type A = B | 1;\n`,
        "venue/b.ts": `import type { A } from "./a.js";\nexport type B = A | 2;\n`,
        "lab/x/c.ts": `import { d } from "../y/d.js";\nexport const c = () => d;\n`,
        "lab/y/d.ts": `export const d = () => import("../z/e.js");\n`,
        "lab/z/e.ts": `export type E = typeof import("../x/c.js");\n`,
      }),
    );
    expect(r.status).toBe(1);
    expect(r.out).toContain("import circle: src/venue/a.ts → src/venue/b.ts → src/venue/a.ts");
    expect(r.out).toContain("import circle: src/lab/x/c.ts → src/lab/y/d.ts → src/lab/z/e.ts → src/lab/x/c.ts");
  });

  test("imports that only go one way are no circle", () => {
    const r = layers(
      tree({ "venue/a.ts": `import type { B } from "./b.js";\nexport type A = B;\n`, "venue/b.ts": `export type B = 2;\n` }),
    );
    expect(r.status).toBe(0);
  });
});

test("the repository's own src/ keeps the rules and has no circle", () => {
  const r = layers(ROOT);
  expect(r.out).toContain("no import circle");
  expect(r.status).toBe(0);
});
