#!/usr/bin/env node
/**
 * The layer rules and the import circles, checked on RESOLVED paths (`npm run lint` runs it).
 *
 * Every import of every file under src/ is found — static, `export … from`, side-effect, dynamic,
 * type-position `import("…")`, `import type`, and a worker's `new Worker(new URL("./x.js", import.meta.url))` —
 * and resolved against its file, so `./../app/x.js`, `../engine/../app/x.js` or a subfolder's
 * `../../sim/x.js` are judged by the file they reach, not by how they are spelled. A folder may import
 * only the folders below it (LAYERS), a room of daemon/ or lab/ only the rooms below it (ROOMS); a circle of imports inside src/ is an error whether its edges
 * carry values or only types (a type circle is a design circle too, and the next value import makes
 * it a load-order bug). test/unit/layers.test.ts runs this on scratch trees, escaping forms included.
 *
 * Usage: node scripts/layers.mjs [root]   (root defaults to the current directory; exit 1 on findings)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const LEAVES = ["errors", "sleep", "redaction"];
const BELOW_DAEMON = ["core", "engine", "venue", "observe", "store", "config", ...LEAVES];
const PRODUCT = [...BELOW_DAEMON, "daemon", "lab", "app", "sim"];

/**
 * What each layer may import: folders under src/ by name, root leaves (src/errors.ts …) by file
 * name, or single files by path under src/. `packages: false` forbids packages and node: builtins.
 * The messages say why; docs/architecture.md "Layer rules" is the same table in prose.
 */
export const LAYERS = {
  engine: { may: ["errors"], packages: false, why: "the engine is pure: it imports only engine/ and errors.ts, no package" },
  venue: { may: ["engine", "errors", "sleep"], why: "venue/ speaks the venue's protocol: engine/ types, errors.ts and sleep.ts" },
  config: { may: ["engine", "venue", "errors", "redaction"], why: "config/ sits below the running parts" },
  observe: { may: ["engine", "venue", ...LEAVES], why: "observe/ (metrics, logs, health) sits below daemon/" },
  core: {
    may: ["engine", "venue", "observe", "errors"],
    why: "the trading core sees the engine, the venue's types and labels, nothing that runs",
  },
  store: { may: ["core", "engine", "venue", ...LEAVES], why: "store/ keeps the core's records: never config, daemon, app or tools" },
  daemon: {
    may: BELOW_DAEMON,
    why: "daemon/ wires I/O to the core: never the lab, the simulator, the composition root, commands or tools",
  },
  lab: {
    may: [...BELOW_DAEMON, "daemon"],
    why: "lab/ replays the daemon's own code: never the simulator, the composition root, commands or tools",
  },
  app: { may: [...BELOW_DAEMON, "daemon", "lab", "sim"], why: "app/ is the composition root of `run`: never commands or tools" },
  commands: { may: [...PRODUCT, "ops", "preflight"], why: "commands/ may use everything the product ships; never bench/ or soak/" },
  bench: { may: PRODUCT, why: "bench/ is a tool: never commands/ or soak/" },
  soak: { may: PRODUCT, why: "soak/ is a tool: never commands/ or bench/" },
  ops: { may: [], why: "ops/ renders deployment files: it imports nothing of the daemon" },
  preflight: {
    may: ["engine", "venue", "config", "observe", "app", ...LEAVES],
    why: "preflight/ asks the venue with the daemon's own client: never the running parts, the simulator, commands or tools",
  },
  sim: {
    may: ["venue/signer.ts", "venue/errors.ts", "errors"],
    why: "the simulator is the venue: it shares only venue/signer.ts, venue/errors.ts and errors.ts",
  },
  cli: { may: ["commands", ...LEAVES], why: "cli.ts only dispatches to commands/" },
  errors: { may: LEAVES, why: "the root leaves import only each other" },
  sleep: { may: LEAVES, why: "the root leaves import only each other" },
  redaction: { may: LEAVES, why: "the root leaves import only each other" },
};

/**
 * Rooms inside a folder (its README says what each owns): a subfolder may import only the rooms
 * listed for it (and anything its folder may import); a file at the folder's top (daemon/daemon.ts)
 * may import every room, and no room imports it. Folders not listed here have no rooms.
 */
export const ROOMS = {
  daemon: {
    records: [],
    unwind: [],
    claim: ["unwind"],
    feeds: ["claim", "records"],
    control: ["claim", "records", "unwind"],
  },
  lab: {
    capture: [],
    sweep: [],
    prepared: ["capture"],
    replay: ["capture", "prepared", "sweep"],
    report: ["capture", "prepared", "replay", "sweep"],
    shadow: ["capture", "replay", "sweep"],
  },
};

/** `daemon/claim/x.ts` → "claim"; a file at its folder's top → undefined. */
function roomOf(srcRel) {
  const parts = srcRel.split("/");
  return parts.length >= 3 ? parts[1] : undefined;
}

/** Why an import between two rooms of one folder is not allowed, or undefined when it is. */
function roomFinding(from, to) {
  const rooms = ROOMS[layerOf(from)];
  if (rooms === undefined) return undefined;
  const a = roomOf(from);
  const b = roomOf(to);
  if (a === b) return undefined;
  if (a === undefined) return undefined;
  if (b === undefined) return `a room of ${layerOf(from)}/ does not import its folder's top`;
  if (rooms[a] === undefined) return `${layerOf(from)}/${a}/ is not a room of ROOMS in scripts/layers.mjs`;
  return rooms[a].includes(b)
    ? undefined
    : `${layerOf(from)}/${a}/ may import only ${rooms[a].map((r) => `${r}/`).join(", ") || "no other room"} of ${layerOf(from)}/`;
}

/** Tools load built files by computed paths; anywhere else an import must name its file. */
const COMPUTED_IMPORTS_ALLOWED = new Set(["bench", "soak"]);

/** `src/daemon/claim/x.ts` → "daemon"; `src/errors.ts` → "errors". */
export function layerOf(srcRel) {
  const parts = srcRel.split("/");
  return parts.length === 1 ? parts[0].replace(/\.ts$/, "") : parts[0];
}

function listTs(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTs(p));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

/** Code without comment lines (a commented-out import imports nothing). */
function codeOf(text) {
  const keep = [];
  let inBlock = false;
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (inBlock) {
      if (t.includes("*/")) inBlock = false;
      continue;
    }
    if (t.startsWith("//")) continue;
    if (t.startsWith("/*")) {
      if (!t.includes("*/")) inBlock = true;
      continue;
    }
    keep.push(line);
  }
  return keep.join("\n");
}

const STATIC = /(?:^|[;}\n])\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"'\n]+)["']/g;
const BARE = /(?:^|[;}\n])\s*import\s*["']([^"'\n]+)["']/g;
const DYNAMIC = /\bimport\s*\(\s*(?:["'`]([^"'`\n]+)["'`]\s*[),]|([^)\s]))/g;
const WORKER_URL = /new\s+Worker\(\s*new\s+URL\(\s*["'](\.{1,2}\/[^"'\n]+\.js)["']\s*,\s*import\.meta\.url/g;

/** Every import specifier in a file's code; `null` for a computed dynamic import. */
export function specifiersOf(text) {
  const code = codeOf(text);
  const out = [];
  for (const re of [STATIC, BARE, WORKER_URL]) for (const m of code.matchAll(re)) out.push(m[1]);
  for (const m of code.matchAll(DYNAMIC)) out.push(m[1] ?? null);
  return out;
}

/** The file a relative specifier reaches (`.js` written, `.ts` on disk), or undefined. */
function resolveFile(from, spec) {
  const p = resolve(dirname(from), spec);
  for (const c of [p.replace(/\.js$/, ".ts"), p, `${p}.ts`, join(p, "index.ts")]) if (existsSync(c) && statSync(c).isFile()) return c;
  return undefined;
}

function allowed(rule, targetRel) {
  const layer = layerOf(targetRel);
  return rule.may.includes(layer) || rule.may.includes(targetRel);
}

/** Layer findings and import circles of the tree at `root` (its src/). */
export function checkTree(root) {
  const src = join(root, "src");
  const files = listTs(src);
  const rel = (p) => relative(src, p).split(sep).join("/");
  const findings = [];
  const edges = new Map();
  for (const file of files) {
    const from = rel(file);
    const layer = layerOf(from);
    const rule = LAYERS[layer];
    const out = new Set();
    edges.set(from, out);
    for (const spec of specifiersOf(readFileSync(file, "utf8"))) {
      if (spec === null) {
        if (!COMPUTED_IMPORTS_ALLOWED.has(layer)) findings.push(`src/${from}: a computed import() cannot be checked; name the file`);
        continue;
      }
      if (!spec.startsWith(".")) {
        if (rule?.packages === false) findings.push(`src/${from}: imports the package "${spec}": ${rule.why}`);
        continue;
      }
      const target = resolveFile(file, spec);
      if (target === undefined) {
        findings.push(`src/${from}: imports "${spec}", which resolves to no file`);
        continue;
      }
      const to = relative(src, target).startsWith("..") ? undefined : rel(target);
      if (to === undefined) {
        findings.push(`src/${from}: imports "${spec}", outside src/`);
        continue;
      }
      out.add(to);
      if (layerOf(to) === layer) {
        const why = roomFinding(from, to);
        if (why !== undefined) findings.push(`src/${from}: imports "${spec}" (src/${to}): ${why}`);
        continue;
      }
      if (rule === undefined)
        findings.push(`src/${from}: its folder "${layer}" has no layer rule (add it to LAYERS in scripts/layers.mjs)`);
      else if (!allowed(rule, to)) findings.push(`src/${from}: imports "${spec}" (src/${to}): ${rule.why}`);
    }
  }
  return { files: files.length, findings, circles: circlesOf(edges) };
}

/** Strongly connected components with more than one file (or a file importing itself), each as one circle's path. */
export function circlesOf(edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const comps = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || edges.get(v)?.has(v)) comps.push(comp);
    }
  };
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) visit(v);
  return comps.map((comp) => pathIn(comp, edges));
}

/** One circle through the component's first file (breadth-first back to it). */
function pathIn(comp, edges) {
  const inComp = new Set(comp);
  const start = [...comp].sort()[0];
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift();
    for (const w of edges.get(v) ?? []) {
      if (!inComp.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = prev.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { files, findings, circles } = checkTree(resolve(process.argv[2] ?? "."));
  for (const f of findings) console.error(f);
  for (const c of circles) console.error(`import circle: ${c.map((f) => `src/${f}`).join(" → ")}`);
  if (findings.length + circles.length > 0) {
    console.error(`layers: ${findings.length} layer findings, ${circles.length} import circles in ${files} files`);
    // exitCode, not exit(): a piped stderr is written asynchronously and exit() would cut it short.
    process.exitCode = 1;
  } else console.log(`layers: ${files} files, every import inside its layer rules, no import circle`);
}
