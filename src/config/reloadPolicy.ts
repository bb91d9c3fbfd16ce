/**
 * SIGHUP: re-read the config file and environment and validate them. Never throws: an invalid
 * config is returned as an error for the caller to log and ignore, keeping the running policy.
 * Only `policy`, `protections` and `shadow` are meant to be applied live; keys elsewhere that changed are listed so the caller
 * can log that they need a restart.
 */
import { ConfigError } from "../errors.js";
import { configErrorFrom } from "./issues.js";
import { liveLimitProblems } from "./liveLimits.js";
import { type LoadedConfig, loadConfig } from "./loadConfig.js";
import type { Config, PolicyConfig } from "./schema.js";

export type ReloadResult =
  | { ok: true; loaded: LoadedConfig; config: Config; policy: PolicyConfig; needsRestart: string[] }
  | { ok: false; error: ConfigError };

/** Dotted keys whose values differ between `a` and `b` (leaves only; lists compared whole). */
function changedKeys(a: unknown, b: unknown, prefix = ""): string[] {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => changedKeys(a[k], b[k], prefix === "" ? k : `${prefix}.${k}`));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix];
}

/**
 * @param path the file the daemon started with (LoadedConfig.path); undefined = none
 * @param current the running config, to report non-policy keys that changed
 */
export async function reloadPolicy(path: string | undefined, env: NodeJS.ProcessEnv, current?: Config): Promise<ReloadResult> {
  try {
    // An explicit path wins over LIQUIDATOR_CONFIG inside loadConfig; with none, drop the variable
    // too, so a reload reads what the start read.
    const loaded = await loadConfig(path === undefined ? { env: { ...env, LIQUIDATOR_CONFIG: undefined } } : { path, env });
    // A reload that drops a live limit would fall back to the simulator-sized default: refused like at start.
    const unset = liveLimitProblems(loaded.config, loaded.given ?? new Set());
    if (unset.length > 0) throw configErrorFrom(unset);
    const needsRestart =
      current === undefined
        ? []
        : changedKeys(
            { ...current, policy: null, shadow: null, protections: null },
            { ...loaded.config, policy: null, shadow: null, protections: null },
          );
    return { ok: true, loaded, config: loaded.config, policy: loaded.config.policy, needsRestart };
  } catch (err) {
    const error =
      err instanceof ConfigError
        ? err
        : new ConfigError(path ?? "(config)", `reload failed: ${err instanceof Error ? err.message : String(err)}`);
    return { ok: false, error };
  }
}
