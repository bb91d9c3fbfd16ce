/**
 * Backtest variants: each `--config` file (or the defaults when none), times the cross product of
 * every `--set KEY=V1,V2,…` list. Each variant's config is validated by the daemon's own schema; a
 * `--set` key the schema does not know, or a value it refuses, is a usage error naming it (exit 64).
 * Environment variables are not applied: a backtest reads only captures and config files.
 */
import { basename, extname } from "node:path";
import { parse } from "yaml";
import { OVERRIDE_KEY, withOverrides } from "../../config/configOverrides.js";
import { readYamlFile } from "../../config/loadConfig.js";
import type { Config } from "../../config/schema.js";
import { ConfigError, UsageError } from "../../errors.js";

export interface Variant {
  name: string;
  /** The `--set` values of this variant (and the config file, when several are compared). */
  settings: Record<string, unknown>;
  config: Config;
}

interface SetList {
  key: string;
  values: unknown[];
}

function parseSet(text: string): SetList {
  const eq = text.indexOf("=");
  const key = eq < 0 ? "" : text.slice(0, eq).trim();
  if (eq < 0 || !OVERRIDE_KEY.test(key))
    throw new UsageError(`--set ${text}: expected KEY=V1,V2,… with a dotted config key (e.g. policy.min_fee=1,5)`);
  const raw = text.slice(eq + 1);
  if (raw.trim() === "") throw new UsageError(`--set ${key}: no value`);
  // Each value is a YAML scalar: 5 → number, true → boolean, PERP_ETH_USDC → string.
  const values = raw.split(",").map((v) => parse(v.trim()) as unknown);
  return { key, values };
}

function cross(lists: readonly SetList[]): [string, unknown][][] {
  let out: [string, unknown][][] = [[]];
  for (const l of lists) out = out.flatMap((prefix) => l.values.map((v) => [...prefix, [l.key, v] as [string, unknown]]));
  return out;
}

function label(path: string | undefined): string {
  return path === undefined ? "default" : basename(path, extname(path));
}

export async function buildVariants(configPaths: readonly string[], sets: readonly string[]): Promise<Variant[]> {
  const lists = sets.map(parseSet);
  const seen = new Set<string>();
  for (const l of lists) {
    if (seen.has(l.key)) throw new UsageError(`--set ${l.key} given twice; put every value in one list`);
    seen.add(l.key);
  }
  const files: (string | undefined)[] = configPaths.length === 0 ? [undefined] : [...configPaths];
  const out: Variant[] = [];
  for (const file of files) {
    const base = file === undefined ? {} : await readYamlFile(file);
    for (const combo of cross(lists)) {
      const r = withOverrides(base, combo);
      if (!r.ok) {
        if (r.culprit !== undefined) {
          const [k, v] = r.culprit.override;
          throw new UsageError(`--set ${k}=${JSON.stringify(v)}: ${r.culprit.problem}`);
        }
        const first = r.problems[0];
        throw new ConfigError(first?.key ?? file ?? "config", `${first?.problem ?? "invalid"}${file ? ` (in ${file})` : ""}`);
      }
      const settings: Record<string, unknown> = {};
      if (files.length > 1) settings.config = file ?? "default";
      for (const [k, v] of combo) settings[k] = v;
      const name = [label(file), ...combo.map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)].join(" ");
      out.push({ name, settings, config: r.config });
    }
  }
  const routes = [...new Set(out.map((v) => v.config.insurance_fund.route))];
  if (routes.length > 1)
    throw new UsageError(
      `insurance_fund.route differs between variants (${routes.join(", ")}): it is the venue's claim form, not a strategy, and one replay offers the fund's rows one way; run one backtest per route`,
    );
  return out;
}
