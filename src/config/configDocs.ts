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

const MARKERS = {
  env: ["<!-- config:env:start -->", "<!-- config:env:end -->"],
  policy: ["<!-- config:policy:start -->", "<!-- config:policy:end -->"],
} as const;

export function envTable(): string {
  const rows = [...EXTRA_VARIABLES.map((e) => `| ${e.variable} | ${e.key} | ${e.meaning} |`)];
  for (const f of configFields()) if (f.env !== undefined) rows.push(`| \`${f.env}\` | \`${f.key}\` | ${f.description} |`);
  return ["| variable | config key | meaning |", "| --- | --- | --- |", ...rows].join("\n");
}

export function policyTable(): string {
  const rows: string[] = [];
  for (const f of configFields()) {
    if (!f.key.startsWith("policy.") || f.key === "policy.dry_run") continue;
    rows.push(`| \`${f.key.slice("policy.".length)}\` | ${f.description} |`);
  }
  return ["| key | meaning |", "| --- | --- |", ...rows].join("\n");
}

/** `readme` with both tables replaced; throws when a marker is missing. */
export function withConfigTables(readme: string): string {
  let out = readme;
  for (const [name, [start, end]] of Object.entries(MARKERS)) {
    const i = out.indexOf(start);
    const j = out.indexOf(end);
    if (i < 0 || j < i) throw new Error(`README.md lacks the ${start} … ${end} markers`);
    const table = name === "env" ? envTable() : policyTable();
    out = `${out.slice(0, i + start.length)}\n${table}\n${out.slice(j)}`;
  }
  return out;
}
