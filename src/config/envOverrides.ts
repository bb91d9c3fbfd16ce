/**
 * Environment variables over the YAML (INTERFACE.md "Configuration" table, plus LIQUIDATOR_LOG_PRETTY).
 * Values are coerced here (ports, booleans) and then validated by the schema like any YAML value.
 * An empty variable counts as unset: container platforms often pass `VAR=` for "not configured".
 */
import type { Problem } from "./issues.js";

export type EnvKind = "string" | "boolean" | "port";

export interface EnvOverride {
  variable: string;
  /** Dotted config key, e.g. `venue.base_url`. */
  key: string;
  kind: EnvKind;
}

export const ENV_OVERRIDES: readonly EnvOverride[] = [
  { variable: "LIQUIDATOR_VENUE", key: "venue.mode", kind: "string" },
  { variable: "LIQUIDATOR_BASE_URL", key: "venue.base_url", kind: "string" },
  { variable: "LIQUIDATOR_WS_URL", key: "venue.ws_url", kind: "string" },
  { variable: "LIQUIDATOR_WS_PRIVATE_URL", key: "venue.ws_private_url", kind: "string" },
  { variable: "LIQUIDATOR_HEADER_PREFIX", key: "venue.header_prefix", kind: "string" },
  { variable: "LIQUIDATOR_ACCOUNT_ID", key: "venue.account_id", kind: "string" },
  { variable: "LIQUIDATOR_ALLOW_INSECURE", key: "venue.allow_insecure", kind: "boolean" },
  { variable: "LIQUIDATOR_METRICS_HOST", key: "metrics.host", kind: "string" },
  { variable: "LIQUIDATOR_METRICS_PORT", key: "metrics.port", kind: "port" },
  { variable: "LIQUIDATOR_STATE_DIR", key: "state.dir", kind: "string" },
  { variable: "LIQUIDATOR_DRY_RUN", key: "policy.dry_run", kind: "boolean" },
  { variable: "LIQUIDATOR_LOG_LEVEL", key: "log.level", kind: "string" },
  { variable: "LIQUIDATOR_LOG_PRETTY", key: "log.pretty", kind: "boolean" },
];

const TRUE_WORDS = new Set(["1", "true", "yes"]);
const FALSE_WORDS = new Set(["0", "false", "no"]);

/** `1/true/yes` and `0/false/no`, case-insensitive; undefined for anything else. */
export function parseBooleanWord(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** A decimal TCP port 0..65535; undefined for anything else. */
export function parsePort(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d{1,5}$/.test(t)) return undefined;
  const n = Number(t);
  return n <= 65_535 ? n : undefined;
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
    } else if (kind === "port") {
      value = parsePort(text);
      if (value === undefined) {
        problems.push({ key: variable, problem: `(${key}) must be a port number, an integer 0..65535 (0 = any free port)` });
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
