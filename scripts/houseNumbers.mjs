#!/usr/bin/env node
/**
 * The house's numbers (issue #37), measured the same way before and after a change:
 * files and lines per folder of src/, files over 300 lines (and whether the header says why),
 * top-level names declared in more than one file of src/, source comments citing documents that do
 * not exist, fixed sleeps in tests, and exports nobody imports, only their own file uses, or only
 * tests import. Import circles and layer findings are scripts/layers.mjs's.
 *
 * Usage: node scripts/houseNumbers.mjs [section…]   sections: folders big dups docs sleeps exports
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
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
  const EXP =
    /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|type|interface|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;
  const exportsOf = new Map(srcFiles.map((f) => [f, [...text.get(f).matchAll(EXP)].map((m) => m[1])]));
  const usedBy = new Map();
  for (const [f, t] of text) {
    for (const spec of specifiersOf(t)) {
      if (spec === null || !spec.startsWith(".")) continue;
      const target = resolve(dirname(f), spec).replace(/\.js$/, ".ts");
      if (!exportsOf.has(target)) continue;
      for (const name of exportsOf.get(target))
        if (new RegExp(`\\b${name.replace(/\$/g, "\\$")}\\b`).test(t))
          usedBy.set(`${target}#${name}`, [...(usedBy.get(`${target}#${name}`) ?? []), f]);
    }
  }
  const dead = [];
  const local = [];
  const testOnly = [];
  for (const [f, names] of exportsOf) {
    for (const name of names) {
      const users = usedBy.get(`${f}#${name}`) ?? [];
      const ownUses = text.get(f).match(new RegExp(`\\b${name.replace(/\$/g, "\\$")}\\b`, "g")).length;
      if (users.length === 0) (ownUses > 1 ? local : dead).push(`${rel(f)}#${name}`);
      else if (users.every((u) => u.includes(`${sep}test${sep}`))) testOnly.push(`${rel(f)}#${name}`);
    }
  }
  console.log(`## exports: ${dead.length} dead, ${local.length} used only in their own file, ${testOnly.length} imported only by tests`);
  for (const d of dead) console.log(`dead ${d}`);
  for (const d of local) console.log(`local ${d}`);
  for (const d of testOnly) console.log(`test-only ${d}`);
}
