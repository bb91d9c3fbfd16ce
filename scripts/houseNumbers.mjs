#!/usr/bin/env node
/**
 * The house's numbers (issue #37), measured the same way before and after a change:
 * files and lines per folder of src/, files over 300 lines (and whether the header says why),
 * top-level names declared in more than one file of src/, source comments citing documents that do
 * not exist, fixed sleeps in tests, and exports that are not API: nobody uses them, only their own
 * file uses them, or only tests import them. Import circles and layer findings are scripts/layers.mjs's.
 *
 * The rule for exports (docs/architecture.md rule 11): an export is API when another src file uses
 * it or when it is part of the signature of one that is (tsc's declaration emit decides: an options
 * or result type, the `typeof` a type is derived from). What only tests reach into is either
 * reachable through the API (and tested that way), or lives in test/support, or is exported under a
 * name ending in `ForTests`, so a reader tells a module's API from its test hooks by the name.
 * The exports section runs tsc once (about 6 s); `export … from` re-exports are not counted.
 *
 * Usage: node scripts/houseNumbers.mjs [section…]   sections: folders big dups docs sleeps exports
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { specifiersOf } from "./layers.mjs";

const root = resolve(".");
const list = (dir) =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? list(p) : n.endsWith(".ts") ? [p] : [];
  });
const rel = (p) => relative(root, p).split(sep).join("/");
const srcFiles = list(join(root, "src"));
const testFiles = list(join(root, "test"));
const text = new Map([...srcFiles, ...testFiles].map((f) => [f, readFileSync(f, "utf8")]));
const lines = (f) => text.get(f).split("\n").length - (text.get(f).endsWith("\n") ? 1 : 0);
const want = new Set(process.argv.slice(2));
const show = (s) => want.size === 0 || want.has(s);

if (show("folders")) {
  const per = new Map();
  for (const f of srcFiles) {
    const d = rel(dirname(f));
    const [n, l] = per.get(d) ?? [0, 0];
    per.set(d, [n + 1, l + lines(f)]);
  }
  console.log("## files and lines per folder");
  for (const [d, [n, l]] of [...per].sort()) console.log(`${d.padEnd(28)} ${String(n).padStart(3)} files ${String(l).padStart(6)} lines`);
}

if (show("big")) {
  const big = srcFiles.filter((f) => lines(f) > 300).sort((a, b) => lines(b) - lines(a));
  console.log(`## src files over 300 lines: ${big.length} (over 400: ${big.filter((f) => lines(f) > 400).length})`);
  for (const f of big) {
    const head = text.get(f).split("\n").slice(0, 40).join("\n");
    console.log(`${String(lines(f)).padStart(4)} ${rel(f)}${/Longer than most files:/.test(head) ? "  (header says why)" : ""}`);
  }
}

if (show("dups")) {
  const DECL = /^(?:export\s+)?(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|type|interface|enum)\s+([A-Za-z_$][\w$]*)/gm;
  const where = new Map();
  for (const f of srcFiles) for (const m of text.get(f).matchAll(DECL)) where.set(m[1], [...(where.get(m[1]) ?? []), rel(f)]);
  const dups = [...where].filter(([, fs]) => new Set(fs).size > 1).sort();
  console.log(`## top-level names declared in more than one src file: ${dups.length}`);
  for (const [n, fs] of dups) console.log(`${n}: ${[...new Set(fs)].join(", ")}`);
}

if (show("docs")) {
  const cite = (re) => srcFiles.filter((f) => re.test(text.get(f)));
  const proto = cite(/\bPROTOCOL(\.md)?\s?§|\bPROTOCOL\.md\b/);
  const iface = cite(/\bINTERFACE\b/);
  console.log(`## src files citing PROTOCOL(.md) (not in the repository): ${proto.length}; citing INTERFACE: ${iface.length}`);
  const docRefs = new Map();
  for (const f of srcFiles)
    for (const m of text.get(f).matchAll(/\b((?:docs\/)?[\w-]+\.md)\b/g)) docRefs.set(m[1], [...(docRefs.get(m[1]) ?? []), rel(f)]);
  for (const [d, fs] of [...docRefs].sort()) {
    const ok = existsSync(join(root, d)) || existsSync(join(root, "docs", d));
    if (!ok) console.log(`cites ${d} (no such file) in ${new Set(fs).size} files`);
  }
}

if (show("sleeps")) {
  // A fixed sleep: a wait for a set time (not a fault's injected delay, not a race's timeout). One
  // that says on its line what it paces (a trailing comment) is counted apart.
  const SLEEP =
    /(?<![.\w])(?:sleep|delay)\(\s*\d[\d_]*\s*[,)]|new Promise\(\s*\(?\s*\w+\s*\)?\s*=>\s*setTimeout\(\s*\w+\s*,\s*\d[\d_]*\s*\)\s*\)/;
  let n = 0;
  let commented = 0;
  const per = [];
  for (const f of testFiles) {
    let k = 0;
    for (const line of text.get(f).split("\n")) {
      if (!SLEEP.test(line) || line.includes("Promise.race")) continue;
      k++;
      if (/\/\/ /.test(line.slice(line.search(SLEEP)))) commented++;
    }
    if (k > 0) per.push([k, rel(f)]);
    n += k;
  }
  console.log(`## fixed sleeps in test/: ${n} in ${per.length} files (${commented} say on their line what they pace)`);
  for (const [k, f] of per.sort((a, b) => b[0] - a[0])) console.log(`${String(k).padStart(3)} ${f}`);
}

if (show("exports")) {
  // What a module's API is, decided by the compiler rather than by eye: tsc's declaration emit keeps
  // a file's exports plus exactly the unexported declarations their signatures need. So an export
  // is API when another src file uses it, or when its name occurs in the emitted declaration of an
  // API export of its file (an options or result type: transitively). Everything else is reported:
  //   dead        nobody uses it, not even its own file;
  //   local       only its own file uses it and no exported declaration needs it: unexport it;
  //   test-only   only tests import it and it is not API: unexport it and test through the API, move
  //               it to test/support, or export it under a name that ends in `ForTests`
  //               (`export { x as xForTests }`), which is counted apart as "named for tests".
  // An export only its own file uses that appears in some exported declaration (of an export anyone
  // imports) stays exported: it is part of that signature, a caller may name it.
  const EXP =
    /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|type|interface|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;
  const LIST = /^export\s+(?:type\s+)?\{([^}]*)\}\s*;/gm; // `export { a, b as bForTests };` (not `… from`)
  const listed = (t) =>
    [...t.matchAll(LIST)].flatMap((m) =>
      m[1]
        .split(",")
        .map((x) => x.trim().replace(/^type\s+/, ""))
        .filter(Boolean)
        .map((x) => x.split(/\s+as\s+/).at(-1)),
    );
  const exportsOf = new Map(srcFiles.map((f) => [f, [...[...text.get(f).matchAll(EXP)].map((m) => m[1]), ...listed(text.get(f))]]));
  // `export { a }` of a name the file imports passes it on: its own file's uses do not count.
  const reexported = (f, name) => new RegExp(`^import\\b[^;]*\\b${name.replace(/\$/g, "\\$")}\\b[^;]*\\bfrom\\b`, "m").test(text.get(f));
  const word = (name, flags) => new RegExp(`\\b${name.replace(/\$/g, "\\$")}\\b`, flags);
  const usedBy = new Map();
  for (const [f, t] of text) {
    for (const spec of specifiersOf(t)) {
      if (spec === null || !spec.startsWith(".")) continue;
      const target = resolve(dirname(f), spec).replace(/\.js$/, ".ts");
      if (!exportsOf.has(target)) continue;
      for (const name of exportsOf.get(target))
        if (word(name).test(t)) usedBy.set(`${target}#${name}`, [...(usedBy.get(`${target}#${name}`) ?? []), f]);
    }
  }
  const signatures = declarationRefs();
  const isTest = (u) => u.includes(`${sep}test${sep}`);
  const FOR_TESTS = /(?:ForTests|_FOR_TESTS)$/;
  const kinds = { dead: [], local: [], "test-only": [], "in-signature": [], "api-type": [], "named-for-tests": [] };
  for (const [f, names] of exportsOf) {
    const users = (name) => (usedBy.get(`${f}#${name}`) ?? []).filter((u) => u !== f);
    const refs = signatures(f);
    const reach = (roots) => {
      const seen = new Set();
      const walk = (n) => {
        for (const r of refs.get(n) ?? []) if (!seen.has(r)) seen.add(r) && walk(r);
      };
      for (const r of roots) walk(r);
      return seen;
    };
    const inApi = reach(names.filter((n) => users(n).some((u) => !isTest(u))));
    const inAny = reach(names.filter((n) => users(n).length > 0 || FOR_TESTS.test(n)));
    for (const name of names) {
      const us = users(name);
      const id = `${rel(f)}#${name}`;
      if (us.some((u) => !isTest(u))) continue;
      if (us.length > 0) kinds[inApi.has(name) ? "api-type" : FOR_TESTS.test(name) ? "named-for-tests" : "test-only"].push(id);
      else if (FOR_TESTS.test(name)) kinds["named-for-tests"].push(id);
      else if (reexported(f, name)) kinds.dead.push(id);
      else if (text.get(f).match(word(name, "g")).length > 1) kinds[inAny.has(name) ? "in-signature" : "local"].push(id);
      else kinds.dead.push(id);
    }
  }
  const k = (n) => kinds[n].length;
  console.log(
    `## exports: ${k("dead")} dead, ${k("local")} used only in their own file and in no exported signature, ` +
      `${k("test-only")} imported only by tests and not API`,
  );
  console.log(
    `   (fine: ${k("in-signature")} used only in their own file but part of an exported signature, ` +
      `${k("api-type")} imported by tests and part of the signature of an export src uses, ` +
      `${k("named-for-tests")} exported for tests under a name that says so)`,
  );
  for (const kind of ["dead", "local", "test-only"]) for (const d of kinds[kind]) console.log(`${kind} ${d}`);
  if (want.has("exports"))
    for (const kind of ["in-signature", "api-type", "named-for-tests"]) for (const d of kinds[kind]) console.log(`${kind} ${d}`);
}

/**
 * Runs tsc's declaration emit over src/ once and answers, per source file, which declared names
 * each top-level declaration of its .d.ts mentions (member and parameter names left out: only
 * what a signature refers to). A .d.ts has no bodies, so a mention is a use in a signature.
 */
function declarationRefs() {
  const out = mkdtempSync(join(tmpdir(), "house-decl-"));
  try {
    execFileSync(
      join(root, "node_modules", ".bin", "tsc"),
      [
        "-p",
        "tsconfig.json",
        "--noEmit",
        "false",
        "--declaration",
        "--emitDeclarationOnly",
        "--removeComments",
        "--rootDir",
        ".",
        "--outDir",
        out,
      ],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
  } catch (e) {
    throw new Error(`declaration emit failed: ${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
  const DECLARES =
    /^(?:export\s+)?(?:declare\s+)?(?:abstract\s+)?(?:const|let|var|function|class|type|interface|enum|namespace)\s+([A-Za-z_$][\w$]*)/;
  const byFile = new Map();
  for (const f of srcFiles) {
    const d = join(out, relative(root, f).replace(/\.ts$/, ".d.ts"));
    const statements = [];
    for (const line of existsSync(d) ? readFileSync(d, "utf8").split("\n") : []) {
      if (/^[^\s})\]|&]/.test(line)) statements.push([line]);
      else statements.at(-1)?.push(line);
    }
    const decls = statements.flatMap((s) => {
      const m = DECLARES.exec(s[0]);
      if (m === null) return [];
      const body = s
        .join("\n")
        .slice(m[0].length)
        .replace(/^\s+(?:(?:readonly|static|get|set|private|protected|abstract|async)\s+)*[\w$#]+\??(?=[(<:])/gm, "")
        .replace(/[\w$]+\??:/g, "")
        .replace(/"(?:[^"\\]|\\.)*"/g, "");
      return [[m[1], body]];
    });
    // A name the .d.ts imports is a declaration too: `export type { X }` of an imported options type.
    for (const s of statements) {
      const m = /^import\s+(?:type\s+)?\{([^}]*)\}/.exec(s.join(" "));
      for (const part of m?.[1].split(",") ?? []) {
        const name = part
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)
          .at(-1);
        if (name) decls.push([name, ""]);
      }
    }
    // `declare const x…; export { x as xForTests };` — the exported alias stands for its declaration.
    for (const s of statements) {
      const m = /^export\s+\{([^}]*)\}/.exec(s[0]);
      for (const part of m?.[1].split(",") ?? []) {
        const [local, alias] = part.trim().split(/\s+as\s+/);
        if (alias !== undefined) decls.push([alias, decls.find(([n]) => n === local)?.[1] ?? ""]);
      }
    }
    const names = new Set(decls.map(([n]) => n));
    const refs = new Map();
    for (const [n, body] of decls)
      for (const other of names)
        if (other !== n && new RegExp(`(?<![\\w$.])${other.replace(/\$/g, "\\$")}(?![\\w$])`).test(body))
          refs.set(n, new Set([...(refs.get(n) ?? []), other]));
    byFile.set(f, refs);
  }
  rmSync(out, { recursive: true, force: true });
  return (f) => byFile.get(f) ?? new Map();
}
