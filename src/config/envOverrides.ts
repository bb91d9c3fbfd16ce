/**
 * Environment variables over the YAML (README.md "Configuration"; each key declares its variable).
 * Values are coerced here (ports, booleans) and then validated by the schema like any YAML value.
 * An empty variable counts as unset: container platforms often pass `VAR=` for "not configured".
 */
import { configFields } from "./fields.js";
import type { Problem } from "./issues.js";

type EnvKind = "string" | "boolean" | "number";

export interface EnvOverride {
  variable: string;
  /** Dotted config key, e.g. `venue.base_url`. */
  key: string;
  kind: EnvKind;
}

/** Every variable that overrides a config key, from the keys' own declarations (fields.ts). */
const ENV_OVERRIDES: readonly EnvOverride[] = configFields().flatMap((f) =>
  f.env === undefined
    ? []
    : [{ variable: f.env, key: f.key, kind: f.kind === "boolean" ? "boolean" : f.kind === "number" ? "number" : "string" }],
);

const TRUE_WORDS = new Set(["1", "true", "yes"]);
const FALSE_WORDS = new Set(["0", "false", "no"]);

/** `1/true/yes` and `0/false/no`, case-insensitive; undefined for anything else. */
function parseBooleanWord(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** A plain decimal number (`12`, `-3`, `0.5`); undefined for anything else. The schema checks its range. */
function parseDecimal(text: string): number | undefined {
  const t = text.trim();
  return /^-?\d{1,15}(\.\d{1,15})?$/.test(t) ? Number(t) : undefined;
}

export interface EnvOverrideResult {
  /** The raw config with the overrides written in (a copy; the input is not modified). */
  raw: Record<string, unknown>;
  /** Dotted key → the variable that set it, so a validation problem can name the variable. */
  fromEnv: Map<string, string>;
  problems: Problem[];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Writes every set variable into a copy of `raw`. A section that is absent or null in the YAML is
 * created; a section of the wrong type is left alone for the schema to report.
 */
export function applyEnvOverrides(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): EnvOverrideResult {
  const out: Record<string, unknown> = structuredClone(raw);
  const fromEnv = new Map<string, string>();
  const problems: Problem[] = [];
  for (const { variable, key, kind } of ENV_OVERRIDES) {
    const text = env[variable];
    if (text === undefined || text === "") continue;
    let value: unknown = text;
    if (kind === "boolean") {
      value = parseBooleanWord(text);
      if (value === undefined) {
        problems.push({ key: variable, problem: `(${key}) must be one of 1, true, yes, 0, false, no (case-insensitive)` });
        continue;
      }
    } else if (kind === "number") {
      value = parseDecimal(text);
      if (value === undefined) {
        problems.push({ key: variable, problem: `(${key}) must be a number` });
        continue;
      }
    }
    const [sectionName, ...rest] = key.split(".");
    const leaf = rest.pop();
    if (sectionName === undefined || leaf === undefined) continue;
    let target = out;
    let ok = true;
    for (const part of [sectionName, ...rest]) {
      const next = target[part];
      if (next === undefined || next === null) target[part] = {};
      else if (!isPlainObject(next)) {
        ok = false;
        break;
      }
      target = target[part] as Record<string, unknown>;
    }
    if (!ok) continue;
    target[leaf] = value;
    fromEnv.set(key, variable);
  }
  return { raw: out, fromEnv, problems };
}

/** Test hooks: exported for tests only, under names that say so (docs/architecture.md rule 11). */
export { ENV_OVERRIDES as ENV_OVERRIDES_FOR_TESTS };
