/**
 * The README's configuration tables, rendered from the schema's own declarations (fields.ts):
 * `npm run docs:config` writes them between their markers, and a test fails when the README is stale.
 */
import { configFields } from "./fields.js";

/** Variables that are not config keys. */
const EXTRA_VARIABLES = [
  { variable: "`LIQUIDATOR_CONFIG`", key: "–", meaning: "config file path (also `--config`)" },
  {
    variable: "`LIQUIDATOR_SECRET` / `LIQUIDATOR_SECRET_FILE`",
    key: "–",
    meaning: "the ed25519 secret (base58 seed); never in the YAML, never logged; a secret file readable by group or others is refused",
  },
];

/** Tables of the README, each between its markers: the variables, then the keys of a section. */
const TABLES: Record<string, () => string> = {
  env: () => envTable(),
  policy: () => sectionTable("policy", ["dry_run"]),
  unwind: () => sectionTable("unwind", []),
  protections: () => sectionTable("protections", []),
};

function envTable(): string {
  const rows = [...EXTRA_VARIABLES.map((e) => `| ${e.variable} | ${e.key} | ${e.meaning} |`)];
  for (const f of configFields()) if (f.env !== undefined) rows.push(`| \`${f.env}\` | \`${f.key}\` | ${f.description} |`);
  return ["| variable | config key | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}

/** The keys of one section (without the section's name), except `skip`. */
function sectionTable(section: string, skip: readonly string[]): string {
  const rows: string[] = [];
  for (const f of configFields()) {
    if (!f.key.startsWith(`${section}.`)) continue;
    const key = f.key.slice(section.length + 1);
    if (!skip.includes(key)) rows.push(`| \`${key}\` | ${f.description} |`);
  }
  return ["| key | meaning |", "| --- | --- |", ...rows].join("\n");
}

/** `readme` with both tables replaced; throws when a marker is missing. */
export function withConfigTables(readme: string): string {
  let out = readme;
  for (const [name, render] of Object.entries(TABLES)) {
    const start = `<!-- config:${name}:start -->`;
    const end = `<!-- config:${name}:end -->`;
    const i = out.indexOf(start);
    const j = out.indexOf(end);
    if (i < 0 || j < i) throw new Error(`README.md lacks the ${start} … ${end} markers`);
    out = `${out.slice(0, i + start.length)}\n${render()}\n${out.slice(j)}`;
  }
  return out;
}
