/**
 * The documents point at things that exist: every relative link of docs/ and the READMEs (src/'s
 * folder READMEs included) reaches a file, and its `#anchor` a heading of that file; every document a
 * source comment names (`docs/<name>.md`) exists; every `docs/protocol.md §N` cited in src/ and test/ is a
 * section of docs/protocol.md (the appendix's §A.N, one of its parts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, test } from "vitest";
import { ROOT } from "../support/buildOnce.js";

function files(dir: string, ext: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (n === "node_modules" || n.startsWith(".")) return [];
    return statSync(p).isDirectory() ? files(p, ext) : p.endsWith(ext) ? [p] : [];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*]/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchorsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (m === null) continue;
    const s = slug(m[1] as string);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n === 0 ? s : `${s}-${n}`);
  }
  return out;
}

/** Relative links of a markdown text, outside code fences and code spans. */
function linksOf(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] as string;
      if (!/^[a-z]+:/i.test(target)) out.push(target);
    }
  }
  return out;
}

const markdown = [join(ROOT, "README.md"), ...files(join(ROOT, "docs"), ".md"), ...files(join(ROOT, "src"), ".md")];

describe("relative links in the documents", () => {
  test.each(markdown.map((f) => ({ doc: relative(ROOT, f), path: f })))("$doc", ({ path }) => {
    const broken: string[] = [];
    for (const link of linksOf(readFileSync(path, "utf8"))) {
      const [file, anchor] = link.split("#") as [string, string | undefined];
      const target = file === "" ? path : join(dirname(path), decodeURIComponent(file));
      if (!existsSync(target)) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (anchor !== undefined && anchor !== "" && target.endsWith(".md") && !anchorsOf(readFileSync(target, "utf8")).has(anchor))
        broken.push(`${link}: no such heading`);
    }
    expect(broken).toEqual([]);
  });
});

describe("documents the code cites", () => {
  const code = [...files(join(ROOT, "src"), ".ts"), ...files(join(ROOT, "test"), ".ts")];
  const protocol = readFileSync(join(ROOT, "docs/protocol.md"), "utf8");
  const appendix = protocol.slice(protocol.indexOf("\n## A."));
  const sections = new Set([...protocol.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1] as string));

  test("every docs/*.md a source comment names exists", () => {
    const missing = new Set<string>();
    for (const f of code)
      for (const m of readFileSync(f, "utf8").matchAll(/\bdocs\/([\w-]+\.md)\b/g))
        if (!existsSync(join(ROOT, "docs", m[1] as string))) missing.add(`${relative(ROOT, f)}: docs/${m[1]}`);
    expect([...missing]).toEqual([]);
  });

  test("every docs/protocol.md §N cited is a section of it", () => {
    const missing: string[] = [];
    for (const f of code) {
      for (const m of readFileSync(f, "utf8").matchAll(/docs\/protocol\.md ?§ ?([0-9A]+(?:\.[0-9]+)*)/g)) {
        const n = m[1] as string;
        const ok = n.startsWith("A") ? n === "A" || appendix.includes(n) : sections.has(n);
        if (!ok) missing.push(`${relative(ROOT, f)}: §${n}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("no source comment cites a document the repository does not have", () => {
    const stale: string[] = [];
    for (const f of code) {
      const text = readFileSync(f, "utf8");
      if (/\bPROTOCOL(\.md)?\s?§|\bINTERFACE(\.md)?\b|\bSPEC\.md\b/.test(text)) stale.push(relative(ROOT, f));
    }
    expect(stale).toEqual([]);
  });
});
