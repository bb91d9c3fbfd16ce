/**
 * Loads the configuration: YAML file (optional), environment variables over it, the secret from
 * the environment, then validation of the whole. Any problem is one ConfigError listing every
 * problem found (exit status 78); nothing here touches the network.
 */
import { readFile, stat } from "node:fs/promises";
import { parseDocument } from "yaml";
import { ConfigError } from "../errors.js";
import { applyEnvOverrides } from "./envOverrides.js";
import { configErrorFrom, type Problem, problemsFromZod } from "./issues.js";
import { givenKeys } from "./liveLimits.js";
import { type Config, configSchema } from "./schema.js";
import { readSecret, type SecretSource } from "./secret.js";
import { type ShadowVariant, shadowVariantsOf } from "./shadowVariants.js";

export interface LoadConfigOptions {
  /** `--config FILE`; falls back to LIQUIDATOR_CONFIG; neither = built-in defaults. */
  path?: string;
  env: NodeJS.ProcessEnv;
}

export interface LoadedConfig {
  config: Config;
  /** The validated secret text (base58 seed, maybe `ed25519:`-prefixed); undefined when not set. */
  secret: string | undefined;
  /** The config file read, or undefined when running on defaults + environment. */
  path: string | undefined;
  /** Where the secret came from (for the redacted report). */
  secretSource?: SecretSource;
  /** The LIQUIDATOR_* variables that overrode config keys. */
  envOverrides?: readonly string[];
  /** Dotted keys set by the file or the environment (the rest are built-in defaults). */
  given?: ReadonlySet<string>;
  /** `shadow.variants`, each with its whole config (shadowVariants.ts). */
  shadows?: readonly ShadowVariant[];
}

// A config file is a few kilobytes; refuse to parse something that obviously is not one.
const MAX_CONFIG_BYTES = 1024 * 1024;

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s === "" ? undefined : s;
}

/** Reads and parses the YAML file. File-level problems are fatal at once: nothing else can be checked. */
export async function readYamlFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new ConfigError(path, "is not a regular file; expected a YAML config file");
    if (info.size > MAX_CONFIG_BYTES) throw new ConfigError(path, `is ${info.size} bytes; a config file is expected to be under 1 MiB`);
    text = await readFile(path, "utf8");
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : code;
    throw new ConfigError(path, `cannot read config file (${why})`);
  }
  const doc = parseDocument(text);
  const [first] = doc.errors;
  if (first !== undefined) {
    // Only the first line of the parser's message: the rest quotes source lines, which could hold
    // anything the operator typed, a misplaced secret included.
    const pos = first.linePos?.[0];
    const where = pos === undefined ? "" : ` at line ${pos.line}, column ${pos.col}`;
    const what =
      first.code === "MULTIPLE_DOCS"
        ? "the file holds more than one YAML document (---); expected exactly one"
        : (first.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
    throw new ConfigError(path, `YAML syntax error${where}: ${what}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new ConfigError(path, `YAML cannot be loaded: ${err instanceof Error ? (err.message.split("\n")[0] ?? "") : "unknown error"}`);
  }
  if (value === null || value === undefined) return {}; // empty or comments only: all defaults
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(path, "the top level must be a mapping of sections (venue, simulator, policy, metrics, state, log, rewards)");
  }
  return value as Record<string, unknown>;
}

function modeOf(raw: Record<string, unknown>): unknown {
  const venue = raw.venue;
  return typeof venue === "object" && venue !== null ? (venue as Record<string, unknown>).mode : undefined;
}

export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const { env } = options;
  const path = nonEmpty(options.path) ?? nonEmpty(env.LIQUIDATOR_CONFIG);
  const fileRaw = path === undefined ? {} : await readYamlFile(path);

  const { raw, fromEnv, problems: envProblems } = applyEnvOverrides(fileRaw, env);
  const parsed = configSchema.safeParse(raw, { reportInput: true });
  const schemaProblems: Problem[] = parsed.success
    ? []
    : problemsFromZod(parsed.error.issues).map((p) => {
        // A bad value that came from the environment is fixed there: name the variable.
        const variable = fromEnv.get(p.key);
        return variable === undefined ? p : { key: variable, problem: `(${p.key}) ${p.problem}` };
      });

  const secret = await readSecret(env);
  const secretProblems = [...secret.problems];
  const live = parsed.success ? parsed.data.venue.mode === "live" : modeOf(raw) === "live";
  if (live && secret.secret === undefined && secretProblems.length === 0) {
    secretProblems.push({
      key: "LIQUIDATOR_SECRET",
      problem: "venue.mode is live and no secret is set; set LIQUIDATOR_SECRET or LIQUIDATOR_SECRET_FILE (the base58 ed25519 seed)",
    });
  }

  const shadows = parsed.success ? shadowVariantsOf(raw, parsed.data) : { variants: [], problems: [] };
  const problems = [...envProblems, ...schemaProblems, ...shadows.problems, ...secretProblems];
  if (problems.length > 0 || !parsed.success) throw configErrorFrom(problems);

  const loaded: LoadedConfig = {
    config: parsed.data,
    secret: secret.secret,
    path,
    envOverrides: [...fromEnv.values()],
    given: givenKeys(raw),
    shadows: shadows.variants,
  };
  if (secret.source !== undefined) loaded.secretSource = secret.source;
  return loaded;
}
