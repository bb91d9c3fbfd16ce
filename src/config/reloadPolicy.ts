/**
 * SIGHUP: re-read the config file and environment and validate them. Never throws: an invalid
 * config is returned as an error for the caller to log and ignore, keeping the running config.
 * `policy` (its symbol lists included), `unwind`, `protections` and `shadow` are applied live
 * (LIVE_SECTIONS); every key that changed is listed with its old and new value (secrets redacted),
 * marked as applied now or after a restart.
 */
import { ConfigError } from "../errors.js";
import { redactPostgresUrl } from "../redaction.js";
import { configErrorFrom } from "./issues.js";
import { liveLimitProblems } from "./liveLimits.js";
import { type LoadedConfig, loadConfig } from "./loadConfig.js";
import type { Config, PolicyConfig } from "./schema.js";

/** The sections a reload applies to the running daemon; a change elsewhere applies after a restart. */
export const LIVE_SECTIONS = ["policy", "unwind", "protections", "shadow"] as const;

export interface ConfigChange {
  /** Dotted key (`unwind.max_slippage_bps`; a list is one key, compared whole). */
  key: string;
  from: unknown;
  to: unknown;
  /** Whether the running daemon applies it now (a live section) or only after a restart. */
  live: boolean;
}

export type ReloadResult =
  | { ok: true; loaded: LoadedConfig; config: Config; policy: PolicyConfig; changes: ConfigChange[]; needsRestart: string[] }
  | { ok: false; error: ConfigError };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Leaves whose values differ between `a` and `b`, with both values (lists and absent keys compared whole). */
function configChanges(a: unknown, b: unknown, prefix = ""): { key: string; from: unknown; to: unknown }[] {
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => configChanges(a[k], b[k], prefix === "" ? k : `${prefix}.${k}`));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [{ key: prefix, from: a ?? null, to: b ?? null }];
}

/** A connection string's password never reaches a log line. */
function printable(key: string, v: unknown): unknown {
  return key === "state.postgres_url" && typeof v === "string" && v !== "" ? redactPostgresUrl(v) : v;
}

/**
 * @param path the file the daemon started with (LoadedConfig.path); undefined = none
 * @param current the running config (the last one applied), to list what changed
 */
export async function reloadPolicy(path: string | undefined, env: NodeJS.ProcessEnv, current?: Config): Promise<ReloadResult> {
  try {
    // An explicit path wins over LIQUIDATOR_CONFIG inside loadConfig; with none, drop the variable
    // too, so a reload reads what the start read.
    const loaded = await loadConfig(path === undefined ? { env: { ...env, LIQUIDATOR_CONFIG: undefined } } : { path, env });
    // A reload that drops a live limit would fall back to the simulator-sized default: refused like at start.
    const unset = liveLimitProblems(loaded.config, loaded.given ?? new Set());
    if (unset.length > 0) throw configErrorFrom(unset);
    const live = new Set<string>(LIVE_SECTIONS);
    const changes =
      current === undefined
        ? []
        : configChanges(current, loaded.config).map((c) => ({
            key: c.key,
            from: printable(c.key, c.from),
            to: printable(c.key, c.to),
            live: live.has(c.key.split(".")[0] as string),
          }));
    const needsRestart = changes.filter((c) => !c.live).map((c) => c.key);
    return { ok: true, loaded, config: loaded.config, policy: loaded.config.policy, changes, needsRestart };
  } catch (err) {
    const error =
      err instanceof ConfigError
        ? err
        : new ConfigError(path ?? "(config)", `reload failed: ${err instanceof Error ? err.message : String(err)}`);
    return { ok: false, error };
  }
}
